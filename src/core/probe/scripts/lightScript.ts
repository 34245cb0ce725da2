// The light node probe of the inspector's live sampling: only what the time series needs, re-run every few
// seconds on the connection the inspection already has open (one `sh -s` exec per sample):
//   meta             the target's clock (`date +%s`);
//   proc             /proc/meminfo (MemAvailable, MemTotal, GPUActive);
//   cgroup.kubepods  memory.current (v1: memory.usage_in_bytes) of the kubepods QoS and pod levels;
//   fdinfo           the DRM fdinfo sweep, the very block of the full node probe (GTT per process → pod).
// Same capture format, same prelude, same header (scope node), so parseCapture and buildNodeModel read it;
// read-only and bounded like the full probe.
import { PROBE_FORMAT_VERSION } from '../script.ts';
import { NODE_BODY } from './nodeScript.ts';
import { PRELUDE } from './prelude.ts';

/** The full probe's fdinfo sweep, taken from NODE_BODY so the two can never drift apart. */
function fdinfoSweep(): string {
  const start = NODE_BODY.indexOf('begin fdinfo\n');
  const endMarker = 'finish fdinfo\n';
  const end = NODE_BODY.indexOf(endMarker, start);
  if (start < 0 || end < 0) throw new Error('the node probe has no fdinfo block');
  return NODE_BODY.slice(start, end + endMarker.length);
}

export const LIGHT_BODY = String.raw`
begin meta
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
` + fdinfoSweep();

const NONCE = /^[0-9a-f]{16,64}$/;
/** As the full probe (script.ts): absolute, no `.` or `..` segments, a safe alphabet. */
const HOST_ROOT = /^(\/(?!\.\.?(?:\/|$))[A-Za-z0-9._-]+)*$/;

export interface LightProbeOptions {
  readonly nonce: string;
  /** Where the host's root is mounted: '' on the host, '/host' in a node debug pod (the inspection's capture root). */
  readonly hostRoot?: string;
}

export function buildLightProbeScript(options: LightProbeOptions): string {
  if (!NONCE.test(options.nonce)) throw new Error('probe nonce must be 16–64 lowercase hex characters');
  const root = options.hostRoot ?? '';
  if (!HOST_ROOT.test(root)) throw new Error(`host root "${root}" must be an absolute path of letters, digits, '.', '_' and '-', without . or .. segments`);
  return [
    '#!/bin/sh',
    `# gpumem light probe v${PROBE_FORMAT_VERSION} (live sampling), scope node: meminfo, kubepods memory.current, DRM fdinfo; read-only.`,
    `GPUMEM_NONCE='${options.nonce}'`,
    `GPUMEM_ROOT='${root}'`,
    PRELUDE.trim(),
    `printf '@@gpumem-probe v=${PROBE_FORMAT_VERSION} scope=node nonce=%s root=%s@@\\n' "$N" "$R"`,
    LIGHT_BODY.trim(),
    'mark done',
    '',
  ].join('\n');
}
