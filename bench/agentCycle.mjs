// The agent bench's cycle cost (issue #12, "Performance"): one `gpumem agent` cycle on a node with 200 pods × 50 DRM
// fds against a bare `cat` of the files its probe reads there, in CPU time. bench/agent.mjs runs it in a process of
// its own (bench/agentCycleChild.mjs) with the DaemonSet's and the image's node options: the collection the agent
// runs after each cycle marks the whole heap of the process it runs in, and in `npm run bench`'s process that heap
// also holds what the lint, probe and cluster benches left (a cycle measured there cost ~100 ms of CPU more).
// Needs root (chroot, mknod).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { analyzeCaptureText } from '../src/core/inspectionRun/analyze.ts';
import { exposedGarbageCollector } from '../src/agent/agent.ts';
import { runProbe } from '../src/core/inspectionRun/runProbe.ts';
import { parseCapture, sectionFiles } from '../src/core/probe/capture.ts';
import { LocalTransport } from '../src/transports/local.ts';
import { MiB, median, rotated } from './stats.mjs';
import { newAgent, okCycle } from './agentReplay.mjs';
import { runScript } from './shellRun.mjs';
import { benchWatch } from './agentWatch.mjs';

export const PODS = 200;
export const DRM_FDS = 50; // per pod: one GPU process, 10 DRM clients, each open()ed once and dup()ed 4 times
const CLIENTS_PER_POD = 10;
const CYCLE_WARMUP = 1;
const CYCLE_ROUNDS = 5;
const CAT_REPEATS = 10; // the cat is ~10× cheaper than a cycle: repeat it so the 10 ms clock tick is ≤ 1 ms of it
export const CYCLE_TARGET = 1.5;
const PDEV = '0000:c5:00.0'; // the APU fixture's iGPU
// A small fixed environment, as a fresh shell on a node has (bench/probe.mjs: busybox find and npm_* variables).
const ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/' };
const CLK_TCK = 100; // USER_HZ: /proc/<pid>/stat's unit on every Linux architecture gpumem runs on

const gc = typeof globalThis.gc === 'function' ? globalThis.gc : () => {};

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

export async function benchCycle() {
  const built = await cpuOf(buildAgentFixture);
  const { fixture, pods } = built.value;
  const sh = new LocalTransport({ command: ['chroot', fixture.root, '/bin/sh', '-s'], env: ENV });
  // The agent's collection after each cycle (exposedGarbageCollector), timed: it is in the cycle's CPU, and its split.
  const { collectGarbage } = exposedGarbageCollector();
  let collectionMs = 0;
  const timedCollection = collectGarbage && {
    collectGarbage: () => {
      const before = selfCpuMs();
      collectGarbage();
      collectionMs += selfCpuMs() - before;
    },
  };
  const agent = newAgent(new LocalTransport({ command: ['chroot', fixture.root, '/bin/sh', '-s'], env: ENV }), pods, timedCollection);
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
        collectionMs = 0;
        const cycle = await cpuOf(() => okCycle(agent));
        const render = await cpuOf(() => agent.metrics());
        return { cycle, render, collection: collectionMs, series: render.value.series, bytes: Buffer.byteLength(render.value.text) };
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
        collectionCpuMs: got.cycle.collection,
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
    let watch;
    try {
      watch = await benchWatch({ sh, cpuOf, cycleCpuMs: med('cycleCpuMs'), pods: PODS });
    } catch (err) {
      watch = { skipped: err instanceof Error ? err.message : String(err) };
    }
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
      medianCollectionCpuMs: med('collectionCpuMs'),
      collectionRatio: med('collectionCpuMs') / med('catCpuMs'),
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
      watch,
      capture,
      pods,
    };
  } finally {
    await agent.stop();
    await sh.close();
    fixture.cleanup();
  }
}
