// The memory cgroup's files, cgroup v2 and v1, read one way for every caller (node model, container probe, OOM
// context). Every number goes through the bounded parser (kernelNumber.ts); "no limit" has ONE representation,
// `{ kind: 'max' }`, whether the kernel printed v2's `max` or v1's PAGE_COUNTER_MAX × PAGE_SIZE sentinel.
//
// Formats (Documentation/admin-guide/cgroup-v2.rst "Memory Interface Files",
// Documentation/admin-guide/cgroup-v1/memory.rst):
//   - v2 memory.max: bytes or `max`; memory.current, memory.peak: bytes.
//   - v2 memory.events: `key count` lines (low, high, max, oom, oom_kill, oom_group_kill, …).
//   - memory.stat (v1 and v2): `key value` lines; v1 prints hierarchical_memory_limit as the "no limit" sentinel.
//   - v1 memory.limit_in_bytes: bytes, "no limit" as a sentinel; memory.usage_in_bytes, max_usage_in_bytes: bytes;
//     memory.oom_control: `oom_kill_disable 0`, `under_oom 0`, `oom_kill N`; memory.failcnt: a count.
import type { KernelNumber, NumberProblems } from './kernelNumber.ts';
import { parseKernelNumber } from './kernelNumber.ts';
import { parseKeyNumber } from './keyValue.ts';

/** A cgroup limit: a byte count, or no limit (`max` on v2, the sentinels on v1). */
export type CgroupLimit = { readonly kind: 'bytes'; readonly bytes: number } | { readonly kind: 'max' };

/** A cgroup v2 single-value file (memory.max, dmem values): bytes, or `max`; undefined when empty or out of format. */
export function parseCgroupValue(text: string | undefined, sink?: NumberProblems, field = fieldOf(sink)): CgroupLimit | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  return cgroupLimitOf(parseKernelNumber(text, { file: sink?.file ?? '', field }, { allowMax: true }), sink);
}

/**
 * cgroup v1 reports "no limit" as PAGE_COUNTER_MAX × PAGE_SIZE (and clamps larger writes to it), see
 * kernelNumber.ts; those sentinels read as `max`.
 */
export function v1Limit(text: string | undefined, sink?: NumberProblems, field = fieldOf(sink)): CgroupLimit | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  return cgroupLimitOf(parseKernelNumber(text, { file: sink?.file ?? '', field }, { allowSentinels: true, allowMax: true }), sink);
}

/**
 * A usage counter (memory.current, memory.peak, v1 usage_in_bytes, max_usage_in_bytes, failcnt): bytes. It is never "max": `max` there is
 * no value.
 */
export function parseMemoryUsage(text: string | undefined, sink?: NumberProblems, field = fieldOf(sink)): number | undefined {
  const parsed = parseCgroupValue(text, sink, field);
  return parsed?.kind === 'bytes' ? parsed.bytes : undefined;
}

/** `memory.events` (v2) or `memory.oom_control` (v1): counters. Unknown keys are kept; malformed or out-of-range lines are skipped. */
export function parseMemoryCounters(text: string | undefined, sink?: NumberProblems): Map<string, number> {
  return parseKeyNumber(typeof text === 'string' ? text : '', sink);
}

/** `memory.stat`: v1's hierarchical_memory_limit is the "no limit" sentinel, left out rather than reported. */
export function parseMemoryStat(text: string | undefined, sink?: NumberProblems): Map<string, number> {
  return parseKeyNumber(typeof text === 'string' ? text : '', sink, { allowSentinels: true });
}

/** A parsed number as a limit; a problem goes to the sink and gives no value. */
export function cgroupLimitOf(parsed: KernelNumber, sink: NumberProblems | undefined): CgroupLimit | undefined {
  if (parsed.kind === 'value') return { kind: 'bytes', bytes: parsed.value };
  if (parsed.kind === 'unlimited') return { kind: 'max' };
  sink?.problems.push(parsed.problem);
  return undefined;
}

function fieldOf(sink: NumberProblems | undefined): string {
  const file = sink?.file ?? '';
  return file.slice(file.lastIndexOf('/') + 1);
}
