// ~/.ssh/config text, split the way OpenSSH's readconf.c reads it, as pure functions: no file access, no
// host matching (sshConfigInclude.ts walks the blocks, sshConfig.ts resolves the options).
// - `Keyword args` and `Keyword=args`, keywords case-insensitive, double- or single-quoted arguments, `#`
//   comments (a whole line, or an unquoted word starting with `#`);
// - `Host`, `Match` and `Include` lines become their own items, in order;
// - `[user@]host[:port]` destinations (ProxyJump elements, or typed by the user).
import { pushAll } from '../core/arrays.ts';
import { trimEndOf, trimStartOf } from '../core/textScan.ts';

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

const SPACE = 0x20;
const TAB = 0x09;
const BACKSLASH = 0x5c;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const HASH = 0x23;

/**
 * Splits a config line into words as OpenSSH's argv_split does (quotes, backslash escapes, # comments). Runs of
 * ordinary characters are copied as slices, not one by one: a tenant's 4 MiB line is one pass.
 */
export function splitConfigWords(line: string): string[] | null {
  const words: string[] = [];
  let i = 0;
  const n = line.length;
  while (i < n) {
    while (i < n && (line.charCodeAt(i) === SPACE || line.charCodeAt(i) === TAB)) i++;
    if (i >= n) break;
    if (line.charCodeAt(i) === HASH) break; // an unquoted word starting with '#': the rest is a comment
    let word = '';
    let quote: number | null = null;
    let start = i; // the ordinary characters since `start` are not in `word` yet
    while (i < n) {
      const c = line.charCodeAt(i);
      if (c !== SPACE && c !== TAB && c !== BACKSLASH && c !== DOUBLE_QUOTE && c !== SINGLE_QUOTE) {
        i++;
        continue;
      }
      if (quote === null && (c === SPACE || c === TAB)) break;
      if (c === BACKSLASH) {
        const next = i + 1 < n ? line.charCodeAt(i + 1) : -1;
        if (next === DOUBLE_QUOTE || next === SINGLE_QUOTE || next === BACKSLASH || (quote === null && next === SPACE)) {
          word += line.slice(start, i) + line[i + 1];
          i += 2;
          start = i;
          continue;
        }
        i++; // a backslash before anything else is itself
        continue;
      }
      if (c === DOUBLE_QUOTE || c === SINGLE_QUOTE) {
        if (quote === null || c === quote) {
          // An opening or the closing quote: not part of the word.
          word += line.slice(start, i);
          quote = quote === null ? c : null;
          i++;
          start = i;
          continue;
        }
      }
      i++; // a blank or the other quote inside quotes
    }
    if (quote !== null) return null; // unterminated quote: OpenSSH rejects the line
    words.push(word + line.slice(start, i));
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
    const lead = trimStartOf(line, ' \t\r');
    if (lead === '' || lead.startsWith('#')) return;
    // The keyword ends at whitespace or '=' (one '=' with optional blanks around it separates it from args), as
    // readconf.c's strdelim splits it: its whitespace is " \t\r\n", so a CR inside the line ends the keyword too;
    // the arguments are then split on blanks only (argv_split). The rest is [\s\S]*, which cannot fail: `.*` stops at a
    // CR, and the blanks before it were given back one at a time (a 37 KB line of them took 2.5 s).
    const m = /^[ \t\r]*([^ \t\r=]+)[ \t\r]*(?:=[ \t\r]*)?([\s\S]*)$/.exec(line);
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
