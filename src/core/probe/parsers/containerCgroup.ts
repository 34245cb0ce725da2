// The container's own memory cgroup (cgroup v2 at /sys/fs/cgroup, v1 at /sys/fs/cgroup/memory), read through the
// one memory-cgroup reader (cgroupMemory.ts), with each value's file kept as evidence.
import type { CaptureSection } from '../capture.ts';
import type { CgroupLimit } from './cgroupMemory.ts';
import { parseCgroupValue, parseMemoryCounters, parseMemoryStat, parseMemoryUsage, v1Limit } from './cgroupMemory.ts';
import { lines } from './captureLines.ts';
import type { NumberProblem, NumberProblems } from './kernelNumber.ts';
import { describeNumberProblem } from './kernelNumber.ts';

export interface ContainerCgroupMemory {
  readonly version: 'v1' | 'v2' | 'unknown';
  readonly path: string | undefined;
  readonly currentBytes: number | undefined;
  /** memory.max (v1: memory.limit_in_bytes); undefined when unknown. */
  readonly max: CgroupLimit | undefined;
  readonly peakBytes: number | undefined;
  readonly events: Readonly<Record<string, number>>;
  readonly stat: Readonly<Record<string, number>>;
  readonly oomControl: Readonly<Record<string, number>>;
  /** Verbatim `path: content` evidence lines. */
  readonly lines: readonly string[];
}

export function parseContainerCgroup(section: CaptureSection | undefined, problems: string[]): ContainerCgroupMemory | undefined {
  if (!section) return undefined;
  // Numbers out of range are left out and named (file and field), never passed on as Infinity.
  const numberProblems: NumberProblem[] = [];
  const sink = (file: string): NumberProblems => ({ file, problems: numberProblems });
  const files = new Map<string, string>();
  for (const record of section.records) if (record.path !== undefined) files.set(record.path, record.body);
  const evidence: string[] = [];
  const single = (path: string): string | undefined => {
    const text = files.get(path);
    if (text === undefined) return undefined;
    const value = text.trim().split('\n')[0]?.trim();
    evidence.push(`${path}: ${value ?? ''}`);
    return value;
  };
  const usage = (file: string): number | undefined => parseMemoryUsage(single(file), sink(file));
  const counters = (file: string): Record<string, number> => Object.fromEntries(parseMemoryCounters(files.get(file), sink(file)));
  const report = <T>(result: T): T => {
    for (const problem of numberProblems) problems.push(describeNumberProblem(problem));
    return result;
  };
  const v2 = files.has('/sys/fs/cgroup/memory.current') || files.has('/sys/fs/cgroup/cgroup.controllers');
  const v1 = files.has('/sys/fs/cgroup/memory/memory.usage_in_bytes');
  const procCgroup = lines(files.get('/proc/self/cgroup'));
  const path = v2
    ? procCgroup.find((line) => line.startsWith('0::'))?.slice(3)
    : procCgroup.find((line) => /^\d+:[^:]*\bmemory\b[^:]*:/.test(line))?.replace(/^\d+:[^:]*:/, '');
  if (v2) {
    const maxFile = '/sys/fs/cgroup/memory.max';
    return report({
      version: 'v2',
      path,
      currentBytes: usage('/sys/fs/cgroup/memory.current'),
      max: parseCgroupValue(single(maxFile), sink(maxFile)),
      peakBytes: usage('/sys/fs/cgroup/memory.peak'),
      events: counters('/sys/fs/cgroup/memory.events'),
      stat: Object.fromEntries(parseMemoryStat(files.get('/sys/fs/cgroup/memory.stat'), sink('/sys/fs/cgroup/memory.stat'))),
      oomControl: {},
      lines: evidence,
    });
  }
  if (v1) {
    const limitFile = '/sys/fs/cgroup/memory/memory.limit_in_bytes';
    return report({
      version: 'v1',
      path,
      currentBytes: usage('/sys/fs/cgroup/memory/memory.usage_in_bytes'),
      max: v1Limit(single(limitFile), sink(limitFile)),
      peakBytes: usage('/sys/fs/cgroup/memory/memory.max_usage_in_bytes'),
      events: {},
      stat: Object.fromEntries(parseMemoryStat(files.get('/sys/fs/cgroup/memory/memory.stat'), sink('/sys/fs/cgroup/memory/memory.stat'))),
      oomControl: counters('/sys/fs/cgroup/memory/memory.oom_control'),
      lines: evidence,
    });
  }
  return {
    version: 'unknown',
    path,
    currentBytes: undefined,
    max: undefined,
    peakBytes: undefined,
    events: {},
    stat: {},
    oomControl: {},
    lines: evidence,
  };
}
