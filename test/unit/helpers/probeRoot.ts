// Chroot fixture roots for running the probe scripts for real: a temp directory with busybox (and
// optionally dash and readelf with the libraries `ldd` lists), a fake /proc made of plain files and
// symlinks, and whatever HAMi files a scenario needs. Runs `chroot <root> /bin/sh -s` with argv
// arrays (no shell strings) and the script on stdin. Root is required (chroot, mknod, mount).
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { lddPaths } from '../../helpers/fixtureRoot.ts';

export const BUSYBOX = ['/bin/busybox', '/usr/bin/busybox'].find((path) => existsSync(path));
export const DASH = ['/bin/dash', '/usr/bin/dash'].find((path) => existsSync(path));
export const READELF = ['/usr/bin/readelf'].find((path) => existsSync(path));

/** Why chroot tests cannot run here, or undefined when they can. */
export function chrootUnavailable(): string | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return 'needs root (chroot, mknod, mount)';
  if (!BUSYBOX) return 'busybox is not installed';
  if (!DASH) return 'dash is not installed';
  if (spawnSync('chroot', ['--help'], { stdio: 'ignore' }).error) return 'chroot is not installed';
  return undefined;
}

export type Shell = 'busybox' | 'dash';

export interface RootOptions {
  readonly shell: Shell;
  /** Copy readelf and its libraries in (the dash root exercises the readelf path, busybox the od path). */
  readonly readelf?: boolean;
}

function copyInto(root: string, path: string): void {
  const dest = join(root, path);
  mkdirSync(dirname(dest), { recursive: true });
  if (!existsSync(dest)) copyFileSync(path, dest);
  chmodSync(dest, statSync(path).mode & 0o7777);
}

/** Copy a library or binary, and if it is reached through a symlink, recreate the link too. */
function copyResolved(root: string, path: string): void {
  const st = lstatSync(path);
  if (st.isSymbolicLink()) {
    const target = readlinkSync(path);
    const resolved = target.startsWith('/') ? target : join(dirname(path), target);
    copyResolved(root, resolved);
    const dest = join(root, path);
    mkdirSync(dirname(dest), { recursive: true });
    if (!existsSync(dest)) symlinkSync(target, dest);
    return;
  }
  copyInto(root, path);
}

export function makeRoot(options: RootOptions): string {
  const root = mkdtempSync(join(tmpdir(), `gpumem-root-${options.shell}-`));
  for (const dir of ['bin', 'dev', 'etc', 'tmp', 'proc', 'sys/fs/cgroup', 'usr/bin', 'usr/local', 'lib64'])
    mkdirSync(join(root, dir), { recursive: true });
  chmodSync(join(root, 'tmp'), 0o1777);
  copyFileSync(BUSYBOX ?? '/bin/busybox', join(root, 'bin/busybox'));
  chmodSync(join(root, 'bin/busybox'), 0o755);
  const applets = (spawnSync(BUSYBOX ?? '/bin/busybox', ['--list'], { encoding: 'utf8' }).stdout ?? '')
    .split('\n')
    .filter((name) => /^[a-z0-9_.[-]+$/.test(name));
  for (const applet of applets) {
    if (applet === 'sh' || applet === 'busybox') continue;
    const link = join(root, 'bin', applet);
    if (!existsSync(link)) symlinkSync('busybox', link);
  }
  // A real dynamically linked ELF file for the "exe" samples, in both roots (busybox-static is the static one).
  copyFileSync(DASH ?? '/bin/dash', join(root, 'bin/dash'));
  chmodSync(join(root, 'bin/dash'), 0o755);
  if (options.shell === 'dash') {
    for (const lib of lddPaths(DASH ?? '/bin/dash')) copyResolved(root, lib);
    symlinkSync('dash', join(root, 'bin/sh'));
  } else {
    symlinkSync('busybox', join(root, 'bin/sh'));
  }
  if (options.readelf && READELF) {
    copyInto(root, READELF);
    for (const lib of lddPaths(READELF)) copyResolved(root, lib);
  }
  const nul = spawnSync('mknod', ['-m', '666', join(root, 'dev/null'), 'c', '1', '3']);
  if (nul.status !== 0) throw new Error(`mknod /dev/null failed: ${nul.stderr?.toString() ?? ''}`);
  return root;
}

export function writeFile(root: string, path: string, content: string | Buffer, mode?: number): void {
  const dest = join(root, path);
  mkdirSync(dirname(dest), { recursive: true });
  writeFileSync(dest, content);
  if (mode !== undefined) chmodSync(dest, mode);
}

export function symlink(root: string, path: string, target: string): void {
  const dest = join(root, path);
  mkdirSync(dirname(dest), { recursive: true });
  symlinkSync(target, dest);
}

export interface FakeProcess {
  readonly pid: number;
  readonly ppid?: number;
  readonly comm: string;
  readonly cmdline: readonly string[];
  readonly environ: readonly string[];
  readonly maps: readonly string[];
  /** Path inside the root the exe symlink points at. */
  readonly exe?: string;
  /** fd targets, e.g. /dev/nvidiactl. */
  readonly fds?: readonly string[];
  /** stat's flags field (PF_KTHREAD = 0x200000). */
  readonly flags?: number;
  /** Files the probe must fail to open (made dangling symlinks). */
  readonly unreadable?: readonly ('maps' | 'environ' | 'fd')[];
}

/** A fake /proc/<pid> made of plain files, in the format the kernel prints. */
export function addProcess(root: string, proc: FakeProcess): void {
  const dir = `proc/${proc.pid}`;
  const unreadable = new Set(proc.unreadable ?? []);
  writeFile(
    root,
    `${dir}/stat`,
    `${proc.pid} (${proc.comm}) S ${proc.ppid ?? 0} ${proc.pid} ${proc.pid} 0 -1 ${proc.flags ?? 4194560} 100 0 0 0 1 2 0 0 20 0 1 0 1000 10000000 500 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n`,
  );
  writeFile(root, `${dir}/comm`, `${proc.comm}\n`);
  // status escapes a newline in the name as \n, as the kernel does.
  writeFile(
    root,
    `${dir}/status`,
    `Name:\t${proc.comm.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\nState:\tS (sleeping)\nTgid:\t${proc.pid}\nPid:\t${proc.pid}\nPPid:\t${proc.ppid ?? 0}\n`,
  );
  writeFile(root, `${dir}/cmdline`, proc.cmdline.length > 0 ? `${proc.cmdline.join('\0')}\0` : '');
  if (unreadable.has('environ')) symlink(root, `${dir}/environ`, '/nonexistent/environ');
  else writeFile(root, `${dir}/environ`, proc.environ.length > 0 ? `${proc.environ.join('\0')}\0` : '');
  if (unreadable.has('maps')) symlink(root, `${dir}/maps`, '/nonexistent/maps');
  else writeFile(root, `${dir}/maps`, proc.maps.map((line) => `${line}\n`).join(''));
  if (proc.exe) symlink(root, `${dir}/exe`, proc.exe);
  if (unreadable.has('fd')) symlink(root, `${dir}/fd`, '/nonexistent/fd');
  else {
    mkdirSync(join(root, dir, 'fd'), { recursive: true });
    const fds = ['/dev/null', '/dev/null', '/dev/null', ...(proc.fds ?? [])];
    fds.forEach((target, fd) => symlink(root, `${dir}/fd/${fd}`, target));
  }
}

/** A maps line in the kernel's format for a file mapping. */
export function mapsLine(path: string, index = 0): string {
  const start = (0x7f0000000000 + index * 0x100000).toString(16);
  const end = (0x7f0000000000 + index * 0x100000 + 0x28000).toString(16);
  return `${start}-${end} r-xp 00000000 fd:01 ${1000 + index}                      ${path}`;
}

export interface RunResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
}

/** `chroot <root> /bin/sh -s` with the script on stdin. */
export function runInRoot(root: string, script: string, env: Readonly<Record<string, string>> = {}, timeoutMs = 60000): Promise<RunResult> {
  return runArgv(['chroot', root, '/bin/sh', '-s'], script, env, timeoutMs);
}

export function runArgv(
  argv: readonly string[],
  script: string,
  env: Readonly<Record<string, string>> = {},
  timeoutMs = 60000,
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const [command, ...args] = argv;
    if (!command) {
      reject(new Error('empty argv'));
      return;
    }
    const child = spawn(command, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', ...env },
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), code });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(script);
  });
}

/** Every path under root with its type, size, mode and mtime: equal before and after = nothing written. */
export function snapshotTree(root: string): string[] {
  const entries: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const st = lstatSync(path);
      entries.push(
        `${path.slice(root.length)} ${st.mode.toString(8)} ${st.size} ${st.mtimeMs} ${st.isSymbolicLink() ? readlinkSync(path) : ''}`,
      );
      if (st.isDirectory()) walk(path);
    }
  };
  walk(root);
  return entries;
}
