// The dmem cgroup controller's files (Linux 6.14+, Documentation/admin-guide/cgroup-v2.rst "DMEM"): dmem.capacity,
// dmem.current, dmem.peak, dmem.min, dmem.low, dmem.max, one `<region> <bytes|max>` line per region. A value is a
// CgroupLimit, the same "bytes or max" as memory.max.
import type { NumberProblems } from './kernelNumber.ts';
import { parseKernelNumber } from './kernelNumber.ts';
import type { CgroupLimit } from './cgroupMemory.ts';
import { cgroupLimitOf } from './cgroupMemory.ts';

/** dmem files: one `<region> <bytes|max>` line per region, e.g. `drm/0000:c5:00.0/vram 8589934592`. */
export function parseDmem(text: string | undefined, sink?: NumberProblems): Map<string, CgroupLimit> {
  const out = new Map<string, CgroupLimit>();
  for (const line of (text ?? '').split('\n')) {
    const match = /^(\S+)[ \t]+([^\n]*)$/.exec(line.trim());
    if (!match?.[1] || match[2] === undefined) continue;
    const limit = cgroupLimitOf(parseKernelNumber(match[2], { file: sink?.file ?? '', field: match[1] }, { allowMax: true }), sink);
    if (limit) out.set(match[1], limit);
  }
  return out;
}
