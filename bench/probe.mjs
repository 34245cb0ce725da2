// gpumem probe benchmarks (issue 4, "Performance"): what an SSH inspection costs over a bare `ssh host true`, and
// what the DRM fdinfo sweep of the node probe costs over a plain `cat` of the same files. `bench/run.mjs` calls
// runProbeBench() after the lint benchmarks and stores its results under `probe` in bench/results/latest.json;
// `node bench/probe.mjs` runs it alone (print only). Every figure is a ratio of wall times measured in this run,
// on this machine, interleaved round by round; nothing here is a timed test, and a missed target prints FAIL
// without changing the exit code. Needs root (sshd, chroot, mknod); a section that cannot run prints SKIP.
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, statfsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import ssh2 from 'ssh2';
import { runProbe } from '../src/core/inspection/runProbe.ts';
import { buildProbeScript, newNonce } from '../src/core/probe/script.ts';
import { NODE_BODY } from '../src/core/probe/scripts/nodeScript.ts';
import { LocalTransport } from '../src/transports/local.ts';
import { SshTransport } from '../src/transports/ssh.ts';
import { sshSettingsFromConfig } from '../src/transports/sshUserConfig.ts';
import { prng } from './corpus.mjs';
import { median, MiB, ms, list, rotated, timed } from './stats.mjs';

const SEED = 0x6770756d; // "gpum", as the lint corpus
const SSH_WARMUP = 3;
const SSH_ROUNDS = 15;
const SSH_TARGET = 1.5;
const PROCESSES = 2000;
const FDS_PER_PROCESS = 50;
const DRM_SHARE = 0.05;
const SWEEP_WARMUP = 2;
const SWEEP_ROUNDS = 7;
const FULL_PROBE_RUNS = 3;
const SWEEP_TARGET = 2;
const RUN_TIMEOUT_MS = 600_000;
const MAX_OUTPUT = 64 * 1024 * 1024;
const PDEV = '0000:c3:00.0'; // Strix Halo's iGPU slot, as the APU fixtures
const CAT_ALL = 'find /proc/[0-9]*/fdinfo -type f -exec cat {} +';
const TMPFS_MAGIC = 0x01021994;

// ---- helpers --------------------------------------------------------------------------------------------------
const count = (text, re) => (text.match(re) ?? []).length;
const errorText = (err) => (err instanceof Error ? err.message : String(err)).split('\n')[0];

function spawnWait(file, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited ${code}: ${stderr.trim()}`))));
  });
}

export async function runScript(transport, script) {
  const result = await transport.run({ script, timeoutMs: RUN_TIMEOUT_MS, maxOutputBytes: MAX_OUTPUT });
  if (result.exitCode !== 0 || result.truncated) {
    throw new Error(`${transport.target}: exit ${result.exitCode}${result.truncated ? ', truncated' : ''}: ${result.stderr.slice(0, 300)}`);
  }
  return result;
}

// ---- 1. SSH: one inspection against a bare `ssh host true` ----------------------------------------------------
// A real sshd (test/helpers/sshd.ts) on 127.0.0.1 at LogLevel VERBOSE, which logs every TCP connection
// ("Connection from"), every login ("Accepted publickey for") and every exec ("Starting session: command"), so
// the server itself proves how many of each an inspection used. ssh2's Client is also wrapped to count connect()
// and exec() calls on the client side.
async function benchSsh() {
  const { ensureSshTools, generateKey, startSshd, tempDir } = await import('../test/helpers/sshd.ts');
  ensureSshTools(); // root only; installs openssh-server & co. with apt-get (non-interactive) when missing
  const work = tempDir('gpumem-bench-ssh-');
  const proto = ssh2.Client.prototype;
  const { connect, exec } = proto;
  const client = { connects: 0, execs: 0 };
  proto.connect = function countedConnect(...args) {
    client.connects++;
    return connect.apply(this, args);
  };
  proto.exec = function countedExec(...args) {
    client.execs++;
    return exec.apply(this, args);
  };
  let sshd;
  try {
    const key = generateKey(work.dir, 'client', 'ed25519');
    sshd = await startSshd({ authorizedKeys: [key.publicLine], logLevel: 'VERBOSE' });
    const knownHosts = join(work.dir, 'known_hosts');
    writeFileSync(knownHosts, `${sshd.knownHostsLine}\n`, { mode: 0o600 });
    // -F none: neither ~/.ssh/config nor /etc/ssh/ssh_config, as the transport below reads only its own config.
    const sshArgs = [
      '-F',
      'none',
      '-o',
      'BatchMode=yes',
      '-o',
      'StrictHostKeyChecking=yes',
      '-o',
      `UserKnownHostsFile=${knownHosts}`,
      '-o',
      'IdentitiesOnly=yes',
      '-i',
      key.privateKeyPath,
      '-p',
      String(sshd.port),
      'root@127.0.0.1',
      'true',
    ];
    // The transport's settings come from an ssh config, as the CLI and the extension build them.
    const config = [
      'Host gpumem-bench',
      '  HostName 127.0.0.1',
      `  Port ${sshd.port}`,
      '  User root',
      `  IdentityFile ${key.privateKeyPath}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${knownHosts}`,
      '  StrictHostKeyChecking yes',
      '',
    ].join('\n');
    const env = { home: work.dir, user: 'root' };

    let captureBytes = 0;
    const ops = {
      bare: () => spawnWait('ssh', sshArgs),
      inspection: async () => {
        const { settings } = sshSettingsFromConfig('gpumem-bench', config, env);
        const transport = new SshTransport(settings);
        try {
          const run = await runProbe(transport, { scope: 'node' });
          if (run.exec.exitCode !== 0 || !run.captureText.includes(':done@@'))
            throw new Error(`the inspection did not complete (exit ${run.exec.exitCode}): ${run.exec.stderr.slice(0, 300)}`);
          captureBytes = Buffer.byteLength(run.captureText);
        } finally {
          await transport.close();
        }
      },
      script: async () => {
        const transport = new LocalTransport(); // sh -s on this machine: the script's own time
        try {
          const run = await runProbe(transport, { scope: 'node' });
          if (run.exec.exitCode !== 0 || !run.captureText.includes(':done@@'))
            throw new Error(`the local probe did not complete (exit ${run.exec.exitCode})`);
        } finally {
          await transport.close();
        }
      },
    };

    // What the server and ssh2 saw during one operation; waits (untimed) until sshd logged the disconnect.
    const observe = async (name) => {
      const from = sshd.log().length;
      const before = { ...client };
      const { ms: took } = await timed(ops[name]);
      if (name !== 'script') {
        for (let waited = 0; waited < 3000 && !/Disconnected from user/.test(sshd.log().slice(from)); waited += 10) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
      const log = sshd.log().slice(from);
      return {
        ms: took,
        connections: count(log, /^Connection from /gm),
        logins: count(log, /^Accepted publickey for /gm),
        execs: count(log, /^Starting session: command /gm),
        clientConnects: client.connects - before.connects,
        clientExecs: client.execs - before.execs,
      };
    };

    for (let i = 0; i < SSH_WARMUP; i++) for (const name of Object.keys(ops)) await observe(name);
    const samples = { bare: [], inspection: [], script: [] };
    const roundRatios = [];
    for (let round = 0; round < SSH_ROUNDS; round++) {
      const got = {};
      for (const name of rotated(Object.keys(ops), round)) {
        got[name] = await observe(name);
        samples[name].push(got[name]);
      }
      roundRatios.push((got.inspection.ms - got.script.ms) / got.bare.ms);
    }
    const times = (name) => samples[name].map((s) => s.ms);
    const perOp = (name) => {
      const keys = ['connections', 'logins', 'execs', 'clientConnects', 'clientExecs'];
      const out = {};
      for (const k of keys) {
        const values = samples[name].map((s) => s[k]);
        out[k] = { min: Math.min(...values), max: Math.max(...values) };
      }
      return out;
    };
    const bareMs = median(times('bare'));
    const inspectionMs = median(times('inspection'));
    const scriptMs = median(times('script'));
    const ratio = median(roundRatios);
    const inspectionCounts = perOp('inspection');
    const oneEach = ['connections', 'logins', 'execs', 'clientConnects', 'clientExecs'].every(
      (k) => inspectionCounts[k].min === 1 && inspectionCounts[k].max === 1,
    );
    return {
      rounds: SSH_ROUNDS,
      warmup: SSH_WARMUP,
      openssh: (await sshVersion()).trim(),
      bareSshMs: times('bare'),
      inspectionMs: times('inspection'),
      scriptLocalMs: times('script'),
      medianBareSshMs: bareMs,
      medianInspectionMs: inspectionMs,
      medianScriptLocalMs: scriptMs,
      overheadMs: inspectionMs - scriptMs,
      ratio,
      ratioOfMedians: (inspectionMs - scriptMs) / bareMs,
      roundRatios,
      captureBytes,
      perInspection: inspectionCounts,
      perBareSsh: perOp('bare'),
      oneConnectionOneExec: oneEach,
      target: SSH_TARGET,
      pass: ratio <= SSH_TARGET && oneEach,
    };
  } finally {
    proto.connect = connect;
    proto.exec = exec;
    await sshd?.stop();
    work.cleanup();
  }
}

function sshVersion() {
  return new Promise((resolve) => {
    const child = spawn('ssh', ['-V'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let text = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => (text += chunk));
    child.once('error', () => resolve('unknown'));
    child.once('close', () => resolve(text));
  });
}

// ---- 2. The DRM fdinfo sweep against a plain cat --------------------------------------------------------------

/** The node probe with its body replaced by `part` (blocks of NODE_BODY): same prelude, same header. */
export function nodeProbeWith(nonce, part) {
  const body = NODE_BODY.trim();
  const full = buildProbeScript({ scope: 'node', nonce, hostRoot: '' });
  const at = full.indexOf(body);
  if (at < 0) throw new Error('buildProbeScript() no longer embeds NODE_BODY verbatim: update bench/probe.mjs');
  return full.slice(0, at) + part + full.slice(at + body.length);
}

/** The node probe with its body cut down to the fdinfo section: same prelude, same header, same section text. */
export function sweepScript(nonce) {
  const section = /^begin fdinfo\n[\s\S]*?^finish fdinfo$/m.exec(NODE_BODY.trim())?.[0];
  if (!section) throw new Error('no "begin fdinfo … finish fdinfo" section in NODE_BODY: update bench/probe.mjs');
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

async function benchSweep() {
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

// ---- run and report -------------------------------------------------------------------------------------------
async function section(fn) {
  try {
    return await fn();
  } catch (err) {
    return { skipped: errorText(err) };
  }
}

/** Runs both measurements, prints their table section, and returns what bench/run.mjs stores under `probe`. */
export async function runProbeBench() {
  const loadAtStart = os.loadavg()[0];
  const start = performance.now();
  const ssh = await section(benchSsh);
  const fdinfo = await section(benchSweep);
  const loadAtEnd = os.loadavg()[0];
  const wallSeconds = (performance.now() - start) / 1000;

  const rows = [
    [
      'Machine load',
      `1-min load average ${loadAtStart.toFixed(2)} at start, ${loadAtEnd.toFixed(2)} at end on ${os.cpus().length} CPUs; ${wallSeconds.toFixed(1)} s wall`,
    ],
  ];
  rows.push(['', '']);
  if (ssh.skipped) {
    rows.push(['SSH inspection', `skipped: ${ssh.skipped}`]);
  } else {
    const c = ssh.perInspection;
    const b = ssh.perBareSsh;
    const span = (r) => (r.min === r.max ? `${r.min}` : `${r.min}–${r.max}`);
    rows.push(
      ['SSH to 127.0.0.1 (sshd)', `${ssh.openssh}, ed25519 key, ${ssh.rounds} rounds after ${ssh.warmup} warm-up rounds, interleaved`],
      ['  a. bare ssh … true', `${ms(ssh.medianBareSshMs)} median (OpenSSH client)`],
      [
        '  b. SshTransport inspection',
        `${ms(ssh.medianInspectionMs)} median (config, connect, runProbe node scope, close; ${(ssh.captureBytes / 1024).toFixed(0)} KiB captured)`,
      ],
      ['  c. same script, local sh -s', `${ms(ssh.medianScriptLocalMs)} median (LocalTransport)`],
      ['SSH ratio (b − c) / a', `${ssh.ratio.toFixed(3)}×, median of the per-round ratios (target ≤ ${SSH_TARGET}×)`],
      ['  per round', list(ssh.roundRatios, 2)],
      ['  ratio of the medians', `${ssh.ratioOfMedians.toFixed(3)}×`],
      [
        'Per inspection',
        `sshd: ${span(c.connections)} connection, ${span(c.logins)} login, ${span(c.execs)} exec; ssh2: ${span(c.clientConnects)} connect(), ${span(c.clientExecs)} exec()`,
      ],
      ['Per bare ssh', `sshd: ${span(b.connections)} connection, ${span(b.logins)} login, ${span(b.execs)} exec`],
    );
  }
  rows.push(['', '']);
  if (fdinfo.skipped) {
    rows.push(['fdinfo sweep', `skipped: ${fdinfo.skipped}`]);
  } else {
    const f = fdinfo.fixture;
    rows.push(
      [
        'fdinfo fixture',
        `${f.processes} processes × ${f.fdsPerProcess} fds = ${f.fds} fds, ${f.drmProcesses} processes with ${f.drmFds} DRM fds; ${(f.fdinfoBytes / MiB).toFixed(2)} MiB of fdinfo, in ${f.base} (built in ${(f.buildMs / 1000).toFixed(1)} s)`,
      ],
      ['  rounds', `${fdinfo.rounds} after ${fdinfo.warmup} warm-up rounds, interleaved, each a chroot busybox sh -s`],
      [
        '  sweep (fdinfo section)',
        `${ms(fdinfo.medianSweepMs)} median; found ${fdinfo.found.drmFds} DRM fds, ${fdinfo.found.cgroups} cgroups, ${fdinfo.found.comms} comms`,
      ],
      ['  cat of every fdinfo', `${ms(fdinfo.medianCatAllMs)} median (${CAT_ALL}: ${f.fds} files, into the same pipe as the sweep)`],
      ['  … with > /dev/null', `${ms(fdinfo.medianCatAllNullMs)} median (the same cat, its output thrown away, informational)`],
      [
        '  cat of what the sweep reads',
        `${ms(fdinfo.medianCatReadMs)} median (one cat, ${f.filesReadBySweep} files: DRM fdinfo, cgroup, comm)`,
      ],
      ['  ls -lL of every fd dir', `${ms(fdinfo.medianLsMs)} median (the sweep's first stage alone, informational)`],
      [
        '  sweep under dash',
        fdinfo.medianSweepDashMs === null ? 'skipped (no /bin/dash)' : `${ms(fdinfo.medianSweepDashMs)} median (informational)`,
      ],
      ['  whole node probe', `${ms(fdinfo.medianFullProbeMs)} median of ${FULL_PROBE_RUNS} (runProbe on the fixture, informational)`],
      ['Sweep ratio, every fdinfo', `${fdinfo.ratioAll.toFixed(3)}× of cat, median of the per-round ratios (target ≤ ${SWEEP_TARGET}×)`],
      ['  per round', list(fdinfo.roundRatiosAll, 2)],
      ['  ratio of the medians', `${fdinfo.ratioAllOfMedians.toFixed(3)}×`],
      ['Sweep ratio, cat > /dev/null', `${fdinfo.ratioAllToDevNull.toFixed(3)}× (informational)`],
      ['Sweep ratio, files it reads', `${fdinfo.ratioRead.toFixed(1)}× of cat (informational: the sweep must also find them)`],
      ['  per round', list(fdinfo.roundRatiosRead, 1)],
    );
  }
  const width = Math.max(...rows.map(([label]) => label.length));
  console.log(`\ngpumem probe bench · node ${process.version} · ${os.cpus()[0]?.model ?? 'unknown CPU'} × ${os.cpus().length}\n`);
  for (const [label, value] of rows) console.log(label === '' ? '' : `${label.padEnd(width)}  ${value}`);
  console.log('');
  if (ssh.skipped) console.log(`SKIP ssh inspection: ${ssh.skipped}`);
  else {
    console.log(
      `${ssh.ratio <= SSH_TARGET ? 'PASS' : 'FAIL'} ssh inspection: (b − c) / a = ${ssh.ratio.toFixed(3)}× of a bare ssh (target ≤ ${SSH_TARGET}×)`,
    );
    console.log(
      `${ssh.oneConnectionOneExec ? 'PASS' : 'FAIL'} ssh inspection: one connection and one exec per inspection (sshd log and ssh2 counts)`,
    );
  }
  if (fdinfo.skipped) console.log(`SKIP fdinfo sweep: ${fdinfo.skipped}`);
  else {
    console.log(
      `${fdinfo.pass ? 'PASS' : 'FAIL'} fdinfo sweep: ${fdinfo.ratioAll.toFixed(3)}× of a cat of every fdinfo file (target ≤ ${SWEEP_TARGET}×)`,
    );
    console.log(
      `INFO fdinfo sweep: ${fdinfo.ratioRead.toFixed(1)}× of a cat of only the ${fdinfo.fixture.filesReadBySweep} files it reads`,
    );
  }
  return {
    date: new Date().toISOString(),
    load: { loadAverage1mStart: loadAtStart, loadAverage1mEnd: loadAtEnd, wallSeconds },
    ssh,
    fdinfo,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runProbeBench();
