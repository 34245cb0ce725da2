// gpumem agent benchmarks (issue #12, "Performance"): what one `gpumem agent` cycle costs in CPU on a node with
// 200 pods × 50 DRM fds, against a bare `cat` of the files the probe reads there; whether 1,000 cycles leave the
// agent's heap and RSS where they were; and whether /metrics stays linear in the number of pods. `bench/run.mjs`
// calls runAgentBench() and stores its results under `agent` in bench/results/latest.json;
// `npx node --expose-gc bench/agent.mjs` runs it alone (print only). The cycle (bench/agentCycle.mjs) and the memory run
// each run in a node process of their own, started with the DaemonSet's environment and the image's node options. Ratios are measured in this run, interleaved
// round by round; nothing here is a timed test, and a missed target prints FAIL without changing the exit code.
// Needs root (chroot, mknod); the cycle-cost section prints SKIP without it.
import { spawn } from 'node:child_process';
import { formatWatch } from './agentWatch.mjs';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import { parse as parseYaml } from 'yaml';
import { renderAgentMetrics } from '../src/core/agent/agentSamples.ts';
import { INTERVAL_SECONDS, MEMORY_KILL_EVERY, newAgent, okCycle, ReplayTransport, writeReplayFile } from './agentReplay.mjs';
import { median, MiB, mib, ms, list, rotated } from './stats.mjs';

const MEMORY_CYCLES = 1000;
const HEAP_TARGET = 1 * MiB;
const RSS_TARGET = 80 * MiB;
const SCALE_PODS = [50, 100, 200, 400];
const SCALE_WARMUP = 5;
const SCALE_ROUNDS = 9;
const SCALE_RENDERS = 3; // renders per measurement, averaged (a 50-pod render takes ~10 ms)
const SCALE_TARGET = 2;

const gc = typeof globalThis.gc === 'function' ? globalThis.gc : () => {};
const errorText = (err) => (err instanceof Error ? err.message : String(err)).split('\n')[0];

// ---- 1. cycle cost: bench/agentCycle.mjs, in a process of its own ------------------------------------------------

/**
 * The cycle bench (bench/agentCycle.mjs) in a process of its own, with the DaemonSet's environment and the image's node
 * options: what a deployed agent's cycle costs, not one run beside the other benches' heap. Its result, with the capture
 * and the pods the memory run replays, comes back as JSON on stdout.
 */
function benchCycle() {
  const script = fileURLToPath(new URL('./agentCycleChild.mjs', import.meta.url));
  return runChild([...imageNodeFlags(), script], '').then((stdout) => JSON.parse(stdout));
}

// ---- 2. memory: 1,000 replayed cycles in a process of their own -------------------------------------------------
// A child process (bench/agentMemoryChild.mjs, bundled) so its RSS is an agent's, not the fixture builder's or the lint
// bench's: what the DaemonSet's memory limit sees. It gets the pods on stdin and reads the capture from a file each cycle.

/**
 * The variables the agent container of deploy/agent/base/daemonset.yaml sets to a value (NODE_OPTIONS: the heap cap and
 * young generation; MALLOC_ARENA_MAX), so the memory child's RSS is the deployed agent's.
 */
export function daemonSetEnv() {
  const text = readFileSync(new URL('../deploy/agent/base/daemonset.yaml', import.meta.url), 'utf8');
  const container = parseYaml(text)?.spec?.template?.spec?.containers?.find((c) => c.name === 'agent');
  if (!container) throw new Error('deploy/agent/base/daemonset.yaml has no agent container');
  return Object.fromEntries((container.env ?? []).filter((v) => typeof v.value === 'string').map((v) => [v.name, v.value]));
}

/**
 * The options deploy/agent/Dockerfile's ENTRYPOINT gives node before the script (V8 flags NODE_OPTIONS does not accept),
 * so the memory child runs as the image does.
 */
export function imageNodeFlags() {
  const text = readFileSync(new URL('../deploy/agent/Dockerfile', import.meta.url), 'utf8');
  const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(text)?.[1];
  if (!entrypoint) throw new Error('deploy/agent/Dockerfile has no ENTRYPOINT in its exec form');
  const argv = JSON.parse(entrypoint);
  const script = argv.indexOf('/app/dist/cli.js');
  if (script < 1) throw new Error('deploy/agent/Dockerfile: the ENTRYPOINT does not run /app/dist/cli.js');
  return argv.slice(1, script);
}

/**
 * The memory child and what it imports as one esbuild bundle, as the agent ships (dist/cli.js, scripts/build.mjs): run from
 * the TypeScript sources, the process would also hold Node's type-stripping loader and every module's source text
 * (~50 MiB of RSS before the first cycle) that the DaemonSet's process does not.
 */
async function bundleForMemoryChild() {
  const esbuild = await import('esbuild');
  const dir = mkdtempSync(join(os.tmpdir(), 'gpumem-agent-bench-'));
  const outfile = join(dir, 'agent-bench.mjs');
  await esbuild.build({
    entryPoints: [fileURLToPath(new URL('./agentMemoryChild.mjs', import.meta.url))],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    external: ['*.node'],
    logLevel: 'error',
    // CommonJS dependencies bundled into ESM use require, __dirname and __filename: give them those.
    banner: {
      js: [
        "import { createRequire as __gpumemRequire } from 'node:module';",
        "import { fileURLToPath as __gpumemPath } from 'node:url';",
        'const require = __gpumemRequire(import.meta.url);',
        'const __filename = __gpumemPath(import.meta.url);',
        "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
      ].join(' '),
    },
  });
  return { dir, outfile, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

async function benchMemory(capture, pods, cycles) {
  const bundle = await bundleForMemoryChild();
  try {
    const file = writeReplayFile(capture, join(bundle.dir, 'capture.txt'));
    return await runMemoryChild(bundle.outfile, file, pods, cycles);
  } finally {
    bundle.cleanup();
  }
}

async function runMemoryChild(script, file, pods, cycles) {
  const got = JSON.parse(await runChild([...imageNodeFlags(), script], JSON.stringify({ file, pods, cycles })));
  const first = got.heapAt[100];
  const last = got.heapAt[cycles];
  const growth = last - first;
  return {
    ...got,
    heapAt100: first,
    heapAtLast: last,
    heapGrowth: growth,
    heapTarget: HEAP_TARGET,
    rssTarget: RSS_TARGET,
    heapPass: Math.abs(growth) < HEAP_TARGET,
    rssPass: got.maxRss < RSS_TARGET,
    ledgerPass: got.killsCounted === got.killsAppended,
    pass: Math.abs(growth) < HEAP_TARGET && got.maxRss < RSS_TARGET && got.killsCounted === got.killsAppended,
  };
}

/**
 * Runs node with `args` in the environment the DaemonSet runs the agent with (the heap cap, the young generation, the
 * malloc arenas), `input` on stdin; resolves to its stdout, rejects with the end of its stderr when it fails.
 */
function runChild(args, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...daemonSetEnv() },
    });
    const stdout = [];
    let stderr = '';
    child.stdout.on('data', (chunk) => stdout.push(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`the bench child exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`));
      resolve(Buffer.concat(stdout).toString('utf8'));
    });
    child.stdin.end(input);
  });
}

// ---- 3. /metrics scaling: renderAgentMetrics at 50 to 400 pods --------------------------------------------------

async function benchScaling() {
  const { manyPodsNode, nodeCapture, podUid: helperPodUid } = await import('../test/unit/helpers/nodeCapture.ts');
  const snapshots = {};
  for (const count of SCALE_PODS) {
    const pods = Array.from({ length: count }, (_, i) => ({ uid: helperPodUid(i), name: `vllm-${i}` }));
    const agent = newAgent(new ReplayTransport(nodeCapture(manyPodsNode(count))), pods);
    await okCycle(agent);
    snapshots[count] = agent.snapshot;
  }
  const render = (count) => {
    const start = performance.now();
    let out;
    for (let i = 0; i < SCALE_RENDERS; i++) out = renderAgentMetrics(snapshots[count]);
    return { ms: (performance.now() - start) / SCALE_RENDERS, series: out.series, bytes: Buffer.byteLength(out.text) };
  };
  for (let i = 0; i < SCALE_WARMUP; i++) for (const count of SCALE_PODS) render(count);
  const samples = Object.fromEntries(SCALE_PODS.map((count) => [count, []]));
  const shape = {};
  for (let round = 0; round < SCALE_ROUNDS; round++) {
    gc();
    for (const count of rotated(SCALE_PODS, round)) {
      const got = render(count);
      samples[count].push(got.ms);
      shape[count] = { series: got.series, bytes: got.bytes };
    }
  }
  const runs = SCALE_PODS.map((count) => {
    const msPerRender = median(samples[count]);
    return { pods: count, ...shape[count], msPerRender, usPerSeries: (msPerRender * 1000) / shape[count].series, renderMs: samples[count] };
  });
  const ratio = runs.at(-1).usPerSeries / runs[0].usPerSeries;
  return { rounds: SCALE_ROUNDS, rendersPerSample: SCALE_RENDERS, runs, ratio, target: SCALE_TARGET, pass: ratio <= SCALE_TARGET };
}

// ---- run and report ---------------------------------------------------------------------------------------------
async function section(fn) {
  try {
    return await fn();
  } catch (err) {
    return { skipped: errorText(err) };
  }
}

export async function runAgentBench(options = {}) {
  // AGENT_BENCH_CYCLES: fewer cycles while working on the bench (the heap is compared at 100 and the last).
  const cycles = options.cycles ?? (Number(process.env.AGENT_BENCH_CYCLES) || MEMORY_CYCLES);
  // AGENT_BENCH_ONLY=cycle: the cycle cost alone, while working on it (the memory run takes minutes).
  const only = options.only ?? process.env.AGENT_BENCH_ONLY;
  const loadAtStart = os.loadavg()[0];
  const start = performance.now();
  const cycle = await section(benchCycle);
  const memory = cycle.skipped
    ? { skipped: `no capture: ${cycle.skipped}` }
    : only === 'cycle'
      ? { skipped: 'AGENT_BENCH_ONLY=cycle' }
      : await section(() => benchMemory(cycle.capture, cycle.pods, cycles));
  const scaling = only === 'cycle' ? { skipped: 'AGENT_BENCH_ONLY=cycle' } : await section(benchScaling);
  delete cycle.capture;
  delete cycle.pods;
  const result = {
    load: {
      cpus: os.cpus().length,
      loadAverage1mStart: loadAtStart,
      loadAverage1mEnd: os.loadavg()[0],
      wallSeconds: (performance.now() - start) / 1000,
    },
    cycle,
    memory,
    scaling,
  };
  console.log(`\n${formatAgentBench(result)}`);
  return result;
}

export function formatAgentBench(result) {
  const { load, cycle, memory, scaling } = result;
  const lines = [
    `gpumem agent (issue #12): 1-min load average ${load.loadAverage1mStart.toFixed(2)} at start, ${load.loadAverage1mEnd.toFixed(2)} at end on ${load.cpus} CPUs; ${load.wallSeconds.toFixed(0)} s wall`,
  ];
  const verdict = (pass) => (pass ? 'PASS' : 'FAIL');
  if (cycle.skipped) lines.push(`SKIP agent cycle: ${cycle.skipped}`);
  else {
    const f = cycle.fixture;
    lines.push(
      `  fixture: the APU node + ${f.pods} pods × ${f.drmFdsPerPod} DRM fds (${f.drmFds} DRM fds), ${f.shell}, in ${f.base}; capture ${mib(cycle.captureBytes)}, ${cycle.filesRead} files read`,
      `  a. one cycle (probe + analysis + /metrics)  ${ms(cycle.medianCycleCpuMs)} CPU median (${ms(cycle.medianCycleWallMs)} wall), ${cycle.series} series, ${(cycle.scrapeBytes / 1024).toFixed(0)} KiB per scrape`,
      `  b. cat of the ${cycle.filesRead} files read        ${ms(cycle.medianCatCpuMs)} CPU median (${ms(cycle.medianCatWallMs)} wall; ${mib(cycle.catBytes)}, ${cycle.catRepeats} cats per measurement; its shell ${ms(cycle.medianCatShellCpuMs)})`,
      `  split of a: probe shell ${ms(cycle.medianShellCpuMs)}, agent process in the cycle ${ms(cycle.medianAgentCpuMs)} (of which the analysis alone ${ms(cycle.medianAnalysisCpuMs)}, the collection after the cycle ${ms(cycle.medianCollectionCpuMs)}), /metrics render ${ms(cycle.medianRenderCpuMs)}`,
      `  per round a / b: ${list(cycle.roundRatios, 1)}`,
      `  the floor, the DRM fds found and the same files read by one head (no analysis): ${ms(cycle.medianFloorCpuMs)} CPU, ${cycle.floorRatio.toFixed(2)}× b; with the collection the RSS target needs, ${(cycle.floorRatio + cycle.collectionRatio).toFixed(2)}× b`,
      `  per cycle at --interval ${INTERVAL_SECONDS} s: ${((cycle.medianCycleCpuMs / (INTERVAL_SECONDS * 1000)) * 1000).toFixed(0)} millicores on average`,
      `${verdict(cycle.pass)} agent cycle CPU: ${cycle.ratio.toFixed(2)}× a cat of the same files, median of the per-round ratios (target ≤ ${cycle.target}×)`,
      ...formatWatch(cycle.watch),
    );
  }
  if (memory.skipped) lines.push(`SKIP agent memory: ${memory.skipped}`);
  else {
    const heaps = Object.entries(memory.heapAt).map(([c, bytes]) => `${c}: ${mib(bytes, 2)}`);
    lines.push(
      `  memory: ${memory.cycles} replayed cycles (a scrape each, a global OOM kill appended every ${MEMORY_KILL_EVERY}) in a process of their own, ${(memory.secondsPerCycle * 1000).toFixed(0)} ms per cycle`,
      `  heap after GC by cycle: ${heaps.join(', ')}`,
      `  OOM kills appended ${memory.killsAppended}, counted by the agent ${memory.killsCounted}; ${memory.series} series, ${(memory.scrapeBytes / 1024).toFixed(0)} KiB per scrape`,
      `${verdict(memory.heapPass)} agent heap: ${mib(memory.heapAt100, 2)} at cycle 100, ${mib(memory.heapAtLast, 2)} at cycle ${memory.cycles} (${(memory.heapGrowth / 1024).toFixed(0)} KiB; target < ${mib(memory.heapTarget, 0)})`,
      `${verdict(memory.rssPass)} agent RSS: max ${mib(memory.maxRss)} (maxRSS; sampled ${mib(memory.rssMaxSampled)}; target < ${mib(memory.rssTarget, 0)})`,
      `  the sampled max: ${mib(memory.rssAtMax.file)} file-backed (node's binary), ${mib(memory.rssAtMax.anon)} anonymous, of which the V8 heap ${mib(memory.rssAtMax.heapTotal)} and Buffers ${mib(memory.rssAtMax.external)}`,
      `  after ${memory.idleSeconds} s idle (as between a deployed agent's cycles): RSS ${mib(memory.rssIdle)} (${mib(memory.rssIdleParts.file)} file-backed, ${mib(memory.rssIdleParts.anon)} anonymous)`,
      `${verdict(memory.ledgerPass)} agent OOM ledger: each appended kill counted once`,
    );
  }
  if (scaling.skipped) lines.push(`SKIP /metrics scaling: ${scaling.skipped}`);
  else {
    for (const run of scaling.runs)
      lines.push(
        `  /metrics at ${String(run.pods).padStart(3)} pods: ${String(run.series).padStart(5)} series, ${String(run.bytes).padStart(7)} bytes, ${run.msPerRender.toFixed(3)} ms per render, ${run.usPerSeries.toFixed(3)} µs per series`,
      );
    lines.push(
      `${verdict(scaling.pass)} /metrics scaling: ${scaling.ratio.toFixed(2)}× the time per series at ${scaling.runs.at(-1).pods} pods as at ${scaling.runs[0].pods} (target ≤ ${scaling.target}×: linear)`,
    );
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runAgentBench();
