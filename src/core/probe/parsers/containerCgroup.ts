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

/** Where one cgroup version keeps the container's memory files; the rest of the reading is the same for both. */
interface CgroupLayout {
  readonly version: 'v1' | 'v2';
  /** Files only this version has: one of them present means the capture is from it. */
  readonly markers: readonly string[];
  readonly current: string;
  readonly limit: string;
  /** v1 prints "no limit" as a page-counter sentinel, v2 as `max`. */
  readonly readLimit: (text: string | undefined, sink: NumberProblems) => CgroupLimit | undefined;
  readonly peak: string;
  readonly stat: string;
  /** memory.events (v2 only). */
  readonly events: string | undefined;
  /** memory.oom_control (v1 only). */
  readonly oomControl: string | undefined;
}

const V2 = '/sys/fs/cgroup';
const V1 = '/sys/fs/cgroup/memory';

// v2 first: when a capture has files of both versions, v2's decide.
const LAYOUTS: readonly CgroupLayout[] = [
  {
    version: 'v2',
    markers: [`${V2}/memory.current`, `${V2}/cgroup.controllers`],
    current: `${V2}/memory.current`,
    limit: `${V2}/memory.max`,
    readLimit: (text, sink) => parseCgroupValue(text, sink),
    peak: `${V2}/memory.peak`,
    stat: `${V2}/memory.stat`,
    events: `${V2}/memory.events`,
    oomControl: undefined,
  },
  {
    version: 'v1',
    markers: [`${V1}/memory.usage_in_bytes`],
    current: `${V1}/memory.usage_in_bytes`,
    limit: `${V1}/memory.limit_in_bytes`,
    readLimit: (text, sink) => v1Limit(text, sink),
    peak: `${V1}/memory.max_usage_in_bytes`,
    stat: `${V1}/memory.stat`,
    events: undefined,
    oomControl: `${V1}/memory.oom_control`,
  },
];

/** The cgroup path from /proc/self/cgroup: v2's `0::<path>` line, else the v1 line whose controllers include memory. */
function cgroupPath(procCgroup: readonly string[], version: CgroupLayout['version'] | undefined): string | undefined {
  return version === 'v2'
    ? procCgroup.find((line) => line.startsWith('0::'))?.slice(3)
    : procCgroup.find((line) => /^\d+:[^:]*\bmemory\b[^:]*:/.test(line))?.replace(/^\d+:[^:]*:/, '');
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
  const counters = (file: string | undefined): Record<string, number> =>
    file === undefined ? {} : Object.fromEntries(parseMemoryCounters(files.get(file), sink(file)));
  const layout = LAYOUTS.find((candidate) => candidate.markers.some((marker) => files.has(marker)));
  const path = cgroupPath(lines(files.get('/proc/self/cgroup')), layout?.version);
  if (!layout) {
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
  const memory: ContainerCgroupMemory = {
    version: layout.version,
    path,
    currentBytes: usage(layout.current),
    max: layout.readLimit(single(layout.limit), sink(layout.limit)),
    peakBytes: usage(layout.peak),
    events: counters(layout.events),
    stat: Object.fromEntries(parseMemoryStat(files.get(layout.stat), sink(layout.stat))),
    oomControl: counters(layout.oomControl),
    lines: evidence,
  };
  for (const problem of numberProblems) problems.push(describeNumberProblem(problem));
  return memory;
}
