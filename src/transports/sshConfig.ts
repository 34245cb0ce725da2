// ~/.ssh/config, read the way OpenSSH's readconf.c reads it, as pure functions over text: no file access
// here. `Include` is returned to the caller, who resolves its globs and hands the files back through
// `readInclude`.
//
// What is honoured:
// - `Keyword args` and `Keyword=args`, keywords case-insensitive, double- or single-quoted arguments, `#`
//   comments (a whole line, or an unquoted word starting with `#`);
// - `Host` pattern lists with `*`, `?` and `!negation`, matched case-insensitively against the alias as
//   typed;
// - `Match`: only `Match all` applies; any other Match block is skipped (its options are not applied) and a
//   warning names it, because its criteria (exec, canonical, final, host after canonicalisation…) cannot be
//   evaluated safely here;
// - first value wins for every keyword, except `IdentityFile` which accumulates;
// - `Include` (relative paths are under ~/.ssh), conditional on the enclosing Host block, with OpenSSH's
//   depth limit of 16; a Host line inside an included file does not leak into the including file;
// - tokens `%%`, `%d`, `%h`, `%i`, `%l`, `%L`, `%n`, `%p`, `%r`, `%u` and a leading `~` in `IdentityFile`,
//   `UserKnownHostsFile`, `GlobalKnownHostsFile` and `IdentityAgent`; `%h` and `%%` in `HostName`.
import { pushAll } from '../core/arrays.ts';
import { matchHostPatternList } from './knownHosts.ts';
import { trimEndOf, trimStartOf } from '../core/textScan.ts';

export interface SshEnv {
  /** The local user's home directory (for `~` and `%d`). */
  readonly home: string;
  /** The local user name (default `User`, `%u`). */
  readonly user: string;
  readonly uid?: number;
  /** The local host name (for `%l`; `%L` is its first label). */
  readonly localHostname?: string;
  /** SSH_AUTH_SOCK, the default agent. */
  readonly authSock?: string;
}

export type SshConfigItem =
  | { readonly type: 'host'; readonly line: number; readonly patterns: readonly string[] }
  | { readonly type: 'match'; readonly line: number; readonly criteria: readonly string[] }
  | { readonly type: 'include'; readonly line: number; readonly patterns: readonly string[] }
  | { readonly type: 'option'; readonly line: number; readonly keyword: string; readonly args: readonly string[] };

export interface ParsedSshConfig {
  readonly items: readonly SshConfigItem[];
  /** Every `Include` pattern as written, in order (resolve them with `includePath`). */
  readonly includes: readonly string[];
  readonly warnings: readonly string[];
}

export interface SshDestination {
  readonly user?: string;
  readonly host: string;
  readonly port?: number;
}

export type StrictHostKeyChecking = 'yes' | 'no' | 'ask' | 'accept-new';

/** Where a config value was written: the file, its line, and the `Host`/`Match` block it sits in. */
export interface SshConfigOrigin {
  /** The file's path; for the top-level config, `ResolveOptions.configPath` (or "ssh config"). */
  readonly file: string;
  readonly line: number;
  /** `Host gpu-*`, `Match all`, or undefined before any Host line (it then applies to every host). */
  readonly block: string | undefined;
}

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

export interface SshIncludeFile {
  readonly path: string;
  readonly text: string;
}

export interface ResolveOptions {
  /**
   * Reads the files an `Include` names. Gets an absolute path pattern (globs `*`, `?` possible) and returns
   * the matching files in lexical order, as OpenSSH's glob(3) does. Without it, Include lines are ignored
   * with a warning.
   */
  readonly readInclude?: (absolutePattern: string) => readonly SshIncludeFile[];
  /** Default 16, as OpenSSH's READCONF_MAX_DEPTH. */
  readonly maxIncludeDepth?: number;
  /**
   * Default 256: included files read in all, at any depth. The depth limit alone lets a file that includes
   * itself twice cause 2^16 reads; OpenSSH has no such cap, but no real config comes near it.
   */
  readonly maxIncludedFiles?: number;
  /** The top-level config's path, for the origins of its values. Default "ssh config". */
  readonly configPath?: string;
}

const MULTI_VALUE = new Set(['identityfile', 'certificatefile', 'localforward', 'remoteforward', 'dynamicforward', 'sendenv', 'setenv']);
const MAX_INCLUDE_DEPTH = 16;
const MAX_INCLUDED_FILES = 256;

/** Splits a config line into words as OpenSSH's argv_split does (quotes, backslash escapes, # comments). */
export function splitConfigWords(line: string): string[] | null {
  const words: string[] = [];
  let i = 0;
  const n = line.length;
  while (i < n) {
    while (i < n && (line[i] === ' ' || line[i] === '\t')) i++;
    if (i >= n) break;
    if (line[i] === '#') break; // an unquoted word starting with '#': the rest is a comment
    let word = '';
    let quote: string | null = null;
    while (i < n) {
      const c = line[i] as string;
      if (quote === null && (c === ' ' || c === '\t')) break;
      if (c === '\\' && i + 1 < n && (line[i + 1] === '"' || line[i + 1] === "'" || line[i + 1] === '\\' || (quote === null && line[i + 1] === ' '))) {
        word += line[i + 1];
        i += 2;
        continue;
      }
      if (quote === null && (c === '"' || c === "'")) {
        quote = c;
        i++;
        continue;
      }
      if (quote !== null && c === quote) {
        quote = null;
        i++;
        continue;
      }
      word += c;
      i++;
    }
    if (quote !== null) return null; // unterminated quote: OpenSSH rejects the line
    words.push(word);
  }
  return words;
}

/** Parses the text of one config file into ordered items. */
export function parseSshConfig(text: string): ParsedSshConfig {
  const items: SshConfigItem[] = [];
  const includes: string[] = [];
  const warnings: string[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const lineNo = index + 1;
    let line = trimEndOf(raw, ' \t\r');
    const lead = trimStartOf(line, ' \t');
    if (lead === '' || lead.startsWith('#')) return;
    // The keyword ends at whitespace or '=' (one '=' with optional blanks around it separates it from args).
    const m = /^[ \t]*([^ \t=]+)[ \t]*(?:=[ \t]*)?(.*)$/.exec(line);
    if (!m) return;
    const keyword = (m[1] as string).toLowerCase();
    line = m[2] as string;
    const args = splitConfigWords(line);
    if (args === null) {
      warnings.push(`line ${lineNo}: unterminated quote, line ignored`);
      return;
    }
    switch (keyword) {
      case 'host':
        if (args.length === 0) warnings.push(`line ${lineNo}: Host without patterns`);
        items.push({ type: 'host', line: lineNo, patterns: args });
        return;
      case 'match':
        items.push({ type: 'match', line: lineNo, criteria: args });
        return;
      case 'include':
        items.push({ type: 'include', line: lineNo, patterns: args });
        pushAll(includes, args);
        return;
      default:
        items.push({ type: 'option', line: lineNo, keyword, args });
    }
  });
  return { items, includes, warnings };
}

/** Host pattern list matching, as OpenSSH's match_hostname: a negated match vetoes; otherwise any positive match. */
export function hostMatches(alias: string, patterns: readonly string[]): boolean {
  return matchHostPatternList(alias, patterns);
}

/** Where an Include pattern points: `~/x` under home, relative paths under ~/.ssh. */
export function includePath(pattern: string, env: SshEnv): string {
  if (pattern === '~' || pattern.startsWith('~/')) return env.home + pattern.slice(1);
  if (pattern.startsWith('/')) return pattern;
  return `${trimEndOf(env.home, '/')}/.ssh/${pattern}`;
}

/**
 * Parses `[user@]host[:port]`, `ssh://[user@]host[:port]` and `[user@][v6addr]:port` (a ProxyJump element,
 * or a destination typed by the user). Returns null when malformed.
 */
export function parseSshDestination(text: string): SshDestination | null {
  let rest = text.trim();
  if (rest === '' || /[\s]/.test(rest)) return null;
  if (/^ssh:\/\//i.test(rest)) {
    rest = rest.slice(6);
    if (rest.endsWith('/')) rest = rest.slice(0, -1);
  }
  let user: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    user = rest.slice(0, at);
    rest = rest.slice(at + 1);
    if (user === '' || /[\x00-\x1f]/.test(user)) return null;
  }
  let host: string;
  let portText: string | undefined;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) return null;
    host = rest.slice(1, close);
    const after = rest.slice(close + 1);
    if (after !== '') {
      if (!after.startsWith(':')) return null;
      portText = after.slice(1);
    }
  } else {
    const colons = rest.split(':').length - 1;
    if (colons === 1) {
      host = rest.slice(0, rest.indexOf(':'));
      portText = rest.slice(rest.indexOf(':') + 1);
    } else {
      host = rest; // bare IPv6 address, or no port
    }
  }
  if (host === '' || host.startsWith('-') || /[\x00-\x1f/\\]/.test(host)) return null;
  let port: number | undefined;
  if (portText !== undefined) {
    if (!/^[0-9]{1,5}$/.test(portText)) return null;
    port = Number(portText);
    if (port < 1 || port > 65535) return null;
  }
  const dest: { user?: string; host: string; port?: number } = { host };
  if (user !== undefined) dest.user = user;
  if (port !== undefined) dest.port = port;
  return dest;
}

interface Collected {
  readonly values: Map<string, readonly string[]>;
  readonly origins: Map<string, SshConfigOrigin>;
  readonly multi: Map<string, string[]>;
  readonly warnings: string[];
  /** Included files read so far, against maxIncludedFiles. */
  includedFiles: number;
  includeBudgetSpent: boolean;
}

function collect(
  alias: string,
  text: string,
  env: SshEnv,
  options: ResolveOptions,
  into: Collected,
  depth: number,
  source: string,
  active: boolean,
  includerBlock: string | undefined,
): void {
  const parsed = parseSshConfig(text);
  for (const w of parsed.warnings) into.warnings.push(`${source}: ${w}`);
  const file = depth === 0 ? (options.configPath ?? source) : source;
  // Each file starts active (if its includer was) and in its includer's block; Host/Match lines then switch it.
  let on = active;
  let block = includerBlock;
  for (const item of parsed.items) {
    switch (item.type) {
      case 'host':
        on = active && hostMatches(alias, item.patterns);
        block = `Host ${item.patterns.join(' ')}`;
        break;
      case 'match': {
        const first = item.criteria[0]?.toLowerCase();
        block = `Match ${item.criteria.join(' ')}`;
        if (item.criteria.length === 1 && first === 'all') {
          on = active;
        } else {
          if (active) into.warnings.push(`${source} line ${item.line}: "Match ${item.criteria.join(' ')}" is not evaluated; its options were skipped`);
          on = false;
        }
        break;
      }
      case 'include': {
        if (!on) break;
        if (depth + 1 > (options.maxIncludeDepth ?? MAX_INCLUDE_DEPTH)) {
          into.warnings.push(`${source} line ${item.line}: Include nested too deeply, skipped`);
          break;
        }
        if (!options.readInclude) {
          into.warnings.push(`${source} line ${item.line}: Include not followed`);
          break;
        }
        for (const pattern of item.patterns) {
          const budget = options.maxIncludedFiles ?? MAX_INCLUDED_FILES;
          if (into.includedFiles >= budget) {
            if (!into.includeBudgetSpent) into.warnings.push(`${source} line ${item.line}: Include ${pattern} skipped: ${budget} included files were read already (an Include loop?); the rest of the includes were not followed`);
            into.includeBudgetSpent = true;
            break;
          }
          let files: readonly SshIncludeFile[];
          try {
            files = options.readInclude(includePath(pattern, env));
          } catch (err) {
            into.warnings.push(`${source} line ${item.line}: Include ${pattern}: ${err instanceof Error ? err.message : String(err)}`);
            continue;
          }
          for (const file of files) {
            if (into.includedFiles >= budget) {
              if (!into.includeBudgetSpent) into.warnings.push(`${source} line ${item.line}: Include ${pattern}: stopped after ${budget} included files (an Include loop?)`);
              into.includeBudgetSpent = true;
              break;
            }
            into.includedFiles++;
            collect(alias, file.text, env, options, into, depth + 1, file.path, on, block);
          }
        }
        break;
      }
      case 'option': {
        if (!on) break;
        if (MULTI_VALUE.has(item.keyword)) {
          const list = into.multi.get(item.keyword) ?? [];
          pushAll(list, item.args);
          into.multi.set(item.keyword, list);
        } else if (!into.values.has(item.keyword)) {
          into.values.set(item.keyword, item.args);
          into.origins.set(item.keyword, { file, line: item.line, block });
        }
        break;
      }
    }
  }
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
      case '%': return '%';
      case 'd': return ctx.env.home;
      case 'h': return ctx.hostName;
      case 'i': return ctx.env.uid === undefined ? whole : String(ctx.env.uid);
      case 'l': return local;
      case 'L': return local.split('.')[0] ?? '';
      case 'n': return ctx.alias;
      case 'k': return ctx.hostName;
      case 'p': return String(ctx.port);
      case 'r': return ctx.user;
      case 'u': return ctx.env.user;
      case 'j': return ctx.jump;
      default: return whole;
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
  const into: Collected = { values: new Map(), origins: new Map(), multi: new Map(), warnings: [], includedFiles: 0, includeBudgetSpent: false };
  collect(alias, configText, env, options, into, 0, 'ssh config', true, undefined);
  const warnings = into.warnings;
  const first = (k: string): string | undefined => into.values.get(k)?.[0];

  const rawHostName = first('hostname');
  const hostName = rawHostName === undefined
    ? alias
    : rawHostName.replace(/%([%h])/g, (_w, t: string) => (t === '%' ? '%' : alias));
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
    ? configured.filter((f) => f.toLowerCase() !== 'none').map((f) => {
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

export interface SshHostEntry {
  readonly alias: string;
  /** The file it was found in ('ssh config' for the main text, else the include's path) and its line. */
  readonly source: string;
  readonly line: number;
}

/**
 * The concrete Host names of a config (no wildcard or negated patterns), for an "SSH Hosts" view; first
 * occurrence wins; includes are followed when `readInclude` is given.
 */
export function listSshHosts(configText: string, options: ResolveOptions & { readonly env?: SshEnv } = {}): SshHostEntry[] {
  const out: SshHostEntry[] = [];
  const seen = new Set<string>();
  // The same total bound as resolveSshHost: depth alone lets a file that includes itself twice mean 2^16 reads.
  const budget = options.maxIncludedFiles ?? MAX_INCLUDED_FILES;
  let included = 0;
  const walk = (text: string, source: string, depth: number): void => {
    for (const item of parseSshConfig(text).items) {
      if (item.type === 'host') {
        for (const p of item.patterns) {
          if (p === '' || /[*?!]/.test(p)) continue;
          const key = p.toLowerCase();
          if (seen.has(key)) continue;
          seen.add(key);
          out.push({ alias: p, source, line: item.line });
        }
      } else if (item.type === 'include' && options.readInclude && options.env && depth < (options.maxIncludeDepth ?? MAX_INCLUDE_DEPTH)) {
        for (const pattern of item.patterns) {
          if (included >= budget) return;
          let files: readonly SshIncludeFile[] = [];
          try {
            files = options.readInclude(includePath(pattern, options.env));
          } catch {
            continue;
          }
          for (const f of files) {
            if (included++ >= budget) return;
            walk(f.text, f.path, depth + 1);
          }
        }
      }
    }
  };
  walk(configText, 'ssh config', 0);
  return out;
}
