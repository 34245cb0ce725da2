// KFD (ROCm compute) evictions per process, per GPU and per pod: how long each process's queues were stopped
// while its buffers were moved out of VRAM and back, as a rate. One capture gives each process's total since it
// started over its lifetime (/proc/<pid>/stat start time against the node's uptime); two samples give the growth
// between them. Processes are joined to pods through their /proc/<pid>/cgroup, as the fdinfo sweep does.
import type { EvictionCounter } from '../../inspectorPanel/evictionDelta.ts';
import { counterKey, evictedBetween, evictionRate } from '../../inspectorPanel/evictionDelta.ts';
import type { KfdCapture, KfdProcess } from '../../probe/parsers/kfd.ts';
import { parsePodCgroup } from '../../probe/podCgroup.ts';

export interface ProcessEviction {
  readonly pid: number;
  readonly comm: string | undefined;
  readonly podUid: string | undefined;
  readonly gpuId: number;
  readonly gpuName: string | undefined;
  readonly vramBytes: number | undefined;
  /** evicted_ms: the total since the process opened the GPU. */
  readonly evictedMs: number;
  /** What the rate is over: the process's lifetime (one capture) or the time between two samples. */
  readonly window: 'lifetime' | 'samples';
  /** The window's length in seconds, when known. */
  readonly seconds: number | undefined;
  /** ms evicted within the window (the total for a lifetime). */
  readonly windowMs: number | undefined;
  /** ms evicted per second of the window; undefined when the window is not known. */
  readonly ratePerSecond: number | undefined;
  /** Between two samples: the counter restarted (a new start time, or a smaller value). */
  readonly reset: boolean;
}

export interface PodEviction {
  readonly podUid: string;
  readonly processes: number;
  /** Sum of the processes' evicted_ms totals, every GPU. */
  readonly evictedMs: number;
  /** Sum of the processes' rates (undefined when none has one). */
  readonly ratePerSecond: number | undefined;
  readonly vramBytes: number;
  readonly gpus: readonly {
    readonly gpuId: number;
    readonly gpuName: string | undefined;
    readonly evictedMs: number;
    readonly ratePerSecond: number | undefined;
  }[];
}

export interface KfdEvictions {
  readonly present: boolean;
  readonly window: 'lifetime' | 'samples';
  readonly processes: readonly ProcessEviction[];
  readonly pods: readonly PodEviction[];
  readonly clockTicks: number;
  readonly clockTicksRead: boolean;
  readonly problems: readonly string[];
}

function podOf(process: KfdProcess): string | undefined {
  return process.cgroup !== undefined ? parsePodCgroup(process.cgroup)?.podUid : undefined;
}

function gpuNames(kfd: KfdCapture): Map<number, string | undefined> {
  return new Map(kfd.gpus.map((gpu) => [gpu.gpuId, gpu.name]));
}

/** A process younger than this has no lifetime rate: a few ms over a fraction of a second is no rate. */
export const MIN_LIFETIME_SECONDS = 1;

/** One capture: each process's total over its lifetime (uptime − start time). */
export function lifetimeEvictions(kfd: KfdCapture, uptimeSeconds: number | undefined): KfdEvictions {
  const problems = [...kfd.problems];
  const names = gpuNames(kfd);
  const rows: ProcessEviction[] = [];
  for (const process of kfd.processes) {
    let age: number | undefined;
    if (process.startTicks !== undefined && uptimeSeconds !== undefined && Number.isFinite(uptimeSeconds)) {
      const started = process.startTicks / kfd.clockTicks;
      age = uptimeSeconds - started;
      if (!Number.isFinite(age) || age <= 0) {
        problems.push(
          `KFD process ${process.pid}: its start time (${process.startTicks} ticks) is not before the uptime (${uptimeSeconds} s): no rate`,
        );
        age = undefined;
      } else if (age < MIN_LIFETIME_SECONDS) age = undefined;
    }
    for (const gpu of process.gpus) {
      if (gpu.evictedMs === undefined) continue;
      rows.push({
        pid: process.pid,
        comm: process.comm,
        podUid: podOf(process),
        gpuId: gpu.gpuId,
        gpuName: names.get(gpu.gpuId),
        vramBytes: gpu.vramBytes,
        evictedMs: gpu.evictedMs,
        window: 'lifetime',
        seconds: age,
        windowMs: gpu.evictedMs,
        ratePerSecond: age !== undefined ? evictionRate(gpu.evictedMs, age) : undefined,
        reset: false,
      });
    }
  }
  return finish(kfd, 'lifetime', rows, problems);
}

/** The counters of one capture, as the live series and sampleEvictions compare them. */
export function evictionCounters(kfd: KfdCapture): (EvictionCounter & { readonly podUid: string | null })[] {
  const out: (EvictionCounter & { readonly podUid: string | null })[] = [];
  for (const process of kfd.processes)
    for (const gpu of process.gpus)
      if (gpu.evictedMs !== undefined)
        out.push({
          pid: process.pid,
          gpuId: gpu.gpuId,
          startTicks: process.startTicks ?? null,
          evictedMs: gpu.evictedMs,
          podUid: podOf(process) ?? null,
        });
  return out;
}

/** Two samples `seconds` apart: each counter's growth in between (restarts reset, new processes have no rate). */
export function sampleEvictions(before: KfdCapture, after: KfdCapture, seconds: number): KfdEvictions {
  const problems = [...after.problems];
  const names = gpuNames(after);
  const previous = new Map(evictionCounters(before).map((counter) => [counterKey(counter), counter]));
  const comms = new Map(after.processes.map((process) => [process.pid, process]));
  const rows: ProcessEviction[] = [];
  for (const counter of evictionCounters(after)) {
    const process = comms.get(counter.pid);
    const grown = evictedBetween(previous.get(counterKey(counter)), counter);
    const valid = Number.isFinite(seconds) && seconds > 0;
    rows.push({
      pid: counter.pid,
      comm: process?.comm,
      podUid: counter.podUid ?? undefined,
      gpuId: counter.gpuId,
      gpuName: names.get(counter.gpuId),
      vramBytes: process?.gpus.find((gpu) => gpu.gpuId === counter.gpuId)?.vramBytes,
      evictedMs: counter.evictedMs,
      window: 'samples',
      seconds: valid ? seconds : undefined,
      windowMs: grown?.ms,
      ratePerSecond: grown && valid ? evictionRate(grown.ms, seconds) : undefined,
      reset: grown?.reset ?? false,
    });
  }
  if (!(Number.isFinite(seconds) && seconds > 0)) problems.push(`the two samples are ${seconds} s apart: no rate`);
  return finish(after, 'samples', rows, problems);
}

function finish(kfd: KfdCapture, window: 'lifetime' | 'samples', rows: ProcessEviction[], problems: string[]): KfdEvictions {
  const pods = new Map<
    string,
    {
      processes: Set<number>;
      evictedMs: number;
      rate: number | undefined;
      vram: number;
      gpus: Map<number, { gpuName: string | undefined; evictedMs: number; rate: number | undefined }>;
    }
  >();
  for (const row of rows) {
    if (row.podUid === undefined) continue;
    const pod = pods.get(row.podUid) ?? { processes: new Set(), evictedMs: 0, rate: undefined, vram: 0, gpus: new Map() };
    pod.processes.add(row.pid);
    pod.evictedMs += row.evictedMs;
    pod.vram += row.vramBytes ?? 0;
    if (row.ratePerSecond !== undefined) pod.rate = (pod.rate ?? 0) + row.ratePerSecond;
    const gpu = pod.gpus.get(row.gpuId) ?? { gpuName: row.gpuName, evictedMs: 0, rate: undefined };
    gpu.evictedMs += row.evictedMs;
    if (row.ratePerSecond !== undefined) gpu.rate = (gpu.rate ?? 0) + row.ratePerSecond;
    pod.gpus.set(row.gpuId, gpu);
    pods.set(row.podUid, pod);
  }
  return {
    present: kfd.present,
    window,
    processes: rows,
    pods: [...pods]
      .map(([podUid, pod]) => ({
        podUid,
        processes: pod.processes.size,
        evictedMs: pod.evictedMs,
        ratePerSecond: pod.rate,
        vramBytes: pod.vram,
        gpus: [...pod.gpus]
          .sort(([a], [b]) => a - b)
          .map(([gpuId, gpu]) => ({ gpuId, gpuName: gpu.gpuName, evictedMs: gpu.evictedMs, ratePerSecond: gpu.rate })),
      }))
      .sort((a, b) => b.evictedMs - a.evictedMs || a.podUid.localeCompare(b.podUid)),
    clockTicks: kfd.clockTicks,
    clockTicksRead: kfd.clockTicksRead,
    problems,
  };
}

/** A duration in ms for evidence and tables: `820 ms`, `12.4 s`, `3 h 05 min`. */
export function formatEvictedMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 600) return `${s.toFixed(1)} s`;
  const minutes = Math.round(s / 60);
  return minutes < 120 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** A rate in ms per second, for evidence and tables. */
export function formatRate(rate: number | undefined): string {
  if (rate === undefined) return '—';
  return `${rate < 10 ? rate.toFixed(2) : rate.toFixed(1)} ms/s`;
}
