// The growth of a KFD eviction counter (kfd/proc/<pid>/stats_<gpuid>/evicted_ms, cumulative since the process
// started) between two readings. Pure and dependency-free: the webview's live chart and the analysis share it.

/** One reading of one process's counter on one GPU. */
export interface EvictionCounter {
  readonly pid: number;
  readonly gpuId: number;
  /** The process's start time (/proc/<pid>/stat field 22), null when it was not read. */
  readonly startTicks: number | null;
  readonly evictedMs: number;
}

export function counterKey(counter: Pick<EvictionCounter, 'pid' | 'gpuId'>): string {
  return `${counter.pid}:${counter.gpuId}`;
}

/**
 * Milliseconds evicted between two readings of a counter: its growth. A counter that restarted (another start time:
 * the pid was reused, or the value went backwards) counts from zero, so its new value is what grew in the window;
 * never negative. Undefined without a first reading (a process new to this window) or without finite numbers.
 */
export function evictedBetween(before: EvictionCounter | undefined, after: EvictionCounter): { ms: number; reset: boolean } | undefined {
  if (!before || !Number.isFinite(before.evictedMs) || !Number.isFinite(after.evictedMs) || after.evictedMs < 0) return undefined;
  const restarted = before.startTicks !== null && after.startTicks !== null && before.startTicks !== after.startTicks;
  if (restarted || after.evictedMs < before.evictedMs) return { ms: after.evictedMs, reset: true };
  return { ms: after.evictedMs - before.evictedMs, reset: false };
}

/** ms evicted per second of a window, or undefined for a window that is not a positive, finite length. */
export function evictionRate(ms: number, seconds: number): number | undefined {
  if (!Number.isFinite(ms) || ms < 0 || !Number.isFinite(seconds) || seconds <= 0) return undefined;
  const rate = ms / seconds;
  return Number.isFinite(rate) ? rate : undefined;
}
