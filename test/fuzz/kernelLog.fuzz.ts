// Kernel log parsing (src/core/probe/parsers/kernelLog.ts) and the OOM explanation with its three report
// formats (src/core/verdicts/oom/oomRootCause.ts, src/core/report/oomReport.ts), on mutated real kernel logs.
import { parseKernelLog } from '../../src/core/probe/parsers/kernelLog.ts';
import { splitLogLine } from '../../src/core/probe/parsers/logLine.ts';
import { parseOomKillSummary } from '../../src/core/probe/parsers/oomReportLines.ts';
import { oomToJson, oomToMarkdown, oomToText } from '../../src/core/report/oomReport.ts';
import { explainKernelLogText } from '../../src/core/verdicts/oom/oomRootCause.ts';
import { parseMemoryCounters } from '../../src/core/probe/parsers/cgroupMemory.ts';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { KERNEL_LOGS } from './corpus.ts';
import { fuzzTarget, renderViolations, RUNS, SEED, terminalViolations } from './harness.ts';
import type { Growth } from './harness.ts';

const OOM_LOG = KERNEL_LOGS.find((log) => log.includes('Out of memory')) ?? KERNEL_LOGS[0] ?? '';

const LOG_GROWTH: readonly Growth[] = [
  { label: 'many OOM reports', make: (n) => OOM_LOG.repeat(Math.ceil(n / OOM_LOG.length)) },
  { label: 'one long line', make: (n) => `[  100.000001] Out of memory: Killed process 1 (${'x'.repeat(n)}) total-vm:1kB\n` },
  { label: 'long whitespace', make: (n) => `[  100.000001] oom-kill:${' '.repeat(n)}task=a\n` },
  {
    label: 'a long unknown prefix',
    make: (n) => `${'In(05) ['.repeat(Math.ceil(n / 8))} kernel: Memory cgroup out of memory: Killed process 1 (a)\n`,
  },
  { label: 'many unread records', make: (n) => `${'x [1.1 <3>[ 9'.repeat(Math.ceil(n / 13))}Out of memory: Killed process 1 (a)\n` },
  {
    label: 'continued lines',
    make: (n) => `[  100.000001] Out of memory: Killed process 1 (a)\n${'    continued\n'.repeat(Math.ceil(n / 14))}`,
  },
];

fuzzTarget({
  name: 'kernelLog.explainKernelLogText',
  corpus: KERNEL_LOGS,
  run: (input) => explainKernelLogText(input),
  check: (explanation) => {
    const text = oomToText(explanation, 'fuzz.log');
    return [
      ...terminalViolations('OOM text report', text),
      ...renderViolations('OOM text report', text),
      ...renderViolations('OOM Markdown report', oomToMarkdown(explanation, 'fuzz.log')),
      ...renderViolations('OOM JSON report', JSON.stringify(oomToJson(explanation, 'fuzz.log'))),
    ];
  },
  growth: LOG_GROWTH,
});

fuzzTarget({ name: 'kernelLog.parseKernelLog', corpus: KERNEL_LOGS, run: (input) => parseKernelLog(input), growth: LOG_GROWTH });

fuzzTarget({
  name: 'logLine.splitLogLine+oomReportLines.parseOomKillSummary',
  corpus: KERNEL_LOGS,
  run: (input) => input.split('\n').map((line) => ({ line: splitLogLine(line), summary: parseOomKillSummary(line) })),
});

fuzzTarget({
  name: 'cgroupMemory.parseMemoryCounters',
  corpus: ['low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n'],
  run: (input) => Object.fromEntries(parseMemoryCounters(input)),
});

// ---------------------------------------------------------------------------------------------------
// Prefixes: any prefix before the lines of a real report gives the same scope and victim. The prefixes are
// drawn from the shapes users paste (journalctl in any locale and mode, syslog with or without a host, a
// facility, RFC 5424, dmesg, a hypervisor's guest log) and from random printable text.

const MONTHS = ['Jan', 'Dec', 'дек', 'ноя', 'Dez', 'Mär', 'déc.', 'févr.', 'dic', '12月', '3月', '12월'];
const two = (n: number) => String(n).padStart(2, '0');
type Clock = readonly [number, number, number];
const clock = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 59 }));
const hms = (time: Clock) => `${two(time[0])}:${two(time[1])}:${two(time[2])}`;
const host = fc.constantFrom('hv', 'ip-10-0-0-12', 'node-3.example.com', '169', '...');
/** syslog and journalctl `short` lines of one report: one month, day, time and boot time; the padding, host, facility vary. */
const syslogPrefix = (month: string, day: number, time: Clock, bootSeconds: number) =>
  fc
    .record({
      pad: fc.constantFrom('zero', 'space', 'none'),
      host: fc.option(host, { nil: undefined }),
      facility: fc.option(fc.constantFrom('kern.warn', 'kern.err', 'kern.info'), { nil: undefined }),
      withSeconds: fc.boolean(),
    })
    .map(({ pad, host: name, facility, withSeconds }) => {
      const dd = pad === 'zero' ? two(day) : pad === 'space' ? String(day).padStart(2, ' ') : String(day);
      const head = `${month} ${dd} ${hms(time)} ${name ? `${name} ` : ''}${facility ? `${facility} ` : ''}kernel: `;
      return withSeconds ? `${head}[${bootSeconds.toFixed(6).padStart(12, ' ')}] ` : head;
    });
const isoPrefix = (time: Clock) =>
  fc
    .record({ sep: fc.constantFrom('T', ' '), zone: fc.constantFrom('Z', '+00:00', '+0300', '', ' UTC'), host })
    .map(({ sep, zone, host: name }) => `2026-12-07${sep}${hms(time)}.123456${zone} ${name} kernel: `);
const OTHER_PREFIXES = [
  '<4>1 2026-12-07T16:24:17.136269+00:00 vm kernel - - [timeQuality tzKnown="1" isSynced="0"] ',
  '<12>1 2026-12-07T16:24:17.356449+00:00 vm kernel - - - ',
  '2022-12-26T07:44:45.000000+01:00 server02 kernel - - - ',
  '<12>Dec  7 16:24:17 vm kernel: ',
  '1575713434.019095 ip-10-0-0-12 kernel: ',
  'Sat 2019-12-07 10:10:34 UTC ip-10-0-0-12 kernel: ',
  '2023-12-04T10:49:30.125Z In(05) vcpu-5 - Guest: <3>[39290745.072552] ',
  'Mon Dec  7 10:10:34 2026 kern.err kernel: ',
  '[  147.377885] ',
  '6,1234,147377885,-;',
  'kernel: ',
];
// Random printable text that does not start with a blank (a leading blank is a wrapped line's continuation).
const randomPrefix = fc.string({ unit: 'grapheme-ascii', maxLength: 40 }).map((text) => `${text.replace(/^\s+/, '')} `.replace(/^ $/, ''));

/**
 * The prefixes of one report's lines: one clock for the report (a log does not jump between days inside a
 * report), each line's prefix drawn from that clock's shapes or from random text.
 */
function reportPrefixes(lines: number): fc.Arbitrary<string[]> {
  return fc
    .record({
      month: fc.constantFrom(...MONTHS),
      day: fc.integer({ min: 1, max: 31 }),
      time: clock,
      bootSeconds: fc.double({ min: 0, max: 1e7, noNaN: true }),
      other: fc.constantFrom(...OTHER_PREFIXES),
      kind: fc.constantFrom('syslog', 'iso', 'other'),
    })
    .chain(({ month, day, time, bootSeconds, other, kind }) => {
      const timed = kind === 'syslog' ? syslogPrefix(month, day, time, bootSeconds) : kind === 'iso' ? isoPrefix(time) : fc.constant(other);
      return fc.array(fc.oneof({ arbitrary: timed, weight: 3 }, { arbitrary: randomPrefix, weight: 1 }), {
        minLength: lines,
        maxLength: lines,
      });
    });
}

/** A real report's kernel messages (its dmesg `[seconds] ` taken off). */
function messagesOf(log: string): string[] {
  return log
    .split('\n')
    .map((line) => line.replace(/^\[ *\d+\.\d+\] /, ''))
    .filter((line) => line.trim() !== '' && !line.startsWith(' '));
}

const victims = (text: string) =>
  parseKernelLog(text)
    .events.filter((event) => event.killed)
    .map((event) => `${event.scope}:${event.killed?.pid}:${event.killed?.comm}`);

const PREFIX_REPORTS = KERNEL_LOGS.filter(
  (log) => log.startsWith('[  147.358790] oom-kill:') || log.includes('Out of memory: Killed process 115727 (memory_leak)'),
).map(messagesOf);

test('kernelLog: any prefix before the lines of a real report gives the same scope and victim', () => {
  assert.equal(PREFIX_REPORTS.length, 2, 'the eks-ami#419 (memcg) and course 6.1 (global) fixtures are in the corpus');
  for (const messages of PREFIX_REPORTS) {
    const expected = victims(messages.join('\n'));
    assert.ok(expected.length > 0);
    fc.assert(
      fc.property(reportPrefixes(messages.length), (prefixes) => {
        const text = messages.map((message, index) => `${prefixes[index] ?? ''}${message}`).join('\n');
        assert.deepEqual(victims(text), expected, text.slice(0, 2000));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  }
});

// ---------------------------------------------------------------------------------------------------
// Paste shapes (test/unit/kernelLogPasteShapes.test.ts has one example of each): the printk caller field, quote
// markers and folds at a fixed width, in any combination, leave the victims and their pods as the log has them;
// a summary line cut at any width never puts the victim "outside any pod" when its whole line puts it in one.

const COURSE_REPORT = KERNEL_LOGS.find((log) => log.includes('Out of memory: Killed process 115727 (memory_leak)')) ?? '';
const K3S_REPORT = KERNEL_LOGS.find((log) => log.includes('task_memcg=/kubepods/besteffort/podbe1e663f')) ?? '';
const podVictims = (text: string) =>
  explainKernelLogText(text).verdicts.map(
    (v) => `${v.kind}:${v.victim.pid}:${v.victim.comm}:${v.victim.podUid ?? v.victim.placement.kind}`,
  );

const pasteShape = fc.record({
  caller: fc.option(fc.tuple(fc.constantFrom('T', 'C'), fc.integer({ min: 0, max: 9_999_999 }), fc.constantFrom('', ' ')), {
    nil: undefined,
  }),
  quote: fc.constantFrom('', '> ', '>', '> > ', '>> '),
  foldAt: fc.option(fc.integer({ min: 60, max: 220 }), { nil: undefined }),
});

test('kernelLog: caller fields, quote markers and folds at a fixed width leave the victims and their pods', () => {
  for (const log of [COURSE_REPORT, K3S_REPORT]) {
    assert.ok(log.includes('oom-kill:'), 'the course 6.1 and k3s fixtures are in the corpus');
    const expected = podVictims(log);
    fc.assert(
      fc.property(pasteShape, ({ caller, quote, foldAt }) => {
        const lines = log
          .split('\n')
          .map((line) =>
            caller
              ? line.replace(/^(\[ *\d+\.\d+\]) ?/, (time) => `${time.trimEnd()}${caller[2]}[${`${caller[0]}${caller[1]}`.padStart(6)}] `)
              : line,
          )
          .flatMap((line) => {
            if (foldAt === undefined || line.length <= foldAt) return [line];
            const pieces: string[] = [];
            for (let at = 0; at < line.length; at += foldAt) pieces.push(line.slice(at, at + foldAt));
            return pieces;
          });
        const text = lines.map((line) => `${quote}${line}`).join('\n');
        assert.deepEqual(podVictims(text), expected, text.slice(0, 1500));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  }
});

test('kernelLog: a summary line cut at any width names the pod, a pod, or nobody, never a place outside every pod', () => {
  const [summary = '', ...rest] = K3S_REPORT.split('\n');
  const pathAt = summary.indexOf('task_memcg=') + 'task_memcg='.length;
  const uidEnd = summary.indexOf('/', summary.indexOf('/podbe1e663f') + 1);
  fc.assert(
    fc.property(fc.integer({ min: summary.indexOf('oom-kill:') + 10, max: summary.length }), fc.boolean(), (width, ellipsis) => {
      const cut = summary.slice(0, width);
      const text = [`${cut}${ellipsis && width < summary.length ? '…' : ''}`, ...rest].join('\n');
      const placement = explainKernelLogText(text).verdicts[0]?.victim.placement.kind;
      // The oracle reads the visible part: the whole pod UID, some of the kubepods path, or less.
      const expected = width >= uidEnd ? 'pod' : width >= pathAt + '/kubepods'.length ? 'pod-unnamed' : 'unknown';
      assert.equal(placement, expected, cut);
    }),
    { seed: SEED, numRuns: RUNS },
  );
});
