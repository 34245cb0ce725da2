// The fleet summary (src/core/fleet/): mutated agent expositions through the text reader, the agents' facts, the
// summary and every report (no throw, finite numbers, no terminal controls in the text report, linear time); and
// Prometheus answers with arbitrary labels and value texts through promFleetFacts (finite, never negative counts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { renderExposition } from '../../src/core/agent/exposition.ts';
import { parsePromText } from '../../src/core/agent/promText.ts';
import { agentFleetFacts } from '../../src/core/fleet/agentFacts.ts';
import { fleetPodsCsv, fleetToJson, fleetToMarkdown, fleetToText } from '../../src/core/fleet/fleetReport.ts';
import type { PromAnswer } from '../../src/core/prometheus/answer.ts';
import { fleetQueries, promFleetFacts } from '../../src/core/fleet/promFacts.ts';
import { summarizeFleet } from '../../src/core/fleet/summary.ts';
import { fuzzTarget, numberViolations, renderViolations, RUNS, SEED, terminalViolations } from './harness.ts';

const WINDOW = { label: '24h', seconds: 86_400 };
const POD = { node: 'strix-1', namespace: 'llm', pod: 'vllm-0', uid: 'aaaaaaaa-0000-4000-8000-000000000001' };
const EXPOSITION = renderExposition([
  { name: 'gpumem_node_memory_total_bytes', labels: { node: 'strix-1' }, value: 137438953472 },
  { name: 'gpumem_node_gtt_total_bytes', labels: { node: 'strix-1', card: 'card1' }, value: 103079215104 },
  { name: 'gpumem_pod_cgroup_memory_bytes', labels: POD, value: 4294967296 },
  { name: 'gpumem_pod_memory_limit_bytes', labels: POD, value: 17179869184 },
  { name: 'gpumem_pod_unaccounted_bytes', labels: POD, value: 32212254720 },
  { name: 'gpumem_pod_true_footprint_bytes', labels: POD, value: 36507222016 },
  { name: 'gpumem_oom_kills_total', labels: { ...POD, scope: 'global', gpu_signature: 'true' }, value: 1 },
  { name: 'gpumem_hami_enforcement', labels: { node: 'h1', namespace: 't', pod: 'p', container: 'c', state: 'bypassed' }, value: 1 },
]).text;

function summarise(text: string) {
  const facts = agentFleetFacts([{ kind: 'read', agent: 'a', samples: parsePromText(text).samples }], {
    at: 1_767_225_600,
    window: WINDOW,
  });
  const summary = summarizeFleet(facts);
  return { summary: fleetToJson(summary), text: fleetToText(summary), markdown: fleetToMarkdown(summary), csv: fleetPodsCsv(summary) };
}

fuzzTarget({
  name: 'fleet.agentFleetFacts+summarizeFleet+reports',
  corpus: [EXPOSITION],
  run: summarise,
  check: (output) => [
    ...numberViolations(output.summary),
    ...terminalViolations('text report', output.text),
    ...renderViolations('text report', output.text),
    ...renderViolations('markdown report', output.markdown),
  ],
  growth: [
    {
      label: 'many pods',
      make: (n) =>
        Array.from(
          { length: Math.ceil(n / 120) },
          (_, i) => `gpumem_pod_cgroup_memory_bytes{node="n${i % 7}",uid="u${i}",pod="p${i}",namespace="ns"} ${i}\n`,
        ).join(''),
    },
  ],
});

test('fleet: Prometheus answers with any labels and value texts give finite facts, never a negative count', () => {
  const names = Object.keys(fleetQueries(WINDOW, 20));
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          name: fc.constantFrom(...names, 'podCurrent', 'podPeak'),
          node: fc.string({ maxLength: 8 }),
          uid: fc.string({ maxLength: 8 }),
          scope: fc.constantFrom('global', 'memcg', 'x'),
          value: fc.oneof(fc.double().map(String), fc.constantFrom('NaN', '+Inf', '-Inf', '1e309', '', 'abc', '-5')),
        }),
        { maxLength: 40 },
      ),
      (rows) => {
        const answers = new Map<string, PromAnswer>();
        for (const row of rows) {
          const previous = answers.get(row.name);
          const samples = previous?.kind === 'vector' ? [...previous.samples] : [];
          samples.push({
            metric: {
              node: row.node,
              uid: row.uid,
              scope: row.scope,
              state: 'bypassed',
              pod: row.uid,
              __name__: 'gpumem_pod_memory_limit_bytes',
            },
            value: [0, row.value],
          });
          answers.set(row.name, { kind: 'vector', samples });
        }
        const facts = promFleetFacts(answers, { at: 1, window: WINDOW, description: 'fuzz' });
        const summary = summarizeFleet(facts);
        assert.deepEqual(numberViolations(fleetToJson(summary)), []);
        assert.ok(summary.kills.byPod.every((kill) => kill.count >= 1));
        assert.ok(facts.podCounts.total >= 0 || Number.isNaN(facts.podCounts.total) === false);
      },
    ),
    { seed: SEED, numRuns: RUNS },
  );
});
