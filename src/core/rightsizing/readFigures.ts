// Runs the constant query set through whatever sends instant queries (the Prometheus client) and reduces the
// answers to figures: the set, plus the subquery fallback only when the recording rule answered nothing, so at most
// one query more, whatever the number of workloads.
import type { PromAnswer } from '../prometheus/answer.ts';
import { figuresFrom } from './figures.ts';
import type { PromFigures } from './figures.ts';
import { recommendQueries, trueFootprintFallbackQuery } from './queries.ts';
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
  return { figures: figuresFrom(answers), queries };
}
