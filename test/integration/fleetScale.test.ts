// `gpumem fleet` against a real Prometheus (Debian's package) holding 5,000 GPU nodes and 50,000 GPU pods of the
// agent's metrics (test/helpers/fleetSeries.ts writes them as OpenMetrics; `promtool tsdb create-blocks-from
// openmetrics` turns them into TSDB blocks that Prometheus serves). The summary must match the generator's ground
// truth, and the number of queries Prometheus answered (its own prometheus_http_requests_total) is the constant set,
// whatever the fleet's size. Skips with the reason when the prometheus package is not installed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePromText } from '../../src/core/agent/promText.ts';
import { fleetQueries } from '../../src/core/fleet/promFacts.ts';
import { runCli } from '../helpers/cli.ts';
import type { FleetTruth } from '../helpers/fleetSeries.ts';
import { writeFleetSeries } from '../helpers/fleetSeries.ts';
import type { PrometheusProcess } from '../helpers/prometheusProcess.ts';
import { prometheusUnavailable, startPrometheus } from '../helpers/prometheusProcess.ts';

const SKIP = prometheusUnavailable() ?? false;
const T = { timeout: 300_000 };
const NODES = 5000;
const PODS = 50_000;

describe(`gpumem fleet on ${NODES} nodes and ${PODS} pods in a real Prometheus`, { skip: SKIP }, () => {
  let work: string;
  let prometheus: PrometheusProcess | undefined;
  let base: string;
  let truth: FleetTruth;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'gpumem-fleet-scale-'));
    truth = writeFleetSeries(join(work, 'fleet.om'), { nodes: NODES, pods: PODS, now: Math.floor(Date.now() / 1000) });
    const blocks = spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', join(work, 'fleet.om'), join(work, 'tsdb')], {
      encoding: 'utf8',
    });
    assert.equal(blocks.status, 0, blocks.stderr);
    rmSync(join(work, 'fleet.om'));
    prometheus = await startPrometheus({ dir: work, tsdb: join(work, 'tsdb') });
    base = prometheus.base;
  });

  after(async () => {
    await prometheus?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** What Prometheus's own /metrics says it answered on the query endpoints (read directly: it does not scrape itself). */
  async function queriesAnswered(): Promise<number> {
    const text = await (await fetch(`${base}/metrics`)).text();
    return parsePromText(text)
      .samples.filter(
        (sample) => sample.name === 'prometheus_http_requests_total' && /^\/api\/v1\/query(_range)?$/.test(sample.labels['handler'] ?? ''),
      )
      .reduce((sum, sample) => sum + sample.value, 0);
  }

  test('the summary matches the ground truth, from a constant number of queries', T, async () => {
    const before = await queriesAnswered();
    const run = await runCli(['fleet', '--prometheus', base, '--window', '1h', '--top', '50', '--format', 'json'], {
      timeoutMs: 240_000,
      env: { PATH: process.env['PATH'] ?? '' },
    });
    assert.equal(run.code, 1, run.stderr);
    const after = await queriesAnswered();
    const summary = JSON.parse(run.stdout) as {
      nodes: { node: string; risk: number; globalKills: number }[];
      podCounts: { total: number; overLimit: number };
      topOverLimit: { uid: string; overBy: number }[];
      kills: { global: number; globalGpu: number; memcg: number };
      hamiBypassed: number;
      verdicts: { id: string; title: string }[];
      line: string;
      problems: string[];
    };
    assert.deepEqual(summary.problems, []);
    assert.equal(summary.nodes.length, NODES);
    assert.equal(summary.podCounts.total, PODS);
    assert.equal(summary.podCounts.overLimit, truth.overLimit.length);
    assert.equal(summary.topOverLimit.length, Math.min(50, truth.overLimit.length));
    assert.ok(summary.topOverLimit.every((row) => truth.overLimit.includes(row.uid) && row.overBy === 6 * 1024 ** 3));
    assert.equal(summary.kills.globalGpu, truth.globalGpuKills);
    assert.equal(summary.kills.memcg, truth.memcgKills);
    assert.equal(summary.hamiBypassed, truth.hamiBypassed);
    // Nodes with a GPU kill rank first.
    assert.ok((summary.nodes[0]?.globalKills ?? 0) > 0);
    assert.match(
      summary.line,
      new RegExp(
        `^${truth.globalGpuKills} global OOM kills in 1h, all with the GPU signature; ${truth.hamiBypassed} HAMi containers bypassing their quota; ${truth.overLimit.length} pods over their limit`,
      ),
    );
    // The first set, the pod details (two), the kills over time: the same for 5 or 5,000 nodes.
    const expected = Object.keys(fleetQueries({ label: '1h', seconds: 3600 }, 50)).length + 2 + 1;
    assert.equal(after - before, expected, `${after - before} queries for ${NODES} nodes`);
  });
});
