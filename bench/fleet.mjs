// gpumem fleet benchmarks (issue #13, "npm run bench"), as ratios against baselines measured in the same run:
// - From Prometheus, 5,000 nodes and 50,000 pods (test/helpers/fleetSeries.ts → promtool create-blocks-from
//   openmetrics → Debian's prometheus): the fleet summary (readFleetFromPrometheus + summarizeFleet) against the same
//   PromQL queries fetched bare through the HTTP API (the same URLs, the bodies read and dropped), interleaved over
//   rounds; median per-round ratio, target ≤ 1.5×. The query count is printed: a constant of the view.
// - The scan: 200 simulated GPU nodes (the API simulator's generator, pods starting in 2 s as on a node) at
//   concurrency 8, against t_node, one node scanned alone in the same run; target ≤ 1.5 × ceil(N / c) × t_node.
// - The view (fleetView.mjs), on the Prometheus read's 5,000 nodes: its first paint after the data arrives
//   (≤ 500 ms) and the extension host's memory for the summary (≤ 50 MiB, released when the view closes).
// Needs the prometheus package (the first) and root (the second: the simulator's exec runs in chroot roots); each
// prints SKIP with the reason otherwise.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { KubeConfig } from '@kubernetes/client-node';
import { summarizeFleet } from '../src/core/fleet/summary.ts';
import { fleetQueries, killsOverTimeQuery, podDetailQueries } from '../src/core/fleet/promFacts.ts';
import { PrometheusClient } from '../src/prometheus/client.ts';
import { directGetter } from '../src/prometheus/httpGet.ts';
import { readFleetFromPrometheus } from '../src/fleet/prometheusSource.ts';
import { scanFleet } from '../src/fleet/scanSource.ts';
import { ClusterClient } from '../src/kube/clusterClient.ts';
import { writeFleetSeries } from '../test/helpers/fleetSeries.ts';
import { fixtureRootsUnavailable } from '../test/helpers/fixtureRoot.ts';
import { prometheusUnavailable, startPrometheus } from '../test/helpers/prometheusProcess.ts';
import { completeFixtures, generateCluster, mergeFixtures, parseFixtures } from '../test/simulator/fixtures.ts';
import { startSimulator } from '../test/simulator/server.ts';
import { median, ms, list } from './stats.mjs';
import { formatFleetViewBench, runFleetViewBench, syntheticSummary } from './fleetView.mjs';

const NODES = 5000;
const PODS = 50_000;
const ROUNDS = 7;
const WINDOW = { label: '1h', seconds: 3600 };
const TOP = 20;
const POD_START_MS = 2000;

/** The fleet view's results (fleetView.mjs), measured on the Prometheus read's summary when it ran. */
let view;

async function benchPrometheus() {
  const unavailable = prometheusUnavailable();
  if (unavailable) return { skipped: unavailable };
  const work = mkdtempSync(join(tmpdir(), 'gpumem-bench-fleet-'));
  let prometheus;
  try {
    const at = Math.floor(Date.now() / 1000);
    writeFleetSeries(join(work, 'fleet.om'), { nodes: NODES, pods: PODS, now: at });
    const blocks = spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', join(work, 'fleet.om'), join(work, 'tsdb')], {
      encoding: 'utf8',
    });
    if (blocks.status !== 0) return { skipped: `promtool failed: ${blocks.stderr.slice(0, 200)}` };
    prometheus = await startPrometheus({ dir: work, tsdb: join(work, 'tsdb') });
    const base = prometheus.base;
    const getter = directGetter(base, { kind: 'none' });
    const client = new PrometheusClient({ kind: 'url', url: base, auth: { kind: 'none' } });
    const summary = async () => {
      const read = await readFleetFromPrometheus(client, { window: WINDOW, top: TOP, at });
      return { summary: summarizeFleet(read.facts, TOP), queries: read.queries };
    };
    // The bare baseline: the same query URLs (the detail set with the UIDs the summary ranks), bodies read and dropped.
    const first = await summary();
    const uids = [...new Set([...first.summary.topOverLimit, ...first.summary.topUnaccounted].map((row) => row.uid))];
    const urls = [
      ...Object.values(fleetQueries(WINDOW, TOP)).map((q) => `api/v1/query?query=${encodeURIComponent(q)}&time=${at}`),
      ...Object.values(podDetailQueries(uids, WINDOW)).map((q) => `api/v1/query?query=${encodeURIComponent(q)}&time=${at}`),
      (() => {
        const range = killsOverTimeQuery(WINDOW);
        return `api/v1/query_range?query=${encodeURIComponent(range.query)}&start=${at - WINDOW.seconds}&end=${at}&step=${range.stepSeconds}`;
      })(),
    ];
    const bare = async () => {
      let next = 0;
      const worker = async () => {
        while (next < urls.length) await getter(urls[next++], {});
      };
      await Promise.all(Array.from({ length: 4 }, worker));
    };
    const summaryMs = [];
    const bareMs = [];
    const ratios = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ['bare', 'summary'] : ['summary', 'bare'];
      const times = {};
      for (const which of order) {
        const started = performance.now();
        if (which === 'bare') await bare();
        else await summary();
        times[which] = performance.now() - started;
      }
      summaryMs.push(times.summary);
      bareMs.push(times.bare);
      ratios.push(times.summary / times.bare);
    }
    const ratio = median(ratios);
    // The view's benchmarks (fleetView.mjs) on this real 5,000-node read: summarised afresh for each use.
    view = await runFleetViewBench(() => summarizeFleet(first.summary.facts, TOP));
    return {
      nodes: NODES,
      pods: PODS,
      queries: first.queries,
      medianSummaryMs: median(summaryMs),
      medianBareMs: median(bareMs),
      roundRatios: ratios,
      ratio,
      target: 1.5,
      pass: ratio <= 1.5,
    };
  } finally {
    await prometheus?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

async function benchScan() {
  const unavailable = fixtureRootsUnavailable();
  if (unavailable) return { skipped: unavailable };
  const cluster = generateCluster({ nodes: 500, podsPerNode: 2 });
  const namespace = parseFixtures('apiVersion: v1\nkind: Namespace\nmetadata: {name: gpumem-bench}\n', { source: 'bench' });
  // A debug pod takes about 2 s to start on a real node (scheduling is skipped with nodeName; the image is cached):
  // the scan's time is that latency, which concurrency overlaps. The probes' own CPU (a few hundred ms each, shell
  // and analysis) still competes for this machine's 2 CPUs, as it would not on a cluster's nodes.
  const sim = await startSimulator({
    fixtures: completeFixtures(mergeFixtures(cluster, namespace)),
    roots: true,
    podStartDelayMs: POD_START_MS,
  });
  try {
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfig('admin'));
    const client = new ClusterClient({ name: 'bench', kubeConfig: kc });
    const options = (concurrency) => ({
      namespace: 'gpumem-bench',
      image: 'busybox:1.36',
      concurrency,
      timeoutMs: 60_000,
      window: WINDOW,
      at: Math.floor(Date.now() / 1000),
    });
    // t_node: one node scanned alone, through a client that sees only that node (the same per-node work).
    const gpuNodes = cluster.objects.filter((o) => o.kind === 'Node' && !String(o.metadata.name).startsWith('cpu-'));
    const one = gpuNodes[0].metadata.name;
    // ClusterClient keeps private fields: every other method is bound to the real client.
    const singleClient = new Proxy(client, {
      get: (target, key) => {
        if (key === 'listNodes') return async (o) => (await target.listNodes(o)).filter((node) => node.metadata?.name === one);
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const nodeTimes = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      await scanFleet(singleClient, options(1));
      nodeTimes.push(performance.now() - started);
    }
    const tNode = median(nodeTimes);
    const concurrency = 8;
    const started = performance.now();
    const facts = await scanFleet(client, options(concurrency));
    const scanMs = performance.now() - started;
    const n = gpuNodes.length;
    const bound = 1.5 * Math.ceil(n / concurrency) * tNode;
    await client.dispose(0);
    return { nodes: n, read: facts.nodes.length, concurrency, tNodeMs: tNode, nodeTimes, scanMs, boundMs: bound, pass: scanMs <= bound };
  } finally {
    await sim.close();
  }
}

export async function runFleetBench() {
  const prometheus = await benchPrometheus().catch((error) => ({ skipped: `failed: ${error.message}` }));
  // Without Prometheus, the view's benchmarks run on a synthetic fleet of the same size.
  view ??= await runFleetViewBench(await syntheticSummary()).catch((error) => ({
    paint: { skipped: `failed: ${error.message}` },
    memory: { skipped: 'not run' },
  }));
  const scan = await benchScan().catch((error) => ({ skipped: `failed: ${error.message}` }));
  const result = { prometheus, view, scan };
  console.log(`\n${formatFleetBench(result)}`);
  return result;
}

export function formatFleetBench({ prometheus, view: viewResult, scan }) {
  const lines = ['gpumem fleet (issue #13):'];
  if (prometheus.skipped) lines.push(`SKIP fleet from Prometheus: ${prometheus.skipped}`);
  else
    lines.push(
      `  ${prometheus.nodes} nodes, ${prometheus.pods} pods: ${prometheus.queries} queries per summary (constant)`,
      `  a. fleet summary (queries + facts + summary)  ${ms(prometheus.medianSummaryMs)} median`,
      `  b. the same queries fetched bare             ${ms(prometheus.medianBareMs)} median`,
      `  per round a / b: ${list(prometheus.roundRatios, 2)}`,
      `${prometheus.pass ? 'PASS' : 'FAIL'} fleet summary: ${prometheus.ratio.toFixed(2)}× the bare queries (target ≤ ${prometheus.target}×)`,
    );
  if (viewResult) lines.push(formatFleetViewBench(viewResult));
  if (scan.skipped) lines.push(`SKIP fleet scan: ${scan.skipped}`);
  else
    lines.push(
      `  scan of ${scan.nodes} simulated GPU nodes at concurrency ${scan.concurrency}: ${ms(scan.scanMs)} (${scan.read} read); t_node ${ms(scan.tNodeMs)} (${list(scan.nodeTimes, 0)} ms)`,
      `${scan.pass ? 'PASS' : 'FAIL'} fleet scan: ${ms(scan.scanMs)} against 1.5 × ceil(${scan.nodes}/${scan.concurrency}) × t_node = ${ms(scan.boundMs)}`,
    );
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) await runFleetBench();
