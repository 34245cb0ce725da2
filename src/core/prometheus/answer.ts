// Prometheus's HTTP API answers (https://prometheus.io/docs/prometheus/latest/querying/api/#expression-query-result-formats)
// as checked values: `{"status":"success","data":{"resultType":"vector"|"matrix"|"scalar","result":…}}`, or the error
// it says. Pure; every shape is checked (a series with a malformed label or point is left out, never trusted), the
// size is bounded (series and points), and nothing here throws: a body that is not Prometheus's JSON is a `failed`
// answer that says so. Values stay the text Prometheus sent ("NaN", "+Inf" are legal there); finiteValue() is the
// only way to a number, and it never yields NaN or an infinity.
import { parseFloatValue } from '../agent/promText.ts';

/** One series of an instant vector. */
export interface PromVectorSample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: readonly [number, string];
}

/** One series of a range query's matrix. */
export interface PromMatrixSeries {
  readonly metric: Readonly<Record<string, string>>;
  readonly values: readonly (readonly [number, string])[];
}

export type PromAnswer =
  | { readonly kind: 'vector'; readonly samples: readonly PromVectorSample[] }
  | { readonly kind: 'matrix'; readonly series: readonly PromMatrixSeries[] }
  | { readonly kind: 'failed'; readonly reason: string };

export interface AnswerBounds {
  /** Series in one answer (vector samples or matrix series). */
  readonly maxSeries: number;
  /** Points in one answer, all series together. */
  readonly maxPoints: number;
}

/** Far above the view's largest answer (one series per pod of a 50,000-pod fleet, or 14 days of 5-minute points). */
export const DEFAULT_ANSWER_BOUNDS: AnswerBounds = { maxSeries: 1_000_000, maxPoints: 20_000_000 };

/** A value's text as a finite number, or undefined (NaN, ±Inf, or not a number at all). */
export function finiteValue(text: string): number | undefined {
  const value = parseFloatValue(text);
  return value !== undefined && Number.isFinite(value) ? value : undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function isLabels(value: unknown): value is Record<string, string> {
  if (!isRecord(value)) return false;
  for (const key in value) if (typeof value[key] !== 'string') return false;
  return true;
}

function isPoint(value: unknown): value is [number, string] {
  return (
    Array.isArray(value) &&
    value.length === 2 &&
    typeof value[0] === 'number' &&
    Number.isFinite(value[0]) &&
    typeof value[1] === 'string' &&
    value[1].length <= 64
  );
}

const shortText = (value: unknown, length: number): string => String(value).slice(0, length);

function tooLarge(what: string, bounds: AnswerBounds): PromAnswer {
  return {
    kind: 'failed',
    reason: `the answer holds more than ${what === 'series' ? `${bounds.maxSeries} series` : `${bounds.maxPoints} points`}: narrow the query`,
  };
}

function vectorOf(result: readonly unknown[], bounds: AnswerBounds): PromAnswer {
  if (result.length > bounds.maxSeries || result.length > bounds.maxPoints) return tooLarge('series', bounds);
  const samples: PromVectorSample[] = [];
  for (const item of result)
    if (isRecord(item) && isLabels(item['metric']) && isPoint(item['value']))
      samples.push({ metric: item['metric'], value: item['value'] });
  return { kind: 'vector', samples };
}

function matrixOf(result: readonly unknown[], bounds: AnswerBounds): PromAnswer {
  if (result.length > bounds.maxSeries) return tooLarge('series', bounds);
  const series: PromMatrixSeries[] = [];
  let points = 0;
  for (const item of result) {
    if (!isRecord(item) || !isLabels(item['metric']) || !Array.isArray(item['values'])) continue;
    const values = item['values'] as unknown[];
    points += values.length;
    if (points > bounds.maxPoints) return tooLarge('points', bounds);
    if (values.every(isPoint)) series.push({ metric: item['metric'], values });
  }
  return { kind: 'matrix', series };
}

/** The answer in an HTTP body (any status: Prometheus's errors come with 400, 422 or 503 and its JSON). */
export function parsePromAnswer(status: number, body: string, bounds: AnswerBounds = DEFAULT_ANSWER_BOUNDS): PromAnswer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { kind: 'failed', reason: `HTTP ${status}, not Prometheus's JSON: ${body.slice(0, 120)}` };
  }
  if (!isRecord(parsed)) return { kind: 'failed', reason: `HTTP ${status}, not Prometheus's JSON: ${body.slice(0, 120)}` };
  if (parsed['status'] !== 'success')
    return { kind: 'failed', reason: `HTTP ${status}: ${shortText(parsed['error'] ?? 'no status', 300)}` };
  const data = isRecord(parsed['data']) ? parsed['data'] : {};
  const result = data['result'];
  if (data['resultType'] === 'vector' && Array.isArray(result)) return vectorOf(result, bounds);
  if (data['resultType'] === 'matrix' && Array.isArray(result)) return matrixOf(result, bounds);
  if (data['resultType'] === 'scalar') return { kind: 'vector', samples: [] };
  return { kind: 'failed', reason: `unexpected result type ${shortText(data['resultType'], 40)}` };
}

/** A sample's value as an amount (bytes, a count, a time): a negative or non-finite one is no amount. */
export function amountOf(sample: PromVectorSample): number | undefined {
  const value = parseFloatValue(sample.value[1]);
  return value !== undefined && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The samples of the instant query `name` among `answers`; a failed query is said in `problems`, not thrown. */
export function instantSamples(answers: ReadonlyMap<string, PromAnswer>, name: string, problems: string[]): readonly PromVectorSample[] {
  const answer = answers.get(name);
  if (!answer) return [];
  if (answer.kind === 'failed') {
    problems.push(`query ${name}: ${answer.reason}`);
    return [];
  }
  return answer.kind === 'vector' ? answer.samples : [];
}
