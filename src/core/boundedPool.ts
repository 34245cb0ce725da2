// One bounded worker pool for the fleet's sources (agent scrapes, Prometheus queries, debug-pod scans): at most
// `concurrency` items in work at once, items handed out in order. Cancellation and a failing item stop the hand-out;
// the items already in work finish first (a debug pod is always deleted), then the pool reports how it ended.

export type PoolEnd = { readonly kind: 'completed' } | { readonly kind: 'cancelled'; readonly started: number };

/** `concurrency` as a whole number of at least 1 (NaN, 0 and negatives mean 1). */
export function poolSize(concurrency: number, items: number): number {
  const size = Number.isFinite(concurrency) ? Math.floor(concurrency) : 1;
  return Math.max(0, Math.min(Math.max(1, size), items));
}

/**
 * Runs `work` on every item, at most `concurrency` at once. Resolves `completed` when all ran, `cancelled` (with how
 * many were started) when `signal` aborted first; rejects with the first error `work` threw, once the items in work
 * have settled.
 */
export async function forEachBounded<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
  options: { readonly signal?: AbortSignal | undefined } = {},
): Promise<PoolEnd> {
  let next = 0;
  let failure: { readonly error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length && failure === undefined && !options.signal?.aborted) {
      const index = next++;
      try {
        await work(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: poolSize(concurrency, items.length) }, worker));
  if (failure !== undefined) throw failure.error;
  return next < items.length ? { kind: 'cancelled', started: next } : { kind: 'completed' };
}
