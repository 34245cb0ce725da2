// A reusable harness for tests that need a real OpenSSH server: sshd from Debian's openssh-server, started
// on a free 127.0.0.1 port with its own config, host key, authorized_keys and pid file in a temp dir, plus
// client keys made by ssh-keygen and busybox chroot roots for `ChrootDirectory`.
//
// Requirements: root (sshd switches users and chroots; /run/sshd is its privilege-separation directory),
// openssh-server, openssh-client (ssh-keygen, ssh-agent), busybox-static and procps (pgrep). When a package is
// missing, `ensureSshTools()` installs it as root with apt-get, non-interactively, or throws with the exact
// command to run.
//
// What a chrooted `sh -s` needs from sshd, found by trial on OpenSSH 9.2:
// - the chroot directory and every parent owned by root and not group- or world-writable (so not under
//   /tmp: the roots are made under /run or another safe base, see `fixtureBase()`);
// - the user's login shell at its path inside the root: sshd runs `<shell> -c "sh -s"`. root's shell is
//   /bin/bash here, which busybox does not provide, so the root gets a two-line shim
//   `#!/bin/sh` / `exec /bin/sh "$@"` at that path;
// - /bin/sh (busybox) and an applet symlink for every command the script runs (busybox ash does not run
//   applets by itself);
// - nothing else: no /dev/null, /etc/passwd or home directory (sshd only warns about those at LogLevel
//   VERBOSE, on the session's stderr when run with -e, which is why these servers log at INFO).
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { fixtureBase, pathIsChrootSafe, staticBusybox } from './fixtureTools.ts';

export const SSHD = '/usr/sbin/sshd';
const PACKAGES = ['openssh-server', 'openssh-client', 'busybox-static', 'procps'];
export const INSTALL_COMMAND = `apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${PACKAGES.join(' ')}`;

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

function onPath(name: string): boolean {
  return (process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin')
    .split(':')
    .concat(['/usr/sbin', '/usr/bin'])
    .some((d) => existsSync(join(d, name)));
}

function missingTools(): string[] {
  const missing: string[] = [];
  if (!existsSync(SSHD)) missing.push('openssh-server');
  if (!onPath('ssh-keygen') || !onPath('ssh-agent')) missing.push('openssh-client');
  if (!staticBusybox()) missing.push('busybox-static');
  if (!onPath('pgrep')) missing.push('procps');
  return missing;
}

/**
 * Makes sure sshd, ssh-keygen, ssh-agent, static busybox and pgrep exist: installs them with apt-get when
 * running as root, otherwise throws with the command to run. Also creates /run/sshd.
 */
export function ensureSshTools(): void {
  if (!isRoot()) {
    throw new Error('the SSH integration tests need root (sshd switches users and chroots); run them as root');
  }
  if (missingTools().length > 0) {
    try {
      execFileSync('apt-get', ['update'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
      execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...PACKAGES], {
        stdio: 'inherit',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
    } catch (err) {
      throw new Error(
        `installing ${missingTools().join(', ')} failed (${err instanceof Error ? err.message : String(err)}); run: ${INSTALL_COMMAND}`,
      );
    }
    const still = missingTools();
    if (still.length > 0) throw new Error(`still missing ${still.join(', ')}; run: ${INSTALL_COMMAND}`);
  }
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
}

/** Why the SSH tests cannot run here, or null when they can (tools installed on demand). */
export function sshUnavailableReason(): string | null {
  try {
    ensureSshTools();
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

export interface KeyPair {
  readonly privateKeyPath: string;
  readonly publicKeyPath: string;
  /** `type base64 comment` as in a .pub file. */
  readonly publicLine: string;
  readonly type: string;
  readonly base64: string;
}

/** ssh-keygen a key into `dir/name` (and `.pub`); a passphrase encrypts it. */
export function generateKey(
  dir: string,
  name: string,
  type: 'ed25519' | 'rsa' | 'ecdsa',
  passphrase = '',
  comment = `gpumem-test-${name}`,
): KeyPair {
  const privateKeyPath = join(dir, name);
  const args = ['-q', '-t', type, ...(type === 'rsa' ? ['-b', '2048'] : []), '-N', passphrase, '-C', comment, '-f', privateKeyPath];
  execFileSync('ssh-keygen', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const publicLine = readFileSync(`${privateKeyPath}.pub`, 'utf8').trim();
  const [keyType, base64] = publicLine.split(' ') as [string, string];
  return { privateKeyPath, publicKeyPath: `${privateKeyPath}.pub`, publicLine, type: keyType, base64 };
}

export async function freePort(): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface SshdOptions {
  /** Public key lines for AuthorizedKeysFile. */
  readonly authorizedKeys: readonly string[];
  readonly hostKeyType?: 'ed25519' | 'rsa' | 'ecdsa';
  /** A prepared root (see makeChrootRoot) for ChrootDirectory. */
  readonly chrootDirectory?: string;
  /** Extra sshd_config lines. */
  readonly extraConfig?: readonly string[];
  readonly logLevel?: 'QUIET' | 'INFO' | 'VERBOSE' | 'DEBUG';
}

export interface SshdInstance {
  readonly host: '127.0.0.1';
  readonly port: number;
  readonly dir: string;
  readonly hostKey: KeyPair;
  readonly pid: number;
  /** `[127.0.0.1]:port type base64`: the known_hosts line for this server. */
  readonly knownHostsLine: string;
  /** What sshd wrote on stderr so far (for assertion messages). */
  log(): string;
  /** Stops the server and every process it started, and removes its temp dir. Idempotent. */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  // Last resort if a test crashed before its cleanup: never leave an sshd listening.
  for (const c of live) {
    if (c.pid !== undefined) {
      for (const pid of descendants(c.pid)) tryKill(pid, 'SIGKILL');
      tryKill(c.pid, 'SIGKILL');
    }
  }
});

function tryKill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone
  }
}

/** All descendants of `pid`, from /proc (children first found, deepest last). */
export function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(name), Number(rest[1]));
    } catch {
      // vanished
    }
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const p = queue.shift() as number;
    for (const [child, pp] of parent) {
      if (pp === p && !out.includes(child)) {
        out.push(child);
        queue.push(child);
      }
    }
  }
  return out;
}

export async function startSshd(options: SshdOptions): Promise<SshdInstance> {
  ensureSshTools();
  const dir = mkdtempSync(join(tmpdir(), 'gpumem-sshd-'));
  try {
    const hostKey = generateKey(dir, 'ssh_host_key', options.hostKeyType ?? 'ed25519', '', 'gpumem-test-host');
    writeFileSync(join(dir, 'authorized_keys'), options.authorizedKeys.map((l) => `${l}\n`).join(''), { mode: 0o600 });
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const config = [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${hostKey.privateKeyPath}`,
        `PidFile ${join(dir, 'sshd.pid')}`,
        `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
        'StrictModes no',
        'UsePAM no',
        'PubkeyAuthentication yes',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'PermitRootLogin prohibit-password',
        'AllowTcpForwarding yes',
        'X11Forwarding no',
        'PrintMotd no',
        'MaxStartups 100',
        `LogLevel ${options.logLevel ?? 'INFO'}`,
        ...(options.chrootDirectory ? [`ChrootDirectory ${options.chrootDirectory}`] : []),
        ...(options.extraConfig ?? []),
        '',
      ].join('\n');
      const configPath = join(dir, 'sshd_config');
      writeFileSync(configPath, config);
      const child = spawn(SSHD, ['-D', '-e', '-f', configPath], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
      live.add(child);
      let log = '';
      child.stderr?.setEncoding('utf8');
      const ready = await new Promise<'ready' | 'port-in-use' | string>((resolve) => {
        const watchdog = setTimeout(() => resolve(`sshd did not start within 15 s`), 15_000);
        child.stderr?.on('data', (chunk: string) => {
          log += chunk;
          if (/Server listening on 127\.0\.0\.1 port/.test(log)) {
            clearTimeout(watchdog);
            resolve('ready');
          } else if (/Address already in use/.test(log)) {
            clearTimeout(watchdog);
            resolve('port-in-use');
          }
        });
        child.once('exit', (code, signal) => {
          clearTimeout(watchdog);
          resolve(`sshd exited (${code ?? signal}) before listening`);
        });
        child.once('error', (err) => {
          clearTimeout(watchdog);
          resolve(`could not start ${SSHD}: ${err.message}`);
        });
      });
      if (ready !== 'ready') {
        await killSshd(child);
        if (ready === 'port-in-use' && attempt < 5) continue;
        throw new Error(`${ready}\n--- sshd log ---\n${log}`);
      }
      let stopped = false;
      const instance: SshdInstance = {
        host: '127.0.0.1',
        port,
        dir,
        hostKey,
        pid: child.pid as number,
        knownHostsLine: `[127.0.0.1]:${port} ${hostKey.type} ${hostKey.base64}`,
        log: () => log,
        stop: async () => {
          if (stopped) return;
          stopped = true;
          await killSshd(child);
          rmSync(dir, { recursive: true, force: true });
        },
      };
      return instance;
    }
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

async function killSshd(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) {
    live.delete(child);
    return;
  }
  const kids = descendants(pid);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  tryKill(pid, 'SIGTERM');
  for (const k of kids) tryKill(k, 'SIGKILL');
  const watchdog = new Promise<void>((resolve) => setTimeout(resolve, 5000).unref());
  await Promise.race([exited, watchdog]);
  if (child.exitCode === null && child.signalCode === null) tryKill(pid, 'SIGKILL');
  for (const k of descendants(pid)) tryKill(k, 'SIGKILL');
  live.delete(child);
}

export interface ChrootRoot {
  readonly root: string;
  cleanup(): void;
}

/**
 * A busybox root for ChrootDirectory: /bin/busybox (static), /bin/sh and every applet as symlinks, a shim
 * at the login shell's path when that is not an applet, and `files` (path relative to the root → content).
 */
export function makeChrootRoot(files: Readonly<Record<string, string>> = {}, loginShell = currentLoginShell()): ChrootRoot {
  ensureSshTools();
  const busybox = staticBusybox() as string;
  const root = mkdtempSync(join(fixtureBase(), 'gpumem-chroot-'));
  const cleanup = (): void => rmSync(root, { recursive: true, force: true });
  try {
    chmodSync(root, 0o755);
    mkdirSync(join(root, 'bin'), { mode: 0o755 });
    copyFileSync(busybox, join(root, 'bin/busybox'));
    chmodSync(join(root, 'bin/busybox'), 0o755);
    const applets = execFileSync(busybox, ['--list'], { encoding: 'utf8' })
      .split('\n')
      .filter((a) => /^[a-z0-9_.[-]+$/.test(a));
    for (const applet of applets) {
      const link = join(root, 'bin', applet);
      if (applet === 'busybox' || existsSync(link)) continue;
      symlinkSync('busybox', link);
    }
    addLoginShellShim(root, loginShell);
    for (const [rel, content] of Object.entries(files)) {
      const target = join(root, rel);
      mkdirSync(dirname(target), { recursive: true, mode: 0o755 });
      writeFileSync(target, content, { mode: 0o644 });
    }
    if (!pathIsChrootSafe(root)) throw new Error(`${root} is not acceptable to sshd as a ChrootDirectory`);
    return { root, cleanup };
  } catch (err) {
    cleanup();
    throw err;
  }
}

/** sshd runs commands through the user's login shell inside the chroot: a shim there that execs the root's /bin/sh. */
export function addLoginShellShim(root: string, loginShell = currentLoginShell()): void {
  if (!loginShell.startsWith('/') || existsLink(join(root, loginShell))) return;
  mkdirSync(join(root, dirname(loginShell)), { recursive: true, mode: 0o755 });
  writeFileSync(join(root, loginShell), '#!/bin/sh\nexec /bin/sh "$@"\n', { mode: 0o755 });
  chmodSync(join(root, loginShell), 0o755);
}

function existsLink(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** The current user's login shell from the passwd database (sshd runs commands through it). */
export function currentLoginShell(): string {
  try {
    return userInfo().shell ?? '/bin/sh';
  } catch {
    return '/bin/sh';
  }
}

/** A temp directory removed by the returned function. */
export function tempDir(prefix: string): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Process ids whose command line contains `marker` (pgrep -f), none when pgrep finds nothing. */
export function pgrep(marker: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', '--', marker], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map(Number)
      .filter((p) => p !== process.pid);
  } catch {
    return [];
  }
}

/** Polls until no process matches `marker`, up to a generous watchdog; returns what is left. */
export async function waitGone(marker: string, watchdogMs = 15_000): Promise<number[]> {
  const until = Date.now() + watchdogMs;
  let left = pgrep(marker);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    left = pgrep(marker);
  }
  return left;
}

/** Polls until at least `count` processes match `marker` (watchdog); returns them. */
export async function waitStarted(marker: string, count = 1, watchdogMs = 15_000): Promise<number[]> {
  const until = Date.now() + watchdogMs;
  let found = pgrep(marker);
  while (found.length < count && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 25));
    found = pgrep(marker);
  }
  return found;
}

/** Starts `ssh-agent -D` on a socket in `dir` and adds keys; stop() kills it. */
export async function startAgent(dir: string, keys: readonly string[]): Promise<{ socket: string; stop(): Promise<void> }> {
  const socket = join(dir, 'agent.sock');
  const child = spawn('ssh-agent', ['-D', '-a', socket], { stdio: ['ignore', 'ignore', 'ignore'], detached: true });
  live.add(child);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      tryKill(child.pid, 'SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000).unref())]);
    }
    live.delete(child);
  };
  const until = Date.now() + 10_000;
  while (!existsSync(socket) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  if (!existsSync(socket)) {
    await stop();
    throw new Error('ssh-agent did not create its socket');
  }
  for (const k of keys)
    execFileSync('ssh-add', ['-q', k], { env: { ...process.env, SSH_AUTH_SOCK: socket }, stdio: ['ignore', 'ignore', 'pipe'] });
  return { socket, stop };
}
