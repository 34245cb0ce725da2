// Removes credentials from text that is about to leave the machine (the HAMi issue bundle): HAMi's bug
// template asks to "Remove credentials, tokens, registry secrets, private image names, and other sensitive
// information before posting" (https://github.com/Project-HAMi/HAMi/blob/master/.github/ISSUE_TEMPLATE/bug-report.md).
// What is replaced by REDACTED:
// - PEM blocks (`-----BEGIN …-----` to `-----END …-----`), whole lines;
// - the value after a secret-looking key: `password=…`, `token: …`, `"client_secret": "…"`, `--token …`;
// - the credential after `Bearer ` (and after `Basic ` on an Authorization line);
// - the password of a URL's userinfo (`https://user:PASSWORD@host`);
// - words shaped like a credential whatever their key: JWTs and other base64 JSON (`eyJ…`, which covers a
//   base64 dockerconfigjson, `eyJhdXRocyI6…` = `{"auths":`), AWS access key ids (`AKIA`/`ASIA` + 16),
//   GCP API keys (`AIza` + 35) and OAuth tokens (`ya29.`), GitHub tokens (`ghp_`, `github_pat_`, …).
// It over-redacts rather than under-redacts. One pass per line, each character looked at a bounded number of
// times (no regular expression scans the text): linear in the input, whatever it holds.

export const REDACTED = '<redacted>';

export interface Redaction {
  readonly text: string;
  /** How many values were replaced. */
  readonly count: number;
}

// Secret when the key, lowercased with `-` and `.` as `_`, contains one of these...
const SECRET_KEY_PARTS = [
  'password',
  'passwd',
  'secret',
  'token',
  'apikey',
  'api_key',
  'private_key',
  'credential',
  'dockercfg',
  'dockerconfig',
];
// ...or is one of these, or ends with `_` and one of these.
const SECRET_KEY_NAMES = ['pwd', 'pass', 'auth', 'authorization', 'access_key', 'secret_key', 'session_key', 'signature', 'cookie'];

/** Whether a key or an environment variable's name looks like it holds a secret. */
export function isSecretName(name: string): boolean {
  let key = '';
  for (let i = 0; i < name.length && key.length < 256; i++) {
    const c = name[i] as string;
    key += c === '-' || c === '.' ? '_' : c.toLowerCase();
  }
  while (key.startsWith('_')) key = key.slice(1);
  if (SECRET_KEY_PARTS.some((part) => key.includes(part))) return true;
  return SECRET_KEY_NAMES.some((exact) => key === exact || key.endsWith(`_${exact}`));
}

function isWordChar(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) || // 0-9
    (code >= 0x41 && code <= 0x5a) || // A-Z
    (code >= 0x61 && code <= 0x7a) || // a-z
    code === 0x5f || // _
    code === 0x2d || // -
    code === 0x2e || // .
    code === 0x2b || // +
    code === 0x2f || // /
    code === 0x7e // ~
  );
}

function isUpperOrDigit(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a);
}

function isTokenChar(code: number): boolean {
  return isUpperOrDigit(code) || (code >= 0x61 && code <= 0x7a) || code === 0x5f || code === 0x2d;
}

function allOf(word: string, from: number, test: (code: number) => boolean): boolean {
  for (let i = from; i < word.length; i++) if (!test(word.charCodeAt(i))) return false;
  return true;
}

const AWS_KEY_PREFIXES = ['AKIA', 'ASIA', 'AGPA', 'AIDA', 'AROA', 'AIPA', 'ANPA', 'ANVA', 'ABIA', 'ACCA'];
const GITHUB_PREFIXES = ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'];

/** A word that is a credential by its shape alone. */
export function isCredentialShape(word: string): boolean {
  // base64 of a JSON object: JWTs (header.payload.signature) and base64 docker configs ({"auths": …).
  if (word.startsWith('eyJ') && word.length >= 16) return true;
  if (word.length === 20 && AWS_KEY_PREFIXES.some((p) => word.startsWith(p)) && allOf(word, 4, isUpperOrDigit)) return true;
  if (word.length === 39 && word.startsWith('AIza') && allOf(word, 4, isTokenChar)) return true;
  if (word.startsWith('ya29.') && word.length >= 20) return true;
  const github = GITHUB_PREFIXES.find((p) => word.startsWith(p));
  return github !== undefined && word.length >= github.length + 20 && allOf(word, github.length, isTokenChar);
}

function lowerAscii(text: string): string {
  return text.toLowerCase();
}

/** The end of a value that starts at `from` on `line`: a quoted string to its closing quote, else up to a delimiter. */
function valueEnd(line: string, from: number): { start: number; end: number; resume: number } {
  const quote = line[from];
  if (quote === '"' || quote === "'") {
    let i = from + 1;
    while (i < line.length && line[i] !== quote) i += line[i] === '\\' ? 2 : 1;
    const end = Math.min(i, line.length);
    return { start: from + 1, end, resume: Math.min(end + 1, line.length) };
  }
  let i = from;
  while (i < line.length) {
    const c = line[i] as string;
    if (c === ' ' || c === '\t' || c === ',' || c === ';' || c === '&' || c === '"' || c === "'" || c === '}' || c === ')' || c === ']')
      break;
    i++;
  }
  return { start: from, end: i, resume: i };
}

/** A header value inside a line: up to a quote (the header was quoted in a command line) or the line's end. */
function headerValue(line: string, from: number): { start: number; end: number; resume: number } {
  let i = from;
  while (i < line.length && line[i] !== '"' && line[i] !== "'") i++;
  return { start: from, end: i, resume: i };
}

function skipSpaces(line: string, from: number): number {
  let i = from;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  return i;
}

const AUTHORITY_END = ' \t/?#"\'<>';

/** Redacts the password of every `scheme://user:password@host` on one line. */
function redactUserinfo(line: string): Redaction {
  let out = '';
  let count = 0;
  let copied = 0;
  let search = 0;
  for (;;) {
    const scheme = line.indexOf('://', search);
    if (scheme < 0) break;
    // The authority, scanned once: its last `@` and the first `:` of the userinfo before it.
    let end = scheme + 3;
    let at = -1;
    let colon = -1;
    while (end < line.length && !AUTHORITY_END.includes(line[end] as string)) {
      if (line[end] === '@') at = end;
      else if (line[end] === ':' && at < 0 && colon < 0) colon = end;
      end++;
    }
    if (colon >= 0 && colon < at && !(at - colon - 1 === REDACTED.length && line.startsWith(REDACTED, colon + 1))) {
      out += `${line.slice(copied, colon + 1)}${REDACTED}`;
      copied = at;
      count++;
    }
    // From the authority's last character: a `://` can begin there (`https://u:p@https://u:p@host`, where the first
    // authority ends in `https:`), and skipping it left the second password for a second pass to find.
    search = Math.max(end - 1, scheme + 1);
  }
  return { text: count === 0 ? line : out + line.slice(copied), count };
}

/** Redacts one line (no PEM handling: that is line-based, in redactSecrets). */
export function redactLine(line: string): Redaction {
  const userinfo = redactUserinfo(line);
  const text = userinfo.text;
  let count = userinfo.count;
  const authorizationLine = lowerAscii(text).includes('authorization');
  let out = '';
  let copied = 0;
  const replace = (start: number, end: number): void => {
    // Nothing to hide, or already hidden (so redacting a redacted text changes nothing).
    if (end <= start || (end - start === REDACTED.length && text.startsWith(REDACTED, start))) return;
    out += text.slice(copied, start) + REDACTED;
    copied = end;
    count++;
  };
  let i = 0;
  while (i < text.length) {
    if (!isWordChar(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < text.length && isWordChar(text.charCodeAt(i))) i++;
    const word = text.slice(start, i);
    if (isCredentialShape(word)) {
      replace(start, i);
      continue;
    }
    const lower = lowerAscii(word);
    if (lower === 'bearer' || (lower === 'basic' && authorizationLine)) {
      const next = skipSpaces(text, i);
      if (next > i && next < text.length && isWordChar(text.charCodeAt(next))) {
        const value = valueEnd(text, next);
        replace(value.start, value.end);
        i = value.resume;
      }
      continue;
    }
    if (!isSecretName(word)) continue;
    // key=value, key: value, "key": "value", key = 'value'; a flag `--token value` too.
    let j = i;
    if (text[j] === '"' || text[j] === "'") j++;
    j = skipSpaces(text, j);
    const separator = text[j];
    const flag = word.startsWith('--');
    if (separator === '=' || (separator === ':' && text[j + 1] !== ':' && text[j + 1] !== '/')) {
      j = skipSpaces(text, j + 1);
    } else if (!(flag && j > i && j < text.length)) continue;
    if (j >= text.length) continue;
    // An Authorization header's value is the rest of the line (`Bearer <token>`, `Basic <base64>`).
    const quoted = text[j] === '"' || text[j] === "'";
    const value = lower.endsWith('authorization') && !quoted ? headerValue(text, j) : valueEnd(text, j);
    replace(value.start, value.end);
    i = Math.max(value.resume, i);
  }
  return { text: count === userinfo.count ? text : out + text.slice(copied), count };
}

/** Every credential in `text` replaced by REDACTED, with the number of values replaced. Never throws; linear. */
export function redactSecrets(text: string): Redaction {
  const lines = text.split('\n');
  const out: string[] = [];
  let count = 0;
  let inPem = false;
  for (const line of lines) {
    if (inPem) {
      if (line.includes('-----END ')) inPem = false;
      continue;
    }
    const begin = line.indexOf('-----BEGIN ');
    if (begin >= 0) {
      out.push(`${line.slice(0, begin)}${REDACTED} (PEM block)`);
      count++;
      inPem = !line.includes('-----END ', begin);
      continue;
    }
    const redacted = redactLine(line);
    out.push(redacted.text);
    count += redacted.count;
  }
  return { text: out.join('\n'), count };
}

/** Sums redactions, for a report that says "redacted N values". */
export class RedactionTally {
  #count = 0;

  get count(): number {
    return this.#count;
  }

  /** `text` redacted; its count is added to the tally. */
  text(text: string): string {
    const redacted = redactSecrets(text);
    this.#count += redacted.count;
    return redacted.text;
  }

  /** Counts values removed another way (an env value not shown). */
  add(count: number): void {
    this.#count += count;
  }
}
