// The request paths of Prometheus's query API (https://prometheus.io/docs/prometheus/latest/querying/api/):
// `/api/v1/query` at one time, `/api/v1/query_range` from start to end by step. Pure; a range Prometheus would
// refuse (its 11,000-steps-per-series limit, an end before the start, no step) is refused here with the reason,
// before anything is sent.

/**
 * Prometheus refuses a range whose (end - start) / step exceeds this ("exceeded maximum resolution of 11,000 points
 * per timeseries", web/api/v1/api.go in prometheus/prometheus).
 */
export const MAX_RANGE_STEPS = 11_000;

export interface QueryRange {
  /** Unix seconds. */
  readonly start: number;
  readonly end: number;
  readonly stepSeconds: number;
}

export type RangeRequest = { readonly kind: 'path'; readonly path: string } | { readonly kind: 'invalid'; readonly reason: string };

/** `api/v1/query?query=…&time=…` (time in Unix seconds). */
export function instantQueryPath(query: string, at: number): string {
  return `api/v1/query?query=${encodeURIComponent(query)}&time=${at}`;
}

/** `api/v1/query_range?…`, or why Prometheus would refuse the range. */
export function rangeQueryPath(query: string, range: QueryRange): RangeRequest {
  const { start, end, stepSeconds } = range;
  if (![start, end, stepSeconds].every(Number.isFinite))
    return { kind: 'invalid', reason: 'the range has a time or step that is not a number' };
  if (stepSeconds <= 0) return { kind: 'invalid', reason: `the step must be positive (${stepSeconds} s)` };
  if (end < start) return { kind: 'invalid', reason: 'the range ends before it starts' };
  const steps = Math.floor((end - start) / stepSeconds);
  if (steps > MAX_RANGE_STEPS)
    return {
      kind: 'invalid',
      reason: `${steps + 1} points per series at a ${stepSeconds} s step; Prometheus answers at most ${MAX_RANGE_STEPS + 1}: use a step of at least ${Math.ceil((end - start) / MAX_RANGE_STEPS)} s`,
    };
  return {
    kind: 'path',
    path: `api/v1/query_range?query=${encodeURIComponent(query)}&start=${start}&end=${end}&step=${stepSeconds}`,
  };
}
