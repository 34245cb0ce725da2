// gpumem agent benchmarks (issue #12, "Performance"): what one `gpumem agent` cycle costs in CPU on a node with
// 200 pods × 50 DRM fds, against a bare `cat` of the files the probe reads there; whether 1,000 cycles leave the
// agent's heap and RSS where they were; and whether /metrics stays linear in the number of pods. `bench/run.mjs`
// calls runAgentBench() and stores its results under `agent` in bench/results/latest.json;
// `npx node --expose-gc bench/agent.mjs` runs it alone (print only). Ratios are measured in this run, interleaved
// round by round; nothing here is a timed test, and a missed target prints FAIL without changing the exit code.
// Needs root (chroot, mknod); the cycle-cost section prints SKIP without it.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import { parse as parseYaml } from 'yaml';
import { renderAgentMetrics } from '../src/core/agent/agentSamples.ts';
import { analyzeCaptureText } from '../src/core/inspection/analyze.ts';
import { runProbe } from '../src/core/inspection/runProbe.ts';
import { parseCapture, sectionFiles } from '../src/core/probe/capture.ts';
import { LocalTransport } from '../src/transports/local.ts';
import { INTERVAL_SECONDS, MEMORY_KILL_EVERY, newAgent, okCycle, ReplayTransport, writeReplayFile } from './agentReplay.mjs';
import { runScript } from './probe.mjs';
import { median, MiB, mib, ms, list, rotated } from './stats.mjs';

const PODS = 200;
const DRM_FDS = 50; // per pod: one GPU process, 10 DRM clients, each open()ed once and dup()ed 4 times
const CLIENTS_PER_POD = 10;
const CYCLE_WARMUP = 1;
const CYCLE_ROUNDS = 5;
const CAT_REPEATS = 10; // the cat is ~10× cheaper than a cycle: repeat it so the 10 ms clock tick is ≤ 1 ms of it
const CYCLE_TARGET = 1.5;
const MEMORY_CYCLES = 1000;
const HEAP_TARGET = 1 * MiB;
const RSS_TARGET = 80 * MiB;
const SCALE_PODS = [50, 100, 200, 400];
const SCALE_WARMUP = 5;
const SCALE_ROUNDS = 9;
const SCALE_RENDERS = 3; // renders per measurement, averaged (a 50-pod render takes ~10 ms)
const SCALE_TARGET = 2;
const PDEV = '0000:c5:00.0'; // the APU fixture's iGPU
// A small fixed environment, as a fresh shell on a node has (bench/probe.mjs: busybox find and npm_* variables).
const ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/' };
const CLK_TCK = 100; // USER_HZ: /proc/<pid>/stat's unit on every Linux architecture gpumem runs on

const gc = typeof globalThis.gc === 'function' ? globalThis.gc : () => {};
const errorText = (err) => (err instanceof Error ? err.message : String(err)).split('\n')[0];

// ---- CPU time ---------------------------------------------------------------------------------------------------
// The agent's CPU is its own (process.cpuUsage(): every thread of this process, so the GC helpers and libuv's pipe
// reads count) plus its children's: the chroot'd busybox sh and everything it forks. Children are read from
// /proc/self/stat's cutime + cstime: the kernel adds a child's CPU, and the CPU of every descendant that child waited
// for, to its parent when the parent reaps it. LocalTransport resolves on 'close', which node emits after 'exit',
// i.e. after libuv's waitpid(): by then the shell's whole tree is in the figure. (sh waits for each command it runs;
// a process that outlives its parent would be reparented and missed, and the probe leaves none that use CPU: busybox
// timeout's watcher sleeps.) The counters are cumulative nanoseconds in the kernel printed in clock ticks (10 ms),
// so a difference is within one tick: the cheap baseline is repeated CAT_REPEATS times per measurement.
function childCpuMs() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 (state)
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLK_TCK; // fields 16 and 17: cutime, cstime
}
const selfCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/** Runs `fn`, returning its value and the CPU time it took, this process's and its children's, in ms. */
async function cpuOf(fn) {
  const self = selfCpuMs();
  const children = childCpuMs();
  const wall = performance.now();
  const value = await fn();
  return { self: selfCpuMs() - self, children: childCpuMs() - children, wall: performance.now() - wall, value };
}

// ---- the fixture ------------------------------------------------------------------------------------------------

const podUid = (i) =>
  `5e${(0x100000 + i).toString(16)}-${(0x1000 + i).toString(16)}-4a${(i % 256).toString(16).padStart(2, '0')}-8b2c-${(0x1a2b3c4d5e00 + i).toString(16)}`;

/**
 * The Strix Halo node of the agent's tests (test/helpers/fixtureRoot.ts buildApuNode, the node under /host as the
 * DaemonSet mounts it, in /dev/shm: memory-backed like /proc) with PODS pods more: each a pod cgroup and a container
 * cgroup (memory.current, memory.max, memory.events, memory.stat), a pause process and a GPU process holding
 * DRM_FDS fds on /dev/dri/renderD128 (CLIENTS_PER_POD amdgpu clients, each dup()ed, as ROCm runtimes do) besides
 * its stdio. The pods are written with the same helpers the fixture builders use (addProcess, amdgpuFdinfo).
 */
export async function buildAgentFixture() {
  const helpers = await import('../test/helpers/fixtureRoot.ts');
  const { NodeTree, addProcess, amdgpuFdinfo, plainFdinfo, containerId, memoryEvents, memoryStatV2, buildApuNode, GiB } = helpers;
  const fixture = buildApuNode({ hostRoot: '/host', base: '/dev/shm' });
  try {
    // A NodeTree over the built root: its file/dir/link/path methods only use `root` and `hostRoot`.
    const tree = Object.assign(Object.create(NodeTree.prototype), { root: fixture.root, hostRoot: fixture.hostRoot });
    const burstable = '/kubepods.slice/kubepods-burstable.slice';
    const cgroupDir = (path, current, max) => {
      const base = `/sys/fs/cgroup${path}`;
      tree.file(`${base}/cgroup.controllers`, 'cpuset cpu io memory hugetlb pids rdma misc\n', 0o444);
      tree.file(`${base}/memory.current`, `${current}\n`, 0o444);
      tree.file(`${base}/memory.max`, `${max}\n`);
      tree.file(`${base}/memory.events`, memoryEvents(), 0o444);
      tree.file(`${base}/memory.stat`, memoryStatV2(current), 0o444);
    };
    const pods = [];
    let pid = 20000;
    let clientId = 5000;
    let pasid = 40000;
    for (let i = 0; i < PODS; i++) {
      const uid = podUid(i);
      const ctr = containerId(`agent-bench-${i}`);
      const podPath = `${burstable}/kubepods-burstable-pod${uid.replace(/-/g, '_')}.slice`;
      const ctrPath = `${podPath}/cri-containerd-${ctr}.scope`;
      const limit = (8 + (i % 9)) * GiB;
      const current = Math.floor(limit * (0.2 + (i % 7) / 10));
      cgroupDir(podPath, current, limit);
      cgroupDir(ctrPath, current - 4096, limit);
      const log = `/var/log/pods/ml_vllm-${i}_${uid}/vllm/0.log`;
      tree.file(log, '');
      const std = [
        { fd: 0, target: '/dev/null', fdinfo: plainFdinfo('0100000', 5) },
        { fd: 1, target: log, fdinfo: plainFdinfo('0102001', 900000 + i) },
        { fd: 2, target: log, fdinfo: plainFdinfo('0102001', 900000 + i) },
      ];
      addProcess(tree, {
        pid: pid++,
        comm: 'pause',
        cmdline: ['/pause'],
        cgroup: `0::${podPath}/cri-containerd-${containerId(`pause-${i}`)}.scope\n`,
        fds: std.slice(0, 1),
      });
      const fds = [...std];
      for (let c = 0; c < CLIENTS_PER_POD; c++) {
        const client = {
          clientId: ++clientId,
          pdev: PDEV,
          pasid: ++pasid,
          gtt: (64 + ((i * 7 + c) % 64)) * MiB,
          vram: (c % 4) * 4 * MiB,
          cpu: 4096,
        };
        for (let d = 0; d < DRM_FDS / CLIENTS_PER_POD; d++)
          fds.push({
            fd: 3 + c * (DRM_FDS / CLIENTS_PER_POD) + d,
            target: '/dev/dri/renderD128',
            fdinfo: amdgpuFdinfo(d === 0 ? client : { ...client, flags: '0100002' }),
          });
      }
      addProcess(tree, {
        pid: pid++,
        comm: 'python3',
        cmdline: ['python3', '-m', 'vllm.entrypoints.openai.api_server'],
        cgroup: `0::${ctrPath}\n`,
        fds,
      });
      pods.push({ uid, ctr, ctrPath, name: `vllm-${i}` });
    }
    return { fixture, pods };
  } catch (err) {
    fixture.cleanup();
    throw err;
  }
}

// ---- 1. cycle cost: one cycle against a cat of the files it reads -----------------------------------------------

/** What the probe read, as paths in the chroot: every file record that is a file, and the files behind the batched reads. */
function filesRead(captureText, root) {
  const isFile = (path) => {
    try {
      return statSync(`${root}${path}`).isFile();
    } catch {
      return false;
    }
  };
  const out = new Set();
  const capture = parseCapture(captureText);
  for (const name of capture.sections.keys()) {
    // sectionFiles: the files read by head in batches (the fdinfo sweep, the kubepods cgroups) are split back into them.
    for (const [path, body] of sectionFiles(capture, name)) {
      if (isFile(path)) out.add(path);
      else if (path === '/host/proc/pod-cgroups') {
        // One grep -z read every /proc/<pid>/cgroup to keep the kubepods ones.
        for (const pid of readdirSync(`${root}/host/proc`))
          if (/^\d+$/.test(pid) && isFile(`/host/proc/${pid}/cgroup`)) out.add(`/host/proc/${pid}/cgroup`);
      } else if (path === '/host/proc/pod-status') {
        for (const line of body.split('\n')) {
          const file = `/host/proc/${line.slice(0, line.indexOf(':'))}`;
          if (line.includes(':') && isFile(file)) out.add(file);
        }
      }
    }
  }
  return [...out];
}

async function benchCycle() {
  const built = await cpuOf(buildAgentFixture);
  const { fixture, pods } = built.value;
  const sh = new LocalTransport({ command: ['chroot', fixture.root, '/bin/sh', '-s'], env: ENV });
  const agent = newAgent(new LocalTransport({ command: ['chroot', fixture.root, '/bin/sh', '-s'], env: ENV }), pods);
  try {
    const recorded = await runProbe(sh, { scope: 'node', hostRoot: '/host', timeoutMs: 600_000 });
    if (recorded.exec.exitCode !== 0 || !recorded.captureText.includes(':done@@'))
      throw new Error(`the probe did not complete on the fixture (exit ${recorded.exec.exitCode}): ${recorded.exec.stderr.slice(0, 300)}`);
    const capture = recorded.captureText;
    const read = filesRead(capture, fixture.root);
    // Quoted: the APU node has cgroup directories whose names hold a space and a newline.
    const quoted = read.map((path) => `'${path.replaceAll("'", "'\\''")}'`).join(' ');
    const catScript = `cat ${quoted}\n`;
    // The floor: what any probe pays before it analyses anything, the DRM fds found (one ls -lL of every process's
    // fds, major 226 kept) and the same files read by one head that names each (cat cannot say which file is which).
    const floorScript = `ls -lL /host/proc/[0-9]*/fd 2>/dev/null | grep -e '/fd:$' -e '^c.* 226, ' > /dev/null\nhead -c 262144 /dev/null ${quoted} /dev/null\n`;
    let catBytes = 0;
    const ops = {
      cycle: async () => {
        const cycle = await cpuOf(() => okCycle(agent));
        const render = await cpuOf(() => agent.metrics());
        return { cycle, render, series: render.value.series, bytes: Buffer.byteLength(render.value.text) };
      },
      cat: async () =>
        cpuOf(async () => {
          for (let i = 0; i < CAT_REPEATS; i++) catBytes = Buffer.byteLength((await runScript(sh, catScript)).stdout);
        }),
      analysis: async () => cpuOf(() => analyzeCaptureText(capture, { target: 'bench' })),
      floor: async () => cpuOf(() => runScript(sh, floorScript)),
    };
    for (let i = 0; i < CYCLE_WARMUP; i++) for (const name of Object.keys(ops)) await ops[name]();
    const inspection = analyzeCaptureText(capture, { target: 'bench' });
    const podsFound = inspection.node?.pods.filter((pod) => pods.some((p) => p.uid === pod.podUid)).length ?? 0;
    if (podsFound !== PODS) throw new Error(`the analysis found ${podsFound} of the ${PODS} pods`);
    const rounds = [];
    for (let round = 0; round < CYCLE_ROUNDS; round++) {
      gc();
      const got = {};
      for (const name of rotated(Object.keys(ops), round)) got[name] = await ops[name]();
      const cycle = got.cycle.cycle.self + got.cycle.cycle.children + got.cycle.render.self + got.cycle.render.children;
      const cat = (got.cat.self + got.cat.children) / CAT_REPEATS;
      rounds.push({
        cycleCpuMs: cycle,
        shellCpuMs: got.cycle.cycle.children,
        agentCpuMs: got.cycle.cycle.self,
        renderCpuMs: got.cycle.render.self,
        cycleWallMs: got.cycle.cycle.wall + got.cycle.render.wall,
        analysisCpuMs: got.analysis.self,
        catCpuMs: cat,
        catShellCpuMs: got.cat.children / CAT_REPEATS,
        floorCpuMs: got.floor.self + got.floor.children,
        floorRatio: (got.floor.self + got.floor.children) / cat,
        catWallMs: got.cat.wall / CAT_REPEATS,
        ratio: cycle / cat,
        series: got.cycle.series,
        bytes: got.cycle.bytes,
      });
    }
    const med = (key) => median(rounds.map((r) => r[key]));
    const ratio = med('ratio');
    return {
      fixture: {
        pods: PODS,
        drmFdsPerPod: DRM_FDS,
        drmFds: PODS * DRM_FDS,
        processes: inspection.node?.model.processes?.length ?? null,
        base: '/dev/shm',
        shell: 'busybox ash (static), chroot, node under /host',
        buildMs: built.wall,
      },
      captureBytes: Buffer.byteLength(capture),
      filesRead: read.length,
      catBytes,
      catRepeats: CAT_REPEATS,
      rounds: CYCLE_ROUNDS,
      warmup: CYCLE_WARMUP,
      perRound: rounds,
      medianCycleCpuMs: med('cycleCpuMs'),
      medianShellCpuMs: med('shellCpuMs'),
      medianAgentCpuMs: med('agentCpuMs'),
      medianRenderCpuMs: med('renderCpuMs'),
      medianAnalysisCpuMs: med('analysisCpuMs'),
      medianCycleWallMs: med('cycleWallMs'),
      medianCatCpuMs: med('catCpuMs'),
      medianCatShellCpuMs: med('catShellCpuMs'),
      medianFloorCpuMs: med('floorCpuMs'),
      floorRatio: med('floorRatio'),
      medianCatWallMs: med('catWallMs'),
      series: rounds.at(-1)?.series ?? 0,
      scrapeBytes: rounds.at(-1)?.bytes ?? 0,
      ratio,
      roundRatios: rounds.map((r) => r.ratio),
      target: CYCLE_TARGET,
      pass: ratio <= CYCLE_TARGET,
      capture,
      pods,
    };
  } finally {
    await agent.stop();
    await sh.close();
    fixture.cleanup();
  }
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

function runMemoryChild(script, file, pods, cycles) {
  return new Promise((resolve, reject) => {
    // The environment the DaemonSet runs the agent with (the heap cap, the malloc arenas) and the image's node
    // options, so RSS is the deployed one.
    const child = spawn(process.execPath, [...imageNodeFlags(), script], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...daemonSetEnv() },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`the memory child exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`));
      const got = JSON.parse(stdout);
      const first = got.heapAt[100];
      const last = got.heapAt[cycles];
      const growth = last - first;
      resolve({
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
      });
    });
    child.stdin.end(JSON.stringify({ file, pods, cycles }));
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
      `  split of a: probe shell ${ms(cycle.medianShellCpuMs)}, agent process in the cycle ${ms(cycle.medianAgentCpuMs)} (of which the analysis alone ${ms(cycle.medianAnalysisCpuMs)}), /metrics render ${ms(cycle.medianRenderCpuMs)}`,
      `  per round a / b: ${list(cycle.roundRatios, 1)}`,
      `  the floor, the DRM fds found and the same files read by one head (no analysis): ${ms(cycle.medianFloorCpuMs)} CPU, ${cycle.floorRatio.toFixed(2)}× b`,
      `  per cycle at --interval ${INTERVAL_SECONDS} s: ${((cycle.medianCycleCpuMs / (INTERVAL_SECONDS * 1000)) * 1000).toFixed(0)} millicores on average`,
      `${verdict(cycle.pass)} agent cycle CPU: ${cycle.ratio.toFixed(2)}× a cat of the same files, median of the per-round ratios (target ≤ ${cycle.target}×)`,
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
