// The tree builder of the fixture roots: files, directories, links and device nodes under a root. See fixtureRoot.ts.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { PROBE_APPLETS, ensureBusyboxStatic, fixtureBase, lddPaths } from './fixtureTools.ts';
import type { FixtureShell } from './fixtureTools.ts';

// ---------------------------------------------------------------------------------------------------
// The tree builder

export interface RootOptions {
  /** `busybox` (default): /bin/sh is busybox ash. `dash`: /bin/sh is dash, the tools stay busybox applets. */
  readonly shell?: FixtureShell;
  /** Applets to leave out (e.g. `['od', 'timeout']`). */
  readonly omitTools?: readonly string[];
  /** `''` (default): the node is the chroot itself. `'/host'`: a node debug pod, with the node under /host. */
  readonly hostRoot?: '' | '/host';
  /** Parent directory of the root (default: fixtureBase()). */
  readonly base?: string;
}

/** A chroot directory with tools in it and the node's files under `hostRoot`. */
export class NodeTree {
  readonly root: string;
  readonly hostRoot: string;
  readonly shell: FixtureShell;
  #cleaned = false;

  constructor(options: RootOptions = {}) {
    const busybox = ensureBusyboxStatic();
    this.shell = options.shell ?? 'busybox';
    this.hostRoot = options.hostRoot ?? '';
    this.root = mkdtempSync(join(options.base ?? fixtureBase(), `gpumem-node-${this.shell}-`));
    try {
      chmodSync(this.root, 0o755);
      this.#installTools(busybox, new Set(options.omitTools ?? []));
      this.#devices(''); // the chroot's own /dev (in a debug pod, the pod's /dev: host devices when privileged)
      if (this.hostRoot !== '') this.#devices(this.hostRoot);
    } catch (err) {
      this.cleanup();
      throw err;
    }
  }

  #installTools(busybox: string, omit: ReadonlySet<string>): void {
    mkdirSync(join(this.root, 'bin'), { mode: 0o755 });
    copyFileSync(busybox, join(this.root, 'bin/busybox'));
    chmodSync(join(this.root, 'bin/busybox'), 0o755);
    for (const applet of PROBE_APPLETS) {
      if (omit.has(applet)) continue;
      if (applet === 'sh' && this.shell === 'dash') continue;
      symlinkSync('busybox', join(this.root, 'bin', applet));
    }
    if (this.shell === 'dash') {
      copyFileSync('/bin/dash', join(this.root, 'bin/dash'));
      chmodSync(join(this.root, 'bin/dash'), 0o755);
      for (const lib of lddPaths('/bin/dash')) this.#copyResolved(lib);
      symlinkSync('dash', join(this.root, 'bin/sh'));
    }
  }

  /** Copies a library into the root at the same path; a symlink is recreated and its target copied. */
  #copyResolved(path: string): void {
    const dest = join(this.root, path);
    mkdirSync(dirname(dest), { recursive: true, mode: 0o755 });
    if (lstatSync(path).isSymbolicLink()) {
      const target = readlinkSync(path);
      this.#copyResolved(target.startsWith('/') ? target : join(dirname(path), target));
      if (!existsSync(dest)) symlinkSync(target, dest);
      return;
    }
    if (!existsSync(dest)) copyFileSync(path, dest);
    chmodSync(dest, statSync(path).mode & 0o7777);
  }

  #devices(prefix: string): void {
    this.chardev(`${prefix}/dev/null`, 1, 3, 0o666, true);
    this.chardev(`${prefix}/dev/dri/renderD128`, 226, 128, 0o666, true);
    this.chardev(`${prefix}/dev/dri/card0`, 226, 0, 0o660, true);
  }

  /** Absolute path on this machine of a node path (`/proc/meminfo` → `<root><hostRoot>/proc/meminfo`). */
  path(nodePath: string, raw = false): string {
    return join(this.root, raw ? '' : this.hostRoot, nodePath);
  }

  dir(nodePath: string, mode = 0o755, raw = false): void {
    const p = this.path(nodePath, raw);
    mkdirSync(p, { recursive: true, mode: 0o755 });
    chmodSync(p, mode);
  }

  file(nodePath: string, content: string | Buffer, mode = 0o644, raw = false): void {
    const p = this.path(nodePath, raw);
    mkdirSync(dirname(p), { recursive: true, mode: 0o755 });
    writeFileSync(p, content);
    chmodSync(p, mode);
  }

  link(nodePath: string, target: string, raw = false): void {
    const p = this.path(nodePath, raw);
    mkdirSync(dirname(p), { recursive: true, mode: 0o755 });
    symlinkSync(target, p);
  }

  /** `mknod <path> c <major> <minor>` inside the root. */
  chardev(nodePath: string, major: number, minor: number, mode = 0o660, raw = false): void {
    const p = this.path(nodePath, raw);
    if (existsSync(p)) return;
    mkdirSync(dirname(p), { recursive: true, mode: 0o755 });
    execFileSync('mknod', ['-m', mode.toString(8), p, 'c', String(major), String(minor)]);
  }

  /** Removes the tree. Idempotent. */
  cleanup(): void {
    if (this.#cleaned) return;
    this.#cleaned = true;
    rmSync(this.root, { recursive: true, force: true });
  }
}

export interface Fixture<F> {
  /** The chroot directory. */
  readonly root: string;
  /** The node's root inside the chroot: '' or '/host' (the probe's $R). */
  readonly hostRoot: string;
  readonly shell: FixtureShell;
  readonly facts: F;
  cleanup(): void;
}

/** A fixture root written by `write`: removed again when writing it fails. */
export function buildFixture<F>(options: RootOptions, write: (tree: NodeTree) => F): Fixture<F> {
  const tree = new NodeTree(options);
  try {
    const facts = write(tree);
    return { root: tree.root, hostRoot: tree.hostRoot, shell: tree.shell, facts, cleanup: () => tree.cleanup() };
  } catch (err) {
    tree.cleanup();
    throw err;
  }
}
