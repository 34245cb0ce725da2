// The agent (src/core/agent/): mutated node captures through the analysis, the metric samples, the OOM ledger and
// the exposition (no throw, finite numbers, linear time, and the exposition reads back with its own series count);
// the text-format reader on mutated expositions (no throw, finite values, linear); and the escaping property: any
// label value reads back unchanged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { renderAgentMetrics } from '../../src/core/agent/agentSamples.ts';
import { escapeLabelValue, renderExposition } from '../../src/core/agent/exposition.ts';
import { nodeMetricFacts } from '../../src/core/agent/nodeSamples.ts';
import { advanceOomLedger, EMPTY_LEDGER } from '../../src/core/agent/oomLedger.ts';
import { parsePromText } from '../../src/core/agent/promText.ts';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { NODE_CAPTURES } from './corpus.ts';
import { fuzzTarget, numberViolations, RUNS, SEED } from './harness.ts';
import type { Violation } from './harness.ts';

function scrape(capture: string): { text: string; series: number; dropped: number } {
  const inspection = analyzeCaptureText(capture, { target: 'fuzz' });
  const node = inspection.node;
  const kills = node?.oom?.kills;
  const options = { nowMs: 1_767_225_600_000, uptimeSeconds: node?.model.uptimeSeconds, podUids: node?.pods.map((p) => p.podUid) ?? [] };
  const baseline = advanceOomLedger(EMPTY_LEDGER, kills, { ...options, baseline: true });
  const ledger = advanceOomLedger(baseline.ledger, kills, { ...options, baseline: false }).ledger;
  return renderAgentMetrics({
    status: {
      nodeName: 'fuzz-node',
      version: '0.0.0',
      cycles: 1,
      errors: new Map(),
      lastDurationSeconds: 0.1,
      lastSuccessSeconds: 1,
      api: { kind: 'connected' },
    },
    node: node ? nodeMetricFacts(node) : undefined,
    ledger,
    identities: new Map(),
  });
}

fuzzTarget({
  name: 'agent.nodeSamples+oomLedger+exposition',
  corpus: NODE_CAPTURES,
  run: scrape,
  check: (output): Violation[] => {
    const violations = numberViolations(output);
    const back = parsePromText(output.text);
    if (back.problems.length > 0 || back.samples.length !== output.series)
      violations.push({ property: 'render', message: `the exposition does not read back: ${back.problems[0] ?? back.samples.length}` });
    return violations;
  },
  growth: [{ label: 'many pods', make: (n) => NODE_CAPTURES[0]?.repeat(Math.max(1, Math.ceil(n / 20_000))) ?? '' }],
});

fuzzTarget({
  name: 'agent.parsePromText',
  corpus: [scrape(NODE_CAPTURES[0] ?? '').text, 'a{b="c\\"d\\\\e\\n"} 1.5e3 1700000000000\n# TYPE a gauge\nx NaN\ny +Inf\n'],
  run: (input) => parsePromText(input, { maxSamples: 10_000 }),
  check: (output) => numberViolations(output),
  growth: [
    { label: 'long label value', make: (n) => `m{l="${'\\"'.repeat(n / 2)}"} 1\n` },
    { label: 'many lines', make: (n) => 'm{a="b"} 1\n'.repeat(Math.ceil(n / 11)) },
    { label: 'digits', make: (n) => `m ${'1'.repeat(n)}x\n` },
  ],
});

/**
 * Label values: any code points, and strings dense in what the format escapes (a uniform code point is almost never a
 * backslash, a quote or a line feed), with the characters around them that an escape could swallow.
 */
const LABEL_VALUES = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: fc.constantFrom('\\', '"', '\n', 'n', 'a', ' ', '{', '}', '=', ',', 'é', '\u{1f600}'), maxLength: 60 }),
);

/** The escaping as the format states it, a character at a time: the oracle for escapeLabelValue's fast path. */
function escapedCharByChar(value: string): string {
  let out = '';
  for (const char of value) out += char === '\\' ? '\\\\' : char === '"' ? '\\"' : char === '\n' ? '\\n' : char;
  return out;
}

test('agent: escapeLabelValue escapes as the format does, character by character, and returns a clean value as it is', () => {
  fc.assert(
    fc.property(fc.oneof(LABEL_VALUES, fc.stringMatching(/^[a-z0-9.-]{0,60}$/)), (value) => {
      const escaped = escapeLabelValue(value);
      assert.equal(escaped, escapedCharByChar(value));
      if (!/[\\"\n]/.test(value)) assert.equal(escaped, value);
    }),
    { seed: SEED, numRuns: RUNS },
  );
});

test('agent: any label value and finite value reads back unchanged through the exposition', () => {
  fc.assert(
    fc.property(LABEL_VALUES, fc.double({ noNaN: true, noDefaultInfinity: true }), (label, value) => {
      const exposition = renderExposition([{ name: 'gpumem_pod_gtt_bytes', labels: { node: 'n', pod: label, uid: 'u' }, value }]);
      const [sample] = parsePromText(exposition.text).samples;
      assert.equal(sample?.labels['pod'], label);
      assert.ok(Object.is(sample?.value, value) || (value === 0 && sample?.value === 0));
    }),
    { seed: SEED, numRuns: RUNS },
  );
});
