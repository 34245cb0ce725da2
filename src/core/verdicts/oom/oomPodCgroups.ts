// The OOM explanation's view of the node probe's memory cgroups: per pod, the counters that tell a pod that hit
// its own limit (memory.events max/oom) from one whose processes died in a global OOM (oom_kill only).
import type { CgroupLimit } from '../../probe/parsers/cgroupMemory.ts';
import { parseCgroupValue, parseMemoryCounters, parseMemoryUsage, v1Limit } from '../../probe/parsers/cgroupMemory.ts';
import { parsePodCgroup } from '../../probe/podCgroup.ts';

/** One pod's memory cgroup, as read by the node probe. */
export interface PodCgroupData {
  readonly podUid: string;
  /** The cgroup directory the values came from. */
  readonly path?: string;
  /** `memory.events` (v2) counters; on cgroup v1, `oom_kill` from `memory.oom_control` and `max` from `memory.failcnt`. */
  readonly memoryEvents?: Readonly<Record<string, number>>;
  /** Bytes. */
  readonly memoryCurrent?: number;
  /** memory.max (v1: memory.limit_in_bytes). */
  readonly memoryMax?: CgroupLimit;
  readonly memoryPeak?: number;
  readonly cgroupVersion?: 1 | 2;
  /** GTT bytes attributed to the pod's processes (DRM fdinfo), when another analysis joined them in. */
  readonly gttBytes?: number;
}

interface MutablePod {
  podUid: string;
  path?: string;
  memoryEvents?: Record<string, number>;
  memoryCurrent?: number;
  memoryMax?: CgroupLimit;
  memoryPeak?: number;
  cgroupVersion?: 1 | 2;
}

/**
 * Per-pod cgroup data from the node probe's `cgroup.kubepods` file records (path → content, as
 * `sectionFiles(capture, 'cgroup.kubepods')` returns them). Pod-level directories win; a pod seen only
 * through its containers gets their counters summed.
 */
export function podCgroupDataFromFiles(files: ReadonlyMap<string, string>): PodCgroupData[] {
  const podLevel = new Map<string, MutablePod>();
  const containerLevel = new Map<string, MutablePod>();
  for (const [filePath, content] of files) {
    const slash = filePath.lastIndexOf('/');
    if (slash <= 0) continue;
    const dir = filePath.slice(0, slash);
    const name = filePath.slice(slash + 1);
    const pod = parsePodCgroup(dir);
    if (!pod) continue;
    const table = pod.containerId === undefined ? podLevel : containerLevel;
    const key = pod.containerId === undefined ? pod.podUid : `${pod.podUid}/${pod.containerId}`;
    let entry = table.get(key);
    if (!entry) {
      entry = { podUid: pod.podUid, path: dir };
      table.set(key, entry);
    }
    switch (name) {
      case 'memory.events':
        entry.memoryEvents = { ...entry.memoryEvents, ...Object.fromEntries(parseMemoryCounters(content)) };
        entry.cgroupVersion = 2;
        break;
      case 'memory.current':
        entry.memoryCurrent = parseMemoryUsage(content);
        entry.cgroupVersion = 2;
        break;
      case 'memory.max':
        entry.memoryMax = parseCgroupValue(content);
        entry.cgroupVersion = 2;
        break;
      case 'memory.peak':
        entry.memoryPeak = parseMemoryUsage(content);
        break;
      case 'memory.usage_in_bytes':
        entry.memoryCurrent ??= parseMemoryUsage(content);
        entry.cgroupVersion ??= 1;
        break;
      case 'memory.limit_in_bytes': {
        // v1 prints "no limit" as PAGE_COUNTER_MAX × PAGE_SIZE: v1Limit reads the sentinels as max.
        entry.memoryMax ??= v1Limit(content);
        entry.cgroupVersion ??= 1;
        break;
      }
      case 'memory.max_usage_in_bytes':
        entry.memoryPeak ??= parseMemoryUsage(content);
        break;
      case 'memory.oom_control': {
        const oomKill = parseMemoryCounters(content).get('oom_kill');
        if (oomKill !== undefined) entry.memoryEvents = { ...entry.memoryEvents, oom_kill: oomKill };
        entry.cgroupVersion ??= 1;
        break;
      }
      case 'memory.failcnt': {
        const failcnt = parseMemoryUsage(content);
        if (failcnt !== undefined && entry.memoryEvents?.max === undefined) entry.memoryEvents = { ...entry.memoryEvents, max: failcnt };
        entry.cgroupVersion ??= 1;
        break;
      }
      default:
        break;
    }
  }
  const result = new Map<string, MutablePod>(podLevel);
  for (const container of containerLevel.values()) {
    if (podLevel.has(container.podUid)) continue;
    const existing = result.get(container.podUid);
    if (!existing) {
      result.set(container.podUid, {
        ...container,
        path: container.path,
        memoryEvents: container.memoryEvents ? { ...container.memoryEvents } : undefined,
      });
      continue;
    }
    if (container.memoryEvents) {
      const sum: Record<string, number> = { ...existing.memoryEvents };
      for (const [key, value] of Object.entries(container.memoryEvents)) sum[key] = (sum[key] ?? 0) + value;
      existing.memoryEvents = sum;
    }
    if (container.memoryCurrent !== undefined) existing.memoryCurrent = (existing.memoryCurrent ?? 0) + container.memoryCurrent;
  }
  return [...result.values()];
}
