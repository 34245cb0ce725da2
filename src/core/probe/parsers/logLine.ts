// One kernel log line: its prefix (timestamp, priority, host and tag) split from the kernel's message.
//
// Accepted line formats: raw `dmesg` (`[ 123.456] msg`), `dmesg -T` (`[Thu Dec  7 00:05:14 2017] msg`),
// `dmesg -x` (`kern  :warn  : …`), `dmesg --time-format iso`, `/dev/kmsg` records (`6,123,456,-;msg`),
// `<n>` priority prefixes, journalctl `short`, `short-precise`, `short-iso`, `short-full`, `short-unix` and
// `short-monotonic` (with the month names of any locale: journalctl formats `%b %d` with the user's LC_TIME, so
// `дек 07`, `Dez 07`, `déc. 07`, `12月 07`), syslog / kern.log lines with or without a host name (optionally
// followed by `[ 123.456]`), a one-digit day padded with one space or none (`Jul  7`, `Jul 7`), ISO-8601
// with `T` or a space, RFC 5424 (`<4>1 2025-01-01T00:00:00Z host kernel - - - msg`), and bare messages.
// A prefix none of these read is left on the message: kernelReportBody.ts then finds the record by its body.
// After the time, a kernel built with CONFIG_PRINTK_CALLER prints who logged the line (`[ 1656.820000][ T45678] msg`:
// kernel/printk/printk.c, print_caller, `[%6s]` of `T<pid>` or `C<cpu>`; util-linux dmesg puts a space between the
// two brackets): it is taken off the message too.

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

/** `<6>` syslog priority, and the `/dev/kmsg` record header `6,1234,5678,-;` (`c` continuation flag too). */
const PRIORITY = /^<(\d{1,3})>/;
/** The kmsg header's flags may end in `,caller=T45678` (CONFIG_PRINTK_CALLER). */
const KMSG = /^\d{1,3},\d+,\d+,[^;]{0,40};/;
/** `dmesg -x`: `kern  :warn  : ` (facility, level). */
const DECODED = /^([a-z]{2,8}) *:([a-z]{3,7}) *: /;
/** `[ 1234.567890]`. */
const MONO = /^\[ *(\d+\.\d+)\] ?/;
/** `dmesg -T`: `[Thu Dec  7 00:05:14 2017]`; locales vary the day and month names. */
const CTIME = /^\[([^\]\d\s][^\]]{0,23}\d{4})\] ?/;
/** A raw dmesg line whose `[` was lost (pasted from the middle of a wrapped line): `5193605.506728] msg`. */
const MONO_TORN = /^(\d+\.\d{6})\] /;
/**
 * ISO 8601: `2025-01-21T04:41:44,283302+00:00`, `2026-09-02T00:54:21.607510+00:00`, `2025-01-17T17:10:43+0000`,
 * `2025-01-17 17:10:43`; journalctl `short-full` puts a weekday before and a zone name after (`Mon 2025-01-17 17:10:43 UTC`).
 */
const ISO = /^((?:[^\s\d]{1,12} )?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z| ?[+-]\d\d:?\d\d| [A-Z]{2,5}(?= ))?) /;
/**
 * syslog / journal `short` and `short-precise`: `Jun 23 10:10:34`, `Aug 30 06:58:55.050705`, `Jul 7 …`, and the
 * month of any locale (`дек 07`, `déc. 07`, `12月 07`): a word of at most 12 characters that is not a number.
 */
const SYSLOG_TIME = /^((?:[^\s\d]{1,12}|\d{1,2}[^\s\d\]:.,-]{1,3}) {1,2}\d{1,2} \d\d:\d\d:\d\d(?:\.\d+)?) /;
/** journalctl `short-unix`: seconds since the epoch, then the host and tag as in `short`. */
const UNIX_TIME = /^(\d{9,11}\.\d{1,9}) /;
/** RFC 5424 after its `<PRI>`: `1 TIMESTAMP HOST APP PROCID MSGID `, then `-` or structured data, then the message. */
const RFC5424 = /^1 (\S{1,64}) (\S{1,255}) (\S{1,48}) \S{1,128} \S{1,32} /;
const RFC5424_FILE = /^(\S{1,255}) ([A-Za-z][\w.@-]{0,47}) \S{1,128} \S{1,32} (?=- |\[)/;
/**
 * After a syslog/journal time: `<host> <tag>: ` where the tag is `kernel` or `prog[pid]`; busybox syslogd
 * writes the facility and level between them (`<host> kern.warn kernel: `).
 */
const HOST_TAG = /^(\S+) (?:[a-z]{2,8}\.[a-z]{3,7} )?([A-Za-z][\w.@-]*)(?:\[\d+\])?: ?/;
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

/** The printk caller field (`[ T45678]`, `[    C3]`) at the start of a message. */
const CALLER = /^\[ {0,12}[TC]\d{1,10}\] ?/;

/**
 * Split one line of any supported format into its timestamp and the kernel message. Lines with no
 * recognised prefix are returned as they are (continuation lines, pasted fragments).
 */
export function splitLogLine(raw: string): LogLine {
  const line = splitPrefix(raw);
  const caller = CALLER.exec(line.message);
  return caller ? { ...line, message: line.message.slice(caller[0].length) } : line;
}

function splitPrefix(raw: string): LogLine {
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
  if (format === 'bare') {
    const syslog5424 = rfc5424(rest);
    if (syslog5424) return syslog5424;
  }
  match = UNIX_TIME.exec(rest);
  const unixHostTag = match ? journalHostTag(rest.slice(match[0].length)) : null;
  if (match && unixHostTag) {
    return {
      message: rest.slice(match[0].length + unixHostTag[0].length),
      timestamp: match[1],
      format: 'syslog',
      kernel: unixHostTag[2] === 'kernel',
    };
  }
  match = ISO.exec(rest);
  if (match) {
    timestamp = match[1];
    rest = rest.slice(match[0].length);
    const hostTag = format === 'dmesg-decoded' ? null : (KERNEL_TAG.exec(rest) ?? journalHostTag(rest));
    if (hostTag) {
      kernel = hostTag[2] === undefined || hostTag[2] === 'kernel';
      rest = rest.slice(hostTag[0].length);
      format = 'syslog-iso';
    } else {
      // rsyslog's RFC 5424 file format: the header without `<PRI>1`, `<host> <app> <procid> <msgid> `.
      const fileHeader = format === 'bare' ? RFC5424_FILE.exec(rest) : null;
      const line = fileHeader ? rfc5424Body(rest.slice(fileHeader[0].length), timestamp, fileHeader[2]) : undefined;
      if (line) return line;
      if (format === 'bare') format = 'dmesg-iso';
    }
  } else {
    match = SYSLOG_TIME.exec(rest);
    if (match) {
      timestamp = match[1];
      rest = rest.slice(match[0].length);
      // A syslog file written without host names (`Jul 27 13:29:54 kernel: …`), or `<host> <tag>: `.
      const hostTag = KERNEL_TAG.exec(rest) ?? HOST_TAG.exec(rest);
      if (hostTag) {
        kernel = hostTag[2] === undefined || hostTag[2] === 'kernel';
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

/** RFC 5424 (`<PRI>` already taken off): the message after the header and the structured data. */
function rfc5424(rest: string): LogLine | undefined {
  const header = RFC5424.exec(rest);
  if (!header) return undefined;
  const timestamp = header[1] === '-' ? undefined : header[1];
  return rfc5424Body(rest.slice(header[0].length), timestamp, header[3]);
}

/** After the RFC 5424 header: `-` or structured data, then the message (and the kernel's `[ 123.456]`). */
function rfc5424Body(afterHeader: string, timestamp: string | undefined, app: string | undefined): LogLine | undefined {
  let message = afterHeader;
  if (message.startsWith('- ')) message = message.slice(2);
  else if (message.startsWith('[')) {
    // SD-ELEMENTs: `[id k="v"]…`; a `]` inside a value is escaped as `\]`.
    let at = 0;
    while (at < message.length && message[at] === '[') {
      let end = message.indexOf(']', at);
      while (end > 0 && message[end - 1] === '\\') end = message.indexOf(']', end + 1);
      if (end < 0) break;
      at = end + 1;
    }
    message = message.slice(at).replace(/^ /, '');
  } else return undefined;
  if (message.startsWith('\uFEFF')) message = message.slice(1);
  const line: LogLine = { message, timestamp, format: 'syslog-iso', kernel: app === 'kernel' };
  const inner = MONO.exec(message);
  return inner ? { ...line, message: message.slice(inner[0].length), monotonic: inner[1] } : line;
}
