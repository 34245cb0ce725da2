// Time series as the right-sizer reads them: the samples of one pod's gauge or counter, in time order. The true
// footprint is joined at each sample (cgroup + GPU memory in system RAM at the same instant), never the sum of two
// separate maxima, which would add a cgroup peak and a GPU peak that were never held together.

/** One sample: Unix time in seconds and the value. */
export interface Sample {
  readonly t: number;
  readonly v: number;
}

/** The series of one pod (or one container of it) that the recommendation reads. */
export interface PodSeries {
  readonly pod: string;
  /** The container's memory as its limit sees it: the working set (usage less inactive file cache). */
  readonly cgroup: readonly Sample[];
  /** GPU memory in system RAM that no cgroup counts (GTT; unified-memory NVIDIA); empty when the pod has none. */
  readonly gpuInRam: readonly Sample[];
  /** VRAM the pod holds on discrete GPUs; shown, not added to the footprint (it is not system RAM). */
  readonly vram: readonly Sample[];
}

export interface Peak {
  readonly bytes: number;
  /** Unix seconds; undefined where only the peak is known (a max_over_time answer). */
  readonly at: number | undefined;
  readonly pod: string;
}

/** Only finite, non-negative values count; a NaN or a negative byte count is a broken sample, not a peak. */
function usable(sample: Sample): boolean {
  return Number.isFinite(sample.t) && Number.isFinite(sample.v) && sample.v >= 0;
}

/** The largest value of one kind of series over all pods; undefined when no pod has a usable sample. */
export function peakOf(pods: readonly PodSeries[], pick: (pod: PodSeries) => readonly Sample[]): Peak | undefined {
  let best: Peak | undefined;
  for (const pod of pods) {
    for (const sample of pick(pod)) {
      if (usable(sample) && (!best || sample.v > best.bytes)) best = { bytes: sample.v, at: sample.t, pod: pod.pod };
    }
  }
  return best;
}

/**
 * The peak true footprint: the maximum over pods and over time of cgroup + GPU-in-RAM at the same sample time. A
 * cgroup sample with no GPU sample at that time counts the GPU part as 0 only when the pod has no GPU series at
 * all; otherwise the sample is skipped (a missing GPU value is unknown, not zero).
 */
export function trueFootprintPeak(pods: readonly PodSeries[]): Peak | undefined {
  let best: Peak | undefined;
  for (const pod of pods) {
    const gpuAt = new Map<number, number>();
    for (const sample of pod.gpuInRam) if (usable(sample)) gpuAt.set(sample.t, sample.v);
    const hasGpu = gpuAt.size > 0;
    for (const sample of pod.cgroup) {
      if (!usable(sample)) continue;
      const gpu = hasGpu ? gpuAt.get(sample.t) : 0;
      if (gpu === undefined) continue;
      const total = sample.v + gpu;
      if (!best || total > best.bytes) best = { bytes: total, at: sample.t, pod: pod.pod };
    }
  }
  return best;
}

export interface Coverage {
  /** Usable cgroup samples over all pods. */
  readonly samples: number;
  /** Hours between the first and the last usable cgroup sample of any pod. */
  readonly hours: number;
  /** Samples that were dropped: not a number, negative, or a cgroup sample with no GPU value beside it. */
  readonly dropped: number;
}

export function coverageOf(pods: readonly PodSeries[]): Coverage {
  let samples = 0;
  let dropped = 0;
  let first = Infinity;
  let last = -Infinity;
  for (const pod of pods) {
    const gpuTimes = new Set<number>();
    for (const sample of pod.gpuInRam) if (usable(sample)) gpuTimes.add(sample.t);
    for (const sample of pod.cgroup) {
      if (!usable(sample) || (gpuTimes.size > 0 && !gpuTimes.has(sample.t))) {
        dropped++;
        continue;
      }
      samples++;
      first = Math.min(first, sample.t);
      last = Math.max(last, sample.t);
    }
  }
  return { samples, hours: samples > 0 ? (last - first) / 3600 : 0, dropped };
}

/**
 * How much a counter grew over its samples, counting a reset (a restarted agent starts again from 0) as growth
 * from 0, as Prometheus's increase() does, but without extrapolation: kills are whole events.
 * `bornInWindow`: the series was created inside the window (the agent serves every pod's counters at 0 from its
 * start, so this is for a series first seen above 0), and its first value counts too.
 */
export function counterIncrease(samples: readonly Sample[], bornInWindow = false): number {
  let total = 0;
  let previous: number | undefined;
  for (const sample of samples) {
    if (!usable(sample)) continue;
    if (previous === undefined) {
      if (bornInWindow) total += sample.v;
    } else {
      total += sample.v >= previous ? sample.v - previous : sample.v;
    }
    previous = sample.v;
  }
  return total;
}
