// Prometheus's query API answers as the client reads them: the real bodies of test/fixtures/prometheus/ (Debian's
// prometheus, see its README) with the numbers its README says the series hold, hand-made shapes Prometheus never
// sends (left out, never trusted), the bounds, the range requests Prometheus would refuse, and the choice of the
// cluster's Prometheus service.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { finiteValue, parsePromAnswer } from '../../src/core/prometheus/answer.ts';
import { choosePrometheusService } from '../../src/core/prometheus/discovery.ts';
import { instantQueryPath, rangeQueryPath } from '../../src/core/prometheus/requests.ts';

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/prometheus/${name}.json`, import.meta.url), 'utf8');
const END = 1765007100;
const trainer0 = (i: number): number => 8.5e9 + i * 1e8;

test('a real instant vector: each pod with its peak over the window', () => {
  const answer = parsePromAnswer(200, fixture('vector'));
  assert.deepEqual(answer, {
    kind: 'vector',
    samples: [
      { metric: { namespace: 'ml', node: 'strix-node-1', pod: 'trainer-0', uid: '3f1c' }, value: [END, String(trainer0(24))] },
      { metric: { namespace: 'ml', node: 'strix-node-1', pod: 'trainer-1', uid: '9ab2' }, value: [END, '2250000000'] },
    ],
  });
});

test('a real range matrix: the points at each step, NaN kept as text and never a number', () => {
  const answer = parsePromAnswer(200, fixture('matrix'));
  assert.equal(answer.kind, 'matrix');
  if (answer.kind !== 'matrix') return;
  assert.equal(answer.series.length, 2);
  // Steps of 900 s are every third 5-minute sample: indexes 12, 15, 18, 21, 24.
  assert.deepEqual(
    answer.series[0]?.values,
    [12, 15, 18, 21, 24].map((i, k) => [END - 3600 + k * 900, String(trainer0(i))]),
  );
  assert.deepEqual(answer.series[1]?.values[0], [END - 3600, 'NaN']);
  assert.equal(finiteValue('NaN'), undefined);
  assert.deepEqual(
    answer.series[1]?.values.slice(1).map(([, v]) => finiteValue(v)),
    [2.25e9, 2.25e9, 2.25e9, 2.25e9],
  );
});

test('a real scalar, an empty vector, and the 400 with its error', () => {
  assert.deepEqual(parsePromAnswer(200, fixture('scalar')), { kind: 'vector', samples: [] });
  assert.deepEqual(parsePromAnswer(200, fixture('empty-vector')), { kind: 'vector', samples: [] });
  assert.deepEqual(parsePromAnswer(400, fixture('bad-data')), {
    kind: 'failed',
    reason: 'HTTP 400: invalid parameter "query": 1:5: parse error: unclosed left parenthesis',
  });
});

test('what is not Prometheus JSON is a failed answer that says so', () => {
  assert.deepEqual(parsePromAnswer(502, '<html>Bad gateway</html>'), {
    kind: 'failed',
    reason: "HTTP 502, not Prometheus's JSON: <html>Bad gateway</html>",
  });
  assert.deepEqual(parsePromAnswer(200, '[1,2]'), { kind: 'failed', reason: "HTTP 200, not Prometheus's JSON: [1,2]" });
  assert.deepEqual(parsePromAnswer(200, '{"status":"success","data":{"resultType":"streams","result":[]}}'), {
    kind: 'failed',
    reason: 'unexpected result type streams',
  });
});

test('malformed series are left out: a non-string label, a non-finite or missing time, a value that is no text', () => {
  const body = JSON.stringify({
    status: 'success',
    data: {
      resultType: 'matrix',
      result: [
        { metric: { pod: 'ok' }, values: [[1, '1']] },
        { metric: { pod: 3 }, values: [[1, '1']] },
        { metric: { pod: 'no-time' }, values: [[null, '1']] },
        { metric: { pod: 'number-value' }, values: [[1, 1]] },
        { metric: { pod: 'long' }, values: [[1, '1'.repeat(65)]] },
        { metric: { pod: 'three' }, values: [[1, '1', 2]] },
        'text',
        null,
      ],
    },
  });
  const answer = parsePromAnswer(200, body);
  assert.deepEqual(answer, { kind: 'matrix', series: [{ metric: { pod: 'ok' }, values: [[1, '1']] }] });
  // JSON has no NaN or Infinity: 1e999 parses to Infinity, and is refused as a time.
  assert.deepEqual(
    parsePromAnswer(200, '{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1e999,"1"]}]}}'),
    {
      kind: 'vector',
      samples: [],
    },
  );
});

test('the bounds: more series or points than allowed is a failed answer, not a held one', () => {
  const series = (count: number, points: number) =>
    JSON.stringify({
      status: 'success',
      data: {
        resultType: 'matrix',
        result: Array.from({ length: count }, (_, i) => ({
          metric: { i: String(i) },
          values: Array.from({ length: points }, (_, t) => [t, '1']),
        })),
      },
    });
  assert.equal(parsePromAnswer(200, series(3, 4), { maxSeries: 3, maxPoints: 12 }).kind, 'matrix');
  assert.deepEqual(parsePromAnswer(200, series(4, 1), { maxSeries: 3, maxPoints: 100 }), {
    kind: 'failed',
    reason: 'the answer holds more than 3 series: narrow the query',
  });
  assert.deepEqual(parsePromAnswer(200, series(3, 5), { maxSeries: 3, maxPoints: 12 }), {
    kind: 'failed',
    reason: 'the answer holds more than 12 points: narrow the query',
  });
});

test('finiteValue: only finite numbers, from the texts Prometheus writes', () => {
  assert.equal(finiteValue('10900000000'), 10_900_000_000);
  assert.equal(finiteValue('1.5e3'), 1500);
  assert.equal(finiteValue('-2'), -2);
  for (const text of ['NaN', '+Inf', '-Inf', 'Inf', '1e999', '', 'abc', '0x10', ' 1']) assert.equal(finiteValue(text), undefined, text);
});

test('request paths: the query encoded; a range Prometheus would refuse is refused with the step to use', () => {
  assert.equal(instantQueryPath('sum by (node) (x{a="b"})', 17), 'api/v1/query?query=sum%20by%20(node)%20(x%7Ba%3D%22b%22%7D)&time=17');
  assert.deepEqual(rangeQueryPath('up', { start: 0, end: 3600, stepSeconds: 60 }), {
    kind: 'path',
    path: 'api/v1/query_range?query=up&start=0&end=3600&step=60',
  });
  // Prometheus's limit is (end - start) / step <= 11000.
  assert.equal(rangeQueryPath('up', { start: 0, end: 110_000, stepSeconds: 10 }).kind, 'path');
  assert.deepEqual(rangeQueryPath('up', { start: 0, end: 110_010, stepSeconds: 10 }), {
    kind: 'invalid',
    reason: '11002 points per series at a 10 s step; Prometheus answers at most 11001: use a step of at least 11 s',
  });
  assert.deepEqual(rangeQueryPath('up', { start: 10, end: 0, stepSeconds: 10 }), {
    kind: 'invalid',
    reason: 'the range ends before it starts',
  });
  assert.deepEqual(rangeQueryPath('up', { start: 0, end: 10, stepSeconds: 0 }), {
    kind: 'invalid',
    reason: 'the step must be positive (0 s)',
  });
  assert.equal(rangeQueryPath('up', { start: Number.NaN, end: 10, stepSeconds: 1 }).kind, 'invalid');
});

test("the cluster's Prometheus: not the operator's headless service, then the lowest namespace/name; the web port", () => {
  const service = (namespace: string, name: string, ports: { name?: string; port: number }[]) => ({
    metadata: { namespace, name },
    spec: { ports },
  });
  assert.deepEqual(
    choosePrometheusService([
      service('monitoring', 'prometheus-operated', [{ name: 'web', port: 9090 }]),
      service('zz', 'prometheus', [{ name: 'http', port: 80 }]),
      service('monitoring', 'prometheus-k8s', [
        { name: 'reloader-web', port: 8080 },
        { name: 'web', port: 9090 },
      ]),
    ]),
    { namespace: 'monitoring', name: 'prometheus-k8s', port: 'web' },
  );
  assert.deepEqual(choosePrometheusService([service('m', 'p', [{ port: 8080 }, { port: 9090 }])]), {
    namespace: 'm',
    name: 'p',
    port: '9090',
  });
  assert.equal(choosePrometheusService([service('m', 'p', [])]), undefined);
  assert.equal(choosePrometheusService([{ metadata: { name: 'p' }, spec: { ports: [{ port: 9090 }] } }]), undefined);
});
