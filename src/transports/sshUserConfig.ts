// Reads the user's OpenSSH configuration from disk (~/.ssh/config and its Include files) and turns a destination
// into SSH transport options; the parsing itself is pure and lives in sshConfig.ts, this is the I/O around it.
import { readdirSync } from 'node:fs';
import { homedir, hostname, userInfo } from 'node:os';
import type { SshHop, SshTransportOptions } from './sshOptions.ts';
import { parseSshDestination, resolveSshHost } from './sshConfig.ts';
import type { ResolveOptions, SshConfigOrigin, SshDestination, SshEnv, SshIncludeFile } from './sshConfig.ts';
import { trimEndOf } from '../core/textScan.ts';
import { wildcardMatch } from './knownHosts.ts';
import { asText, readBoundedSync } from '../files/boundedRead.ts';
import { ExplainedError } from '../core/failureReport.ts';

/** The local user's environment for config resolution. */
export function defaultSshEnv(env: NodeJS.ProcessEnv = process.env): SshEnv {
  let user = env.USER ?? env.LOGNAME ?? '';
  let uid: number | undefined;
  try {
    const info = userInfo();
    user ||= info.username;
    uid = info.uid;
  } catch {
    // no passwd entry
  }
  const out: { -readonly [K in keyof SshEnv]: SshEnv[K] } = { home: env.HOME || homedir(), user, localHostname: hostname() };
  if (uid !== undefined && uid >= 0) out.uid = uid;
  if (env.SSH_AUTH_SOCK) out.authSock = env.SSH_AUTH_SOCK;
  return out;
}

/** Reads the files an Include pattern names, with `*` and `?` in any path component, in lexical order. */
export function readIncludeFromDisk(absolutePattern: string): SshIncludeFile[] {
  const parts = absolutePattern.split('/').filter((p) => p !== '');
  let paths = [''];
  for (const part of parts) {
    const next: string[] = [];
    for (const base of paths) {
      if (!/[*?]/.test(part)) {
        next.push(`${base}/${part}`);
        continue;
      }
      let names: string[] = [];
      try {
        names = readdirSync(base === '' ? '/' : base).sort();
      } catch {
        continue;
      }
      // wildcardMatch, not a RegExp of the pattern: `*a*a*a…b` as `.*a.*a.*…b$` backtracks exponentially on a name.
      for (const n of names) if (wildcardMatch(n, part) && (!n.startsWith('.') || part.startsWith('.'))) next.push(`${base}/${n}`);
    }
    paths = next;
  }
  const out: SshIncludeFile[] = [];
  for (const path of paths) {
    const read = asText(readBoundedSync(path, { kind: 'ssh-config' }));
    // Missing files are ignored, as glob(3) would not list them; a FIFO, a device or a file past the limit is
    // named in the resolution's warnings (the caller catches this), not read.
    if (read.kind === 'read') out.push({ path, text: read.text });
    else if (read.kind === 'too-large' || read.cause !== 'missing') throw new ExplainedError(`${path} not read: ${read.reason}`, 'file');
  }
  return out;
}

/** ~/.ssh/config's text ('' when missing) and a reader for its Include lines. */
export function readUserSshConfig(env: SshEnv): { text: string; path: string; resolve: ResolveOptions } {
  const path = `${trimEndOf(env.home, '/')}/.ssh/config`;
  // A missing, unreadable or oversized config is no config: the CLI and the SSH Hosts view then use the
  // destination as typed, as OpenSSH does with -F /dev/null.
  const read = asText(readBoundedSync(path, { kind: 'ssh-config' }));
  const text = read.kind === 'read' ? read.text : '';
  return { text, path, resolve: { readInclude: readIncludeFromDisk } };
}

export type SshConnectionSettings = Omit<SshTransportOptions, 'confirmUnknownHost' | 'onUnknownKeyAccepted' | 'passphrase' | 'log'>;

/**
 * Turns a destination (`alias`, `[user@]host[:port]`) into transport options via the ssh config: HostName,
 * User, Port, IdentityFile (after `extraIdentityFiles`, e.g. the CLI's `-i`, as OpenSSH puts -i first),
 * ProxyJump (each jump host itself resolved through the config, recursively), known_hosts settings,
 * ConnectTimeout and ServerAlive*.
 */
export function sshSettingsFromConfig(
  destination: string,
  configText: string,
  env: SshEnv,
  resolve: ResolveOptions = {},
  extraIdentityFiles: readonly string[] = [],
): { settings: SshConnectionSettings; warnings: string[]; hostKeyOrigin: SshConfigOrigin | undefined } {
  const dest = parseSshDestination(destination);
  if (!dest) throw new ExplainedError(`"${destination}" is not a valid SSH destination ([user@]host[:port])`);
  const warnings: string[] = [];
  const hopFor = (d: SshDestination, extra: readonly string[]): { hop: SshHop; jumps: SshDestination[] } => {
    const s = resolveSshHost(d.host, configText, env, resolve);
    for (const w of s.warnings) if (!warnings.includes(w)) warnings.push(w);
    const identityFiles = extra.length > 0 ? [...extra, ...(s.identityFilesConfigured ? s.identityFiles : [])] : s.identityFiles;
    const hop: SshHop = {
      host: s.hostName,
      port: d.port ?? s.port,
      user: d.user ?? s.user,
      identityFiles,
      agent: s.identityAgent,
      identitiesOnly: s.identitiesOnly,
    };
    return { hop, jumps: [...s.proxyJump] };
  };
  const targetResolved = hopFor(dest, extraIdentityFiles);
  const jumps: SshHop[] = [];
  const expand = (list: readonly SshDestination[], depth: number, seen: Set<string>): void => {
    for (const d of list) {
      const key = `${d.user ?? ''}@${d.host}:${d.port ?? ''}`;
      if (depth > 8 || seen.has(key)) {
        warnings.push(`ProxyJump loop or chain too deep at ${d.host}; stopped there`);
        continue;
      }
      const r = hopFor(d, []);
      expand(r.jumps, depth + 1, new Set([...seen, key]));
      jumps.push(r.hop);
    }
  };
  expand(targetResolved.jumps, 0, new Set());
  const s = resolveSshHost(dest.host, configText, env, resolve);
  const settings: { -readonly [K in keyof SshConnectionSettings]: SshConnectionSettings[K] } = {
    target: targetResolved.hop,
    jumps,
    knownHostsFiles: s.userKnownHostsFiles,
    globalKnownHostsFiles: s.globalKnownHostsFiles,
    strictHostKeyChecking: s.strictHostKeyChecking,
    hashKnownHosts: s.hashKnownHosts,
  };
  if (s.connectTimeout !== undefined && s.connectTimeout > 0) settings.connectTimeoutMs = s.connectTimeout * 1000;
  if (s.serverAliveInterval !== undefined) settings.keepaliveIntervalMs = s.serverAliveInterval * 1000;
  if (s.serverAliveCountMax !== undefined) settings.keepaliveCountMax = s.serverAliveCountMax;
  return { settings, warnings, hostKeyOrigin: s.strictHostKeyCheckingOrigin };
}
