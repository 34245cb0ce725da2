// One kernel log line: its prefix (timestamp, priority, host and tag) split from the kernel's message.
//
// Accepted line formats: raw `dmesg` (`[ 123.456] msg`), `dmesg -T` (`[Thu Dec  7 00:05:14 2017] msg`),
// `dmesg -x` (`kern  :warn  : …`), `dmesg --time-format iso`, `/dev/kmsg` records (`6,123,456,-;msg`),
// `<n>` priority prefixes, journalctl `short`, `short-precise`, `short-iso` and `short-monotonic`,
// syslog / kern.log lines with a host name (optionally followed by `[ 123.456]`), and bare messages.

export type KernelLogFormat =
  'dmesg' | 'dmesg-ctime' | 'dmesg-iso' | 'dmesg-decoded' | 'kmsg' | 'journal-monotonic' | 'syslog' | 'syslog-iso' | 'bare';

/** A kernel log line split into its prefix and the kernel's message. */
export interface LogLine {
  readonly message: string;
  readonly timestamp?: string;
  readonly monotonic?: string;
  readonly format: KernelLogFormat;
  /** False when the line is a syslog/journal line from another program than the kernel. */
  readonly kernel: boolean;
}

// Line prefixes. Every pattern is anchored and free of nested quantifiers, so each costs O(line).

const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
/** `<6>` syslog priority, and the `/dev/kmsg` record header `6,1234,5678,-;` (`c` continuation flag too). */
const PRIORITY = /^<(\d{1,3})>/;
const KMSG = /^\d{1,3},\d+,\d+,[^;]{0,16};/;
/** `dmesg -x`: `kern  :warn  : ` (facility, level). */
const DECODED = /^([a-z]{2,8}) *:([a-z]{3,7}) *: /;
/** `[ 1234.567890]`. */
const MONO = /^\[ *(\d+\.\d+)\] ?/;
/** `dmesg -T`: `[Thu Dec  7 00:05:14 2017]`; locales vary the day and month names. */
const CTIME = /^\[([^\]\d\s][^\]]{0,23}\d{4})\] ?/;
/** A raw dmesg line whose `[` was lost (pasted from the middle of a wrapped line): `5193605.506728] msg`. */
const MONO_TORN = /^(\d+\.\d{6})\] /;
/** ISO 8601: `2025-01-21T04:41:44,283302+00:00`, `2026-09-02T00:54:21.607510+00:00`, `2025-01-17T17:10:43+0000`. */
const ISO = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?) /;
/** syslog / journal `short` and `short-precise`: `Jun 23 10:10:34`, `Aug 30 06:58:55.050705`. */
const SYSLOG_TIME = new RegExp(`^(${MONTH} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d(?:\\.\\d+)?) `);
/** After a syslog/journal time: `<host> <tag>: ` where the tag is `kernel` or `prog[pid]`. */
const HOST_TAG = /^(\S+) ([A-Za-z][\w.@-]*)(?:\[\d+\])?: ?/;
/** A bare `kernel: ` (journal output with the time and host cut away). */
const KERNEL_TAG = /^kernel: ?/;

/**
 * `<host> kernel: ` or `<host> <prog>[<pid>]: ` after a timestamp that `dmesg` also prints (seconds,
 * ISO): only then is it a journal/syslog line. `[drm] amdgpu: …` or `usb usb1: …` are kernel messages.
 */
function journalHostTag(rest: string): RegExpExecArray | null {
  const hostTag = HOST_TAG.exec(rest);
  if (!hostTag) return null;
  return hostTag[2] === 'kernel' || /\[\d+\]: ?$/.test(hostTag[0]) ? hostTag : null;
}

/**
 * Split one line of any supported format into its timestamp and the kernel message. Lines with no
 * recognised prefix are returned as they are (continuation lines, pasted fragments).
 */
export function splitLogLine(raw: string): LogLine {
  let rest = raw;
  let format: KernelLogFormat = 'bare';
  let timestamp: string | undefined;
  let monotonic: string | undefined;
  let kernel = true;

  const kmsg = KMSG.exec(rest);
  if (kmsg) {
    rest = rest.slice(kmsg[0].length);
    format = 'kmsg';
  } else {
    const priority = PRIORITY.exec(rest);
    if (priority) rest = rest.slice(priority[0].length);
  }
  const decoded = DECODED.exec(rest);
  if (decoded) {
    rest = rest.slice(decoded[0].length);
    format = 'dmesg-decoded';
  }

  let match = MONO.exec(rest) ?? MONO_TORN.exec(rest);
  if (match) {
    monotonic = match[1];
    timestamp = match[1];
    rest = rest.slice(match[0].length);
    if (format === 'bare') format = 'dmesg';
    // journalctl -o short-monotonic: `[ 123.456] <host> kernel: msg`.
    const hostTag = journalHostTag(rest);
    if (hostTag) {
      kernel = hostTag[2] === 'kernel';
      rest = rest.slice(hostTag[0].length);
      format = 'journal-monotonic';
    }
    return { message: rest, timestamp, monotonic, format, kernel };
  }
  match = CTIME.exec(rest);
  if (match) {
    timestamp = match[1];
    rest = rest.slice(match[0].length);
    if (format === 'bare') format = 'dmesg-ctime';
    return { message: rest, timestamp, format, kernel };
  }
  match = ISO.exec(rest);
  if (match) {
    timestamp = match[1];
    rest = rest.slice(match[0].length);
    const hostTag = format === 'dmesg-decoded' ? null : journalHostTag(rest);
    if (hostTag) {
      kernel = hostTag[2] === 'kernel';
      rest = rest.slice(hostTag[0].length);
      format = 'syslog-iso';
    } else if (format === 'bare') {
      format = 'dmesg-iso';
    }
  } else {
    match = SYSLOG_TIME.exec(rest);
    if (match) {
      timestamp = match[1];
      rest = rest.slice(match[0].length);
      const hostTag = HOST_TAG.exec(rest);
      if (hostTag) {
        kernel = hostTag[2] === 'kernel';
        rest = rest.slice(hostTag[0].length);
      }
      format = 'syslog';
    } else {
      const tag = KERNEL_TAG.exec(rest);
      if (tag) rest = rest.slice(tag[0].length);
    }
  }
  if (format === 'syslog' || format === 'syslog-iso') {
    // rsyslog's kern.log keeps the kernel's own `[ 123.456]` after the tag.
    const inner = MONO.exec(rest);
    if (inner) {
      monotonic = inner[1];
      rest = rest.slice(inner[0].length);
    }
  }
  return { message: rest, timestamp, monotonic, format, kernel };
}
