// Runs the constant query set through whatever sends instant queries (the Prometheus client) and reduces the
// answers to figures: the set, plus the subquery fallback only when the recording rule answered nothing, so at most
// one query more, whatever the number of workloads.
import type { PromAnswer } from '../prometheus/answer.ts';
import { finiteValue } from '../prometheus/answer.ts';
import type { NodePressure } from './evidence.ts';
import { figuresFrom, podKey } from './figures.ts';
import type { PromFigures } from './figures.ts';
import { MAX_PRESSURE_NODES, pressureAtKillQuery, recommendQueries, trueFootprintFallbackQuery } from './queries.ts';
import type { QueryScope } from './queries.ts';

export type InstantAll = (queries: Readonly<Record<string, string>>, at: number) => Promise<Map<string, PromAnswer>>;

export interface FiguresRead {
  readonly figures: PromFigures;
  readonly queries: number;
}

export async function readFigures(instantAll: InstantAll, scope: QueryScope, at: number): Promise<FiguresRead> {
  const set = recommendQueries(scope);
  const answers = await instantAll(set, at);
  let queries = Object.keys(set).length;
  const recorded = answers.get('trueFootprintPeak');
  if (!recorded || recorded.kind !== 'vector' || recorded.samples.length === 0) {
    const fallback = await instantAll({ trueFootprintFallback: trueFootprintFallbackQuery(scope) }, at);
    for (const [name, answer] of fallback) answers.set(name, answer);
    queries++;
  }
  const failed = [...answers.values()].filter((answer) => answer.kind === 'failed');
  if (failed.length === answers.size) {
    const first = failed[0];
    throw new Error(`Prometheus answered no query: ${first?.kind === 'failed' ? first.reason : 'no answer'}`);
  }
  const figures = figuresFrom(answers);
  const atKill = await pressureAtKill(instantAll, figures.pressure);
  return { figures: { ...figures, pressure: atKill.pressure }, queries: queries + atKill.queries };
}

/**
 * Each node's biggest pods at the time of its last global kill without the GPU signature (the most recent kills
 * first, at most MAX_PRESSURE_NODES nodes): who held the memory then, not who peaked some other day of the window.
 * A node whose query fails or answers nothing keeps the window's peaks, and says so.
 */
async function pressureAtKill(
  instantAll: InstantAll,
  pressure: ReadonlyMap<string, NodePressure>,
): Promise<{ readonly pressure: ReadonlyMap<string, NodePressure>; readonly queries: number }> {
  const timed = [...pressure.values()]
    .filter((one): one is NodePressure & { at: number } => one.at !== undefined && Number.isFinite(one.at) && one.at > 0)
    .sort((a, b) => b.at - a.at)
    .slice(0, MAX_PRESSURE_NODES);
  const out = new Map(pressure);
  const answers = await Promise.all(
    timed.map(async (one) => ({ one, answers: await instantAll({ pressureAtKill: pressureAtKillQuery(one.node) }, Math.floor(one.at)) })),
  );
  for (const { one, answers: got } of answers) {
    const answer = got.get('pressureAtKill');
    if (!answer || answer.kind !== 'vector' || answer.samples.length === 0) continue;
    const biggestPods = answer.samples
      .filter((sample) => sample.metric['node'] === one.node)
      .map((sample) => ({ pod: podKey(sample.metric['namespace'] ?? '', sample.metric['pod'] ?? ''), bytes: finiteValue(sample.value[1]) }))
      .filter((pod): pod is { pod: string; bytes: number } => pod.bytes !== undefined)
      .sort((a, b) => b.bytes - a.bytes);
    if (biggestPods.length > 0) out.set(one.node, { ...one, biggestPods, biggestPodsWhen: 'kill' });
  }
  return { pressure: out, queries: timed.length };
}
