// The fdinfo part of the probe bench (bench/probe.mjs): the node probe's DRM fdinfo sweep against a plain `cat`.
import { chmodSync, copyFileSync, mkdirSync, statfsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import os from 'node:os';
import { runProbe } from '../src/core/inspectionRun/runProbe.ts';
import { buildProbeScript, newNonce } from '../src/core/probe/script.ts';
import { NODE_BODY } from '../src/core/probe/scripts/nodeScript.ts';
import { LocalTransport } from '../src/transports/local.ts';
import { prng } from './corpus.mjs';
import { runScript } from './shellRun.mjs';
import { count, median, rotated, timed } from './stats.mjs';

const SEED = 0x6770756d; // "gpum", as the lint corpus
const PROCESSES = 2000;
const FDS_PER_PROCESS = 50;
const DRM_SHARE = 0.05;
const SWEEP_WARMUP = 2;
const SWEEP_ROUNDS = 7;
export const FULL_PROBE_RUNS = 3;
export const SWEEP_TARGET = 2;
const PDEV = '0000:c3:00.0'; // Strix Halo's iGPU slot, as the APU fixtures
export const CAT_ALL = 'find /proc/[0-9]*/fdinfo -type f -exec cat {} +';
const TMPFS_MAGIC = 0x01021994;

// ---- 2. The DRM fdinfo sweep against a plain cat --------------------------------------------------------------

/** The node probe with its body replaced by `part` (blocks of NODE_BODY): same prelude, same header. */
export function nodeProbeWith(nonce, part) {
  const body = NODE_BODY.trim();
  const full = buildProbeScript({ scope: 'node', nonce, hostRoot: '' });
  const at = full.indexOf(body);
  if (at < 0) throw new Error('buildProbeScript() no longer embeds NODE_BODY verbatim: update bench/probeSweep.mjs');
  return full.slice(0, at) + part + full.slice(at + body.length);
}

/** The node probe with its body cut down to the fdinfo section: same prelude, same header, same section text. */
export function sweepScript(nonce) {
  const section = /^begin fdinfo\n[\s\S]*?^finish fdinfo$/m.exec(NODE_BODY.trim())?.[0];
  if (!section) throw new Error('no "begin fdinfo … finish fdinfo" section in NODE_BODY: update bench/probeSweep.mjs');
  return nodeProbeWith(nonce, section);
}

/**
 * Where the fixture goes: /dev/shm when it is a tmpfs, else the temp dir. Memory-backed like /proc itself, and
 * ~25× faster to build and remove than a disk (200,000 small files: 3 s against 80 s on this machine's ext4).
 */
function fixtureBase() {
  try {
    if (statfsSync('/dev/shm').type === TMPFS_MAGIC) return '/dev/shm';
  } catch {
    // no /dev/shm
  }
  return os.tmpdir();
}

/**
 * A chroot root (test/helpers/fixtureRoot.ts: static busybox and its applets, /dev/null, /dev/dri/renderD128 as
 * c 226,128) with a fake /proc of PROCESSES processes × FDS_PER_PROCESS fds. About DRM_SHARE of the processes hold
 * 1–3 fds on the render node (some of them dup()s of the first, sharing its drm-client-id, as ROCm runtimes do);
 * every other fd is a symlink to a regular file (shared libraries, model shards, pod logs) or /dev/null. Each fd
 * has its fdinfo (amdgpu's keys for DRM fds, fs/proc/fd.c's pos/flags/mnt_id/ino for the rest); each process has
 * comm, cmdline and a cgroup v2 line (pods under kubepods.slice, daemons under system.slice).
 */
export async function buildSweepFixture() {
  const fixture = await import('../test/helpers/fixtureRoot.ts');
  const { NodeTree, addProcess, amdgpuFdinfo, plainFdinfo, containerId, lddPaths } = fixture;
  const rnd = prng(SEED);
  const tree = new NodeTree({ base: fixtureBase() });
  try {
    // Regular files the fds point to.
    const libs = [
      'c.so.6',
      'm.so.6',
      'stdc++.so.6',
      'gcc_s.so.1',
      'z.so.1',
      'ssl.so.3',
      'crypto.so.3',
      'ffi.so.8',
      'python3.12.so.1.0',
      'numa.so.1',
      'drm.so.2',
      'drm_amdgpu.so.1',
      'hsa-runtime64.so.1',
      'amdhip64.so.6',
      'rocblas.so.4',
      'MIOpen.so.1',
      'elf.so.1',
      'zstd.so.1',
      'lzma.so.5',
      'uuid.so.1',
    ];
    const pool = [
      ...libs.map((l) => `/usr/lib/x86_64-linux-gnu/lib${l}`),
      ...Array.from({ length: 60 }, (_, i) => `/opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_part${i}.so`),
      ...Array.from({ length: 120 }, (_, i) => `/models/llama-3.1-70b/model-${String(i + 1).padStart(5, '0')}-of-00120.safetensors`),
      ...Array.from({ length: 40 }, (_, i) => `/var/lib/app/cache/blob-${((i * 2654435761) % 0xffffffff).toString(16)}.bin`),
    ];
    for (const file of pool) tree.file(file, 'x'.repeat(rnd.int(1, 4096)));
    const pods = Array.from({ length: 200 }, (_, i) => {
      const uid = `${(0x1000_0000 + i * 7919).toString(16)}-${(0x1000 + i).toString(16)}-4${(i % 4096).toString(16).padStart(3, '0')}-8${((i * 31) % 4096).toString(16).padStart(3, '0')}-${(0x1000_0000_0000 + i * 104729).toString(16)}`;
      const qos = i % 3 === 0 ? 'besteffort' : 'burstable';
      const log = `/var/log/pods/ml_worker-${i}_${uid}/worker/0.log`;
      tree.file(log, '');
      return {
        uid,
        log,
        cgroup: `0::/kubepods.slice/kubepods-${qos}.slice/kubepods-${qos}-pod${uid.replace(/-/g, '_')}.slice/cri-containerd-${containerId(uid)}.scope\n`,
      };
    });
    const services = [
      'containerd',
      'kubelet',
      'systemd-journald',
      'systemd-udevd',
      'sshd',
      'chronyd',
      'node_exporter',
      'amd-metrics-exporter',
      'rsyslogd',
      'dbus-daemon',
    ];
    for (const s of services) tree.file(`/var/log/${s}.log`, '');
    const podComms = ['python3', 'pt_main_thread', 'java', 'node', 'nginx', 'postgres', 'redis-server', 'gunicorn', 'ray::IDLE', 'envoy'];
    const gpuComms = ['python3', 'pt_main_thread', 'llama-server', 'ollama_llama_se', 'vllm', 'ray::RayWorker'];

    const drm = new Set();
    while (drm.size < Math.round(PROCESSES * DRM_SHARE)) drm.add(rnd.int(0, PROCESSES - 1));
    const expected = { processes: PROCESSES, fds: 0, drmProcesses: drm.size, drmFds: 0, fdinfoBytes: 0, readByTheSweep: [] };
    let pid = 1200;
    let clientId = 100;
    let pasid = 32768;
    for (let i = 0; i < PROCESSES; i++) {
      pid += rnd.int(1, 9);
      const inPod = rnd.chance(0.8);
      const pod = rnd.pick(pods);
      const service = rnd.pick(services);
      const holdsDrm = drm.has(i);
      const log = inPod ? pod.log : `/var/log/${service}.log`;
      const drmFds = new Map(); // fd -> fdinfo text
      if (holdsDrm) {
        const n = rnd.int(1, 3);
        let first;
        while (drmFds.size < n) {
          const fd = rnd.int(3, FDS_PER_PROCESS - 1);
          if (drmFds.has(fd)) continue;
          const dup = first !== undefined && rnd.chance(0.5);
          if (!dup)
            first = {
              clientId: ++clientId,
              pdev: PDEV,
              pasid: ++pasid,
              gtt: rnd.int(1, 8192) * 4096 * 256,
              vram: rnd.int(0, 512) * 4096 * 64,
              cpu: rnd.int(0, 16) * 4096,
              engines: { gfx: rnd.int(1e6, 1e12), compute: rnd.int(1e6, 1e13) },
            };
          drmFds.set(fd, amdgpuFdinfo(dup ? { ...first, flags: '0100002' } : first));
        }
      }
      const fds = [];
      for (let fd = 0; fd < FDS_PER_PROCESS; fd++) {
        let target;
        let fdinfo;
        if (drmFds.has(fd)) {
          target = '/dev/dri/renderD128';
          fdinfo = drmFds.get(fd);
        } else if (fd === 0) {
          target = '/dev/null';
          fdinfo = plainFdinfo('0100000', 5);
        } else if (fd <= 2) {
          target = log;
          fdinfo = plainFdinfo('0102001', 900000 + i);
        } else {
          target = rnd.pick(pool);
          fdinfo = plainFdinfo(rnd.pick(['0100000', '02100000', '0100002', '02100002']), rnd.int(1000, 9_999_999));
        }
        fds.push({ fd, target, fdinfo });
        expected.fdinfoBytes += Buffer.byteLength(fdinfo);
      }
      const comm = holdsDrm ? rnd.pick(gpuComms) : inPod ? rnd.pick(podComms) : service;
      addProcess(tree, {
        pid,
        comm,
        cmdline: [`/usr/bin/${comm}`, '--serve'],
        cgroup: inPod ? pod.cgroup : `0::/system.slice/${service}.service\n`,
        fds,
      });
      expected.fds += fds.length;
      expected.drmFds += drmFds.size;
      if (holdsDrm) {
        expected.readByTheSweep.push(`/proc/${pid}/cgroup`, `/proc/${pid}/comm`);
        for (const fd of [...drmFds.keys()].sort((a, b) => a - b)) expected.readByTheSweep.push(`/proc/${pid}/fdinfo/${fd}`);
      }
    }
    // dash too (informational): /bin/dash and its libraries, beside busybox's /bin/sh.
    let dash = false;
    try {
      for (const lib of lddPaths('/bin/dash')) {
        mkdirSync(join(tree.root, dirname(lib)), { recursive: true, mode: 0o755 });
        copyFileSync(lib, join(tree.root, lib)); // follows symlinks: a regular copy at the linked path works for ld.so
      }
      copyFileSync('/bin/dash', join(tree.root, 'bin/dash'));
      chmodSync(join(tree.root, 'bin/dash'), 0o755);
      dash = true;
    } catch {
      // no dash here: the dash row is skipped
    }
    return { tree, expected, dash };
  } catch (err) {
    tree.cleanup();
    throw err;
  }
}

export async function benchSweep() {
  const built = await timed(buildSweepFixture);
  const { tree, expected, dash } = built.value;
  try {
    const nonce = newNonce();
    const sweep = sweepScript(nonce);
    // A small fixed environment, as a fresh shell on a node has: busybox find sizes its `-exec … +` batches
    // without counting the environment, so under `npm run` (npm_* variables) some cat batches failed with E2BIG.
    const env = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/' };
    const ash = new LocalTransport({ command: ['chroot', tree.root, '/bin/sh', '-s'], env });
    const dashTransport = dash ? new LocalTransport({ command: ['chroot', tree.root, '/bin/dash', '-s'], env }) : undefined;
    const readList = expected.readByTheSweep;
    let sweepOutput = '';
    let catAllBytes = 0;
    let catAllErrors = '';
    let catReadBytes = 0;
    const ops = {
      sweep: async () => (sweepOutput = (await runScript(ash, sweep)).stdout),
      // Only the fdinfo directories are walked, so find adds as little as it can to the cat.
      catAll: async () => {
        const result = await runScript(ash, `${CAT_ALL}\n`);
        catAllBytes = Buffer.byteLength(result.stdout);
        catAllErrors = result.stderr;
      },
      catAllNull: () => runScript(ash, `${CAT_ALL} >/dev/null\n`),
      catRead: async () => (catReadBytes = Buffer.byteLength((await runScript(ash, `cat ${readList.join(' ')}\n`)).stdout)),
      ls: () => runScript(ash, 'ls -lL /proc/[0-9]*/fd\n'),
      ...(dashTransport ? { sweepDash: () => runScript(dashTransport, sweep) } : {}),
    };
    for (let i = 0; i < SWEEP_WARMUP; i++) for (const name of Object.keys(ops)) await ops[name]();
    // Checked on the warm-up output: the sweep is faithful only if it found every DRM fd, and each of their
    // processes once; the cat only if it read every fdinfo byte.
    const marks = (re) => count(sweepOutput, new RegExp(`^@@gpumem:${nonce}:file ${re}@@$`, 'gm'));
    const found = { drmFds: marks('/proc/[0-9]+/fdinfo/[0-9]+'), cgroups: marks('/proc/[0-9]+/cgroup'), comms: marks('/proc/[0-9]+/comm') };
    if (found.drmFds !== expected.drmFds || found.cgroups !== expected.drmProcesses || found.comms !== expected.drmProcesses) {
      throw new Error(
        `the sweep found ${JSON.stringify(found)}, expected ${expected.drmFds} DRM fds in ${expected.drmProcesses} processes`,
      );
    }
    if (catAllBytes !== expected.fdinfoBytes) {
      throw new Error(
        `cat of every fdinfo gave ${catAllBytes} bytes, expected ${expected.fdinfoBytes}: ${catAllErrors.trim().split('\n')[0] ?? ''}`,
      );
    }
    const samples = Object.fromEntries(Object.keys(ops).map((name) => [name, []]));
    const ratiosAll = [];
    const ratiosRead = [];
    const ratiosNull = [];
    for (let round = 0; round < SWEEP_ROUNDS; round++) {
      const got = {};
      for (const name of rotated(Object.keys(ops), round)) {
        got[name] = (await timed(ops[name])).ms;
        samples[name].push(got[name]);
      }
      ratiosAll.push(got.sweep / got.catAll);
      ratiosRead.push(got.sweep / got.catRead);
      ratiosNull.push(got.sweep / got.catAllNull);
    }

    // Informational: the whole node probe over the same fixture, through runProbe.
    const full = [];
    for (let i = 0; i < FULL_PROBE_RUNS; i++) full.push((await timed(() => runProbe(ash, { scope: 'node' }))).ms);

    const med = (name) => (samples[name] ? median(samples[name]) : null);
    const ratioAll = median(ratiosAll);
    return {
      fixture: {
        processes: expected.processes,
        fdsPerProcess: FDS_PER_PROCESS,
        fds: expected.fds,
        drmProcesses: expected.drmProcesses,
        drmFds: expected.drmFds,
        fdinfoBytes: expected.fdinfoBytes,
        filesReadBySweep: readList.length,
        bytesReadBySweep: catReadBytes,
        buildMs: built.ms,
        shell: 'busybox ash (static), chroot',
        base: fixtureBase(),
      },
      rounds: SWEEP_ROUNDS,
      warmup: SWEEP_WARMUP,
      sweepMs: samples.sweep,
      catAllMs: samples.catAll,
      catAllNullMs: samples.catAllNull,
      catReadMs: samples.catRead,
      lsMs: samples.ls,
      sweepDashMs: samples.sweepDash ?? null,
      medianSweepMs: med('sweep'),
      medianCatAllMs: med('catAll'),
      medianCatAllNullMs: med('catAllNull'),
      medianCatReadMs: med('catRead'),
      medianLsMs: med('ls'),
      medianSweepDashMs: med('sweepDash'),
      medianFullProbeMs: median(full),
      fullProbeMs: full,
      sweepOutputBytes: Buffer.byteLength(sweepOutput),
      found,
      ratioAll,
      ratioAllOfMedians: med('sweep') / med('catAll'),
      roundRatiosAll: ratiosAll,
      ratioAllToDevNull: median(ratiosNull),
      roundRatiosAllToDevNull: ratiosNull,
      ratioRead: median(ratiosRead),
      roundRatiosRead: ratiosRead,
      target: SWEEP_TARGET,
      pass: ratioAll <= SWEEP_TARGET,
    };
  } finally {
    tree.cleanup();
  }
}
