// The kernel's record inside a line whose prefix logLine.ts could not read: a hypervisor's guest log
// (`2023-12-04T10:49:30.125Z In(05) vcpu-5 - Guest: <3>[39290745.072552] Memory cgroup out of memory: …`),
// a collector's own decoration before `kernel: `, or text pasted before the line. The kill is found by its
// body, never lost to its prefix; a time that cannot be read stays unknown. Linear in the line: a few
// indexOf calls and bounded patterns.
import type { LogLine } from './logLine.ts';
import { splitLogLine } from './logLine.ts';
import { INVOKED } from './oomReportLines.ts';

/** How the lines of an OOM report begin (mm/oom_kill.c, mm/memcontrol.c); the reason lines come first. */
const BODY_STARTS = [
  'Memory cgroup out of memory: ',
  'Out of memory',
  'Killed process ',
  'oom-kill:',
  'Task in ',
  'Tasks in ',
  'memory: usage ',
  'Memory cgroup stats for ',
] as const;

/** A kernel record embedded after a foreign prefix: `<3>[39290745.072552] ` or `[ 123.456] `. */
const EMBEDDED_RECORD = /(?:<\d{1,3}>)?\[ {0,12}\d{1,12}\.\d{1,9}\] ?/;
const EMBEDDED_TAG = ' kernel: ';
/** A time of day in an unread prefix (`Mon Dec  7 10:10:34 2026 kern.warn`), kept as the line's timestamp. */
const TIME_OF_DAY = /\d\d:\d\d:\d\d(?:[.,]\d{1,9})?/;

/** The line holds an OOM report line of its own (a report line behind any prefix, or `<comm> invoked oom-killer:`). */
export function holdsReportLine(message: string): boolean {
  return firstBodyAt(message) >= 0 || message.indexOf(INVOKED) > 0;
}

function startsWithBody(message: string): boolean {
  return BODY_STARTS.some((start) => message.startsWith(start));
}

function firstBodyAt(message: string): number {
  let first = -1;
  for (const start of BODY_STARTS) {
    const at = message.indexOf(start);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  return first;
}

/** The text up to a time of day in `prefix`, when there is one. */
function prefixTime(prefix: string): string | undefined {
  const time = TIME_OF_DAY.exec(prefix);
  return time ? prefix.slice(0, time.index + time[0].length).trim() : undefined;
}

/**
 * The line with its message starting where the kernel's record does. A line whose message already starts
 * with a report line, or that holds nothing recognisable, is returned as it is.
 */
export function kernelReportBody(line: LogLine): LogLine {
  const message = line.message;
  if (startsWithBody(message)) return line;
  const invokedAt = message.indexOf(INVOKED);
  const bodyAt = invokedAt > 0 ? invokedAt : firstBodyAt(message);
  if (bodyAt < 0) return line;

  // A record embedded before the body: re-read the line from there.
  const head = message.slice(0, bodyAt);
  const tagAt = head.indexOf(EMBEDDED_TAG);
  const record = EMBEDDED_RECORD.exec(head);
  const innerAt = tagAt >= 0 ? tagAt + EMBEDDED_TAG.length : record ? record.index : -1;
  if (innerAt > 0) {
    const inner = splitLogLine(message.slice(innerAt));
    const timestamp = line.timestamp ?? prefixTime(message.slice(0, innerAt)) ?? inner.timestamp;
    const monotonic = inner.monotonic ?? line.monotonic;
    const found = { ...line, message: inner.message, timestamp, monotonic };
    return invokedAt > 0 || startsWithBody(found.message) ? found : withBodyStart(found);
  }
  if (invokedAt > 0) return line;
  return { ...line, message: message.slice(bodyAt), timestamp: line.timestamp ?? prefixTime(message.slice(0, bodyAt)) };
}

function withBodyStart(line: LogLine): LogLine {
  const at = firstBodyAt(line.message);
  return at > 0 ? { ...line, message: line.message.slice(at) } : line;
}
