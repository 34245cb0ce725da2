// `gpumem recommend` at scale ("npm run bench"), as a ratio against a baseline measured in the same run: 5,000
// workloads (Deployments, each through its ReplicaSet) and 50,000 pods, with Debian's Prometheus holding their
// series (cAdvisor's working set, the agent's pod and per-container series; every 10th workload on a GPU with its
// container's GPU memory in RAM; every 499th pod killed once; the true footprint the recording rule records),
// written as OpenMetrics and loaded with `promtool tsdb create-blocks-from openmetrics`.
// - recommend: the figures (readFigures through the Prometheus client: the constant query set, the answers parsed and
//   reduced), the matching of 50,000 pods to 5,000 workloads, the rows and the table text;
// - bare: the same query URLs fetched through the HTTP API, the bodies read and dropped;
// interleaved over rounds; median per-round ratio, target ≤ 1.5×. The number of queries is printed, and checked to
// be the same for 50 workloads as for 5,000 (the set never depends on the workloads). Memory: the heap the rows and
// figures hold after a run (after GC), per 1,000 pods, and the peak RSS.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { recommendationsToText } from '../src/core/rightsizing/format.ts';
import { recommendQueries, trueFootprintFallbackQuery } from '../src/core/rightsizing/queries.ts';
import { readFigures } from '../src/core/rightsizing/readFigures.ts';
import { recommendationRows } from '../src/core/rightsizing/rows.ts';
import { matchPods } from '../src/core/rightsizing/workloadPods.ts';
import { PrometheusClient } from '../src/prometheus/client.ts';
import { directGetter } from '../src/prometheus/httpGet.ts';
import { prometheusUnavailable, startPrometheus } from '../test/helpers/prometheusProcess.ts';
import { median, mib, ms, list, MiB } from './stats.mjs';

const WORKLOADS = 5000;
const PODS_PER_WORKLOAD = 10;
const NAMESPACES = 40;
const ROUNDS = 5;
const WINDOW = { label: '1h', seconds: 3600 };
const GiB = 1024 ** 3;
const gc = typeof globalThis.gc === 'function' ? globalThis.gc : () => {};

const workloadName = (w) => `svc-${String(w).padStart(5, '0')}`;
const namespaceOf = (w) => `team-${w % NAMESPACES}`;
const podName = (w, p) => `${workloadName(w)}-7d9f6c5b8-${String(p).padStart(5, 'x')}`;
const gpuWorkload = (w) => w % 10 === 0;

/** The OpenMetrics history: seven samples per series over the hour. */
function writeHistory(file, now) {
  const times = Array.from({ length: 7 }, (_, i) => now - 3600 + i * 600);
  const lines = [];
  const family = (name, type) => lines.push(`# TYPE ${name} ${type}`);
  const series = (name, labels, value) => {
    const text = Object.entries(labels)
      .map(([k, v]) => `${k}="${v}"`)
      .join(',');
    times.forEach((t, i) => lines.push(`${name}{${text}} ${value(i)} ${t}`));
  };
  const each = (fn) => {
    for (let w = 0; w < WORKLOADS; w++) for (let p = 0; p < PODS_PER_WORKLOAD; p++) fn(w, p, w * PODS_PER_WORKLOAD + p);
  };
  const agent = (w, p, n) => ({ node: `node-${n % 2000}`, namespace: namespaceOf(w), pod: podName(w, p), uid: `uid-${n}` });
  family('container_memory_working_set_bytes', 'gauge');
  each((w, p, n) =>
    series(
      'container_memory_working_set_bytes',
      { namespace: namespaceOf(w), pod: podName(w, p), container: 'app' },
      (i) => GiB + ((n * 7 + i * 13) % 97) * 4 * MiB,
    ),
  );
  family('gpumem_container_memory_working_set_bytes', 'gauge');
  each((w, p, n) =>
    series(
      'gpumem_container_memory_working_set_bytes',
      { ...agent(w, p, n), container: 'app' },
      (i) => GiB + ((n * 7 + i * 13) % 97) * 4 * MiB,
    ),
  );
  family('gpumem_container_memory_peak_bytes', 'gauge');
  each((w, p, n) => series('gpumem_container_memory_peak_bytes', { ...agent(w, p, n), container: 'app' }, () => 2 * GiB));
  family('gpumem_pod_cgroup_memory_bytes', 'gauge');
  each((w, p, n) => series('gpumem_pod_cgroup_memory_bytes', agent(w, p, n), (i) => GiB + ((n + i) % 50) * 8 * MiB));
  family('gpumem_pod_unaccounted_bytes', 'gauge');
  each((w, p, n) => gpuWorkload(w) && series('gpumem_pod_unaccounted_bytes', agent(w, p, n), (i) => 8 * GiB + ((n + i) % 9) * 256 * MiB));
  family('gpumem_container_unaccounted_bytes', 'gauge');
  each(
    (w, p, n) =>
      gpuWorkload(w) &&
      series('gpumem_container_unaccounted_bytes', { ...agent(w, p, n), container: 'app' }, (i) => 8 * GiB + ((n + i) % 9) * 256 * MiB),
  );
  // What the recording rule (deploy/agent/prometheus/rightsizing-rules.yaml, installed with the agent) would have
  // recorded: each container's working set plus its own GPU memory in RAM, at the same instant.
  family('namespace_pod_container:gpumem_true_footprint_bytes', 'gauge');
  each((w, p, n) =>
    series(
      'namespace_pod_container:gpumem_true_footprint_bytes',
      { namespace: namespaceOf(w), pod: podName(w, p), container: 'app' },
      (i) => GiB + ((n * 7 + i * 13) % 97) * 4 * MiB + (gpuWorkload(w) ? 8 * GiB + ((n + i) % 9) * 256 * MiB : 0),
    ),
  );
  family('gpumem_oom_kills_total', 'counter');
  each(
    (w, p, n) =>
      n % 499 === 0 &&
      series('gpumem_oom_kills_total', { ...agent(w, p, n), scope: 'global', gpu_signature: 'true' }, (i) => (i >= 4 ? 1 : 0)),
  );
  lines.push('# EOF');
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** The live objects: a Deployment, its ReplicaSet and its pods per workload, as the API serves them. */
function liveObjects() {
  const objects = [];
  const pods = [];
  for (let w = 0; w < WORKLOADS; w++) {
    const name = workloadName(w);
    const namespace = namespaceOf(w);
    const labels = { app: name };
    const resources = { requests: { memory: '1Gi', ...(gpuWorkload(w) ? { 'amd.com/gpu': '1' } : {}) }, limits: { memory: '2Gi' } };
    const template = { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'example/app:1', resources }] } };
    objects.push({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace, uid: `d-${w}` },
      spec: { selector: { matchLabels: labels }, template },
    });
    const rsLabels = { ...labels, 'pod-template-hash': '7d9f6c5b8' };
    objects.push({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${name}-7d9f6c5b8`,
        namespace,
        uid: `rs-${w}`,
        labels: rsLabels,
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: `d-${w}`, controller: true }],
      },
      spec: { selector: { matchLabels: rsLabels }, template: { ...template, metadata: { labels: rsLabels } } },
    });
    for (let p = 0; p < PODS_PER_WORKLOAD; p++) {
      pods.push({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: podName(w, p),
          namespace,
          uid: `uid-${w * PODS_PER_WORKLOAD + p}`,
          labels: rsLabels,
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${name}-7d9f6c5b8`, uid: `rs-${w}`, controller: true }],
        },
        spec: { nodeName: `node-${(w * PODS_PER_WORKLOAD + p) % 2000}`, containers: [{ name: 'app' }] },
        status: { phase: 'Running', containerStatuses: [] },
      });
    }
  }
  return { objects, pods };
}

export async function runRecommendBench() {
  const unavailable = prometheusUnavailable();
  if (unavailable) return { skipped: unavailable };
  const work = mkdtempSync(join(tmpdir(), 'gpumem-bench-recommend-'));
  let prometheus;
  try {
    const at = Math.floor(Date.now() / 1000);
    writeHistory(join(work, 'history.om'), at);
    const blocks = spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', join(work, 'history.om'), join(work, 'tsdb')], {
      encoding: 'utf8',
    });
    if (blocks.status !== 0) return { skipped: `promtool failed: ${blocks.stderr.slice(0, 200)}` };
    rmSync(join(work, 'history.om'));
    prometheus = await startPrometheus({ dir: work, tsdb: join(work, 'tsdb') });
    // A loaded 2-core machine answers the largest queries in tens of seconds: both sides get the same long deadline.
    const timeoutMs = 600_000;
    const client = new PrometheusClient({ kind: 'url', url: prometheus.base, auth: { kind: 'none' } }, { timeoutMs });
    const getter = directGetter(prometheus.base, { kind: 'none' }, {}, { timeoutMs });
    const live = liveObjects();
    const scope = { window: WINDOW, namespaces: [] };
    const header = (read) => ({ source: 'bench', window: WINDOW.label, sources: read.figures.sources, problems: read.figures.problems });
    const recommend = async () => {
      const read = await readFigures((queries, time) => client.instantAll(queries, time), scope, at);
      const rows = recommendationRows({
        matching: matchPods(live.objects, live.pods),
        figures: read.figures,
        basis: 'history',
        apiOomKills: new Map(),
        headroomPercent: 30,
      });
      return { read, rows, text: recommendationsToText(rows, header(read)) };
    };
    // The bare baseline: the URLs recommend sends (the set, and the fallback when no rule answered), bodies dropped.
    const first = await recommend();
    const queries = {
      ...recommendQueries(scope),
      ...(first.read.queries > Object.keys(recommendQueries(scope)).length ? { fallback: trueFootprintFallbackQuery(scope) } : {}),
    };
    const urls = Object.values(queries).map((q) => `api/v1/query?query=${encodeURIComponent(q)}&time=${at}`);
    const bare = async () => {
      let next = 0;
      const worker = async () => {
        while (next < urls.length) await getter(urls[next++], {});
      };
      // As many at a time as the client sends.
      await Promise.all(Array.from({ length: 4 }, worker));
    };
    const recommendMs = [];
    const bareMs = [];
    const ratios = [];
    let peakRss = process.memoryUsage().rss;
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ['bare', 'recommend'] : ['recommend', 'bare'];
      const times = {};
      for (const which of order) {
        gc();
        const started = performance.now();
        if (which === 'bare') await bare();
        else await recommend();
        times[which] = performance.now() - started;
        peakRss = Math.max(peakRss, process.memoryUsage().rss);
      }
      recommendMs.push(times.recommend);
      bareMs.push(times.bare);
      ratios.push(times.recommend / times.bare);
    }
    // What one run's result holds (rows, figures, text), after GC: the memory the command keeps until it prints.
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept = await recommend();
    gc();
    const heldBytes = process.memoryUsage().heapUsed - before;
    const pods = WORKLOADS * PODS_PER_WORKLOAD;
    const sized = kept.rows.filter((row) => row.recommendation.kind === 'sized').length;
    const ratio = median(ratios);
    const smallSet = Object.keys(recommendQueries({ window: WINDOW, namespaces: ['team-0'] })).length;
    return {
      workloads: WORKLOADS,
      pods,
      rows: kept.rows.length,
      sized,
      queries: first.read.queries,
      constantQueries: smallSet === Object.keys(recommendQueries(scope)).length,
      medianRecommendMs: median(recommendMs),
      medianBareMs: median(bareMs),
      roundRatios: ratios,
      ratio,
      heldMiB: heldBytes / MiB,
      heldKiBPerThousandPods: heldBytes / 1024 / (pods / 1000),
      peakRssMiB: peakRss / MiB,
      target: 1.5,
      pass: ratio <= 1.5,
      keepAlive: kept.text.length,
    };
  } finally {
    await prometheus?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

export function formatRecommendBench(result) {
  if (result.skipped) return [`SKIP recommend: ${result.skipped}`];
  return [
    `gpumem recommend: ${result.workloads} workloads, ${result.pods} pods, ${result.rows} rows (${result.sized} sized), ${result.queries} queries (the same set for one namespace: ${result.constantQueries ? 'yes' : 'NO'})`,
    `  a. recommend (queries + figures + matching + rows + table)  ${ms(result.medianRecommendMs)} median`,
    `  b. the same queries fetched bare                           ${ms(result.medianBareMs)} median`,
    `  per round a / b: ${list(result.roundRatios, 2)}`,
    `  held after a run: ${mib(result.heldMiB * MiB)} (${result.heldKiBPerThousandPods.toFixed(0)} KiB per 1,000 pods); peak RSS ${mib(result.peakRssMiB * MiB)}`,
    `${result.pass ? 'PASS' : 'FAIL'} recommend: ${result.ratio.toFixed(2)}× the bare queries (target ≤ ${result.target}×)`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runRecommendBench();
  for (const line of formatRecommendBench(result)) process.stdout.write(`${line}\n`);
  const printed = { ...result };
  delete printed.keepAlive;
  process.stdout.write(`${JSON.stringify(printed)}\n`);
}
