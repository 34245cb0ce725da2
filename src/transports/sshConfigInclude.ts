// Which lines of an ssh config apply to a host, as OpenSSH's readconf.c decides it: `Host` pattern lists
// (`*`, `?`, `!negation`, matched case-insensitively against the alias as typed; knownHosts.ts matches
// them), `Match all` only (any other Match block is skipped with a warning, because its criteria — exec,
// canonical, final… — cannot be evaluated safely here), and `Include` (relative paths under ~/.ssh),
// conditional on the enclosing Host block, with OpenSSH's depth limit of 16 and a cap on the files read; a
// Host line inside an included file does not leak into the including file. The files themselves come from
// the caller's `readInclude`. First value wins for every keyword, except the multi-valued ones
// (`IdentityFile`…) which accumulate.
import { pushAll } from '../core/arrays.ts';
import { trimEndOf } from '../core/textScan.ts';
import { matchHostPatternList } from './knownHosts.ts';
import { parseSshConfig } from './sshConfigParse.ts';
import type { ParsedSshConfig } from './sshConfigParse.ts';
import { errorMessage } from '../core/errorMessage.ts';

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

/** Where a config value was written: the file, its line, and the `Host`/`Match` block it sits in. */
export interface SshConfigOrigin {
  /** The file's path; for the top-level config, `ResolveOptions.configPath` (or "ssh config"). */
  readonly file: string;
  readonly line: number;
  /** `Host gpu-*`, `Match all`, or undefined before any Host line (it then applies to every host). */
  readonly block: string | undefined;
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
/**
 * Included text, all files together, past which includes are not followed. The file count alone let a 1 MB config
 * that includes itself be read 256 times, its warnings and IdentityFile lists kept each time: the heap ran out
 * (long fuzz run, seed 796215241). Real configs with all their includes are kilobytes.
 */
export const MAX_INCLUDED_CHARS = 8 * 1024 * 1024;

/**
 * The same options with `readInclude` answered once per path for one resolution: a file of thousands of identical
 * `Include` lines whose glob matches nothing (so the included-files budget never moves) read the directory once per
 * line, 37 s for 286 KB in the long fuzz run. Files do not change during one resolution, so the answer is the same.
 */
export function withIncludeCache<O extends ResolveOptions>(options: O): O {
  const read = options.readInclude;
  if (!read) return options;
  const answers = new Map<string, { readonly files: readonly SshIncludeFile[] } | { readonly error: unknown }>();
  const cached = (absolutePattern: string): readonly SshIncludeFile[] => {
    let answer = answers.get(absolutePattern);
    if (!answer) {
      try {
        answer = { files: read(absolutePattern) };
      } catch (error) {
        answer = { error };
      }
      answers.set(absolutePattern, answer);
    }
    if ('error' in answer) throw answer.error;
    return answer.files;
  };
  return { ...options, readInclude: cached };
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

/** The options collected for one host so far. */
export interface Collected {
  readonly values: Map<string, readonly string[]>;
  readonly origins: Map<string, SshConfigOrigin>;
  readonly multi: Map<string, string[]>;
  readonly warnings: string[];
  /** Included files read so far, against maxIncludedFiles. */
  includedFiles: number;
  /** Characters of the included files so far, against MAX_INCLUDED_CHARS. */
  includedChars: number;
  includeBudgetSpent: boolean;
  /** parseSshConfig, once per distinct text in one resolution (parseOnce). */
  readonly parse: (text: string) => ParsedSshConfig;
}

/**
 * parseSshConfig with each distinct text parsed once: a file included many times (a loop up to the budget of
 * 256 files, or one config.d file from several blocks) is walked again, not parsed again. Without it, a 256 KB
 * config that includes itself cost 2 s of parsing per resolution, synchronously in the extension host.
 */
export function parseOnce(): (text: string) => ParsedSshConfig {
  const parsed = new Map<string, ParsedSshConfig>();
  return (text) => {
    let result = parsed.get(text);
    if (!result) {
      result = parseSshConfig(text);
      parsed.set(text, result);
    }
    return result;
  };
}

/** Collects the options of the blocks of `text` that apply to `alias` into `into`, following includes. */
export function collect(
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
  const parsed = into.parse(text);
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
          if (active)
            into.warnings.push(
              `${source} line ${item.line}: "Match ${item.criteria.join(' ')}" is not evaluated; its options were skipped`,
            );
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
            if (!into.includeBudgetSpent)
              into.warnings.push(
                `${source} line ${item.line}: Include ${pattern} skipped: ${budget} included files were read already (an Include loop?); the rest of the includes were not followed`,
              );
            into.includeBudgetSpent = true;
            break;
          }
          let files: readonly SshIncludeFile[];
          try {
            files = options.readInclude(includePath(pattern, env));
          } catch (err) {
            into.warnings.push(`${source} line ${item.line}: Include ${pattern}: ${errorMessage(err)}`);
            continue;
          }
          for (const file of files) {
            const tooMuch =
              into.includedFiles >= budget
                ? `${budget} included files`
                : into.includedChars + file.text.length > MAX_INCLUDED_CHARS
                  ? `${MAX_INCLUDED_CHARS / (1024 * 1024)} MiB of included text`
                  : undefined;
            if (tooMuch !== undefined) {
              if (!into.includeBudgetSpent)
                into.warnings.push(`${source} line ${item.line}: Include ${pattern}: stopped after ${tooMuch} (an Include loop?)`);
              into.includeBudgetSpent = true;
              break;
            }
            into.includedFiles++;
            into.includedChars += file.text.length;
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
export function listSshHosts(configText: string, given: ResolveOptions & { readonly env?: SshEnv } = {}): SshHostEntry[] {
  const options = withIncludeCache(given);
  const out: SshHostEntry[] = [];
  const seen = new Set<string>();
  // The same total bound as resolveSshHost: depth alone lets a file that includes itself twice mean 2^16 reads.
  const budget = options.maxIncludedFiles ?? MAX_INCLUDED_FILES;
  let included = 0;
  let includedChars = 0;
  const parse = parseOnce();
  const walk = (text: string, source: string, depth: number): void => {
    for (const item of parse(text).items) {
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
            includedChars += f.text.length;
            if (includedChars > MAX_INCLUDED_CHARS) return;
            walk(f.text, f.path, depth + 1);
          }
        }
      }
    }
  };
  walk(configText, 'ssh config', 0);
  return out;
}
