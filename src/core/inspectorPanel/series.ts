// The live time series of the inspector: sample points, the bounded history, and the four lines of the
// live chart (and the KFD eviction rate on its own axis). Pure and dependency-free, so the webview bundle takes it
// without the capture parsers
// (src/core/inspectorPanel/sample.ts turns a light-probe capture into a point).
/** Points kept: 10 minutes at one sample every 2 s. */
export const MAX_SAMPLES = 300;

export interface PodSample {
  readonly podUid: string;
  /** memory.current (v1: usage_in_bytes); null when the file was not readable. */
  readonly current: number | null;
  /** GTT its processes hold (DRM fdinfo), counted once per DRM client. */
  readonly gtt: number;
  /** VRAM its processes hold: DRM fdinfo's drm-memory-vram, and nvidia-smi's used_memory on a discrete NVIDIA GPU. */
  readonly vram: number;
  /** ms its KFD processes were evicted per second since the previous sample; null on the first sample or without KFD. */
  readonly evictedRate?: number | null;
}

export interface SamplePoint {
  /** Milliseconds since the epoch, on the host's clock when the sample came back. */
  readonly t: number;
  /** The target's clock (`date +%s`), when it printed one. */
  readonly targetTime: number | null;
  readonly memAvailable: number | null;
  readonly memTotal: number | null;
  readonly pods: readonly PodSample[];
  /** What the capture itself reported (cut-off sections, truncation). */
  readonly problems: readonly string[];
}

/** Appends in place and drops the oldest points beyond `max`; returns the history. */
export function appendBounded<T>(history: T[], point: T, max = MAX_SAMPLES): T[] {
  history.push(point);
  if (history.length > max) history.splice(0, history.length - max);
  return history;
}

export interface SeriesPoint {
  /** Seconds since the first point kept. */
  readonly x: number;
  readonly y: number | null;
}

export interface TimeSeries {
  readonly current: readonly SeriesPoint[];
  readonly gtt: readonly SeriesPoint[];
  readonly vram: readonly SeriesPoint[];
  readonly memAvailable: readonly SeriesPoint[];
  /** KFD evictions, ms per second (its own axis); null where no rate is known. */
  readonly evicted: readonly SeriesPoint[];
}

/** The lines of the live chart for one pod, or for all pods summed (`podUid` undefined). */
export function timeSeries(history: readonly SamplePoint[], podUid: string | undefined): TimeSeries {
  const start = history[0]?.t ?? 0;
  const current: SeriesPoint[] = [];
  const gtt: SeriesPoint[] = [];
  const vram: SeriesPoint[] = [];
  const memAvailable: SeriesPoint[] = [];
  const evicted: SeriesPoint[] = [];
  for (const point of history) {
    const x = Math.round((point.t - start) / 100) / 10;
    let c: number | null = null;
    let g: number | null = null;
    let v: number | null = null;
    let e: number | null = null;
    if (podUid === undefined) {
      c = point.pods.reduce((total, pod) => total + (pod.current ?? 0), 0);
      g = point.pods.reduce((total, pod) => total + pod.gtt, 0);
      v = point.pods.reduce((total, pod) => total + pod.vram, 0);
      for (const pod of point.pods) if (typeof pod.evictedRate === 'number') e = (e ?? 0) + pod.evictedRate;
    } else {
      const pod = point.pods.find((candidate) => candidate.podUid === podUid);
      if (pod) {
        c = pod.current;
        g = pod.gtt;
        v = pod.vram;
        e = pod.evictedRate ?? null;
      }
    }
    current.push({ x, y: c });
    gtt.push({ x, y: g });
    vram.push({ x, y: v });
    memAvailable.push({ x, y: point.memAvailable });
    evicted.push({ x, y: e });
  }
  return { current, gtt, vram, memAvailable, evicted };
}
