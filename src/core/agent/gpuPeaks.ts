// The maxima of GPU memory between scrapes. GPU memory has no kernel high-water mark (memory.peak counts only what
// the memory cgroup is charged), so the agent keeps its own: every look at the node (a full cycle, or a light sweep
// its watch triggers) records each pod's and container's figures, and a scrape reads the maximum over the last
// window. A sliding window rather than "since the last scrape": two Prometheus replicas scraping the same agent
// both see every spike, and no scrape resets what another has not read yet. Pure; cost linear in the looks kept.
import type { GpuLevels } from './gpuLevels.ts';

type SeriesKind = 'unaccounted' | 'trueFootprint' | 'vram' | 'container';

interface Point {
  readonly t: number;
  readonly value: number;
}

interface Series {
  readonly uid: string;
  readonly kind: SeriesKind;
  /** The GPU label (vram) or the container ID (container); '' for the pod's own series. */
  readonly sub: string;
  /** Points in time order with values strictly decreasing: the front is the window's maximum. */
  readonly points: Point[];
  head: number;
}

export interface PodPeaks {
  readonly unaccounted: number | undefined;
  readonly trueFootprint: number | undefined;
  readonly vram: ReadonlyMap<string, number>;
  /** container ID → the maximum of its unaccounted GPU memory. */
  readonly containers: ReadonlyMap<string, number>;
}

export class PeakWindow {
  readonly #windowMs: number;
  readonly #series = new Map<string, Series>();
  #looks = 0;

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  get windowMs(): number {
    return this.#windowMs;
  }

  /** Looks recorded since the agent started (full cycles and sweeps). */
  get looks(): number {
    return this.#looks;
  }

  /** One look at time `t` (ms); looks arrive in time order. */
  record(t: number, levels: GpuLevels): void {
    this.#looks++;
    for (const [uid, pod] of levels.pods) {
      this.#push(uid, 'unaccounted', '', t, pod.unaccounted);
      if (pod.trueFootprint !== undefined) this.#push(uid, 'trueFootprint', '', t, pod.trueFootprint);
      for (const [gpu, bytes] of pod.vram) this.#push(uid, 'vram', gpu, t, bytes);
      for (const [containerId, bytes] of pod.containers) this.#push(uid, 'container', containerId, t, bytes);
    }
    this.#expire(t);
  }

  /** Per pod UID, the maxima over the window that ends at `now`. */
  maxima(now: number): Map<string, PodPeaks> {
    this.#expire(now);
    const out = new Map<
      string,
      { unaccounted?: number; trueFootprint?: number; vram: Map<string, number>; containers: Map<string, number> }
    >();
    for (const series of this.#series.values()) {
      const top = series.points[series.head];
      if (!top) continue;
      let pod = out.get(series.uid);
      if (!pod) out.set(series.uid, (pod = { vram: new Map(), containers: new Map() }));
      if (series.kind === 'unaccounted') pod.unaccounted = top.value;
      else if (series.kind === 'trueFootprint') pod.trueFootprint = top.value;
      else if (series.kind === 'vram') pod.vram.set(series.sub, top.value);
      else pod.containers.set(series.sub, top.value);
    }
    return new Map(
      [...out].map(([uid, pod]) => [
        uid,
        { unaccounted: pod.unaccounted, trueFootprint: pod.trueFootprint, vram: pod.vram, containers: pod.containers },
      ]),
    );
  }

  #push(uid: string, kind: SeriesKind, sub: string, t: number, value: number): void {
    if (!Number.isFinite(value)) return;
    const key = `${uid}\u0000${kind}\u0000${sub}`;
    let series = this.#series.get(key);
    if (!series) this.#series.set(key, (series = { uid, kind, sub, points: [], head: 0 }));
    const { points } = series;
    // Every point behind a larger or equal newer one can never be a maximum again.
    while (points.length > series.head && (points[points.length - 1]?.value ?? Infinity) <= value) points.pop();
    points.push({ t, value });
  }

  /** Drops points older than the window, and series left with none (pods and containers gone). */
  #expire(now: number): void {
    const oldest = now - this.#windowMs;
    for (const [key, series] of this.#series) {
      const { points } = series;
      while (series.head < points.length && (points[series.head]?.t ?? Infinity) < oldest) series.head++;
      if (series.head >= points.length) {
        this.#series.delete(key);
        continue;
      }
      // Compact once the dropped prefix is half the array: amortised linear, never a shift per point.
      if (series.head > 32 && series.head * 2 > points.length) {
        points.splice(0, series.head);
        series.head = 0;
      }
    }
  }
}
