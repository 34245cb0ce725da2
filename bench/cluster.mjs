// gpumem cluster benchmarks (issue 5, "Performance"): listing and rendering a simulated cluster of 500 nodes and
// 5,000 pods. The first tree level must show within 1 s and a node's pods within 200 ms, memory must stay bounded,
// and the figures are printed as ratios to the simulator's bare response time measured in the same run.
// `bench/run.mjs` calls runClusterBench() after the probe benchmarks and stores its results under `cluster` in
// bench/results/latest.json; `node --expose-gc bench/cluster.mjs` runs it alone (print only). Nothing here is a
// timed test: a missed target prints FAIL without changing the exit code. No root needed.
//
// The simulator (test/simulator/main.ts --bench 500x10 --no-roots, i.e. generateCluster({ nodes: 500,
// podsPerNode: 10 })) runs in a child process, as a real API server would, so its work is not counted in this
// process's heap and its event loop does not share this one.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { KubeConfig } from '@kubernetes/client-node';
import { compareNodesGpuFirst, summarizeNode } from '../src/core/kube/nodes.ts';
import { summarizePod } from '../src/core/kube/pods.ts';
import { noGpuPodsItem, otherPodsItem } from '../src/core/kube/messageTreeItems.ts';
import { nodeTreeItem } from '../src/core/kube/nodeTreeItem.ts';
import { comparePods, podTreeItem } from '../src/core/kube/podTreeItem.ts';
import { ClusterClient, nodeFieldSelector } from '../src/kube/clusterClient.ts';
import { loadContextNodes, splitGpuPods } from '../src/kube/explorer.ts';
import { median, MiB, ms, mib, list, rotated, timed } from './stats.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const SIMULATOR = join(HERE, '..', 'test', 'simulator', 'main.ts');
const NODES = 500;
const PODS_PER_NODE = 10;
const WARMUP = 3;
const ROUNDS = 15;
const PAGE_SIZE = 500; // ClusterClient's default `limit`
const EXPAND_NODES = 100;
const MEMORY_PASSES = 8;
/** Longer than undici's idle keep-alive (4 s) and the simulator's (Node's 5 s): pooled connections are gone. */
const SETTLE_MS = 6000;
const TARGET_LEVEL_MS = 1000;
const TARGET_PODS_MS = 200;

const gc = typeof globalThis.gc === 'function' ? globalThis.gc : () => {};

// ---- helpers --------------------------------------------------------------------------------------------------
let sink = 0; // results feed this so no work can be optimised away

/** The simulator in a child process; resolves once it listens and has written its kubeconfig. */
async function startSimulatorProcess(dir) {
  const kubeconfig = join(dir, 'kubeconfig.yaml');
  const child = spawn(
    process.execPath,
    [SIMULATOR, '--bench', `${NODES}x${PODS_PER_NODE}`, '--no-roots', '--users', 'admin', '--write-kubeconfig', kubeconfig],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const kill = () => child.kill('SIGKILL');
  process.on('exit', kill);
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the simulator did not start within 60 s: ${output.trim().slice(-500)}`)), 60_000);
    child.stdout.on('data', () => {
      const match = /listening on (https:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the simulator exited (${code}): ${output.trim().slice(-500)}`));
    });
  });
  const counts = /(\d+) nodes, (\d+) pods/.exec(output);
  return {
    url,
    kubeconfig,
    nodes: Number(counts?.[1] ?? 0),
    pods: Number(counts?.[2] ?? 0),
    pid: child.pid,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(kill, 5000);
        await exited;
        clearTimeout(timer);
      }
      process.removeListener('exit', kill);
    },
  };
}

/** A raw GET that reads the whole body without parsing it: the simulator's bare response time. */
function rawGet(url, path, options) {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { ...options, method: 'GET', headers: { Accept: 'application/json' } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => (bytes += chunk.length));
      res.on('end', () => (res.statusCode === 200 ? resolve(bytes) : reject(new Error(`GET ${path}: HTTP ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

// ---- what the tree does ---------------------------------------------------------------------------------------
/** (b) The first tree level: list every node, summarise, GPU nodes first, one tree item per node. */
async function firstLevel(client, now) {
  const raw = await client.listNodes();
  const nodes = raw.map((node) => summarizeNode(node)).sort(compareNodesGpuFirst);
  const items = nodes.map((node) => nodeTreeItem(node, [], now));
  return { raw, nodes, items };
}

/** (c) A node's pods: list them with the field selector, summarise, GPU pods by name, one item each. */
async function nodePods(client, node, now) {
  const { pods } = await client.listPodsOnNode(node);
  const summaries = pods.map((pod) => summarizePod(pod));
  const gpu = summaries.filter((pod) => pod.isGpuPod).sort(comparePods);
  const other = summaries.length - gpu.length;
  const items = gpu.map((pod) => podTreeItem(pod, now));
  items.push(gpu.length === 0 ? noGpuPodsItem(other) : otherPodsItem(other));
  return { pods, summaries, items };
}

/** (b′) As the Clusters view loads a context: GET /version, the node list, the SystemOOM event list, items. */
async function viewFirstLevel(client, now) {
  const loaded = await loadContextNodes(client);
  if (loaded.state.kind !== 'Reachable') throw new Error(`context state ${loaded.state.kind}`);
  return loaded.nodes.map((node) => nodeTreeItem(node.summary, loaded.events.get(node.summary.name) ?? [], now));
}

/** (c′) As the view expands a node: its pod watch (list, then watch) until the first change it reports, items. */
function viewNodePods(client, node, now) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no pods of ${node} within 10 s`));
    }, 10_000);
    const stop = client.watchPodsOnNode(
      node,
      (pods) => {
        clearTimeout(timer);
        stop();
        const { gpuPods, otherPods } = splitGpuPods(pods);
        const items = gpuPods.map((pod) => podTreeItem(pod.summary, now));
        items.push(gpuPods.length === 0 ? noGpuPodsItem(otherPods) : otherPodsItem(otherPods));
        resolve(items);
      },
      {
        onError: (failure) => {
          clearTimeout(timer);
          stop();
          reject(new Error(failure.kind));
        },
      },
    );
  });
}

// ---- the measurements -----------------------------------------------------------------------------------------
async function measure() {
  const dir = mkdtempSync(join(os.tmpdir(), 'gpumem-bench-cluster-'));
  const startSim = performance.now();
  const sim = await startSimulatorProcess(dir);
  const simStartMs = performance.now() - startSim;
  try {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(readFileSync(sim.kubeconfig, 'utf8'));
    const user = kubeConfig.getCurrentUser();
    const cluster = kubeConfig.getCurrentCluster();
    const tls = {
      ca: Buffer.from(cluster.caData, 'base64'),
      cert: Buffer.from(user.certData, 'base64'),
      key: Buffer.from(user.keyData, 'base64'),
    };
    const client = new ClusterClient({ name: kubeConfig.getCurrentContext(), kubeConfig });
    const now = Date.now();

    // Cold: the first calls in this process (JIT, first TLS connection), as when the view first expands.
    const coldLevel = await timed(() => firstLevel(client, now));
    const gpuNodes = coldLevel.value.nodes.filter((node) => node.gpuResources.length > 0).map((node) => node.name);
    const coldPods = await timed(() => nodePods(client, gpuNodes[0], now));
    const nodesPath = `/api/v1/nodes?limit=${PAGE_SIZE}`;
    const podsPath = (node) => `/api/v1/pods?fieldSelector=${encodeURIComponent(nodeFieldSelector(node))}&limit=${PAGE_SIZE}`;
    const nodesBytes = await rawGet(sim.url, nodesPath, { ...tls, agent: false });
    const podsBytes = await rawGet(sim.url, podsPath(gpuNodes[0]), { ...tls, agent: false });

    // Interleaved rounds, rotated. Every round expands another GPU node.
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1, ...tls });
    const samples = {
      rawNodes: [],
      rawNodesKeepAlive: [],
      level: [],
      viewLevel: [],
      rawPods: [],
      rawPodsKeepAlive: [],
      pods: [],
      viewPods: [],
    };
    const levelRatios = [];
    const podRatios = [];
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      const node = gpuNodes[(round + 1) % gpuNodes.length];
      const times = {};
      const ops = [
        ['rawNodes', () => rawGet(sim.url, nodesPath, { ...tls, agent: false })],
        ['rawNodesKeepAlive', () => rawGet(sim.url, nodesPath, { agent: keepAlive })],
        ['level', async () => (sink += (await firstLevel(client, now)).items.length)],
        ['viewLevel', async () => (sink += (await viewFirstLevel(client, now)).length)],
        ['rawPods', () => rawGet(sim.url, podsPath(node), { ...tls, agent: false })],
        ['rawPodsKeepAlive', () => rawGet(sim.url, podsPath(node), { agent: keepAlive })],
        ['pods', async () => (sink += (await nodePods(client, node, now)).items.length)],
        ['viewPods', async () => (sink += (await viewNodePods(client, node, now)).length)],
      ];
      for (const [name, fn] of rotated(ops, round)) {
        gc();
        times[name] = (await timed(fn)).ms;
      }
      if (round < WARMUP) continue;
      for (const [name, value] of Object.entries(times)) samples[name].push(value);
      levelRatios.push(times.level / times.rawNodes);
      podRatios.push(times.pods / times.rawPods);
    }
    keepAlive.destroy();
    const medians = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
    const maxima = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, Math.max(...values)]));

    // (d) Memory: hold what a tree holds (the node list and the pods of 100 expanded nodes), MEMORY_PASSES times
    // over, each pass replacing the previous one as a refresh does: the heap after GC must stay flat. Then drop
    // it, let the idle connections close, and see what is left.
    gc();
    const memStart = process.memoryUsage();
    const passes = [];
    let held;
    for (let pass = 0; pass < MEMORY_PASSES; pass++) {
      const level = await firstLevel(client, now);
      const expanded = new Map();
      for (const node of level.nodes.slice(0, EXPAND_NODES)) expanded.set(node.name, await nodePods(client, node.name, now));
      held = { level, expanded };
      const beforeGc = process.memoryUsage();
      gc();
      const afterGc = process.memoryUsage();
      passes.push({ heapBeforeGcBytes: beforeGc.heapUsed, heapAfterGcBytes: afterGc.heapUsed, rssBytes: afterGc.rss });
    }
    const heldPods = [...held.expanded.values()].reduce((sum, entry) => sum + entry.pods.length, 0);
    const heldNodes = held.level.raw.length;
    held = undefined;
    gc();
    const memDropped = process.memoryUsage();
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    gc();
    const memSettled = process.memoryUsage();
    const afterGc = passes.map((p) => p.heapAfterGcBytes);

    return {
      simulator: {
        nodes: sim.nodes,
        pods: sim.pods,
        startMs: simStartMs,
        nodeListBytes: nodesBytes,
        podListBytes: podsBytes,
        gpuNodes: gpuNodes.length,
      },
      rounds: ROUNDS,
      warmup: WARMUP,
      cold: {
        firstLevelMs: coldLevel.ms,
        nodePodsMs: coldPods.ms,
        nodeItems: coldLevel.value.items.length,
        podItems: coldPods.value.items.length,
      },
      medians,
      maxima,
      samples,
      levelRatio: median(levelRatios),
      levelRatios,
      levelRatioOfMedians: medians.level / medians.rawNodes,
      levelRatioKeepAlive: medians.level / medians.rawNodesKeepAlive,
      podRatio: median(podRatios),
      podRatios,
      podRatioOfMedians: medians.pods / medians.rawPods,
      podRatioKeepAlive: medians.pods / medians.rawPodsKeepAlive,
      levelPass: medians.level <= TARGET_LEVEL_MS,
      podsPass: medians.pods <= TARGET_PODS_MS,
      targets: { firstLevelMs: TARGET_LEVEL_MS, nodePodsMs: TARGET_PODS_MS },
      memory: {
        gcExposed: typeof globalThis.gc === 'function',
        startHeapBytes: memStart.heapUsed,
        startRssBytes: memStart.rss,
        passes,
        heldNodes,
        expandedNodes: EXPAND_NODES,
        heldPods,
        heldBytes: afterGc[0] - memStart.heapUsed,
        spreadAfterGcBytes: Math.max(...afterGc) - Math.min(...afterGc),
        growthFirstToLastBytes: afterGc[afterGc.length - 1] - afterGc[0],
        droppedHeapBytes: memDropped.heapUsed,
        settledHeapBytes: memSettled.heapUsed,
        settledRssBytes: memSettled.rss,
        settleMs: SETTLE_MS,
      },
    };
  } finally {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- run and report -------------------------------------------------------------------------------------------
/** Runs the measurements, prints their table section, and returns what bench/run.mjs stores under `cluster`. */
export async function runClusterBench() {
  const loadAtStart = os.loadavg()[0];
  const start = performance.now();
  let r;
  try {
    r = await measure();
  } catch (err) {
    const reason = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    console.log(`\ngpumem cluster bench\n\nSKIP cluster: ${reason}`);
    return { skipped: reason };
  }
  const loadAtEnd = os.loadavg()[0];
  const wallSeconds = (performance.now() - start) / 1000;
  const m = r.medians;
  const x = r.maxima;
  const mem = r.memory;
  const rows = [
    [
      'Machine load',
      `1-min load average ${loadAtStart.toFixed(2)} at start, ${loadAtEnd.toFixed(2)} at end on ${os.cpus().length} CPUs; ${wallSeconds.toFixed(1)} s wall`,
    ],
    [
      'Simulated cluster',
      `${r.simulator.nodes} nodes (${r.simulator.gpuNodes} with GPU resources), ${r.simulator.pods} pods; test/simulator --bench ${NODES}x${PODS_PER_NODE} --no-roots in a child process (started in ${(r.simulator.startMs / 1000).toFixed(1)} s)`,
    ],
    [
      '  rounds',
      `${r.rounds} after ${r.warmup} warm-up rounds, interleaved and rotated; each round expands another GPU node; medians (max)`,
    ],
    ['', ''],
    [
      'a. bare GET nodes',
      `${ms(m.rawNodes)} (${ms(x.rawNodes)}) new TLS connection per request, as client-node alone makes them; ${(r.simulator.nodeListBytes / MiB).toFixed(2)} MiB, not parsed`,
    ],
    ['   … keep-alive', `${ms(m.rawNodesKeepAlive)} (${ms(x.rawNodesKeepAlive)}) one reused connection (informational)`],
    [
      'b. first tree level',
      `${ms(m.level)} (${ms(x.level)}) ClusterClient.listNodes, summarizeNode ×${NODES}, GPU nodes first, nodeTreeItem ×${NODES}`,
    ],
    [
      '   … as the view loads it',
      `${ms(m.viewLevel)} (${ms(x.viewLevel)}) loadContextNodes (GET /version, nodes, SystemOOM events) and items (informational)`,
    ],
    ['   … cold', `${ms(r.cold.firstLevelMs)} the first call in the process (informational)`],
    [
      'Ratio b / a',
      `${r.levelRatio.toFixed(2)}×, median of the per-round ratios (ratio of the medians ${r.levelRatioOfMedians.toFixed(2)}×; to keep-alive ${r.levelRatioKeepAlive.toFixed(2)}×)`,
    ],
    ['  per round', list(r.levelRatios, 2)],
    ['', ''],
    [
      "a. bare GET a node's pods",
      `${ms(m.rawPods)} (${ms(x.rawPods)}) fieldSelector=spec.nodeName=…, new TLS connection; ${(r.simulator.podListBytes / 1024).toFixed(1)} KiB for ${PODS_PER_NODE} pods`,
    ],
    ['   … keep-alive', `${ms(m.rawPodsKeepAlive)} (${ms(x.rawPodsKeepAlive)}) (informational)`],
    [
      "c. a node's pods",
      `${ms(m.pods)} (${ms(x.pods)}) ClusterClient.listPodsOnNode, summarizePod ×${PODS_PER_NODE}, GPU pods by name, podTreeItem each`,
    ],
    [
      '   … as the view expands it',
      `${ms(m.viewPods)} (${ms(x.viewPods)}) watchPodsOnNode to its first report (list, watch, 50 ms coalescing) and items (informational)`,
    ],
    ['   … cold', `${ms(r.cold.nodePodsMs)} the first call in the process (informational)`],
    [
      'Ratio c / a',
      `${r.podRatio.toFixed(2)}×, median of the per-round ratios (ratio of the medians ${r.podRatioOfMedians.toFixed(2)}×; to keep-alive ${r.podRatioKeepAlive.toFixed(2)}×)`,
    ],
    ['  per round', list(r.podRatios, 2)],
    ['', ''],
    [
      'd. heap at start',
      `${mib(mem.startHeapBytes)} after GC (rss ${mib(mem.startRssBytes)})${mem.gcExposed ? '' : ' (no --expose-gc: GC not forced)'}`,
    ],
    [
      '   held tree',
      `${mem.heldNodes} nodes and the ${mem.heldPods} pods of ${mem.expandedNodes} expanded nodes (raw objects, summaries, items), listed ${mem.passes.length} times, each pass replacing the last`,
    ],
    ['   heap before GC', `${mem.passes.map((p) => (p.heapBeforeGcBytes / MiB).toFixed(1)).join(' ')} MiB per pass`],
    [
      '   heap after GC',
      `${mem.passes.map((p) => (p.heapAfterGcBytes / MiB).toFixed(1)).join(' ')} MiB per pass: ${mib(mem.heldBytes)} held, spread ${mib(mem.spreadAfterGcBytes)}, first → last ${mib(mem.growthFirstToLastBytes)}`,
    ],
    ['   rss', `${mem.passes.map((p) => (p.rssBytes / MiB).toFixed(1)).join(' ')} MiB per pass`],
    [
      '   tree dropped',
      `heap ${mib(mem.droppedHeapBytes)} after GC at once; ${mib(mem.settledHeapBytes)} after ${mem.settleMs / 1000} s (idle connections closed) and GC (rss ${mib(mem.settledRssBytes)})`,
    ],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  console.log(`\ngpumem cluster bench · node ${process.version} · ${os.cpus()[0]?.model ?? 'unknown CPU'} × ${os.cpus().length}\n`);
  for (const [label, value] of rows) console.log(label === '' ? '' : `${label.padEnd(width)}  ${value}`);
  console.log('');
  console.log(
    `${r.levelPass ? 'PASS' : 'FAIL'} first tree level: ${ms(m.level)} median for ${NODES} nodes (target ≤ ${TARGET_LEVEL_MS} ms); ${r.levelRatio.toFixed(2)}× the bare GET /api/v1/nodes`,
  );
  console.log(
    `${r.podsPass ? 'PASS' : 'FAIL'} a node's pods: ${ms(m.pods)} median (target ≤ ${TARGET_PODS_MS} ms); ${r.podRatio.toFixed(2)}× the bare GET of its pods`,
  );
  console.log(
    `INFO memory: ${mib(mem.heldBytes)} held for ${mem.heldNodes} nodes + ${mem.heldPods} pods; after GC it moves ${mib(mem.spreadAfterGcBytes)} over ${mem.passes.length} passes (first → last ${mib(mem.growthFirstToLastBytes)}); ${mib(mem.settledHeapBytes - mem.startHeapBytes)} above the start once dropped`,
  );
  return {
    date: new Date().toISOString(),
    load: { loadAverage1mStart: loadAtStart, loadAverage1mEnd: loadAtEnd, wallSeconds },
    ...r,
    sink,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runClusterBench();
