// The files of a `<dir>/.gpumem-heads-<max>` record (capture.ts), split as the record's text arrives: the agent's
// fdinfo sweep is one such record of 6 MiB on a node of 10,000 DRM fds, and a split that waits for the whole record
// holds all of it (capture.ts's sectionFiles gives it whole, in one push).
//
// head with several files prints "==> <file> <==" before each and, before each header but the first, a newline: a file
// that ended in a newline is followed by an empty line. The probe names /dev/null last, so every file it asked for has
// a header after it. Only a header naming a plain file of `dir` starts a file (content cannot forge one for another
// directory); another header (/dev/null) only ends the file before it. A file cut at `max` bytes mid-line loses that
// line, so a cut value is never read as a smaller number. Each body is what onefile would have recorded: trailing empty
// lines dropped, one newline kept (joinBody). A file with no header after it (a capture cut short) is not known to be
// whole: it is dropped.

/** `(path, body)` for each whole file, in the order head printed them. */
export type FileSink = (path: string, body: string) => void;

/** A header line longer than this is content (a real one names `<dir>/` and at most 2,047 characters). */
export const MAX_HEADER_LINE = 8192;

const HEADER_START = '==> ';
const HEADER_END = ' <==';
const NEWLINE = 10;

/**
 * A file named in a header: `<dir>/<rel>` or `<rel>`, where `<rel>` is one to eight path components, none `.` or
 * `..` and none with a control character (a cgroup's name may hold a space).
 */
const HEAD_REL = /^(?!\.\.?(?:\/|$))[^/\x00-\x1f\x7f]{1,255}(?:\/(?!\.\.?(?:\/|$))[^/\x00-\x1f\x7f]{1,255}){0,7}$/;

export class HeadsSplitter {
  readonly #dir: string;
  readonly #absolute: string;
  readonly #max: number;
  readonly #emit: FileSink;
  /** A header has been seen: text is a file's content (before the first header it is nothing). */
  #started = false;
  /** The file the content belongs to; undefined after a header that names none (/dev/null, another directory). */
  #current: string | undefined;
  #pieces: string[] = [];
  /** A line start that may be a header, kept until its newline arrives (at most MAX_HEADER_LINE long). */
  #carry = '';
  #carryPieces: string[] = [];
  #carryLength = 0;
  #atLineStart = true;

  constructor(dir: string, max: number, emit: FileSink) {
    this.#dir = dir;
    this.#absolute = `${dir}/`;
    this.#max = max;
    this.#emit = emit;
  }

  push(piece: string): void {
    if (piece === '') return;
    // A header candidate still without its newline grows without being searched again (pieces may be small).
    if (this.#carry.length >= HEADER_START.length && this.#carryLength + piece.length <= MAX_HEADER_LINE && piece.indexOf('\n') < 0) {
      this.#carryPieces.push(piece);
      this.#carryLength += piece.length;
      return;
    }
    const text = this.#takeCarry() + piece;
    const atLineStart = text.length > piece.length ? true : this.#atLineStart;
    let pos = 0;
    let search = 0;
    for (;;) {
      const at = lineStartOf(text, search, atLineStart);
      if (at < 0) break;
      const newline = text.indexOf('\n', at);
      if (newline < 0) {
        if (text.length - at <= MAX_HEADER_LINE) {
          this.#content(text, pos, at);
          this.#carryFrom(text.slice(at));
          return;
        }
        break;
      }
      if (!this.#header(text, at, newline, pos)) {
        search = at + 1;
        continue;
      }
      pos = search = newline + 1;
    }
    // The tail may be the start of a header whose "==> " is not all here yet.
    const tailStart = text.lastIndexOf('\n') + 1;
    const tailAtLineStart = tailStart > 0 || atLineStart;
    if (
      tailAtLineStart &&
      tailStart >= pos &&
      text.length - tailStart < HEADER_START.length &&
      HEADER_START.startsWith(text.slice(tailStart))
    ) {
      this.#content(text, pos, tailStart);
      this.#carryFrom(text.slice(tailStart));
      this.#atLineStart = true;
      return;
    }
    this.#content(text, pos, text.length);
    this.#atLineStart = text.charCodeAt(text.length - 1) === NEWLINE;
  }

  /** The record ended: a header left without its newline still ends the file before it; the last file is dropped. */
  end(): void {
    const carry = this.#takeCarry();
    if (carry.startsWith(HEADER_START)) this.#header(carry, 0, carry.length, 0);
    this.#pieces = [];
    this.#current = undefined;
  }

  #carryFrom(text: string): void {
    this.#carry = text;
    this.#carryPieces = [];
    this.#carryLength = text.length;
  }

  #takeCarry(): string {
    const text = this.#carryPieces.length === 0 ? this.#carry : this.#carry + this.#carryPieces.join('');
    this.#carryFrom('');
    return text;
  }

  /** Whether text[at, lineEnd) is a header line; if it is, the file before it (content from `pos`) is emitted. */
  #header(text: string, at: number, lineEnd: number, pos: number): boolean {
    if (lineEnd - at < 8 || lineEnd - at > MAX_HEADER_LINE || !text.endsWith(HEADER_END, lineEnd)) return false;
    if (this.#started) {
      this.#content(text, pos, at);
      const raw = this.#pieces.length === 1 ? (this.#pieces[0] ?? '') : this.#pieces.join('');
      this.#pieces = [];
      if (this.#current !== undefined) this.#emit(this.#current, headContent(raw, this.#max));
    }
    this.#started = true;
    const named = text.slice(at + HEADER_START.length, lineEnd - HEADER_END.length);
    const rel = named.startsWith(this.#absolute) ? named.slice(this.#absolute.length) : named;
    this.#current = HEAD_REL.test(rel) ? `${this.#dir}/${rel}` : undefined;
    return true;
  }

  #content(text: string, from: number, to: number): void {
    // Content of a file no header named is not kept.
    if (to > from && this.#started && this.#current !== undefined) this.#pieces.push(text.slice(from, to));
  }
}

/** The first position at or after `from` that starts a line with "==> ". */
function lineStartOf(text: string, from: number, atLineStart: boolean): number {
  if (from === 0 && atLineStart && text.startsWith(HEADER_START)) return 0;
  const at = text.indexOf('\n==> ', Math.max(0, from - 1));
  return at < 0 ? -1 : at + 1;
}

/** The text between a file's header and the next one: the file, then the newline head prints before a header. */
function headContent(raw: string, max: number): string {
  let text = raw === '' ? '' : raw.slice(0, -1);
  // Cut at max bytes mid-line: that line is not whole.
  if (text !== '' && text.charCodeAt(text.length - 1) !== NEWLINE && utf8Length(text, max) >= max)
    text = text.slice(0, text.lastIndexOf('\n') + 1);
  return joinBody(text);
}

/**
 * A record's text as the probe printed it: markers are printed after a newline, so the trailing empty lines belong
 * to the marker, not the content; the content keeps its own blank lines and ends in one newline.
 */
export function joinBody(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === NEWLINE) end--;
  if (end === 0) return '';
  // A slice when the text has its newline (it nearly always has): a concatenation would be copied whole the first
  // time it is searched, and the fdinfo sweep is megabytes of small records.
  return end < text.length ? text.slice(0, end + 1) : `${text}\n`;
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
