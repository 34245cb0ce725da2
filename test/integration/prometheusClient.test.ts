// The Prometheus client (src/prometheus/client.ts) against a real Prometheus (Debian's package) serving 14 days of
// two series written here as OpenMetrics (`promtool tsdb create-blocks-from openmetrics`): instant and RANGE queries,
// at a URL and through the API simulator's service proxy, each answer checked against the generator's own numbers
// (a sample every 5 minutes: pod "a" is 1000 × its index, pod "b" 5e9 + index mod 7). A range Prometheus would refuse
// is refused before it is sent (its own request counter says so), and PromQL it cannot parse is a failed answer
// with its error. Skips with the reason when the prometheus package is not installed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parsePromText } from '../../src/core/agent/promText.ts';
import type { PromAnswer } from '../../src/core/prometheus/answer.ts';
import { PrometheusClient } from '../../src/prometheus/client.ts';
import { discoverPrometheus } from '../../src/prometheus/discovery.ts';
import { ClusterClient } from '../../src/kube/clusterClient.ts';
import type { PrometheusProcess } from '../helpers/prometheusProcess.ts';
import { prometheusUnavailable, startPrometheus } from '../helpers/prometheusProcess.ts';
import { completeFixtures, loadFixtures, mergeFixtures, parseFixtures } from '../simulator/fixtures.ts';
import { startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';

const SKIP = prometheusUnavailable() ?? false;
const T = { timeout: 180_000 };
const STEP = 300;
const SAMPLES = 14 * 288; // 14 days of 5-minute samples, after the first
const NOW = Math.floor(Date.now() / 1000);
const T0 = NOW - (NOW % STEP) - SAMPLES * STEP;
const TN = T0 + SAMPLES * STEP;
const valueA = (index: number): number => 1000 * index;
const valueB = (index: number): number => 5e9 + (index % 7);

function openMetrics(): string {
  const lines = ['# HELP gpumem_test_bytes A test series.', '# TYPE gpumem_test_bytes gauge'];
  for (let i = 0; i <= SAMPLES; i++) {
    lines.push(`gpumem_test_bytes{pod="a"} ${valueA(i)} ${T0 + i * STEP}`);
    lines.push(`gpumem_test_bytes{pod="b"} ${valueB(i)} ${T0 + i * STEP}`);
  }
  lines.push('# EOF', '');
  return lines.join('\n');
}

function matrixOf(answer: PromAnswer): Map<string, [number, number][]> {
  assert.equal(answer.kind, 'matrix', JSON.stringify(answer).slice(0, 300));
  const out = new Map<string, [number, number][]>();
  if (answer.kind === 'matrix')
    for (const series of answer.series)
      out.set(
        series.metric['pod'] ?? '?',
        series.values.map(([t, v]) => [t, Number(v)]),
      );
  return out;
}

describe('the Prometheus client on 14 days in a real Prometheus', { skip: SKIP }, () => {
  let work: string;
  let prometheus: PrometheusProcess | undefined;
  let sim: Simulator | undefined;
  let cluster: ClusterClient | undefined;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'gpumem-prom-client-'));
    writeFileSync(join(work, 'series.om'), openMetrics());
    const blocks = spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', join(work, 'series.om'), join(work, 'tsdb')], {
      encoding: 'utf8',
    });
    assert.equal(blocks.status, 0, blocks.stderr);
    prometheus = await startPrometheus({ dir: work, tsdb: join(work, 'tsdb') });
    const service = parseFixtures(
      'apiVersion: v1\nkind: Service\nmetadata: {name: prometheus-k8s, namespace: monitoring, labels: {app.kubernetes.io/name: prometheus}}\nspec: {ports: [{name: web, port: 9090, targetPort: web}]}',
      { source: 'prometheus service' },
    );
    sim = await startSimulator({ fixtures: completeFixtures(mergeFixtures(loadFixtures(), service)), roots: false });
    sim.setServiceProxy('monitoring', 'prometheus-k8s', 'web', prometheus.base);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(sim.kubeconfig('admin'));
    cluster = new ClusterClient({ name: 'sim', kubeConfig });
  });

  after(async () => {
    await cluster?.dispose(0);
    await sim?.close();
    await prometheus?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** The query endpoints' requests Prometheus counted (its own /metrics, read directly). */
  async function requestsTo(handler: string): Promise<number> {
    const text = await (await fetch(`${prometheus?.base}/metrics`)).text();
    return parsePromText(text)
      .samples.filter((sample) => sample.name === 'prometheus_http_requests_total' && sample.labels['handler'] === handler)
      .reduce((sum, sample) => sum + sample.value, 0);
  }

  async function clients(): Promise<PrometheusClient[]> {
    assert.ok(prometheus && cluster);
    const found = await discoverPrometheus(cluster);
    assert.equal(found.kind, 'found');
    return [
      new PrometheusClient({ kind: 'url', url: prometheus.base, auth: { kind: 'none' } }),
      ...(found.kind === 'found' ? [new PrometheusClient({ kind: 'service', service: found.service, client: cluster })] : []),
    ];
  }

  test(
    'a range query over 14 days at an hourly step: every point is the generator’s, at a URL and through the service proxy',
    T,
    async () => {
      for (const client of await clients()) {
        const answer = await client.range('gpumem_test_bytes', { start: T0, end: TN, stepSeconds: 3600 });
        const series = matrixOf(answer);
        assert.deepEqual([...series.keys()].sort(), ['a', 'b'], client.description);
        // At an evaluation time that is a sample's own time, Prometheus answers that sample.
        const hours = SAMPLES / 12;
        const expectA = Array.from({ length: hours + 1 }, (_, k): [number, number] => [T0 + k * 3600, valueA(12 * k)]);
        const expectB = Array.from({ length: hours + 1 }, (_, k): [number, number] => [T0 + k * 3600, valueB(12 * k)]);
        assert.deepEqual(series.get('a'), expectA, client.description);
        assert.deepEqual(series.get('b'), expectB, client.description);
      }
    },
  );

  test('instant queries over the 14 days: the peak and the least are the generator’s', T, async () => {
    for (const client of await clients()) {
      const peak = await client.instant('max_over_time(gpumem_test_bytes{pod="a"}[14d])', TN);
      assert.equal(peak.kind, 'vector', JSON.stringify(peak));
      if (peak.kind === 'vector')
        assert.deepEqual(
          peak.samples.map((sample) => Number(sample.value[1])),
          [valueA(SAMPLES)],
        );
      const least = await client.instant('min_over_time(gpumem_test_bytes{pod="b"}[14d])', TN);
      assert.equal(least.kind, 'vector', JSON.stringify(least));
      if (least.kind === 'vector')
        assert.deepEqual(
          least.samples.map((sample) => Number(sample.value[1])),
          [valueB(0)],
        );
    }
  });

  test('a range of more points than Prometheus answers is refused before it is sent', T, async () => {
    const [client] = await clients();
    assert.ok(client);
    const before = await requestsTo('/api/v1/query_range');
    const answer = await client.range('gpumem_test_bytes', { start: T0, end: TN, stepSeconds: 60 });
    assert.equal(answer.kind, 'failed');
    // 14 days / 11,000 steps = 109.96 s.
    if (answer.kind === 'failed') assert.match(answer.reason, /^20161 points per series at a 60 s step; .* use a step of at least 110 s$/);
    // One step past Prometheus's limit is refused here; the limit itself, Prometheus answers.
    const over = await client.range('gpumem_test_bytes', { start: TN - 11_001 * 10, end: TN, stepSeconds: 10 });
    assert.equal(over.kind, 'failed');
    assert.equal(await requestsTo('/api/v1/query_range'), before);
    const limit = await client.range('gpumem_test_bytes', { start: TN - 11_000 * 10, end: TN, stepSeconds: 10 });
    assert.equal(limit.kind, 'matrix', JSON.stringify(limit).slice(0, 300));
    assert.equal(await requestsTo('/api/v1/query_range'), before + 1);
  });

  test("PromQL Prometheus cannot parse is a failed answer with Prometheus's error, by both routes", T, async () => {
    for (const client of await clients()) {
      const answer = await client.range('sum(', { start: TN - 3600, end: TN, stepSeconds: 60 });
      assert.equal(answer.kind, 'failed');
      if (answer.kind === 'failed') assert.match(answer.reason, /^HTTP 400: .*parse error/, client.description);
    }
  });

  test('instantAll answers every named query', T, async () => {
    const [client] = await clients();
    assert.ok(client);
    const answers = await client.instantAll({ a: 'gpumem_test_bytes{pod="a"}', b: 'gpumem_test_bytes{pod="b"}', bad: 'sum(' }, TN);
    assert.deepEqual([...answers.keys()].sort(), ['a', 'b', 'bad']);
    const a = answers.get('a');
    assert.ok(a?.kind === 'vector' && Number(a.samples[0]?.value[1]) === valueA(SAMPLES));
    const b = answers.get('b');
    assert.ok(b?.kind === 'vector' && Number(b.samples[0]?.value[1]) === valueB(SAMPLES));
    assert.equal(answers.get('bad')?.kind, 'failed');
  });
});
