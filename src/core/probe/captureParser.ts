// The capture parser (format: capture.ts), fed as the probe's output arrives. A node capture is 7 MiB on a node of
// 10,000 DRM fds, 6.3 MiB of it one record (the fdinfo sweep's batched heads); the agent folds that section's files into
// its model as they arrive (`fold`), so neither the capture nor that record is ever held whole. parseCapture is one push.
//
// Markers are whole lines, found with indexOf; the text between two is kept as slices of what was pushed (no array of
// every line). Whatever the pieces, the result is the same: a line that may be a marker (or the header) and has not
// ended yet is carried to the next push, up to a bounded length, beyond which it is content. Cost is linear in the text.
import type { Capture, CaptureRecord, CaptureSection, ProbeScope } from './captureModel.ts';
import type { FileSink } from './headsSplitter.ts';
import { HeadsSplitter, joinBody } from './headsSplitter.ts';
import { parseBoundedNumber } from './parsers/kernelNumber.ts';

/** Where a folded section's files go, each as it ends (a batched heads record split into its files as it arrives). */
export interface SectionFold {
  /**
   * A section of this name begins. A capture that repeats a section (garbled, spliced) is read by its last one, as
   * parseCapture keeps the last: what an earlier one folded is to be dropped.
   */
  readonly begin: () => void;
  readonly file: FileSink;
}

export interface CaptureParserOptions {
  /** Sections whose file records are folded as they arrive instead of kept: their `records` hold only command output. */
  readonly fold?: ReadonlyMap<string, SectionFold>;
}

/** The record `<dir>/.gpumem-heads-<max>`: `head -c <max> <file>… /dev/null` in one read (nodeScript.ts). */
export const HEADS_RECORD = '.gpumem-heads';
const HEADS_PATH = /^(.*)\/\.gpumem-heads-(\d{1,9})$/;

/** A HeadsSplitter for a heads record's path, or undefined for any other path. */
export function headsSplitterFor(path: string, sink: FileSink): HeadsSplitter | undefined {
  const heads = HEADS_PATH.exec(path);
  return heads?.[1] !== undefined && heads[2] !== undefined ? new HeadsSplitter(heads[1], Number(heads[2]), sink) : undefined;
}

const HEADER = /^@@gpumem-probe v=(\d+) scope=(\w+) nonce=([0-9a-f]{8,64}) root=([^\n@]*)@@$/;
const HEADER_START = '@@gpumem-probe ';
/** Longer lines are not the header nor a marker: their longest part is a path (PATH_MAX is 4,096). */
const MAX_MARKER_LINE = 16384;
const NEWLINE = 10;
const CR = 13;

interface OpenSection {
  readonly name: string;
  readonly records: CaptureRecord[];
  rc: number | undefined;
  readonly missing: string[];
  readonly sink: FileSink | undefined;
  path: string | undefined;
  buffer: string[];
  splitter: HeadsSplitter | undefined;
}

type Phase =
  | { readonly kind: 'header' }
  | {
      readonly kind: 'body';
      readonly prefix: string;
      readonly version: number;
      readonly scope: ProbeScope | undefined;
      readonly root: string;
    };

export class CaptureParser {
  readonly #fold: ReadonlyMap<string, SectionFold>;
  #phase: Phase = { kind: 'header' };
  /** The header line was CRLF-terminated: the text went through a terminal or a Windows editor; every CRLF is LF. */
  #crlf = false;
  /** A CR that ended the last push, held until the next says whether it is half of a CRLF. */
  #pendingCr = false;
  /** A line start that may be a marker or the header, held until its newline (pieces, so small pushes stay linear). */
  #carry: string[] = [];
  #carryLength = 0;
  /** The carried text is a whole prefix: pushes without a newline only grow it. */
  #carryComplete = false;
  /** The next push starts a line. */
  #atLineStart = true;
  /** Header phase: the rest of the current line is not the header. */
  #skipLine = false;
  readonly #sections = new Map<string, CaptureSection>();
  readonly #problems: string[] = [];
  #current: OpenSection | undefined;
  #done = false;
  #ended: Capture | undefined;

  constructor(options: CaptureParserOptions = {}) {
    this.#fold = options.fold ?? new Map();
  }

  push(input: string): void {
    if (this.#ended || input === '') return;
    if (this.#phase.kind === 'header') this.#pushHeader(input);
    else this.#pushBody(this.#lineFeeds(input));
  }

  /** The text with CRLF as LF when the header was CRLF-terminated (a CR at the end waits for the next push). */
  #lineFeeds(input: string): string {
    if (!this.#crlf) return input;
    let text = input;
    if (this.#pendingCr) {
      text = `\r${text}`;
      this.#pendingCr = false;
    }
    if (text.charCodeAt(text.length - 1) === CR) {
      this.#pendingCr = true;
      text = text.slice(0, -1);
    }
    return text.replace(/\r\n/g, '\n');
  }

  /** The capture, once: the input has ended (a line without its newline is read as it stands). */
  end(): Capture {
    if (this.#ended) return this.#ended;
    if (this.#pendingCr) {
      // A CR the input ended with is content.
      this.#pendingCr = false;
      this.#pushBody('\r');
    }
    const carry = this.#takeCarry();
    if (this.#phase.kind === 'header' && carry !== '') this.#headerLine(carry);
    else if (this.#phase.kind === 'body' && carry !== '') {
      if (!this.#marker(carry, 0, carry.length, this.#phase.prefix)) this.#content(carry, 0, carry.length);
    }
    const phase = this.#phase;
    if (phase.kind === 'header') {
      this.#ended = {
        version: 0,
        scope: undefined,
        root: '',
        sections: new Map(),
        complete: false,
        problems: ['not a gpumem probe capture (no header line)'],
      };
      return this.#ended;
    }
    if (this.#current) this.#close(false);
    if (!this.#done)
      this.#problems.push('the capture is incomplete: the probe did not finish (timeout, dropped connection or truncated output)');
    this.#ended = {
      version: phase.version,
      scope: phase.scope,
      root: phase.root,
      sections: this.#sections,
      complete: this.#done,
      problems: this.#problems,
    };
    return this.#ended;
  }

  // ---- the header ----------------------------------------------------------------------------------------------

  #pushHeader(input: string): void {
    let text = input;
    if (this.#carryLength > 0) {
      text = this.#takeCarry() + text;
      this.#atLineStart = true;
    }
    let from = 0;
    while (from < text.length && this.#phase.kind === 'header') {
      const newline = text.indexOf('\n', from);
      const lineEnd = newline < 0 ? text.length : newline;
      const lineStart = from === 0 ? this.#atLineStart : true;
      if (this.#skipLine && from === 0) {
        // the rest of a line already known not to be the header
      } else if (lineStart && text.startsWith(HEADER_START.slice(0, Math.min(HEADER_START.length, lineEnd - from)), from)) {
        if (newline < 0) {
          if (lineEnd - from <= MAX_MARKER_LINE) {
            this.#carryFrom(text.slice(from));
            return;
          }
          this.#skipLine = true;
          this.#atLineStart = false;
          return;
        }
        if (lineEnd - from <= MAX_MARKER_LINE) this.#headerLine(text.slice(from, lineEnd));
      }
      if (newline < 0) {
        this.#skipLine = true;
        this.#atLineStart = false;
        return;
      }
      this.#skipLine = false;
      from = newline + 1;
    }
    this.#atLineStart = true;
    if (this.#phase.kind === 'body' && from < text.length) this.#pushBody(this.#lineFeeds(text.slice(from)));
  }

  /** One whole line of the header phase: the header starts the body. */
  #headerLine(raw: string): void {
    let line = raw;
    if (line.charCodeAt(line.length - 1) === CR && line.endsWith('@@\r')) {
      line = line.slice(0, -1);
      if (HEADER.test(line)) this.#crlf = true;
    }
    const header = HEADER.exec(line);
    if (!header) return;
    const version = parseBoundedNumber(header[1]) ?? 0;
    if (version !== 1)
      this.#problems.push(
        `capture format v${(header[1] ?? '').slice(0, 20)} is newer than this gpumem understands (v1); reading what it can`,
      );
    const scopeText = header[2];
    const scope: ProbeScope | undefined = scopeText === 'node' || scopeText === 'container' ? scopeText : undefined;
    this.#phase = { kind: 'body', prefix: `@@gpumem:${header[3] ?? ''}:`, version, scope, root: header[4] ?? '' };
  }

  // ---- the body --------------------------------------------------------------------------------------------------

  #pushBody(input: string): void {
    if (this.#phase.kind !== 'body') return;
    const prefix = this.#phase.prefix;
    // A marker still without its newline grows without being searched again.
    if (this.#carryComplete && this.#carryLength + input.length <= MAX_MARKER_LINE && input.indexOf('\n') < 0) {
      this.#carry.push(input);
      this.#carryLength += input.length;
      return;
    }
    const carried = this.#carryLength > 0;
    const text = carried ? this.#takeCarry() + input : input;
    const atLineStart = carried || this.#atLineStart;
    let pos = 0;
    let search = 0;
    for (;;) {
      const at = text.indexOf(prefix, search);
      if (at < 0) break;
      if (at > 0 ? text.charCodeAt(at - 1) !== NEWLINE : !atLineStart) {
        search = at + 1;
        continue;
      }
      const newline = text.indexOf('\n', at);
      if (newline < 0) {
        if (text.length - at <= MAX_MARKER_LINE) {
          this.#content(text, pos, at);
          this.#carryFrom(text.slice(at));
          this.#carryComplete = true;
          return;
        }
        break;
      }
      this.#content(text, pos, at);
      if (!this.#marker(text, at, newline, prefix)) {
        // Not a marker after all: its text is content, from `at` on.
        pos = at;
        search = at + 1;
        continue;
      }
      pos = search = newline + 1;
    }
    // The tail may be the start of a marker whose prefix is not all here yet.
    const tailStart = text.lastIndexOf('\n') + 1;
    if (
      (tailStart > 0 || atLineStart) &&
      tailStart >= pos &&
      text.length - tailStart < prefix.length &&
      prefix.startsWith(text.slice(tailStart))
    ) {
      this.#content(text, pos, tailStart);
      this.#carryFrom(text.slice(tailStart));
      this.#atLineStart = true;
      return;
    }
    this.#content(text, pos, text.length);
    this.#atLineStart = text.charCodeAt(text.length - 1) === NEWLINE;
  }

  /** Whether text[at, lineEnd) is a marker line; if it is, it is acted on. */
  #marker(text: string, at: number, lineEnd: number, prefix: string): boolean {
    if (!text.startsWith(prefix, at) || lineEnd - at < prefix.length + 2 || lineEnd - at > MAX_MARKER_LINE || !text.endsWith('@@', lineEnd))
      return false;
    const marker = text.slice(at + prefix.length, lineEnd - 2);
    const space = marker.indexOf(' ');
    const verb = space < 0 ? marker : marker.slice(0, space);
    const argument = space < 0 ? '' : marker.slice(space + 1);
    const current = this.#current;
    switch (verb) {
      case 'begin': {
        if (current) this.#close(false);
        const fold = this.#fold.get(argument);
        fold?.begin();
        this.#current = {
          name: argument,
          records: [],
          rc: undefined,
          missing: [],
          sink: fold?.file,
          path: undefined,
          buffer: [],
          splitter: undefined,
        };
        break;
      }
      case 'file':
        if (current) {
          this.#flush(current);
          current.path = argument;
          if (current.sink) current.splitter = headsSplitterFor(argument, current.sink);
        }
        break;
      case 'rc':
        if (current) current.rc = parseBoundedNumber(argument);
        break;
      case 'missing':
        if (current) current.missing.push(argument);
        break;
      case 'end':
        if (current && current.name === argument) this.#close(true);
        else this.#problems.push(`unexpected end of section "${argument}"`);
        break;
      case 'done':
        if (current) this.#close(false);
        this.#done = true;
        break;
      default:
        this.#problems.push(`unknown marker "${verb}"`);
    }
    return true;
  }

  #content(text: string, from: number, to: number): void {
    const current = this.#current;
    if (!current || to <= from) return;
    const piece = from === 0 && to === text.length ? text : text.slice(from, to);
    if (current.splitter) current.splitter.push(piece);
    else current.buffer.push(piece);
  }

  /** The record being read has ended (a marker after it). */
  #flush(section: OpenSection): void {
    const path = section.path;
    const splitter = section.splitter;
    section.path = undefined;
    section.splitter = undefined;
    if (splitter) {
      splitter.end();
      return;
    }
    const body = joinBody(section.buffer.length === 1 ? (section.buffer[0] ?? '') : section.buffer.join(''));
    section.buffer = [];
    if (path !== undefined && section.sink) section.sink(path, body);
    // The blank line a marker starts with is not a record of its own.
    else if (path !== undefined || body !== '') section.records.push({ path, body });
  }

  #close(complete: boolean): void {
    const current = this.#current;
    if (!current) return;
    this.#flush(current);
    if (!complete) this.#problems.push(`section "${current.name}" was cut off`);
    this.#sections.set(current.name, { name: current.name, records: current.records, rc: current.rc, missing: current.missing, complete });
    this.#current = undefined;
  }

  #carryFrom(text: string): void {
    this.#carry = text === '' ? [] : [text];
    this.#carryLength = text.length;
    this.#carryComplete = false;
  }

  #takeCarry(): string {
    const text = this.#carry.length === 1 ? (this.#carry[0] ?? '') : this.#carry.join('');
    this.#carryFrom('');
    return text;
  }
}
