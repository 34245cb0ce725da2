// /proc/meminfo and the per-node /sys/devices/system/node/node<N>/meminfo (Documentation/filesystems/proc.rst
// "meminfo"): `Key:   123 kB` lines, kibibytes; a few counters (HugePages_*) have no unit. Linux 7.1 adds
// GPUActive and GPUReclaim (see verdicts/memory/gpuReclaim.ts).
import type { NumberProblems } from './kernelNumber.ts';
import { kernelValue } from './kernelNumber.ts';

/** `/proc/meminfo` and per-node meminfo: `Key:   123 kB` → bytes (values without a unit stay as numbers). */
export function parseMeminfo(text: string, sink?: NumberProblems): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    // Per-node files prefix "Node 0 ".
    const match = /^(?:Node \d+ )?([A-Za-z0-9_()]+):([^\n]*)$/.exec(line);
    if (!match?.[1] || match[2] === undefined) continue;
    // `firstToken`: text after the value (`1940064 kB <---- ~2 GB`, as people annotate pasted files) is not the value.
    const value = kernelValue(match[2], match[1], sink, { units: MEMINFO_UNITS, firstToken: true, noteOnly: true });
    if (value !== undefined) out.set(match[1], value);
  }
  return out;
}

const MEMINFO_UNITS = { kB: 1024 } as const;
