// Kernel log parsing (src/core/probe/parsers/kernelLog.ts) and the OOM explanation with its three report
// formats (src/core/verdicts/oom/oomRootCause.ts, src/core/report/oomReport.ts), on mutated real kernel logs.
import { parseKernelLog } from '../../src/core/probe/parsers/kernelLog.ts';
import { splitLogLine } from '../../src/core/probe/parsers/logLine.ts';
import { parseOomKillSummary } from '../../src/core/probe/parsers/oomReportLines.ts';
import { oomToJson, oomToMarkdown, oomToText } from '../../src/core/report/oomReport.ts';
import { explainKernelLogText } from '../../src/core/verdicts/oom/oomRootCause.ts';
import { parseMemoryCounters } from '../../src/core/probe/parsers/cgroupMemory.ts';
import { KERNEL_LOGS } from './corpus.ts';
import { fuzzTarget, renderViolations, terminalViolations } from './harness.ts';
import type { Growth } from './harness.ts';

const OOM_LOG = KERNEL_LOGS.find((log) => log.includes('Out of memory')) ?? KERNEL_LOGS[0] ?? '';

const LOG_GROWTH: readonly Growth[] = [
  { label: 'many OOM reports', make: (n) => OOM_LOG.repeat(Math.ceil(n / OOM_LOG.length)) },
  { label: 'one long line', make: (n) => `[  100.000001] Out of memory: Killed process 1 (${'x'.repeat(n)}) total-vm:1kB\n` },
  { label: 'long whitespace', make: (n) => `[  100.000001] oom-kill:${' '.repeat(n)}task=a\n` },
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
