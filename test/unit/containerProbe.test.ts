import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseCapture } from '../../src/core/probe/capture.ts';
import { buildProbeScript, newNonce } from '../../src/core/probe/script.ts';
import { parseContainerProbe } from '../../src/core/probe/parsers/containerProbe.ts';
import { parseLsLine, parseMountInfoLine } from '../../src/core/probe/parsers/containerFiles.ts';
import { parseProcess } from '../../src/core/probe/parsers/containerProcesses.ts';
import type { ContainerProbe } from '../../src/core/probe/parsers/containerProbe.ts';
import { CONTAINER_PROCESS_LIMIT } from '../../src/core/probe/scripts/containerScript.ts';
import { evaluateHamiChecklist } from '../../src/core/verdicts/hami/hamiChecklist.ts';
import type { HamiChecklistResult } from '../../src/core/verdicts/hami/hamiChecklist.ts';
import { buildHamiCache } from './helpers/hamiCacheFile.ts';
import { captureText, procRecord } from './helpers/captureText.ts';
import {
  addProcess,
  chrootUnavailable,
  DASH,
  makeRoot,
  mapsLine,
  READELF,
  runArgv,
  runInRoot,
  snapshotTree,
  writeFile,
} from './helpers/probeRoot.ts';
import type { FakeProcess, RunResult, Shell } from './helpers/probeRoot.ts';

// ------------------------------------------------------------------------------------------------
// Parser on hand-written captures

test('containerProbe: ls -l lines from busybox and coreutils, devices, symlinks, names with spaces', () => {
  const busybox = parseLsLine('-rwxr-xr-x    1 0        0           385480 Sep 24  2025 libvgpu.so');
  assert.deepEqual([busybox?.type, busybox?.size, busybox?.name, busybox?.uid], ['file', 385480, 'libvgpu.so', '0']);
  const coreutils = parseLsLine('-rw-r--r--. 1 1000 1000 27 Aug 21 10:00 /etc/ld.so.preload');
  assert.deepEqual([coreutils?.type, coreutils?.size, coreutils?.name], ['file', 27, '/etc/ld.so.preload']);
  const link = parseLsLine('lrwxrwxrwx 1 0 0 26 Aug 21 10:00 libvgpu.so -> libvgpu.so.v2.6.1');
  assert.deepEqual([link?.type, link?.name, link?.target], ['symlink', 'libvgpu.so', 'libvgpu.so.v2.6.1']);
  const dev = parseLsLine('crw-rw-rw-    1 0        0           1,   3 Nov 29 20:58 null');
  assert.deepEqual([dev?.type, dev?.size, dev?.name], ['char', undefined, 'null']);
  assert.equal(parseLsLine('-rw-r--r-- 1 0 0 5 Aug 21 10:00 my file.cache')?.name, 'my file.cache');
  assert.equal(parseLsLine('total 1936'), undefined);
  assert.equal(parseLsLine('ls: /usr/local/vgpu: No such file or directory'), undefined);
});

test('containerProbe: mountinfo lines (proc(5) format), escapes and optional fields', () => {
  const mount = parseMountInfoLine(
    '1090 1071 253:1 /usr/local/vgpu/ld.so.preload /etc/ld.so.preload ro,relatime master:1 shared:7 - ext4 /dev/vda1 rw,errors=remount-ro',
  );
  assert.equal(mount?.mountPoint, '/etc/ld.so.preload');
  assert.equal(mount?.root, '/usr/local/vgpu/ld.so.preload');
  assert.equal(mount?.readOnly, true);
  assert.equal(mount?.fsType, 'ext4');
  assert.deepEqual(mount?.superOptions, ['rw', 'errors=remount-ro']);
  assert.equal(parseMountInfoLine('36 35 98:0 /a\\040b /mnt\\040two rw - ext3 /dev/root rw')?.mountPoint, '/mnt two');
  assert.equal(parseMountInfoLine('garbage without separator'), undefined);
});

test('containerProbe: a hostile process record stays one key per line', () => {
  const record = parseProcess(
    66,
    [
      'pid=66',
      'ppid=1',
      'comm=evil "name\' $(x)',
      'cmdline=sh -c  @@gpumem:0000:done@@ CUDA_DEVICE_MEMORY_LIMIT_0=99999m ',
      'maps=libvgpu=0 libcuda=0 ld-musl=0 ld-linux=1 lines=12',
      'nvidia_fd=0',
      'CUDA_DEVICE_MEMORY_LIMIT_0=4096m',
      'LD_PRELOAD=/x.so /y.so',
      'exe=dynamic via=od interp=/lib64/ld-linux-x86-64.so.2',
      'some unknown key=whatever',
      'future_key=1',
    ].join('\n'),
  );
  assert.equal(record.comm, 'evil "name\' $(x)');
  assert.match(record.cmdline, /^sh -c/);
  assert.deepEqual(record.env, { CUDA_DEVICE_MEMORY_LIMIT_0: '4096m', LD_PRELOAD: '/x.so /y.so' });
  assert.equal(record.exe.kind, 'dynamic');
  assert.equal(record.exe.interpreter, '/lib64/ld-linux-x86-64.so.2');
  assert.equal(record.gpu, false);
});

test('containerProbe: cgroup v1 with the unlimited sentinel, v2 with max', () => {
  const v1 = parseContainerProbe(
    parseCapture(
      captureText('container', {
        cgroup: {
          files: [
            ['/proc/self/cgroup', '4:memory:/kubepods/burstable/pod1/abc\n0::/\n'],
            ['/sys/fs/cgroup/memory/memory.usage_in_bytes', '2554556416\n'],
            ['/sys/fs/cgroup/memory/memory.limit_in_bytes', '9223372036854771712\n'],
            ['/sys/fs/cgroup/memory/memory.max_usage_in_bytes', '5020205056\n'],
            ['/sys/fs/cgroup/memory/memory.oom_control', 'oom_kill_disable 0\nunder_oom 0\noom_kill 3\n'],
          ],
        },
      }),
    ),
  ).cgroup;
  assert.equal(v1?.version, 'v1');
  assert.equal(v1?.path, '/kubepods/burstable/pod1/abc');
  assert.deepEqual(v1?.max, { kind: 'max' });
  assert.equal(v1?.currentBytes, 2554556416);
  assert.equal(v1?.oomControl['oom_kill'], 3);
  const v2 = parseContainerProbe(
    parseCapture(
      captureText('container', {
        cgroup: {
          files: [
            ['/proc/self/cgroup', '0::/\n'],
            ['/sys/fs/cgroup/memory.current', '123\n'],
            ['/sys/fs/cgroup/memory.max', 'max\n'],
            ['/sys/fs/cgroup/memory.events', 'low 0\nhigh 0\nmax 2\noom 1\noom_kill 1\n'],
          ],
        },
      }),
    ),
  ).cgroup;
  assert.equal(v2?.version, 'v2');
  assert.deepEqual(v2?.max, { kind: 'max' });
  assert.equal(v2?.events['oom_kill'], 1);
});

test('containerProbe: a truncated capture gives a partial model with reasons, never a throw', () => {
  const text = captureText(
    'container',
    {
      meta: 'kernel=6.8.0\n',
      env: 'source=proc\nCUDA_DEVICE_MEMORY_LIMIT_0=4096m\n',
      procs: {
        files: [
          procRecord({
            pid: 42,
            comm: 'python3',
            maps: 'libvgpu=1 libcuda=1 ld-musl=0 ld-linux=1 lines=5',
            env: ['CUDA_DEVICE_MEMORY_LIMIT_0=4096m'],
          }),
        ],
        cut: true,
      },
    },
    { done: false },
  );
  const probe = parseContainerProbe(parseCapture(text));
  assert.equal(probe.env?.['CUDA_DEVICE_MEMORY_LIMIT_0'], '4096m');
  assert.equal(probe.processes?.length, 1);
  assert.equal(probe.preload, undefined);
  assert.ok(probe.problems.some((problem) => /cut off/.test(problem)));
  assert.ok(probe.problems.some((problem) => /incomplete/.test(problem)));
  for (let cut = 0; cut < text.length; cut += 7) {
    const partial = parseContainerProbe(parseCapture(text.slice(0, cut)));
    evaluateHamiChecklist({ container: partial });
  }
  const garbage = parseContainerProbe(parseCapture('random bytes\n\0\0\n'));
  assert.ok(garbage.problems.some((problem) => /not a gpumem probe capture/.test(problem)));
  assert.equal(evaluateHamiChecklist({ container: garbage }).verdict, 'unknown');
});

// ------------------------------------------------------------------------------------------------
// The container script for real, in chroot fixture roots (busybox sh and dash), on a read-only root,
// and on this machine.

const skipChroot = chrootUnavailable();
const GiB = 1024n ** 3n;
const CACHE_NAME = '4b1d9a0c-3f7e-4c55-9a1e-0d2b6f8e7a11.cache';
const CACHE = `/usr/local/vgpu/${CACHE_NAME}`;
const LIMIT_ENV = ['CUDA_DEVICE_MEMORY_LIMIT_0=4096m', 'CUDA_DEVICE_SM_LIMIT=50', `CUDA_DEVICE_MEMORY_SHARED_CACHE=${CACHE}`];
const BASE_ENV = [
  'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  'HOSTNAME=train-0',
  'NVIDIA_VISIBLE_DEVICES=GPU-8dcd1b3e-5c2f-4a4e-9f0b-2f4c7a1d9e10',
  'LIBCUDA_LOG_LEVEL=1',
];
const GLIBC_MAPS = ['/usr/lib/x86_64-linux-gnu/libc.so.6', '/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2'];
const CUDA_MAPS = ['/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15', '/usr/local/cuda/lib64/libcudart.so.12.4.127'];
const NV_FDS = ['/dev/nvidiactl', '/dev/nvidia0', '/dev/nvidia-uvm'];

function maps(paths: readonly string[]): string[] {
  return paths.map((path, i) => mapsLine(path, i));
}

/** tini (static) as PID 1, a shell, and an enforced CUDA process: the HAMi happy path. */
function enforcedProcesses(): FakeProcess[] {
  return [
    {
      pid: 1,
      comm: 'tini',
      cmdline: ['/usr/bin/tini', '--', 'python3', 'train.py'],
      environ: [...BASE_ENV, ...LIMIT_ENV],
      maps: maps(['/usr/bin/tini']),
      exe: '/bin/busybox',
    },
    {
      pid: 8,
      ppid: 1,
      comm: 'bash',
      cmdline: ['bash', '-c', 'python3 train.py'],
      environ: [...BASE_ENV, ...LIMIT_ENV],
      maps: maps(['/usr/local/vgpu/libvgpu.so', '/bin/bash', ...GLIBC_MAPS]),
      exe: '/bin/dash',
    },
    {
      pid: 42,
      ppid: 8,
      comm: 'python3',
      cmdline: ['python3', 'train.py', '--epochs', '3'],
      environ: [...BASE_ENV, ...LIMIT_ENV],
      maps: maps(['/usr/local/vgpu/libvgpu.so', '/usr/bin/python3.11', ...GLIBC_MAPS, ...CUDA_MAPS]),
      exe: '/bin/dash',
      fds: NV_FDS,
    },
  ];
}

/**
 * Adds the bypasses: an ssh-session CUDA process without the env or libvgpu, a static CUDA binary, a hostile name, a cudart-only process.
 */
function bypassedProcesses(nonce: string): FakeProcess[] {
  return [
    ...enforcedProcesses(),
    {
      pid: 43,
      ppid: 40,
      comm: 'python3',
      cmdline: ['python3', 'notebook.py'],
      environ: ['PATH=/usr/bin:/bin', 'HOME=/root', 'SSH_CONNECTION=10.0.0.5 51234 10.0.0.9 22'],
      maps: maps(['/usr/bin/python3.11', ...GLIBC_MAPS, ...CUDA_MAPS]),
      exe: '/bin/dash',
      fds: NV_FDS,
    },
    {
      pid: 44,
      ppid: 1,
      comm: 'cuda-static',
      cmdline: ['/opt/app/cuda-static'],
      environ: [...BASE_ENV, ...LIMIT_ENV],
      maps: maps(['/opt/app/cuda-static', CUDA_MAPS[0] ?? '']),
      exe: '/bin/busybox',
      fds: NV_FDS,
    },
    {
      pid: 66,
      ppid: 1,
      comm: 'ev"il\n@@ x\'y',
      cmdline: ['sh', '-c', `echo\n@@gpumem:${nonce}:done@@\nCUDA_DEVICE_MEMORY_LIMIT_0=99999m`, '"quoted" \'single\''],
      environ: [...BASE_ENV, 'CUDA_DEVICE_MEMORY_LIMIT_0=4096m', `NOTE=line1\nCUDA_DISABLE_CONTROL=true\n@@gpumem:${nonce}:end procs@@`],
      maps: maps(['/bin/dash', ...GLIBC_MAPS, '/usr/local/vgpu/libvgpu.so']),
      exe: '/bin/dash',
    },
    {
      pid: 70,
      ppid: 1,
      comm: 'cudart-only',
      cmdline: ['cudart-only'],
      environ: [...BASE_ENV, ...LIMIT_ENV],
      maps: maps(['/usr/local/vgpu/libvgpu.so', '/usr/local/cuda/lib64/libcudart.so.12.4.127', ...GLIBC_MAPS]),
      exe: '/bin/dash',
    },
    {
      pid: 71,
      ppid: 1,
      comm: 'locked',
      cmdline: ['locked'],
      environ: [],
      maps: [],
      exe: '/bin/dash',
      unreadable: ['maps', 'environ', 'fd'],
    },
  ];
}

const MOUNTINFO_RW = [
  '1071 1015 0:289 / / rw,relatime master:405 - overlay overlay rw,lowerdir=/var/lib/containerd/l1,upperdir=/var/lib/containerd/u1,workdir=/var/lib/containerd/w1',
  '1085 1071 0:300 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw',
  '1090 1071 253:1 /usr/local/vgpu/ld.so.preload /etc/ld.so.preload ro,relatime - ext4 /dev/vda1 rw',
  '1091 1071 253:1 /usr/local/vgpu/containers/0f4c9d3e-1111-4a2b-9c3d-5e6f7a8b9c0d_main /usr/local/vgpu rw,relatime - ext4 /dev/vda1 rw',
  '1092 1091 253:1 /usr/local/vgpu/libvgpu.so.v2.6.1 /usr/local/vgpu/libvgpu.so ro,relatime - ext4 /dev/vda1 rw',
  '1093 1071 253:1 /tmp/vgpulock /tmp/vgpulock rw,relatime - ext4 /dev/vda1 rw',
];

interface Scenario {
  readonly name: 'enforced' | 'bypassed';
  readonly shell: Shell;
  root: string;
  nonce: string;
}

function buildScenario(scenario: Scenario): void {
  const root = makeRoot({ shell: scenario.shell, readelf: scenario.shell === 'dash' });
  scenario.root = root;
  writeFile(root, 'etc/ld.so.preload', '/usr/local/vgpu/libvgpu.so\n');
  writeFile(root, 'usr/local/vgpu/libvgpu.so', Buffer.alloc(385480, 0x5a), 0o755);
  writeFile(
    root,
    CACHE.slice(1),
    buildHamiCache({
      deviceNum: 1,
      uuids: ['GPU-8dcd1b3e-5c2f-4a4e-9f0b-2f4c7a1d9e10'],
      limits: [4n * GiB],
      slots: [{ pid: 42, hostpid: 31337, status: 1, usedTotal: [GiB] }],
    }),
  );
  mkdirSync(join(root, 'tmp/vgpulock'), { recursive: true });
  const readOnlyRoot = scenario.name === 'bypassed';
  writeFile(
    root,
    'proc/self/mountinfo',
    [readOnlyRoot ? (MOUNTINFO_RW[0] ?? '').replace(' / / rw,', ' / / ro,') : MOUNTINFO_RW[0], ...MOUNTINFO_RW.slice(1), ''].join('\n'),
  );
  writeFile(root, 'proc/self/environ', `${[...BASE_ENV, ...LIMIT_ENV].join('\0')}\0`);
  writeFile(
    root,
    'proc/version',
    'Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075) (x86_64-linux-gnu-gcc-13 (Ubuntu 13.2.0-23ubuntu4) 13.2.0, GNU ld (GNU Binutils for Ubuntu) 2.42) #45-Ubuntu SMP PREEMPT_DYNAMIC Fri Aug 30 12:02:04 UTC 2024\n',
  );
  if (scenario.shell === 'busybox') {
    writeFile(root, 'proc/self/cgroup', '0::/\n');
    writeFile(root, 'sys/fs/cgroup/cgroup.controllers', 'cpuset cpu io memory hugetlb pids rdma misc\n');
    writeFile(root, 'sys/fs/cgroup/memory.current', '2147483648\n');
    writeFile(root, 'sys/fs/cgroup/memory.max', '17179869184\n');
    writeFile(root, 'sys/fs/cgroup/memory.peak', '3221225472\n');
    writeFile(root, 'sys/fs/cgroup/memory.events', 'low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n');
    writeFile(root, 'sys/fs/cgroup/memory.stat', 'anon 1073741824\nfile 536870912\n');
  } else {
    writeFile(root, 'proc/self/cgroup', '12:memory:/kubepods/burstable/pod0f4c9d3e-1111-4a2b-9c3d-5e6f7a8b9c0d/4f1e\n0::/\n');
    writeFile(root, 'sys/fs/cgroup/memory/memory.usage_in_bytes', '2147483648\n');
    writeFile(root, 'sys/fs/cgroup/memory/memory.limit_in_bytes', '17179869184\n');
    writeFile(root, 'sys/fs/cgroup/memory/memory.max_usage_in_bytes', '3221225472\n');
    writeFile(root, 'sys/fs/cgroup/memory/memory.oom_control', 'oom_kill_disable 0\nunder_oom 0\noom_kill 0\n');
  }
  if (scenario.name === 'bypassed') {
    writeFile(
      root,
      'tmp/vgpulog',
      "[HAMI-core Msg(42:140000000000000:libvgpu.c:838)]: Initializing.....\nunrelated line\nERROR: ld.so: object '/usr/local/vgpu/libvgpu.so' from /etc/ld.so.preload cannot be preloaded (cannot read file data): ignored.\n",
    );
  }
  for (const proc of scenario.name === 'enforced' ? enforcedProcesses() : bypassedProcesses(scenario.nonce)) addProcess(root, proc);
  if (scenario.name === 'bypassed') {
    // A process that exited mid-sweep: its stat was read, everything after is gone.
    writeFile(root, 'proc/73/stat', '73 (short-lived) Z 1 73 73 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 1000 0 0\n');
  }
}

interface Ran {
  readonly run: RunResult;
  readonly probe: ContainerProbe;
  readonly result: HamiChecklistResult;
}

async function probe(root: string, nonce: string): Promise<Ran> {
  const script = buildProbeScript({ scope: 'container', nonce });
  const run = await runInRoot(root, script);
  const capture = parseCapture(run.stdout);
  const container = parseContainerProbe(capture);
  return { run, probe: container, result: evaluateHamiChecklist({ container }) };
}

function assertClean(ran: Ran): void {
  assert.equal(ran.run.code, 0, ran.run.stderr);
  assert.ok(ran.run.stdout.trimEnd().endsWith('done@@'), 'the done marker is last');
  assert.doesNotMatch(ran.run.stdout + ran.run.stderr, /Read-only file system|can't create|cannot create|Permission denied|not found/i);
  const capture = parseCapture(ran.run.stdout);
  assert.ok(capture.complete);
  assert.deepEqual(capture.problems, []);
  for (const section of capture.sections.values()) assert.ok(section.complete, `section ${section.name} complete`);
}

describe('container script in chroot fixture roots', { skip: skipChroot ?? false }, () => {
  const scenarios: Scenario[] = [];
  for (const shell of ['busybox', 'dash'] as const)
    for (const name of ['enforced', 'bypassed'] as const) scenarios.push({ name, shell, root: '', nonce: newNonce() });
  const mounts: string[] = [];
  const servers: Server[] = [];
  const roots: string[] = [];

  before(async () => {
    for (const scenario of scenarios) {
      buildScenario(scenario);
      roots.push(scenario.root);
      if (scenario.name === 'bypassed' && scenario.shell === 'dash') {
        // A live Docker socket inside the container (Docker-in-Docker), held open for the test.
        mkdirSync(join(scenario.root, 'var/run'), { recursive: true });
        const server = createServer();
        await new Promise<void>((resolve) => server.listen(join(scenario.root, 'var/run/docker.sock'), resolve));
        servers.push(server);
        addProcess(scenario.root, {
          pid: 30,
          ppid: 1,
          comm: 'dockerd',
          cmdline: ['dockerd', '--host=unix:///var/run/docker.sock'],
          environ: BASE_ENV,
          maps: maps(['/usr/local/bin/dockerd', ...GLIBC_MAPS]),
          exe: '/bin/dash',
        });
      }
    }
  });

  after(async () => {
    for (const mount of mounts.reverse()) {
      if (spawnSync('umount', [mount]).status !== 0) spawnSync('umount', ['-l', mount]);
      rmSync(mount, { recursive: true, force: true });
    }
    for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()));
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  for (const shell of ['busybox', 'dash'] as const) {
    test(`${shell}: the enforced container is enforced`, async () => {
      const scenario = scenarios.find((s) => s.shell === shell && s.name === 'enforced');
      assert.ok(scenario);
      const before = snapshotTree(scenario.root);
      const ran = await probe(scenario.root, scenario.nonce);
      assertClean(ran);
      assert.deepEqual(snapshotTree(scenario.root), before, 'the probe wrote nothing');
      const { probe: container, result } = ran;

      assert.equal(container.meta['kernel']?.length ? true : false, true);
      assert.equal(container.envSource, 'proc');
      assert.equal(container.env?.['CUDA_DEVICE_MEMORY_LIMIT_0'], '4096m');
      assert.equal(container.env?.['PATH'], undefined, 'the env is filtered');
      assert.equal(container.preload?.state, 'file');
      assert.deepEqual(container.preload?.entries, ['/usr/local/vgpu/libvgpu.so']);
      assert.equal(container.libvgpu?.size, 385480);
      assert.equal(container.rootReadOnly, false);
      assert.deepEqual(
        container.mounts?.map((m) => m.mountPoint),
        ['/', '/etc/ld.so.preload', '/usr/local/vgpu', '/usr/local/vgpu/libvgpu.so', '/tmp/vgpulock'],
      );
      assert.equal(container.caches.length, 1);
      assert.equal(container.caches[0]?.path, CACHE);
      assert.equal(container.caches[0]?.magicOk, true);
      assert.deepEqual(
        container.caches[0]?.liveSlots.map((slot) => [slot.pid, slot.hostPid]),
        [[42, 31337]],
      );
      assert.equal(container.cgroup?.version, shell === 'busybox' ? 'v2' : 'v1');
      assert.deepEqual(container.cgroup?.max, { kind: 'bytes', bytes: 17179869184 });
      assert.equal(container.cgroup?.currentBytes, 2147483648);
      assert.equal(container.nvidiaSmi.missing, true);
      assert.deepEqual(
        container.processes?.map((p) => p.pid),
        [1, 42, 8].sort((a, b) => String(a).localeCompare(String(b))),
      );

      const tini = container.processes?.find((p) => p.pid === 1);
      assert.equal(tini?.exe.kind, 'static', 'busybox-static has no PT_INTERP');
      assert.equal(tini?.exe.via, shell === 'dash' ? 'readelf' : 'od');
      const python = container.processes?.find((p) => p.pid === 42);
      assert.equal(python?.exe.kind, 'dynamic');
      assert.equal(python?.exe.interpreter, '/lib64/ld-linux-x86-64.so.2');
      assert.deepEqual(
        [python?.maps.libvgpu, python?.maps.libcuda, python?.maps.glibcLoader, python?.maps.musl],
        [true, true, true, false],
      );
      assert.equal(python?.nvidiaFd, true);
      assert.equal(python?.env['CUDA_DEVICE_MEMORY_LIMIT_0'], '4096m');
      assert.equal(python?.cmdline, 'python3 train.py --epochs 3');

      assert.equal(result.verdict, 'enforced', result.summary);
      assert.deepEqual(
        result.processes.map((p) => [p.pid, p.verdict]),
        [[42, 'enforced']],
      );
      assert.equal(result.checks.find((c) => c.id === 'bypass.logs')?.status, 'unknown', 'no log lines: unknown');
    });

    test(`${shell}: the bypassed container is bypassed, per process`, async () => {
      const scenario = scenarios.find((s) => s.shell === shell && s.name === 'bypassed');
      assert.ok(scenario);
      const ran = await probe(scenario.root, scenario.nonce);
      assertClean(ran);
      const { probe: container, result } = ran;

      assert.equal(container.rootReadOnly, true, 'readOnlyRootFilesystem: the / mount is ro');
      const verdicts = new Map(result.processes.map((p) => [p.pid, p.verdict]));
      assert.equal(verdicts.get(42), 'enforced');
      assert.equal(verdicts.get(43), 'bypassed');
      assert.equal(verdicts.get(44), 'bypassed');
      assert.ok(!verdicts.has(70), 'libcudart alone is not libcuda');
      assert.equal(result.verdict, 'bypassed');
      const status = (id: string) => result.checks.find((c) => c.id === id)?.status;
      assert.equal(status('hami.loaded'), 'fail');
      assert.equal(status('bypass.login-session'), 'fail');
      assert.equal(status('bypass.static'), 'fail');
      // The loader error in /tmp/vgpulog: the preload check names it, the log check points there (each cause once).
      assert.equal(status('bypass.preload'), 'fail', 'the loader error in /tmp/vgpulog');
      assert.equal(status('bypass.logs'), 'covered');
      assert.equal(status('hami.preload'), 'pass');
      assert.equal(status('bypass.disable-control'), 'pass', 'a newline inside NOTE= does not forge CUDA_DISABLE_CONTROL');
      const staticProc = container.processes?.find((p) => p.pid === 44);
      assert.equal(staticProc?.exe.kind, 'static');
      assert.ok(result.checks.find((c) => c.id === 'bypass.static')?.evidence.includes('/proc/44: exe_path=/bin/busybox'));

      // The hostile process: one record, its lines intact, nothing forged.
      const capture = parseCapture(ran.run.stdout);
      assert.deepEqual(capture.problems, []);
      const hostile = container.processes?.find((p) => p.pid === 66);
      assert.ok(hostile);
      assert.equal(hostile.comm, 'ev"il', 'comm is read up to its first newline');
      assert.equal(hostile.ppid, 1, 'ppid from status when comm breaks stat');
      assert.match(hostile.cmdline, /^sh -c echo @@gpumem:[0-9a-f]+:done@@ CUDA_DEVICE_MEMORY_LIMIT_0=99999m "quoted" 'single'$/);
      assert.equal(hostile.env['CUDA_DEVICE_MEMORY_LIMIT_0'], '4096m');
      assert.equal(hostile.env['CUDA_DISABLE_CONTROL'], undefined);
      assert.ok(capture.sections.get('procs')?.complete, 'the forged end marker did not end the section');

      const gone = container.processes?.find((p) => p.pid === 73);
      assert.deepEqual(
        [gone?.comm, gone?.maps.readable, gone?.environReadable, gone?.exe.kind, gone?.gpu],
        ['', false, false, 'unknown', false],
      );
      assert.doesNotThrow(() => JSON.stringify({ container, result }), 'the model and verdict serialise to JSON');
      const locked = container.processes?.find((p) => p.pid === 71);
      assert.deepEqual([locked?.maps.readable, locked?.environReadable, locked?.nvidiaFd], [false, false, undefined]);
      assert.ok(container.logs.lines.some((line) => line.kind === 'preload-failed'));
      assert.ok(container.logs.lines.some((line) => line.kind === 'initializing'));

      if (shell === 'dash') {
        assert.deepEqual(container.dind?.sockets, ['/var/run/docker.sock']);
        assert.deepEqual(container.dind?.daemons, [{ pid: 30, comm: 'dockerd' }]);
        assert.equal(result.checks.find((c) => c.id === 'bypass.dind')?.status, 'fail');
      } else {
        assert.equal(result.checks.find((c) => c.id === 'bypass.dind')?.status, 'pass');
      }
    });

    test(`${shell}: read-only — the probe completes on a read-only bind mount of the root`, async () => {
      const scenario = scenarios.find((s) => s.shell === shell && s.name === 'bypassed');
      assert.ok(scenario);
      const ro = `${scenario.root}-ro`;
      mkdirSync(ro, { recursive: true });
      mounts.push(ro);
      const bind = spawnSync('mount', ['--bind', scenario.root, ro], { encoding: 'utf8' });
      assert.equal(bind.status, 0, bind.stderr);
      const remount = spawnSync('mount', ['-o', 'remount,bind,ro', ro], { encoding: 'utf8' });
      assert.equal(remount.status, 0, remount.stderr);
      // The mount really is read-only.
      const write = spawnSync('chroot', [ro, '/bin/sh', '-c', 'echo x > /probe-write-test'], { encoding: 'utf8' });
      assert.notEqual(write.status, 0);
      assert.match(write.stderr, /Read-only file system/);

      const ran = await probe(ro, scenario.nonce);
      assertClean(ran);
      assert.equal(ran.result.verdict, 'bypassed');
      assert.equal(ran.probe.processes?.length, scenario.shell === 'dash' ? 10 : 9);
    });
  }

  test('a plain container with no CUDA and no HAMi trace is not-hami, not bypassed', async () => {
    const root = makeRoot({ shell: 'busybox' });
    roots.push(root);
    writeFile(root, 'proc/self/mountinfo', `${MOUNTINFO_RW[0] ?? ''}\n`);
    writeFile(
      root,
      'proc/self/environ',
      `${BASE_ENV.filter((line) => !line.startsWith('NVIDIA_') && !line.startsWith('LIBCUDA_')).join('\0')}\0`,
    );
    writeFile(root, 'proc/self/cgroup', '0::/\n');
    addProcess(root, {
      pid: 1,
      ppid: 0,
      comm: 'nginx',
      cmdline: ['nginx', '-g', 'daemon off;'],
      environ: ['PATH=/usr/bin:/bin'],
      maps: maps(['/usr/sbin/nginx', ...GLIBC_MAPS]),
      exe: '/bin/busybox',
    });
    const ran = await probe(root, newNonce());
    assertClean(ran);
    assert.equal(ran.result.verdict, 'not-hami', ran.result.summary);
    // Cut the same capture short: absence can no longer be proven.
    const cut = parseContainerProbe(parseCapture(ran.run.stdout.slice(0, Math.floor(ran.run.stdout.length / 2))));
    assert.notEqual(evaluateHamiChecklist({ container: cut }).verdict, 'not-hami');
  });

  test('the process sweep stops at the limit and says so', async () => {
    const scenario = scenarios.find((s) => s.shell === 'busybox' && s.name === 'enforced');
    assert.ok(scenario);
    const many = `${scenario.root}-many`;
    mkdirSync(many);
    roots.push(many);
    const cp = spawnSync('cp', ['-a', `${scenario.root}/.`, many]);
    assert.equal(cp.status, 0);
    for (let pid = 1000; pid < 1000 + CONTAINER_PROCESS_LIMIT + 5; pid++) {
      addProcess(many, { pid, ppid: 1, comm: 'worker', cmdline: ['worker'], environ: LIMIT_ENV, maps: [], exe: '/bin/dash' });
    }
    const ran = await probe(many, scenario.nonce);
    assertClean(ran);
    assert.equal(ran.probe.processes?.length, CONTAINER_PROCESS_LIMIT);
    assert.equal(ran.probe.processesTruncated, true);
    assert.ok(ran.probe.problems.some((problem) => problem.includes(`first ${CONTAINER_PROCESS_LIMIT} processes`)));
  });
});

test(
  'container script on this machine (real /proc): skips its own shell and children, completes',
  { skip: DASH ? false : 'dash is not installed' },
  async () => {
    const nonce = newNonce();
    const ran = await runArgv([DASH ?? 'dash', '-s'], buildProbeScript({ scope: 'container', nonce }), {}, 120000);
    assert.equal(ran.code, 0, ran.stderr);
    const capture = parseCapture(ran.stdout);
    assert.ok(capture.complete, capture.problems.join('; '));
    const container = parseContainerProbe(capture);
    const self = Number(container.meta['self']);
    assert.ok(self > 0);
    assert.ok(container.processes && container.processes.length > 0);
    assert.equal(
      container.processes.some((p) => p.pid === self),
      false,
      'not its own shell',
    );
    assert.equal(
      container.processes.some((p) => p.ppid === self),
      false,
      'not its own children',
    );
    assert.equal(container.caches.length, 0);
    // No HAMi here: not enforced, and the logs check stays unknown.
    const result = evaluateHamiChecklist({ container });
    assert.notEqual(result.verdict, 'enforced');
    assert.equal(result.checks.find((c) => c.id === 'hami.env')?.status, 'fail');
    assert.equal(result.checks.find((c) => c.id === 'bypass.logs')?.status, 'unknown');
    if (READELF) assert.ok(container.processes.some((p) => p.exe.via === 'readelf' && p.exe.kind === 'dynamic'));
  },
);
