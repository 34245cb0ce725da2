// Chroot fixture roots for the HAMi over-quota test (src/core/hamiTest): a container as the test meets it.
//
// What a root holds:
// - python3: this machine's Debian interpreter (/usr/bin/python3.11 or whatever /usr/bin/python3 points at; a
//   pyenv shim is no interpreter), the libraries `ldd` lists, and only the stdlib files it loads for the
//   test's imports (found by asking the interpreter for its sys.modules), plus the libraries _ctypes needs.
//   `python: false` leaves it out (the "no python3" case).
// - /usr/lib/x86_64-linux-gnu/libcuda.so.1: the test double in cuda/libcudaStub.c, where the NVIDIA container
//   toolkit mounts the real one; `libcuda: false` leaves it out.
// - /usr/local/vgpu/libvgpu.so: the interposer test double in cuda/vgpuInterposerStub.c, and
//   /etc/ld.so.preload naming it as HAMi's device plugin mounts it; `preload: false` leaves the file out.
// Both C files are compiled here with gcc, once per process. The device size and the limits are the
// environment's (GPUMEM_STUB_DEVICE_MIB, CUDA_DEVICE_MEMORY_LIMIT_0, CUDA_DISABLE_CONTROL): the local transport's
// env, or the pod spec's env in the API simulator.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readlinkSync,
  readSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fixtureBase, lddPaths } from './fixtureRoot.ts';

const CUDA_SOURCES = new URL('./cuda/', import.meta.url).pathname;
/** The modules the test program imports; the interpreter reports every file they pull in. */
const PROGRAM_IMPORTS = 'import ctypes, os, signal, sys';

export interface HamiTestRootOptions {
  readonly python?: boolean;
  readonly libcuda?: boolean;
  readonly preload?: boolean;
  /** false: python3 without its ctypes module, as Debian's python3-minimal ships it. */
  readonly ctypes?: boolean;
}

export interface HamiTestRoot {
  readonly root: string;
  cleanup(): void;
}

/** Why these roots cannot be built here, or undefined. */
export function hamiTestRootsUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root (chroot)';
  if (spawnSync('gcc', ['--version'], { stdio: 'ignore' }).error) return 'gcc is not installed';
  if (spawnSync('chroot', ['--version'], { stdio: 'ignore' }).error) return 'chroot (coreutils) is not installed';
  const python = systemPython();
  if (python === undefined) return 'no system python3 (/usr/bin/python3; apt-get install python3)';
  if (spawnSync(python, ['-I', '-c', 'import ctypes'], { stdio: 'ignore' }).status !== 0)
    return `${python} has no ctypes (apt-get install python3)`;
  return undefined;
}

function systemPython(): string | undefined {
  for (const candidate of ['/usr/bin/python3', '/bin/python3']) {
    if (!existsSync(candidate)) continue;
    const real = realpathSync(candidate);
    // A shim is a script; the interpreter is an ELF file.
    const head = Buffer.alloc(4);
    const fd = openSync(real, 'r');
    try {
      readSync(fd, head, 0, 4, 0);
    } finally {
      closeSync(fd);
    }
    if (head.readUInt32BE(0) === 0x7f454c46) return real;
  }
  return undefined;
}

let built: { libcuda: string; vgpu: string } | undefined;

/** Compiles the two test doubles (once per process) into a temporary directory. */
export function buildCudaStubs(): { libcuda: string; vgpu: string } {
  if (built && existsSync(built.libcuda) && existsSync(built.vgpu)) return built;
  const out = mkdtempSync(join(tmpdir(), 'gpumem-cuda-stubs-'));
  const libcuda = join(out, 'libcuda.so.1');
  const vgpu = join(out, 'libvgpu.so');
  execFileSync('gcc', [
    '-shared',
    '-fPIC',
    '-O1',
    '-Wall',
    '-Werror',
    '-Wl,-soname,libcuda.so.1',
    '-o',
    libcuda,
    join(CUDA_SOURCES, 'libcudaStub.c'),
  ]);
  execFileSync('gcc', ['-shared', '-fPIC', '-O1', '-Wall', '-Werror', '-o', vgpu, join(CUDA_SOURCES, 'vgpuInterposerStub.c'), '-ldl']);
  built = { libcuda, vgpu };
  process.once('exit', () => rmSync(out, { recursive: true, force: true }));
  return built;
}

function pythonFiles(python: string): string[] {
  const listing = execFileSync(
    python,
    ['-I', '-c', `${PROGRAM_IMPORTS}\nfor m in list(sys.modules.values()):\n    f = getattr(m, "__file__", None)\n    if f: print(f)`],
    { encoding: 'utf8' },
  );
  const prefix = execFileSync(python, ['-I', '-c', 'import sys; print(sys.prefix)'], { encoding: 'utf8' }).trim();
  return listing
    .split('\n')
    .filter((file) => file.startsWith(`${prefix}/lib/`) && !file.includes('-packages/'))
    .concat(join(prefix, 'lib', `python${versionOf(python)}`, 'os.py'));
}

function versionOf(python: string): string {
  return execFileSync(python, ['-I', '-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' }).trim();
}

/** Copies a file into the root at the same path; a symlink is recreated and its target copied. */
function copyResolved(root: string, file: string): void {
  const dest = join(root, file);
  mkdirSync(dirname(dest), { recursive: true, mode: 0o755 });
  if (lstatSync(file).isSymbolicLink()) {
    const target = readlinkSync(file);
    copyResolved(root, target.startsWith('/') ? target : join(dirname(file), target));
    if (!existsSync(dest)) symlinkSync(target, dest);
    return;
  }
  if (!existsSync(dest)) copyFileSync(file, dest);
  chmodSync(dest, statSync(file).mode & 0o7777);
}

/** A container root for the over-quota test (see the header). Call cleanup() in an `after` hook. */
export function buildHamiTestRoot(options: HamiTestRootOptions = {}): HamiTestRoot {
  const stubs = buildCudaStubs();
  const root = mkdtempSync(join(fixtureBase(), 'gpumem-hamitest-'));
  chmodSync(root, 0o755);
  try {
    for (const dir of ['etc', 'tmp', 'usr/bin', 'usr/lib/x86_64-linux-gnu', 'usr/local/vgpu'])
      mkdirSync(join(root, dir), { recursive: true, mode: 0o755 });
    chmodSync(join(root, 'tmp'), 0o1777);
    if (options.python !== false) {
      const python = systemPython();
      if (python === undefined) throw new Error('no system python3');
      copyResolved(root, python);
      if (!existsSync(join(root, 'usr/bin/python3'))) symlinkSync(python.slice(python.lastIndexOf('/') + 1), join(root, 'usr/bin/python3'));
      for (const lib of lddPaths(python)) copyResolved(root, lib);
      for (const file of pythonFiles(python)) {
        if (!existsSync(file)) continue;
        if (options.ctypes === false && (file.includes('/ctypes/') || file.includes('/_ctypes.'))) continue;
        copyResolved(root, file);
        if (file.endsWith('.so')) for (const lib of lddPaths(file)) copyResolved(root, lib);
      }
    } else {
      // A libc so that the stubs would load; python3 itself is what is missing.
      for (const lib of lddPaths('/bin/dash')) copyResolved(root, lib);
    }
    if (options.libcuda !== false) copyFileSync(stubs.libcuda, join(root, 'usr/lib/x86_64-linux-gnu/libcuda.so.1'));
    copyFileSync(stubs.vgpu, join(root, 'usr/local/vgpu/libvgpu.so'));
    if (options.preload !== false) writeFileSync(join(root, 'etc/ld.so.preload'), '/usr/local/vgpu/libvgpu.so\n');
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  let cleaned = false;
  return {
    root,
    cleanup: () => {
      if (cleaned) return;
      cleaned = true;
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The pids of processes whose root directory is `root` (still running in the fixture). */
export function processesIn(root: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/root`) === root) pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/** The allocation of every test pod: GPU 0 of gpu-node-7 (the simulator's H100), an 8,192 MiB quota. */
export const HAMI_TEST_ALLOCATED = 'GPU-6f1d2c3b-8a4e-4b2f-9c1d-0e7a5b3c2d1f,NVIDIA-H100-80GB-HBM3,8192,50:;';

/** A Running pod on gpu-node-7 with one container `main` (its root: a HamiTestRoot), HAMi-managed unless `hami` is false. */
export function hamiTestPod(name: string, env: Record<string, string>, hami = true): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'ml',
      uid: `00000000-0000-4000-8000-${name.length.toString().padStart(4, '0')}${Buffer.from(name).toString('hex').slice(0, 8).padEnd(8, '0')}`,
      ...(hami ? { annotations: { 'hami.io/vgpu-devices-allocated': HAMI_TEST_ALLOCATED, 'hami.io/bind-phase': 'success' } } : {}),
    },
    spec: {
      nodeName: 'gpu-node-7',
      ...(hami ? { schedulerName: 'hami-scheduler' } : {}),
      containers: [
        {
          name: 'main',
          image: 'nvcr.io/nvidia/pytorch:25.08-py3',
          env: Object.entries(env).map(([key, value]) => ({ name: key, value })),
          resources: { limits: hami ? { 'nvidia.com/gpu': '1', 'nvidia.com/gpumem': '8192' } : { cpu: '1' } },
        },
      ],
    },
    status: {
      phase: 'Running',
      containerStatuses: [{ name: 'main', ready: true, restartCount: 0, state: { running: { startedAt: '2026-12-01T00:00:00Z' } } }],
    },
  };
}
