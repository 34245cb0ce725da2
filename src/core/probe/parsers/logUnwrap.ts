// Kernel logs as users paste them into tickets: quoted (`> ` of Markdown and e-mail), indented as a block (a
// Markdown code block), and with long records re-wrapped onto the next line, with leading spaces or without.
// This undoes them, in linear passes, before the kernel log parser reads the lines:
// - quote markers (`>`, `> `, `> > `) at the start of a line are removed (no kernel or journal line starts with one);
// - the indentation every non-empty line shares is removed;
// - a line that starts with (more) whitespace and is not a call-trace frame continues the line before.
//   Hard wraps (a terminal or ticket cutting at a fixed width, mid-word) are told from word wraps (cut
//   at a space, which the wrap ate) by their length: when two or more continued lines have exactly the
//   longest continued length, the cut is mid-word and the pieces join without a space.
// - a line with no time of its own that follows a timed line cut at the log's widest length continues it: a
//   terminal or `fold -w` cut the record at a fixed width, mid-word, and the rest starts in column 0. Only logs
//   whose lines carry a time can be read so (in a log without times every line is bare), and only when the width
//   cuts at least twice.
// Stack frames (` dump_stack_lvl+0x71/0x90`, ` ? handle_mm_fault+0x536/0x850`, ` <TASK>`) start with a
// space in `dmesg -t` output too, and are never joined.

import { splitLogLine } from './logLine.ts';
import { holdsReportLine } from './kernelReportBody.ts';

export interface LogicalLine {
  /** 1-based number of the line's first physical line. */
  readonly lineNo: number;
  readonly text: string;
}

export interface UnwrappedLog {
  readonly lines: readonly LogicalLine[];
  /** How many physical lines were joined onto the line before. */
  readonly joined: number;
  /** The indentation removed from every line, in characters. */
  readonly indent: number;
}

/** The end of a whole `oom-kill:` summary line (mm/oom_kill.c prints `,uid=<n>` last). */
const ENDS_WITH_UID = /,uid=\d{1,10}$/;

function leadingBlanks(line: string): number {
  let i = 0;
  while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++;
  return i;
}

function isStackFrame(trimmed: string): boolean {
  if (trimmed.startsWith('<') && trimmed.endsWith('>')) return true; // <TASK>, </TASK>, <IRQ>
  const body = trimmed.startsWith('? ') ? trimmed.slice(2) : trimmed;
  const plus = body.indexOf('+0x');
  return plus > 0 && !body.slice(0, plus).includes(' ') && body.indexOf('/0x', plus) > plus;
}

/** Where the quote markers of a line end (`>`, `> >`, `>>`), and whether a blank follows the last one. */
function quoteEnd(line: string): { end: number; spaced: boolean } {
  let at = 0;
  let last = -1;
  while (at < line.length && line.charCodeAt(at) === 62 /* > */) {
    last = at;
    at++;
    // `> > `: a blank between two markers belongs to the markers.
    if (line.charCodeAt(at) === 32 && line.charCodeAt(at + 1) === 62) at++;
  }
  return { end: last + 1, spaced: line.charCodeAt(last + 1) === 32 };
}

/**
 * The lines without their quote markers. The blank after a marker belongs to it when every quoted line has one
 * (`> text`); when some have none (`>text`), a blank after the marker is the text's own (a folded piece that
 * starts with a space).
 */
function unquoted(lines: readonly string[]): string[] {
  let everySpaced = true;
  for (const line of lines) {
    const quote = quoteEnd(line);
    if (quote.end > 0 && quote.end < line.length && !quote.spaced) everySpaced = false;
  }
  return lines.map((line) => {
    const quote = quoteEnd(line);
    if (quote.end === 0) return line;
    return line.slice(quote.end + (everySpaced && quote.spaced ? 1 : 0));
  });
}

/** The line starts with a time a log line carries (dmesg, journal, syslog, kmsg): it is a record of its own. */
function isTimed(line: string): boolean {
  return line !== '' && splitLogLine(line).timestamp !== undefined;
}

/**
 * Which lines continue the one before without indentation: cut at a fixed width (the widest line of the log,
 * at least 40 characters), by a terminal or `fold`, in a log whose records carry a time.
 */
function foldedContinuations(lines: readonly string[]): boolean[] {
  const folded = lines.map(() => false);
  let widest = 0;
  for (const line of lines) widest = Math.max(widest, line.length);
  if (widest < 40) return folded;
  // Whether the record the previous line belongs to started with a time.
  let recordTimed = false;
  let recordIsSummary = false;
  let folds = 0;
  const summaryFolds: number[] = [];
  lines.forEach((line, i) => {
    if (
      i > 0 &&
      recordTimed &&
      line.trim() !== '' &&
      // A cut just before a space leaves the space in column 0; wider indentation is a re-wrap (handled apart).
      leadingBlanks(line) <= 1 &&
      !isStackFrame(line.trim()) &&
      (lines[i - 1] ?? '').length === widest &&
      !isTimed(line) &&
      // A report line that lost its time (a mixed paste) is a record of its own, and a whole summary line ends in uid=.
      !holdsReportLine(line) &&
      !ENDS_WITH_UID.test(lines[i - 1] ?? '')
    ) {
      folded[i] = true;
      folds++;
      if (recordIsSummary) summaryFolds.push(i);
      return;
    }
    if (leadingBlanks(line) === 0) {
      recordTimed = isTimed(line);
      recordIsSummary = line.includes('oom-kill:');
    }
  });
  // One widest line followed by an untimed one may be chance (a record whose time was lost); a width cut twice is a
  // fold. So is a single cut of an `oom-kill:` summary, whose end (the victim's cgroup, task, pid) would be lost.
  if (folds < 2) {
    folded.fill(false);
    for (const i of summaryFolds) folded[i] = true;
  }
  return folded;
}

/** `physical`: the log's lines without their line ends; empty lines are dropped from the result. */
export function unwrapPastedLog(input: readonly string[]): UnwrappedLog {
  const physical = unquoted(input);
  let indent = Infinity;
  for (const line of physical) {
    if (line.trim() === '') continue;
    indent = Math.min(indent, leadingBlanks(line));
  }
  if (!Number.isFinite(indent)) indent = 0;
  const dedented = physical.map((line) => line.slice(Math.min(indent, leadingBlanks(line))));
  const continues = dedented.map(
    (line, i) => i > 0 && leadingBlanks(line) > 0 && line.trim() !== '' && !isStackFrame(line.trim()) && dedented[i - 1]?.trim() !== '',
  );
  const folded = foldedContinuations(dedented);
  // The width of a hard wrap: the longest line that another continues, if it recurs.
  let longest = 0;
  let atLongest = 0;
  for (let i = 0; i + 1 < dedented.length; i++) {
    if (!continues[i + 1]) continue;
    const length = (dedented[i] ?? '').length;
    if (length > longest) {
      longest = length;
      atLongest = 1;
    } else if (length === longest) atLongest++;
  }
  const hardWrapWidth = atLongest >= 2 ? longest : -1;
  const lines: LogicalLine[] = [];
  let joined = 0;
  let pending: { lineNo: number; parts: string[]; lastLength: number } | undefined;
  dedented.forEach((line, i) => {
    if (folded[i] && pending) {
      pending.parts.push(line);
      pending.lastLength = line.length;
      joined++;
      return;
    }
    if (continues[i] && pending) {
      pending.parts.push(pending.lastLength === hardWrapWidth ? line.trim() : ` ${line.trim()}`);
      pending.lastLength = line.length;
      joined++;
      return;
    }
    if (pending) lines.push({ lineNo: pending.lineNo, text: pending.parts.join('') });
    pending = line === '' ? undefined : { lineNo: i + 1, parts: [line], lastLength: line.length };
  });
  if (pending) lines.push({ lineNo: pending.lineNo, text: pending.parts.join('') });
  return { lines, joined, indent };
}
