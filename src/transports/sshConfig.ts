// ~/.ssh/config, resolved for one host the way `ssh -G <alias>` computes it, as pure functions over text: no
// file access here. The text is split by sshConfigParse.ts; the blocks and Include files that apply are
// sshConfigInclude.ts's (the caller resolves Include globs and hands the files back through `readInclude`).
//
// Resolved here: first value wins for every keyword, except `IdentityFile` which accumulates; tokens `%%`,
// `%d`, `%h`, `%i`, `%l`, `%L`, `%n`, `%p`, `%r`, `%u` and a leading `~` in `IdentityFile`,
// `UserKnownHostsFile`, `GlobalKnownHostsFile` and `IdentityAgent`; `%h` and `%%` in `HostName`.
import { trimEndOf } from '../core/textScan.ts';
import { collect, parseOnce, withIncludeCache } from './sshConfigInclude.ts';
import type { Collected, ResolveOptions, SshConfigOrigin, SshEnv } from './sshConfigInclude.ts';
import { parseSshDestination } from './sshConfigParse.ts';
import type { SshDestination } from './sshConfigParse.ts';

// The names this module offered before the parser and the Include walk were split out of it.
export { includePath, hostMatches, listSshHosts } from './sshConfigInclude.ts';
export type { ResolveOptions, SshConfigOrigin, SshEnv, SshHostEntry, SshIncludeFile } from './sshConfigInclude.ts';
export { parseSshConfig, parseSshDestination, splitConfigWords } from './sshConfigParse.ts';
export type { ParsedSshConfig, SshConfigItem, SshDestination } from './sshConfigParse.ts';

export type StrictHostKeyChecking = 'yes' | 'no' | 'ask' | 'accept-new';

export interface SshHostSettings {
  /** The name as typed (what Host patterns matched). */
  readonly alias: string;
  /** Where to connect (`HostName`, or the alias). */
  readonly hostName: string;
  readonly user: string;
  readonly port: number;
  /** Expanded paths, in order. OpenSSH's defaults when the config names none (`identityFilesConfigured`). */
  readonly identityFiles: readonly string[];
  readonly identityFilesConfigured: boolean;
  readonly identitiesOnly: boolean;
  /** The agent socket: `IdentityAgent`, else SSH_AUTH_SOCK; undefined for none. */
  readonly identityAgent: string | undefined;
  /** Jump hosts in connection order (first is dialled first); empty for none. */
  readonly proxyJump: readonly SshDestination[];
  readonly strictHostKeyChecking: StrictHostKeyChecking;
  /** Where StrictHostKeyChecking was set; undefined when the config leaves it at OpenSSH's default (ask). */
  readonly strictHostKeyCheckingOrigin: SshConfigOrigin | undefined;
  readonly userKnownHostsFiles: readonly string[];
  readonly globalKnownHostsFiles: readonly string[];
  readonly hashKnownHosts: boolean;
  /** `ConnectTimeout`, seconds. */
  readonly connectTimeout: number | undefined;
  /** `ServerAliveInterval`, seconds (0 = off). */
  readonly serverAliveInterval: number | undefined;
  readonly serverAliveCountMax: number | undefined;
  readonly warnings: readonly string[];
}

interface TokenContext {
  readonly env: SshEnv;
  readonly alias: string;
  readonly hostName: string;
  readonly port: number;
  readonly user: string;
  readonly jump: string;
}

/** Expands `%` tokens and a leading `~`; unknown tokens are left as written and reported. */
export function expandTokens(value: string, ctx: TokenContext, warnings: string[], allowed = 'dhilLnprujk%'): string {
  let out = value;
  if (out === '~' || out.startsWith('~/')) out = ctx.env.home + out.slice(1);
  const local = ctx.env.localHostname ?? '';
  return out.replace(/%(.)/g, (whole, t: string) => {
    if (!allowed.includes(t)) {
      warnings.push(`token ${whole} in "${value}" is not supported, left as is`);
      return whole;
    }
    switch (t) {
      case '%':
        return '%';
      case 'd':
        return ctx.env.home;
      case 'h':
        return ctx.hostName;
      case 'i':
        return ctx.env.uid === undefined ? whole : String(ctx.env.uid);
      case 'l':
        return local;
      case 'L':
        return local.split('.')[0] ?? '';
      case 'n':
        return ctx.alias;
      case 'k':
        return ctx.hostName;
      case 'p':
        return String(ctx.port);
      case 'r':
        return ctx.user;
      case 'u':
        return ctx.env.user;
      case 'j':
        return ctx.jump;
      default:
        return whole;
    }
  });
}

const DEFAULT_IDENTITY_FILES = ['id_rsa', 'id_ecdsa', 'id_ecdsa_sk', 'id_ed25519', 'id_ed25519_sk', 'id_xmss', 'id_dsa'];

function yesNo(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  const l = v.toLowerCase();
  if (l === 'yes' || l === 'true') return true;
  if (l === 'no' || l === 'false') return false;
  return undefined;
}

function nonNegativeInt(v: string | undefined): number | undefined {
  if (v === undefined || !/^[0-9]{1,9}$/.test(v)) return undefined;
  return Number(v);
}

/**
 * The effective settings for `alias` (a Host name as typed, without user or port), as `ssh -G alias` would
 * compute them for the keywords gpumem uses.
 */
export function resolveSshHost(alias: string, configText: string, env: SshEnv, options: ResolveOptions = {}): SshHostSettings {
  const into: Collected = {
    values: new Map(),
    origins: new Map(),
    multi: new Map(),
    warnings: [],
    includedFiles: 0,
    includedChars: 0,
    includeBudgetSpent: false,
    parse: parseOnce(),
  };
  collect(alias, configText, env, withIncludeCache(options), into, 0, 'ssh config', true, undefined);
  const warnings = into.warnings;
  const first = (k: string): string | undefined => into.values.get(k)?.[0];

  const rawHostName = first('hostname');
  const hostName = rawHostName === undefined ? alias : rawHostName.replace(/%([%h])/g, (_w, t: string) => (t === '%' ? '%' : alias));
  let port = 22;
  const portText = first('port');
  if (portText !== undefined) {
    const p = nonNegativeInt(portText);
    if (p !== undefined && p >= 1 && p <= 65535) port = p;
    else warnings.push(`Port "${portText}" is not a valid port; using 22`);
  }
  const user = first('user') ?? env.user;

  let proxyJump: SshDestination[] = [];
  const jumpText = first('proxyjump');
  if (jumpText !== undefined && jumpText.toLowerCase() !== 'none') {
    for (const part of jumpText.split(',')) {
      const dest = parseSshDestination(part);
      if (dest) proxyJump.push(dest);
      else {
        warnings.push(`ProxyJump element "${part}" is malformed; ProxyJump ignored`);
        proxyJump = [];
        break;
      }
    }
  }
  if (first('proxycommand') !== undefined && first('proxycommand')?.toLowerCase() !== 'none') {
    warnings.push('ProxyCommand is not supported (gpumem runs no local commands for SSH); use ProxyJump');
  }

  const ctx: TokenContext = { env, alias, hostName, port, user, jump: jumpText ?? '' };
  const configured = into.multi.get('identityfile') ?? [];
  const identityFilesConfigured = configured.length > 0;
  const identityFiles = identityFilesConfigured
    ? configured
        .filter((f) => f.toLowerCase() !== 'none')
        .map((f) => {
          const expanded = expandTokens(f, ctx, warnings);
          return expanded.startsWith('/') ? expanded : `${trimEndOf(env.home, '/')}/${expanded}`;
        })
    : DEFAULT_IDENTITY_FILES.map((f) => `${trimEndOf(env.home, '/')}/.ssh/${f}`);

  const shkc = (first('stricthostkeychecking') ?? 'ask').toLowerCase();
  let strictHostKeyChecking: StrictHostKeyChecking = 'ask';
  if (shkc === 'yes' || shkc === 'true') strictHostKeyChecking = 'yes';
  else if (shkc === 'no' || shkc === 'off' || shkc === 'false') strictHostKeyChecking = 'no';
  else if (shkc === 'accept-new') strictHostKeyChecking = 'accept-new';
  else if (shkc !== 'ask') warnings.push(`StrictHostKeyChecking "${shkc}" is unknown; using ask`);

  const fileList = (key: string, defaults: string[]): string[] => {
    const args = into.values.get(key);
    if (!args || args.length === 0) return defaults;
    if (args.length === 1 && args[0]?.toLowerCase() === 'none') return [];
    return args.map((f) => expandTokens(f, ctx, warnings));
  };
  const home = trimEndOf(env.home, '/');
  const userKnownHostsFiles = fileList('userknownhostsfile', [`${home}/.ssh/known_hosts`, `${home}/.ssh/known_hosts2`]);
  const globalKnownHostsFiles = fileList('globalknownhostsfile', ['/etc/ssh/ssh_known_hosts', '/etc/ssh/ssh_known_hosts2']);

  let identityAgent: string | undefined = env.authSock;
  const agentText = first('identityagent');
  if (agentText !== undefined) {
    if (agentText.toLowerCase() === 'none') identityAgent = undefined;
    else if (agentText === 'SSH_AUTH_SOCK') identityAgent = env.authSock;
    else if (agentText.startsWith('$')) {
      identityAgent = undefined;
      warnings.push(`IdentityAgent ${agentText}: environment variables other than SSH_AUTH_SOCK are not read`);
    } else identityAgent = expandTokens(agentText, ctx, warnings);
  }

  return {
    alias,
    hostName,
    user,
    port,
    identityFiles,
    identityFilesConfigured,
    identitiesOnly: yesNo(first('identitiesonly')) ?? false,
    identityAgent,
    proxyJump,
    strictHostKeyChecking,
    strictHostKeyCheckingOrigin: into.origins.get('stricthostkeychecking'),
    userKnownHostsFiles,
    globalKnownHostsFiles,
    hashKnownHosts: yesNo(first('hashknownhosts')) ?? false,
    connectTimeout: nonNegativeInt(first('connecttimeout')),
    serverAliveInterval: nonNegativeInt(first('serveraliveinterval')),
    serverAliveCountMax: nonNegativeInt(first('serveralivecountmax')),
    warnings,
  };
}
