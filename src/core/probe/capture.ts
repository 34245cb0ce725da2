// The probe's output format and its parser. A capture is plain text: the probe script prints
// marker lines that carry a per-run nonce, so no file content can forge them.
//
//   @@gpumem-probe v=1 scope=node nonce=<hex> root=/host@@
//   @@gpumem:<nonce>:begin <section>@@
//   @@gpumem:<nonce>:file <path>@@        (zero or more: the following bytes are that file's content)
//   @@gpumem:<nonce>:file <dir>/.gpumem-heads-<max>@@  (several files of <dir> read by head -c <max> in batches)
//   …content…
//   @@gpumem:<nonce>:rc <status>@@        (commands only: their exit status)
//   @@gpumem:<nonce>:missing <what>@@     (a tool or path that is not there)
//   @@gpumem:<nonce>:end <section>@@
//   @@gpumem:<nonce>:done@@
//
// Parsing is tolerant: truncated, garbled or interleaved output gives partial sections and problems,
// never an exception.
import { parseBoundedNumber } from './parsers/kernelNumber.ts';

export type ProbeScope = 'node' | 'container';

export interface CaptureRecord {
  /** The file path for `file` records; undefined for a command's output. */
  readonly path: string | undefined;
  readonly body: string;
}

export interface CaptureSection {
  readonly name: string;
  readonly records: readonly CaptureRecord[];
  /** Exit status of the section's command, when it reported one. */
  readonly rc: number | undefined;
  /** Tools or paths the probe reported missing. */
  readonly missing: readonly string[];
  /** False when the capture ended before the section's end marker. */
  readonly complete: boolean;
}

export interface Capture {
  readonly version: number;
  readonly scope: ProbeScope | undefined;
  readonly root: string;
  readonly sections: ReadonlyMap<string, CaptureSection>;
  /** The probe printed its final marker. */
  readonly complete: boolean;
  /** What is wrong with the capture itself (truncation, unknown version, stray text). */
  readonly problems: readonly string[];
}

const HEADER = /^@@gpumem-probe v=(\d+) scope=(\w+) nonce=([0-9a-f]{8,64}) root=([^\n@]*)@@$/m;

interface MutableSection {
  name: string;
  records: CaptureRecord[];
  rc: number | undefined;
  missing: string[];
  complete: boolean;
  currentPath: string | undefined;
  buffer: string[];
}

export function parseCapture(input: string): Capture {
  // A capture that went through a terminal (`kubectl exec -t`, `ssh -t`) or a Windows editor has CRLF line
  // ends; the probe itself prints LF only, so a CRLF header means the whole text was converted.
  const text = /^@@gpumem-probe [^\n]*@@\r$/m.test(input) ? input.replace(/\r\n/g, '\n') : input;
  const problems: string[] = [];
  const header = HEADER.exec(text);
  if (!header) {
    return {
      version: 0,
      scope: undefined,
      root: '',
      sections: new Map(),
      complete: false,
      problems: ['not a gpumem probe capture (no header line)'],
    };
  }
  const version = parseBoundedNumber(header[1]) ?? 0;
  if (version !== 1)
    problems.push(`capture format v${(header[1] ?? '').slice(0, 20)} is newer than this gpumem understands (v1); reading what it can`);
  const scopeText = header[2];
  const scope: ProbeScope | undefined = scopeText === 'node' || scopeText === 'container' ? scopeText : undefined;
  const nonce = header[3] ?? '';
  const root = header[4] ?? '';
  const prefix = `@@gpumem:${nonce}:`;

  const sections = new Map<string, CaptureSection>();
  let current: MutableSection | undefined;
  let done = false;
  const flush = () => {
    if (!current) return;
    const body = joinBody(current.buffer.length === 1 ? (current.buffer[0] ?? '') : current.buffer.join(''));
    // The blank line a marker starts with is not a record of its own.
    if (current.currentPath !== undefined || body !== '') current.records.push({ path: current.currentPath, body });
    current.buffer = [];
    current.currentPath = undefined;
  };
  const close = (complete: boolean) => {
    if (!current) return;
    flush();
    current.complete = complete;
    if (!complete) problems.push(`section "${current.name}" was cut off`);
    sections.set(current.name, {
      name: current.name,
      records: current.records,
      rc: current.rc,
      missing: current.missing,
      complete: current.complete,
    });
    current = undefined;
  };

  // Markers are whole lines: found with indexOf, the text between two kept as one slice (a capture is megabytes,
  // most of it a few large records: no array of every line).
  const body = text.slice(header.index + header[0].length);
  let pos = 0;
  let search = 0;
  for (;;) {
    const at = body.indexOf(prefix, search);
    if (at < 0) break;
    const newline = body.indexOf('\n', at);
    const lineEnd = newline < 0 ? body.length : newline;
    if ((at > 0 && body.charCodeAt(at - 1) !== NEWLINE) || lineEnd - at < prefix.length + 2 || !body.endsWith('@@', lineEnd)) {
      search = at + 1;
      continue;
    }
    if (current) current.buffer.push(body.slice(pos, at));
    pos = search = lineEnd + 1;
    const marker = body.slice(at + prefix.length, lineEnd - 2);
    const space = marker.indexOf(' ');
    const verb = space < 0 ? marker : marker.slice(0, space);
    const argument = space < 0 ? '' : marker.slice(space + 1);
    switch (verb) {
      case 'begin':
        if (current) close(false);
        current = { name: argument, records: [], rc: undefined, missing: [], complete: false, currentPath: undefined, buffer: [] };
        break;
      case 'file':
        if (current) {
          flush();
          current.currentPath = argument;
        }
        break;
      case 'rc':
        if (current) current.rc = parseBoundedNumber(argument);
        break;
      case 'missing':
        if (current) current.missing.push(argument);
        break;
      case 'end':
        if (current && current.name === argument) close(true);
        else problems.push(`unexpected end of section "${argument}"`);
        break;
      case 'done':
        if (current) close(false);
        done = true;
        break;
      default:
        problems.push(`unknown marker "${verb}"`);
    }
  }
  if (current && pos < body.length) current.buffer.push(body.slice(pos));
  if (current) close(false);
  if (!done) problems.push('the capture is incomplete: the probe did not finish (timeout, dropped connection or truncated output)');
  return { version, scope, root, sections, complete: done, problems };
}

/**
 * A record's text as the probe printed it: markers are printed after a newline, so the trailing empty lines belong
 * to the marker, not the content; the content keeps its own blank lines and ends in one newline.
 */
function joinBody(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === NEWLINE) end--;
  if (end === 0) return '';
  // A slice when the text has its newline (it nearly always has): a concatenation would be copied whole the first
  // time it is searched, and the fdinfo sweep is megabytes of small records.
  return end < text.length ? text.slice(0, end + 1) : `${text}\n`;
}

const NEWLINE = 10;

/** The body of the first record of a section, or of the record for `path`. */
export function sectionText(capture: Capture, name: string, path?: string): string | undefined {
  const section = capture.sections.get(name);
  if (!section) return undefined;
  const record = path === undefined ? section.records[0] : section.records.find((candidate) => candidate.path === path);
  return record?.body;
}

/** All file records of a section, keyed by path; a record of several files read by head in batches is split into them. */
export function sectionFiles(capture: Capture, name: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const record of capture.sections.get(name)?.records ?? []) {
    if (record.path === undefined) continue;
    const heads = HEADS_PATH.exec(record.path);
    if (heads?.[1] !== undefined && heads[2] !== undefined) splitHeads(heads[1], Number(heads[2]), record.body, files);
    else files.set(record.path, record.body);
  }
  return files;
}

/**
 * The record `<dir>/.gpumem-heads-<max>` holds the output of `head -c <max> <file>… /dev/null` (nodeScript.ts):
 * several files of `<dir>` in one read.
 */
export const HEADS_RECORD = '.gpumem-heads';
const HEADS_PATH = /^(.*)\/\.gpumem-heads-(\d{1,9})$/;
/**
 * A file named in a header: `<dir>/<rel>` or `<rel>`, where `<rel>` is one to eight path components, none `.` or
 * `..` and none with a control character (a cgroup's name may hold a space).
 */
const HEAD_REL = /^(?!\.\.?(?:\/|$))[^/\x00-\x1f\x7f]{1,255}(?:\/(?!\.\.?(?:\/|$))[^/\x00-\x1f\x7f]{1,255}){0,7}$/;

/**
 * head with several files prints "==> <file> <==" before each and, before each header but the first, a newline:
 * a file that ended in a newline is followed by an empty line. The probe names /dev/null last, so every file it
 * asked for has a header after it. Only a header naming a plain file of `dir` starts a file (content cannot forge
 * one for another directory); another header (/dev/null) only ends the file before it. A file cut at `max` bytes
 * mid-line loses that line, so a cut value is never read as a smaller number. Each body is what onefile would
 * have recorded: trailing empty lines dropped, one newline kept (joinBody).
 */
function splitHeads(dir: string, max: number, body: string, files: Map<string, string>): void {
  const absolute = `${dir}/`;
  const nextLine = (from: number) => {
    const at = body.indexOf('\n==> ', from);
    return at < 0 ? -1 : at + 1;
  };
  let current: string | undefined;
  let contentStart = 0;
  for (let at = body.startsWith('==> ') ? 0 : nextLine(0); at >= 0;) {
    const newline = body.indexOf('\n', at);
    const lineEnd = newline < 0 ? body.length : newline;
    if (lineEnd - at < 8 || !body.endsWith(' <==', lineEnd)) {
      at = nextLine(at);
      continue;
    }
    if (current !== undefined) files.set(current, headContent(body.slice(contentStart, at), max));
    const named = body.slice(at + 4, lineEnd - 4);
    const rel = named.startsWith(absolute) ? named.slice(absolute.length) : named;
    current = HEAD_REL.test(rel) ? `${dir}/${rel}` : undefined;
    contentStart = lineEnd + 1;
    at = nextLine(lineEnd);
  }
  // A file with no header after it (a capture cut short) is not known to be whole: it is dropped.
}

/** The text between a file's header and the next one: the file, then the newline head prints before a header. */
function headContent(raw: string, max: number): string {
  let text = raw === '' ? '' : raw.slice(0, -1);
  // Cut at max bytes mid-line: that line is not whole.
  if (text !== '' && text.charCodeAt(text.length - 1) !== NEWLINE && utf8Length(text, max) >= max)
    text = text.slice(0, text.lastIndexOf('\n') + 1);
  return joinBody(text);
}

/** The UTF-8 length of `text`, counted only as far as `limit` (a string of length n holds at most 3n bytes). */
function utf8Length(text: string, limit: number): number {
  if (text.length * 3 < limit) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length && bytes < limit; i++) {
    const unit = text.charCodeAt(i);
    bytes += unit < 0x80 ? 1 : unit < 0x800 ? 2 : unit >= 0xd800 && unit < 0xdc00 ? 4 : unit >= 0xdc00 && unit < 0xe000 ? 0 : 3;
  }
  return bytes;
}
