// The fixture roots' tools (the static busybox, the applets the probe uses, dash and its libraries) and where roots
// are made (a root-owned base that sshd accepts as a ChrootDirectory). See fixtureRoot.ts.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

// ---------------------------------------------------------------------------------------------------
// Tools

export const BUSYBOX_INSTALL = 'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends busybox-static';

/** Applets the node probe runs (or may run), each a symlink to busybox. No dmesg, no journalctl. */
export const PROBE_APPLETS = [
  'sh',
  'ash',
  'ls',
  'cat',
  'head',
  'tail',
  'od',
  'tr',
  'wc',
  'cut',
  'date',
  'id',
  'uname',
  'basename',
  'dirname',
  'readlink',
  'sed',
  'grep',
  'egrep',
  'sort',
  'uniq',
  'awk',
  'timeout',
  'find',
  'printf',
  'echo',
  'true',
  'false',
  'test',
  '[',
  'env',
  'stat',
  'xargs',
  'sleep',
  'expr',
  'hostname',
] as const;

export type FixtureShell = 'busybox' | 'dash';

/** Whether an ELF executable has a PT_INTERP program header (is dynamically linked). */
export function elfIsDynamic(file: string): boolean {
  const b = readFileSync(file);
  if (b.length < 64 || b.readUInt32BE(0) !== 0x7f454c46 || b[4] !== 2) return true;
  const phoff = Number(b.readBigUInt64LE(0x20));
  const phentsize = b.readUInt16LE(0x36);
  const phnum = b.readUInt16LE(0x38);
  for (let i = 0; i < phnum; i++) {
    const off = phoff + i * phentsize;
    if (off + 4 > b.length) break;
    if (b.readUInt32LE(off) === 3) return true;
  }
  return false;
}

/** The static busybox, or undefined (the dynamically linked one cannot run inside a bare chroot). */
export function staticBusybox(): string | undefined {
  return ['/bin/busybox', '/usr/bin/busybox'].find((p) => existsSync(p) && !elfIsDynamic(p));
}

/** The static busybox; installs busybox-static with apt-get (as root, non-interactively) when missing. */
export function ensureBusyboxStatic(): string {
  let busybox = staticBusybox();
  if (busybox) return busybox;
  if (process.getuid?.() !== 0) throw new Error(`busybox-static is missing; run as root: ${BUSYBOX_INSTALL}`);
  execFileSync('apt-get', ['update'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'busybox-static'], {
    stdio: 'ignore',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  busybox = staticBusybox();
  if (!busybox) throw new Error(`busybox-static did not install; run: ${BUSYBOX_INSTALL}`);
  return busybox;
}

/** Why fixture roots cannot be built here, or undefined when they can. */
export function fixtureRootsUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root (chroot, mknod, mount)';
  if (!existsSync('/bin/dash')) return 'dash is not installed';
  if (spawnSync('chroot', ['--version'], { stdio: 'ignore' }).error) return 'chroot (coreutils) is not installed';
  return undefined;
}

/** The absolute library paths `ldd` lists for a binary. */
export function lddPaths(binary: string): string[] {
  const out = spawnSync('ldd', [binary], { encoding: 'utf8' }).stdout ?? '';
  const paths: string[] = [];
  for (const line of out.split('\n')) {
    const match = /=>\s*(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
    if (match?.[1]) paths.push(match[1]);
  }
  return paths;
}

// ---------------------------------------------------------------------------------------------------
// Where roots live

/** A root-owned, non-group/world-writable base for roots (sshd's ChrootDirectory rule). */
export function fixtureBase(): string {
  for (const base of ['/run', '/var/cache', '/opt', '/srv']) if (pathIsChrootSafe(base)) return base;
  throw new Error('no root-owned, non-writable base directory for fixture roots (/run, /var/cache, /opt, /srv)');
}

/** Every component of `path` is root-owned and not group/world-writable (what sshd's ChrootDirectory demands). */
export function pathIsChrootSafe(path: string): boolean {
  let p = path;
  for (;;) {
    let st;
    try {
      st = statSync(p);
    } catch {
      return false;
    }
    if (st.uid !== 0 || (st.mode & 0o022) !== 0) return false;
    if (p === '/') return true;
    p = dirname(p);
  }
}
