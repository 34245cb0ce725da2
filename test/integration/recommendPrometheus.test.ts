// The right-sizer's constant query set against Debian's Prometheus holding 15 days of generated history
// (test/helpers/rightsizingSeries.ts, turned into TSDB blocks by `promtool tsdb create-blocks-from openmetrics`),
// the workloads matched to their pods on recorded API objects, and each row checked against figures this test
// computes from the generated samples (KRR `simple`'s formula among them). Skips with the reason when the prometheus
// package is not installed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PromAnswer } from '../../src/core/prometheus/answer.ts';
import { readFigures } from '../../src/core/rightsizing/readFigures.ts';
import { recommendQueries } from '../../src/core/rightsizing/queries.ts';
import { recommendationRows } from '../../src/core/rightsizing/rows.ts';
import type { RecommendationRow } from '../../src/core/rightsizing/rows.ts';
import { matchPods } from '../../src/core/rightsizing/workloadPods.ts';
import type { PrometheusProcess } from '../helpers/prometheusProcess.ts';
import { prometheusUnavailable, startPrometheus } from '../helpers/prometheusProcess.ts';
import type { RightsizingHistory } from '../helpers/rightsizingSeries.ts';
import { writeRightsizingHistory } from '../helpers/rightsizingSeries.ts';
import { clusterObjects } from '../helpers/rightsizingObjects.ts';

const SKIP = prometheusUnavailable() ?? false;
const T = { timeout: 300_000 };
const GiB = 1024 ** 3;
const WINDOW = { label: '14d', seconds: 14 * 86_400 };

describe('gpumem recommend from 14 days of history in a real Prometheus', { skip: SKIP }, () => {
  let work: string;
  let prometheus: PrometheusProcess | undefined;
  let history: RightsizingHistory;
  let now: number;
  let sent = 0;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'gpumem-recommend-'));
    now = Math.floor(Date.now() / 1000);
    history = writeRightsizingHistory(join(work, 'history.om'), now);
    const blocks = spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', join(work, 'history.om'), join(work, 'tsdb')], {
      encoding: 'utf8',
    });
    assert.equal(blocks.status, 0, blocks.stderr);
    prometheus = await startPrometheus({ dir: work, tsdb: join(work, 'tsdb') });
  });

  after(async () => {
    await prometheus?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  async function instantAll(queries: Readonly<Record<string, string>>, at: number): Promise<Map<string, PromAnswer>> {
    const answers = new Map<string, PromAnswer>();
    for (const [name, query] of Object.entries(queries)) {
      sent++;
      const response = await fetch(`${prometheus!.base}/api/v1/query?query=${encodeURIComponent(query)}&time=${at}`);
      const body = (await response.json()) as { status: string; error?: string; data: { resultType: string; result: never[] } };
      answers.set(
        name,
        body.status === 'success' ? { kind: 'vector', samples: body.data.result } : { kind: 'failed', reason: body.error ?? '' },
      );
    }
    return answers;
  }

  /** The generated samples of one series inside the window (after now − 14 d, up to now). */
  function inWindow(name: string, labels: Record<string, string>): { t: number; v: number }[] {
    const found = history.series.filter((one) => one.name === name && Object.entries(labels).every(([k, v]) => one.labels[k] === v));
    return found
      .flatMap((one) => one.times.map((t, i) => ({ t, v: one.values[i]! })))
      .filter((s) => s.t > now - WINDOW.seconds && s.t <= now);
  }

  let rows: RecommendationRow[];
  function row(workload: string, container: string): RecommendationRow {
    const found = rows.find((one) => one.workload.name === workload && one.container === container);
    assert.ok(found, `a row for ${workload}/${container}`);
    return found;
  }

  test('the constant query set answers, and each case is recommended as the generated history says', T, async () => {
    const { objects, pods } = clusterObjects();
    const read = await readFigures(instantAll, { window: WINDOW, namespaces: ['ml'] }, now);
    assert.deepEqual(read.figures.problems, []);
    assert.equal(
      read.queries,
      Object.keys(recommendQueries({ window: WINDOW, namespaces: [] })).length + 2,
      "the set, the fallback, and cpu-2's pods at its kill",
    );
    assert.equal(sent, read.queries);
    rows = recommendationRows({
      matching: matchPods(objects, pods),
      figures: read.figures,
      basis: 'history',
      apiOomKills: new Map(),
      headroomPercent: 30,
    });

    // llm/server: global kills with the GPU signature; true footprint = max over t of ws + GPU at the same t.
    let footprint = 0;
    let gpuPeak = 0;
    for (const pod of ['llm-7d9f-a', 'llm-7d9f-b']) {
      const ws = inWindow('container_memory_working_set_bytes', { pod, container: 'server' });
      const gpu = new Map(inWindow('gpumem_container_unaccounted_bytes', { pod, container: 'server' }).map((s) => [s.t, s.v]));
      for (const s of ws) footprint = Math.max(footprint, s.v + (gpu.get(s.t) ?? 0));
      for (const v of gpu.values()) gpuPeak = Math.max(gpuPeak, v);
    }
    const server = row('llm', 'server');
    assert.equal(server.observed.trueFootprintPeak?.bytes, footprint);
    assert.ok(footprint < 14 * GiB + 30 * GiB, 'the generated peaks never coincide');
    assert.deepEqual(server.kills, { memcg: 0, globalGpu: 2, globalOther: 0, kubeletUnknown: 0 });
    assert.ok(server.recommendation.kind === 'sized');
    assert.equal(server.recommendation.case, 'global-gpu-kills');
    assert.equal(server.recommendation.targetBytes, Math.ceil(footprint * 1.3));
    assert.equal(server.recommendation.gpuMemory?.key, 'gpumem.io/gpu-memory');
    assert.equal(server.recommendation.gpuMemory?.value.bytes, Math.ceil(gpuPeak / GiB) * GiB);

    // db/postgres: the memcg kill → VPA's bump of its 4 GiB limit.
    const db = row('db', 'postgres');
    assert.equal(db.kills.memcg, 1);
    assert.ok(db.recommendation.kind === 'sized');
    assert.equal(db.recommendation.case, 'memcg-kills');
    assert.equal(db.recommendation.targetBytes, Math.max(4 * GiB + 100 * 2 ** 20, 4 * GiB * 1.2));

    // batch/work: a global kill without the signature; unchanged, cpu-2 and its biggest pod named.
    const batch = row('batch', 'work');
    assert.ok(batch.recommendation.kind === 'unchanged');
    assert.match(batch.recommendation.reason, /cpu-2/);
    // At the kill, hog was the biggest; `late`, bigger over the window, came a day after and is not named.
    assert.equal(batch.recommendation.pressure[0]?.biggestPodsWhen, 'kill');
    assert.equal(batch.recommendation.pressure[0]?.biggestPods[0]?.pod, 'other/hog');
    assert.ok(!batch.recommendation.pressure[0]?.biggestPods.some((one) => one.pod === 'other/late'));
    assert.equal(batch.recommendation.pressure[0]?.at, history.otherKillAt);

    // web/web: no kills, no GPU: KRR simple = max over the window × 1.15, computed from the raw samples.
    const krr = Math.max(...inWindow('container_memory_working_set_bytes', { pod: 'web-5c-q' }).map((s) => s.v)) * 1.15;
    const web = row('web', 'web');
    assert.ok(web.recommendation.kind === 'sized');
    assert.ok(
      web.recommendation.targetBytes >= krr && web.recommendation.targetBytes - krr < 1,
      `${web.recommendation.targetBytes} vs ${krr}`,
    );
    assert.equal(web.observed.samples, inWindow('container_memory_working_set_bytes', { pod: 'web-5c-q' }).length);

    // fresh: one hour of history is not enough.
    assert.equal(row('fresh', 'fresh').recommendation.kind, 'too-little-data');
  });
});
