// The Prometheus source of the fleet: the constant query set of src/core/fleet/promFacts.ts through Prometheus's HTTP
// API (`/api/v1/query`, `/api/v1/query_range`), a few at a time, each answer checked for its shape. A query that
// fails is a problem in the facts, not a failure of the whole view; no answer at all is.
import type { FleetFacts, FleetWindow } from '../core/fleet/facts.ts';
import type { PromAnswer, PromMatrixSeries, PromVectorSample } from '../core/fleet/promFacts.ts';
import { fleetQueries, killsOverTimeQuery, podDetailQueries, promFleetFacts, rankedUids } from '../core/fleet/promFacts.ts';
import type { HttpGetter } from './httpGet.ts';
import { HttpGetError } from './httpGet.ts';

const PARALLEL = 4;

interface ApiBody {
  readonly status?: unknown;
  readonly error?: unknown;
  readonly data?: { readonly resultType?: unknown; readonly result?: unknown };
}

function answerOf(status: number, body: string): PromAnswer {
  let parsed: ApiBody;
  try {
    parsed = JSON.parse(body) as ApiBody;
  } catch {
    return { kind: 'failed', reason: `HTTP ${status}, not Prometheus's JSON: ${body.slice(0, 120)}` };
  }
  if (parsed.status !== 'success')
    return { kind: 'failed', reason: `HTTP ${status}: ${String(parsed.error ?? 'no status').slice(0, 300)}` };
  const result = parsed.data?.result;
  if (parsed.data?.resultType === 'vector' && Array.isArray(result)) return { kind: 'vector', samples: result.filter(isVectorSample) };
  if (parsed.data?.resultType === 'matrix' && Array.isArray(result)) return { kind: 'matrix', series: result.filter(isMatrixSeries) };
  if (parsed.data?.resultType === 'scalar') return { kind: 'vector', samples: [] };
  return { kind: 'failed', reason: `unexpected result type ${String(parsed.data?.resultType)}` };
}

function isLabels(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && Object.values(value).every((v) => typeof v === 'string');
}
function isPoint(value: unknown): value is [number, string] {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === 'number' && typeof value[1] === 'string';
}
function isVectorSample(value: unknown): value is PromVectorSample {
  const v = value as { metric?: unknown; value?: unknown };
  return isLabels(v?.metric) && isPoint(v.value);
}
function isMatrixSeries(value: unknown): value is PromMatrixSeries {
  const v = value as { metric?: unknown; values?: unknown };
  return isLabels(v?.metric) && Array.isArray(v.values) && v.values.every(isPoint);
}

async function runAll(
  getter: HttpGetter,
  queries: Readonly<Record<string, string>>,
  at: number,
  signal: AbortSignal | undefined,
  answers: Map<string, PromAnswer>,
): Promise<void> {
  const entries = Object.entries(queries);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < entries.length) {
      const [name, query] = entries[next++] as [string, string];
      try {
        const answer = await getter(`api/v1/query?query=${encodeURIComponent(query)}&time=${at}`, signal ? { signal } : {});
        answers.set(name, answerOf(answer.status, answer.body));
      } catch (error) {
        if (error instanceof HttpGetError && error.kind === 'cancelled') throw error;
        answers.set(name, { kind: 'failed', reason: error instanceof Error ? error.message : String(error) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, entries.length) }, worker));
}

export interface PrometheusRead {
  readonly facts: FleetFacts;
  /** How many queries were sent (a constant of the view, whatever the fleet's size). */
  readonly queries: number;
}

/** Reads the fleet; throws when Prometheus answered none of the queries (unreachable, refused, not Prometheus). */
export async function readFleetFromPrometheus(
  getter: HttpGetter,
  options: {
    readonly window: FleetWindow;
    readonly top: number;
    readonly at: number;
    readonly description: string;
    readonly signal?: AbortSignal;
  },
): Promise<PrometheusRead> {
  const answers = new Map<string, PromAnswer>();
  const first = fleetQueries(options.window, options.top);
  await runAll(getter, first, options.at, options.signal, answers);
  const failed = [...answers.values()].filter((answer) => answer.kind === 'failed');
  if (failed.length === answers.size)
    throw new Error(`Prometheus answered no query: ${failed[0]?.kind === 'failed' ? failed[0].reason : 'no answer'}`);
  const details = podDetailQueries(rankedUids(answers), options.window);
  await runAll(getter, details, options.at, options.signal, answers);
  const range = killsOverTimeQuery(options.window);
  try {
    const answer = await getter(
      `api/v1/query_range?query=${encodeURIComponent(range.query)}&start=${options.at - options.window.seconds}&end=${options.at}&step=${range.stepSeconds}`,
      options.signal ? { signal: options.signal } : {},
    );
    answers.set('killsOverTime', answerOf(answer.status, answer.body));
  } catch (error) {
    if (error instanceof HttpGetError && error.kind === 'cancelled') throw error;
    answers.set('killsOverTime', { kind: 'failed', reason: error instanceof Error ? error.message : String(error) });
  }
  const queries = Object.keys(first).length + Object.keys(details).length + 1;
  return { facts: promFleetFacts(answers, { at: options.at, window: options.window, description: options.description }), queries };
}
