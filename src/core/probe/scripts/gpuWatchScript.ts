// The agent's GPU watch: the cheapest look that moves whenever a pod's GPU memory does. Every card's GTT and VRAM in
// use (two sysfs files a card) and, where nvidia-smi is, each GPU's memory.used (on a unified-memory GPU such as GB10,
// which prints it as [N/A], the node's RAM in use from /proc/meminfo stands in): a handful of reads, where a light
// sweep of every DRM fd's fdinfo costs as much as the fds a node holds. When the level rises, the agent runs the light
// sweep (lightScript.ts) to say which pod took it (src/core/agent/gpuWatch.ts decides). Read-only, bounded output.
import { assembleProbeScript, PROBE_FORMAT_VERSION } from '../script.ts';

export const GPU_WATCH_BODY = String.raw`begin meta
printf 'now=%s\n' "$(date +%s 2>/dev/null)"
finish meta
files proc "$R/proc/meminfo"
files drm "$R"/sys/class/drm/card*/device/mem_info_gtt_used "$R"/sys/class/drm/card*/device/mem_info_vram_used
if command -v nvidia-smi >/dev/null 2>&1; then
  begin nvidia-smi.watch
  { $T nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits 2>&1; } | head -c 65536
  finish nvidia-smi.watch
fi`;

export function buildGpuWatchScript(options: { readonly nonce: string; readonly hostRoot?: string }): string {
  return assembleProbeScript({
    nonce: options.nonce,
    hostRoot: options.hostRoot ?? '',
    scope: 'node',
    comment: `# gpumem GPU watch v${PROBE_FORMAT_VERSION}, scope node: each card's GTT and VRAM in use, nvidia-smi memory.used, meminfo; read-only.`,
    body: GPU_WATCH_BODY,
  });
}
