// Prometheus's query API answers (src/core/prometheus/answer.ts): the real bodies of test/fixtures/prometheus/,
// mutated. The parser never throws, stays within its bounds and its time, and no non-finite number leaves it (times
// are finite; a value's text gives a finite number or none).
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PromAnswer } from '../../src/core/prometheus/answer.ts';
import { finiteValue, parsePromAnswer } from '../../src/core/prometheus/answer.ts';
import type { Violation } from './harness.ts';
import { fuzzTarget, numberViolations, RUNS, SEED } from './harness.ts';

const BOUNDS = { maxSeries: 50, maxPoints: 400 };
const ANSWERS = ['vector', 'matrix', 'scalar', 'bad-data', 'empty-vector'].map((name) =>
  readFileSync(new URL(`../fixtures/prometheus/${name}.json`, import.meta.url), 'utf8'),
);

function checkAnswer(answer: PromAnswer): Violation[] {
  const violations = numberViolations(answer);
  const points =
    answer.kind === 'vector'
      ? answer.samples.map((sample) => sample.value)
      : answer.kind === 'matrix'
        ? answer.series.flatMap((series) => series.values)
        : [];
  const series = answer.kind === 'vector' ? answer.samples.length : answer.kind === 'matrix' ? answer.series.length : 0;
  if (series > BOUNDS.maxSeries || points.length > BOUNDS.maxPoints)
    violations.push({ property: 'finite', message: `${series} series, ${points.length} points past the bounds` });
  for (const [time, text] of points) {
    if (!Number.isFinite(time)) violations.push({ property: 'finite', message: `a point's time is ${time}` });
    const value = finiteValue(text);
    if (value !== undefined && !Number.isFinite(value)) violations.push({ property: 'finite', message: `${text} gave ${value}` });
  }
  if (answer.kind === 'failed' && answer.reason.length > 400)
    violations.push({ property: 'render', message: `a reason of ${answer.reason.length} characters` });
  return violations;
}

fuzzTarget({
  name: 'prometheus.parsePromAnswer',
  corpus: ANSWERS,
  nest: 'json',
  run: (input) => parsePromAnswer(200, input, BOUNDS),
  check: checkAnswer,
  growth: [
    {
      label: 'many series',
      make: (n) =>
        `{"status":"success","data":{"resultType":"vector","result":[${Array.from({ length: Math.ceil(n / 40) }, () => '{"metric":{"a":"b"},"value":[1,"2"]}').join(',')}]}}`,
    },
    { label: 'long error', make: (n) => `{"status":"error","error":"${'x'.repeat(n)}"}` },
  ],
});

test('prometheus: any JSON shaped like an answer parses without throwing, bounded, with finite times', () => {
  const text = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('NaN', '+Inf', '-Inf', '1e999', '0', '-1.5e3'));
  const point = fc.oneof(
    fc.tuple(fc.oneof(fc.double(), fc.integer(), fc.constant(null)), fc.oneof(text, fc.double())),
    fc.array(fc.anything(), { maxLength: 3 }),
  );
  const labels = fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.string({ maxLength: 6 }), fc.integer()), { maxKeys: 4 });
  const result = fc.oneof(
    fc.array(fc.record({ metric: labels, value: point }), { maxLength: 70 }),
    fc.array(fc.record({ metric: labels, values: fc.array(point, { maxLength: 30 }) }), { maxLength: 30 }),
    fc.anything(),
  );
  fc.assert(
    fc.property(
      fc.record({
        status: fc.constantFrom('success', 'error', 7),
        error: fc.anything(),
        data: fc.record({ resultType: fc.constantFrom('vector', 'matrix', 'scalar', 'string', 3), result }),
      }),
      fc.integer({ min: 100, max: 599 }),
      (body, status) => {
        const answer = parsePromAnswer(status, JSON.stringify(body), BOUNDS);
        assert.deepEqual(checkAnswer(answer), []);
      },
    ),
    { seed: SEED, numRuns: RUNS },
  );
});
