// Where exec'd commands run: chroot directories holding busybox-static.
// - Node roots: the scenarios of test/helpers/fixtureRoot.ts (APU, HAMi, plain), built lazily the first
//   time a pod on that node needs one. A node the fixtures give no scenario gets an empty directory.
// - Container roots: busybox roots from test/unit/helpers/probeRoot.ts (all applets) plus the files and
//   fake /proc processes the fixture lists.
// - Pod and container roots live under one directory per simulator, <tmp>/gpumem-sim-<pid>-XXXXXX.
// - Pod roots, for pods created through the API (a `kubectl debug node/…` pod): a fresh busybox root
//   (the image is always busybox here) in which every hostPath volume is bind-mounted from the node root.
//   The binds are remounted read-only so no probe can change a node fixture shared by several pods. When the
//   node's `/` is mounted, its character devices are recreated in the pod's /dev (see mirrorDevices()).
//   They are unmounted when the pod is deleted, on close(), and on process exit; a root is removed only
//   once nothing is mounted under it any more. Its `dmesg` answers for the node's kernel, not this machine's
//   (refused without CAP_SYSLOG, else the node's kern.log as a ring buffer: dmesg.ts).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { buildApuNode, buildHamiCache, buildHamiNode, buildPlainNode, fixtureRootsUnavailable } from '../helpers/fixtureRoot.ts';
import type { Fixture } from '../helpers/fixtureRoot.ts';
import { addProcess, chrootUnavailable, makeRoot, mapsLine, symlink, writeFile } from '../unit/helpers/probeRoot.ts';
import { dmesgScript, kernelLogAccess } from './dmesg.ts';
import type { KubeObject, PodSpec } from './objects.ts';

export type NodeScenario = 'apu' | 'apu-cgroup-v1' | 'hami' | 'plain' | 'empty';

export interface NodeRootSpec {
  readonly scenario: NodeScenario;
  readonly shell?: 'busybox' | 'dash';
}

export interface RootFileSpec {
  readonly path: string;
  /** Text content. */
  readonly content?: string;
  /** A file of this many bytes (filled with 0x5a) instead of text. */
  readonly size?: number;
  /** A HAMi-core shared-region cache (test/unit/helpers/hamiCacheFile.ts); numbers are converted to bigint. */
  readonly hamiCache?: {
    readonly deviceNum: number;
    readonly uuids?: readonly string[];
    readonly limits: readonly number[];
    readonly smLimits?: readonly number[];
    readonly ownerPid?: number;
    readonly procNum?: number;
    readonly slots: readonly {
      readonly pid: number;
      readonly hostpid: number;
      readonly status: number;
      readonly usedTotal: readonly number[];
    }[];
  };
  /** A symlink to this target instead of a file. */
  readonly link?: string;
  /** File mode; write it as `0o755` in YAML (YAML 1.2 reads `0755` as decimal 755). */
  readonly mode?: number;
}

export interface RootProcessSpec {
  readonly pid: number;
  readonly ppid?: number;
  readonly comm: string;
  readonly cmdline: readonly string[];
  readonly environ?: readonly string[];
  /** Mapped file paths; each becomes a maps line in the kernel's format. */
  readonly maps?: readonly string[];
  readonly exe?: string;
  readonly fds?: readonly string[];
}

export interface ContainerRootSpec {
  /** A root directory built by the test (e.g. test/helpers/hamiTestRoot.ts), used as it is and never removed here. */
  readonly prebuilt?: string;
  readonly shell?: 'busybox' | 'dash';
  readonly files?: readonly RootFileSpec[];
  readonly dirs?: readonly string[];
  readonly processes?: readonly RootProcessSpec[];
}

interface PodRoot {
  readonly root: string;
  readonly mounts: string[];
}

const MOUNT_SAFE = /^\/[A-Za-z0-9._\/-]*$/;

/** Mount points (decoded) listed in /proc/self/mountinfo. */
export function mountPoints(): string[] {
  let text = '';
  try {
    text = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line) => {
    const field = line.split(' ')[4];
    return field ? [field.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)))] : [];
  });
}

/** The major and minor numbers of a device's st_rdev (Linux's encoding). */
function deviceNumbers(rdev: number): [number, number] {
  const high = Math.floor(rdev / 2 ** 32);
  const low = rdev % 2 ** 32;
  const major = ((low >>> 8) & 0xfff) | (high & 0xfffff000);
  const minor = (low & 0xff) | ((low >>> 12) & 0xfff00);
  return [major, minor];
}

/**
 * Recreates the node's character devices (dri, kfd, nvidia*) in the pod root's /dev. On a real node the
 * debug pod reads /host/proc/<pid>/fd/<n>, which are magic links the kernel resolves to the open file
 * whatever the reader's mount namespace; the fixture's fd links are plain symlinks to /dev/…, resolved
 * inside the chroot, so the devices must exist there for `ls -lL` to show `226, 128` as it does for real.
 */
function mirrorDevices(from: string, to: string): void {
  let entries: string[];
  try {
    entries = readdirSync(from);
  } catch {
    return;
  }
  for (const name of entries) {
    const source = join(from, name);
    const target = join(to, name);
    const st = lstatSync(source);
    if (st.isDirectory()) mirrorDevices(source, target);
    else if (st.isCharacterDevice() && !existsSync(target)) {
      mkdirSync(to, { recursive: true });
      const [major, minor] = deviceNumbers(st.rdev);
      execFileSync('mknod', ['-m', (st.mode & 0o777).toString(8), target, 'c', String(major), String(minor)]);
    }
  }
}

function unmount(target: string): void {
  if (spawnSync('umount', [target], { stdio: 'ignore' }).status !== 0) spawnSync('umount', ['-l', target], { stdio: 'ignore' });
}

export class Roots {
  readonly #nodeSpecs: ReadonlyMap<string, NodeRootSpec>;
  readonly #containerSpecs: ReadonlyMap<string, ContainerRootSpec>;
  readonly #nodes = new Map<string, { root: string; cleanup(): void }>();
  readonly #containers = new Map<string, string>();
  readonly #pods = new Map<string, PodRoot>();
  readonly #unavailable: string | undefined;
  readonly #onExit = (): void => this.cleanup();
  /** This simulator's directory for pod and container roots: <tmp>/gpumem-sim-<pid>-XXXXXX. */
  #base: string | undefined;
  /** Errors met while cleaning up (a mount that would not go away, …). */
  readonly problems: string[] = [];

  constructor(nodes: Readonly<Record<string, NodeRootSpec>>, containers: Readonly<Record<string, ContainerRootSpec>>, enabled = true) {
    this.#nodeSpecs = new Map(Object.entries(nodes));
    this.#containerSpecs = new Map(Object.entries(containers));
    this.#unavailable = enabled ? (fixtureRootsUnavailable() ?? chrootUnavailable()) : 'roots are disabled for this simulator';
    process.on('exit', this.#onExit);
  }

  /** Why commands cannot run for real here, or undefined. */
  get unavailable(): string | undefined {
    return this.#unavailable;
  }

  /** A busybox root (probeRoot.ts) moved under this simulator's directory, so its mounts are recognisable. */
  #busyboxRoot(shell: 'busybox' | 'dash', name: string): string {
    const made = makeRoot({ shell });
    if (this.#base === undefined) {
      this.#base = mkdtempSync(join(tmpdir(), `gpumem-sim-${process.pid}-`));
      chmodSync(this.#base, 0o755);
    }
    const root = join(this.#base, name.replace(/[^A-Za-z0-9._-]/g, '_'));
    try {
      renameSync(made, root);
    } catch (err) {
      rmSync(made, { recursive: true, force: true });
      throw err;
    }
    chmodSync(root, 0o755);
    return root;
  }

  hasNodeScenario(node: string): boolean {
    return this.#nodeSpecs.has(node);
  }

  hasContainerRoot(namespace: string, pod: string, container: string): boolean {
    return this.#containerSpecs.has(`${namespace}/${pod}/${container}`);
  }

  /** The node's root directory, built on first use. */
  nodeRoot(node: string): string {
    const existing = this.#nodes.get(node);
    if (existing) return existing.root;
    const spec = this.#nodeSpecs.get(node) ?? { scenario: 'empty' };
    let built: { root: string; cleanup(): void };
    if (spec.scenario === 'empty') {
      const root = mkdtempSync(join(tmpdir(), `gpumem-sim-node-${node.replace(/[^A-Za-z0-9.-]/g, '_')}-`));
      chmodSync(root, 0o755);
      built = { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
    } else {
      const options = { shell: spec.shell ?? 'busybox' } as const;
      let fixture: Fixture<unknown>;
      if (spec.scenario === 'apu') fixture = buildApuNode(options);
      else if (spec.scenario === 'apu-cgroup-v1') fixture = buildApuNode({ ...options, cgroup: 'v1' });
      else if (spec.scenario === 'hami') fixture = buildHamiNode(options);
      else fixture = buildPlainNode(options);
      built = fixture;
    }
    this.#nodes.set(node, built);
    return built.root;
  }

  /** The container's root, built on first use; undefined when the fixtures give it none (a distroless image). */
  containerRoot(namespace: string, pod: string, container: string): string | undefined {
    const key = `${namespace}/${pod}/${container}`;
    const existing = this.#containers.get(key);
    if (existing) return existing;
    const spec = this.#containerSpecs.get(key);
    if (!spec) return undefined;
    if (spec.prebuilt !== undefined) return spec.prebuilt;
    const root = this.#busyboxRoot(spec.shell ?? 'busybox', `container-${namespace}-${pod}-${container}`);
    try {
      for (const dir of spec.dirs ?? []) mkdirSync(join(root, dir), { recursive: true });
      for (const file of spec.files ?? []) {
        const rel = file.path.replace(/^\/+/, '');
        if (file.link !== undefined) symlink(root, rel, file.link);
        else if (file.hamiCache) {
          const c = file.hamiCache;
          writeFile(
            root,
            rel,
            buildHamiCache({
              deviceNum: c.deviceNum,
              ...(c.uuids ? { uuids: c.uuids } : {}),
              limits: c.limits.map(BigInt),
              ...(c.smLimits ? { smLimits: c.smLimits.map(BigInt) } : {}),
              ...(c.ownerPid !== undefined ? { ownerPid: BigInt(c.ownerPid) } : {}),
              ...(c.procNum !== undefined ? { procNum: c.procNum } : {}),
              slots: c.slots.map((s) => ({ pid: s.pid, hostpid: s.hostpid, status: s.status, usedTotal: s.usedTotal.map(BigInt) })),
            }),
            file.mode,
          );
        } else if (file.size !== undefined) writeFile(root, rel, Buffer.alloc(file.size, 0x5a), file.mode);
        else writeFile(root, rel, file.content ?? '', file.mode);
      }
      for (const proc of spec.processes ?? []) {
        addProcess(root, {
          pid: proc.pid,
          ...(proc.ppid !== undefined ? { ppid: proc.ppid } : {}),
          comm: proc.comm,
          cmdline: proc.cmdline,
          environ: proc.environ ?? [],
          maps: (proc.maps ?? []).map((path, i) => mapsLine(path, i)),
          ...(proc.exe !== undefined ? { exe: proc.exe } : {}),
          ...(proc.fds !== undefined ? { fds: proc.fds } : {}),
        });
      }
    } catch (err) {
      rmSync(root, { recursive: true, force: true });
      throw err;
    }
    this.#containers.set(key, root);
    return root;
  }

  /**
   * The root of a pod created through the API: busybox, with each hostPath volume of its containers
   * bind-mounted (read-only) from the node root. Built once per pod uid.
   */
  podRoot(pod: KubeObject): string {
    const uid = pod.metadata.uid as string;
    const existing = this.#pods.get(uid);
    if (existing) return existing.root;
    const spec = pod['spec'] as PodSpec;
    const root = this.#busyboxRoot('busybox', `pod-${pod.metadata.namespace ?? ''}-${pod.metadata.name ?? ''}-${uid.slice(0, 8)}`);
    const entry: PodRoot = { root, mounts: [] };
    this.#pods.set(uid, entry);
    try {
      const volumes = new Map((spec.volumes ?? []).map((v) => [v.name, v]));
      const nodeRoot = spec.nodeName ? this.nodeRoot(spec.nodeName) : undefined;
      for (const container of spec.containers) {
        for (const vm of container.volumeMounts ?? []) {
          const hostPath = volumes.get(vm.name)?.hostPath?.path;
          if (hostPath === undefined || nodeRoot === undefined) continue;
          const source = normalize(join(nodeRoot, hostPath));
          const target = normalize(join(root, vm.mountPath));
          if (!MOUNT_SAFE.test(target) || !target.startsWith(`${root}/`) || !source.startsWith(nodeRoot)) continue;
          if (entry.mounts.includes(target) || !existsSync(source)) continue;
          if (statSync(source).isDirectory()) mkdirSync(target, { recursive: true });
          else if (!existsSync(target)) {
            mkdirSync(dirname(target), { recursive: true });
            writeFileSync(target, '');
          }
          execFileSync('mount', ['--bind', source, target]);
          entry.mounts.push(target);
          execFileSync('mount', ['-o', 'remount,ro,bind', target]);
          if (normalize(hostPath) === '/') mirrorDevices(join(nodeRoot, 'dev'), join(root, 'dev'));
        }
      }
      // dmesg must answer for the node's kernel (the fixture), not this machine's: see dmesg.ts.
      const kernLog =
        nodeRoot !== undefined && existsSync(join(nodeRoot, 'var/log/kern.log'))
          ? readFileSync(join(nodeRoot, 'var/log/kern.log'), 'utf8')
          : '';
      rmSync(join(root, 'bin/dmesg'), { force: true });
      writeFileSync(join(root, 'bin/dmesg'), dmesgScript(kernelLogAccess(spec), kernLog), { mode: 0o755 });
    } catch (err) {
      this.releasePod(uid);
      throw err;
    }
    return root;
  }

  /** Unmounts a pod's binds and removes its root (kept, with a problem noted, if a mount will not go away). */
  releasePod(uid: string): void {
    const entry = this.#pods.get(uid);
    if (!entry) return;
    this.#pods.delete(uid);
    for (const target of [...entry.mounts].reverse()) unmount(target);
    const left = mountPoints().filter((m) => m === entry.root || m.startsWith(`${entry.root}/`));
    if (left.length > 0) {
      this.problems.push(`still mounted, root kept: ${left.join(', ')}`);
      return;
    }
    rmSync(entry.root, { recursive: true, force: true });
  }

  /** Active bind mounts of pod roots. */
  activeMounts(): string[] {
    const ours = [...this.#pods.values()].flatMap((p) => p.mounts);
    const live = new Set(mountPoints());
    return ours.filter((m) => live.has(m));
  }

  /** Every root directory the simulator made and still holds. */
  directories(): string[] {
    return [
      ...[...this.#nodes.values()].map((n) => n.root),
      ...(this.#base ? [this.#base] : []),
      ...this.#containers.values(),
      ...[...this.#pods.values()].map((p) => p.root),
    ];
  }

  /** Unmounts and removes everything. Idempotent, synchronous (also runs on process exit). */
  cleanup(): void {
    for (const uid of [...this.#pods.keys()]) this.releasePod(uid);
    for (const root of this.#containers.values()) rmSync(root, { recursive: true, force: true });
    this.#containers.clear();
    for (const node of this.#nodes.values()) {
      try {
        node.cleanup();
      } catch (err) {
        this.problems.push(`node root cleanup: ${(err as Error).message}`);
      }
    }
    this.#nodes.clear();
    if (this.#base !== undefined) {
      const base = this.#base;
      const left = mountPoints().filter((m) => m.startsWith(`${base}/`));
      if (left.length > 0) this.problems.push(`still mounted, ${base} kept: ${left.join(', ')}`);
      else {
        rmSync(base, { recursive: true, force: true });
        this.#base = undefined;
      }
    }
    process.removeListener('exit', this.#onExit);
  }
}
