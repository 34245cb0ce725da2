// The Prometheus source of the fleet: the constant query set of src/core/fleet/promFacts.ts through the Prometheus
// client (src/prometheus/client.ts: instant queries a few at a time, one range query for the kills over time). A query
// that fails is a problem in the facts, not a failure of the whole view; no answer at all is.
import type { FleetFacts, FleetWindow } from '../core/fleet/facts.ts';
import { fleetQueries, killsOverTimeQuery, podDetailQueries, promFleetFacts, rankedUids } from '../core/fleet/promFacts.ts';
import type { PromAnswer } from '../core/prometheus/answer.ts';
import type { PrometheusClient } from '../prometheus/client.ts';

export interface PrometheusRead {
  readonly facts: FleetFacts;
  /** How many queries were sent (a constant of the view, whatever the fleet's size). */
  readonly queries: number;
}

/** Reads the fleet; throws when Prometheus answered none of the queries (unreachable, refused, not Prometheus). */
export async function readFleetFromPrometheus(
  prometheus: PrometheusClient,
  options: { readonly window: FleetWindow; readonly top: number; readonly at: number; readonly signal?: AbortSignal },
): Promise<PrometheusRead> {
  const { at, window, signal } = options;
  const answers = new Map<string, PromAnswer>();
  const first = fleetQueries(window, options.top);
  await prometheus.instantAll(first, at, { answers, signal });
  const failed = [...answers.values()].filter((answer) => answer.kind === 'failed');
  if (failed.length === answers.size)
    throw new Error(`Prometheus answered no query: ${failed[0]?.kind === 'failed' ? failed[0].reason : 'no answer'}`);
  const details = podDetailQueries(rankedUids(answers), window);
  await prometheus.instantAll(details, at, { answers, signal });
  const range = killsOverTimeQuery(window);
  answers.set(
    'killsOverTime',
    await prometheus.range(range.query, { start: at - window.seconds, end: at, stepSeconds: range.stepSeconds }, { signal }),
  );
  const queries = Object.keys(first).length + Object.keys(details).length + 1;
  return { facts: promFleetFacts(answers, { at, window, description: prometheus.description }), queries };
}
