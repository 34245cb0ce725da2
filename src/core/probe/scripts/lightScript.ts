// The light node probe of the inspector's live sampling: only what the time series needs, re-run every few
// seconds on the connection the inspection already has open (one `sh -s` exec per sample):
//   meta             the target's clock (`date +%s`);
//   proc             /proc/meminfo (MemAvailable, MemTotal, GPUActive);
//   cgroup.kubepods  memory.current (v1: memory.usage_in_bytes) of the kubepods QoS and pod levels;
//   fdinfo           the DRM fdinfo sweep, the very block of the full node probe (GTT per process → pod);
//   kfd              the full probe's KFD block: each process's evicted_ms, start time and cgroup, for the
//                    "evicted ms/s" series (the growth between two samples);
//   nvidia-smi.*     the full probe's NVIDIA block (the two CSV queries, each compute app's cgroup, and the
//                    table only when a query failed or MIG is on): VRAM per process → pod. Without nvidia-smi
//                    it is one `command -v` and a "missing" marker.
// Same capture format, same prelude, same header (scope node), so parseCapture and buildNodeModel read it;
// read-only and bounded like the full probe.
import { assembleProbeScript, PROBE_FORMAT_VERSION } from '../script.ts';
import { NVIDIA_SMI_BLOCKS } from './nodeNvidiaScript.ts';
import { FDINFO_BLOCK, KFD_BLOCK, NODE_HELPERS } from './nodeScript.ts';

// The blocks it shares with the full probe are the same constants, so the two never drift apart.
export const LIGHT_BODY =
  NODE_HELPERS +
  String.raw`begin meta
printf 'now=%s\n' "$(date +%s 2>/dev/null)"
finish meta
files proc "$R/proc/meminfo"
CG="$R/sys/fs/cgroup"
begin cgroup.kubepods
_count=0
for _base in "$CG"/kubepods* "$CG"/memory/kubepods*; do
  [ -d "$_base" ] || continue
  for _d in "$_base" "$_base"/* "$_base"/*/*; do
    [ -d "$_d" ] || continue
    _count=$((_count + 1))
    [ "$_count" -le 2000 ] || break 2
    onefile "$_d/memory.current"
    [ -f "$_d/memory.current" ] || onefile "$_d/memory.usage_in_bytes"
  done
done
finish cgroup.kubepods
` +
  FDINFO_BLOCK +
  '\n' +
  KFD_BLOCK +
  '\n' +
  NVIDIA_SMI_BLOCKS;

export interface LightProbeOptions {
  readonly nonce: string;
  /** Where the host's root is mounted: '' on the host, '/host' in a node debug pod (the inspection's capture root). */
  readonly hostRoot?: string;
}

export function buildLightProbeScript(options: LightProbeOptions): string {
  return assembleProbeScript({
    nonce: options.nonce,
    hostRoot: options.hostRoot ?? '',
    scope: 'node',
    comment: `# gpumem light probe v${PROBE_FORMAT_VERSION} (live sampling), scope node: meminfo, kubepods memory.current, DRM fdinfo, KFD evictions, nvidia-smi; read-only.`,
    body: LIGHT_BODY,
  });
}
