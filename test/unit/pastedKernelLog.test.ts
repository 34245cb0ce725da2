// Issue 17, class 7: kernel OOM reports as users paste them. The variants are DERIVED here from the real
// log test/fixtures/kernel-logs/course-dmesg-global-oom-group-6.1.log (provenance in its .source.md):
// timestamps cut, re-wrapped at a fixed width (mid-word, continuation indented) or at word boundaries,
// and the whole block indented as in a ticket's code block. The victim and its numbers must survive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { explainKernelLogText } from '../../src/core/verdicts/oom/oomRootCause.ts';
import type { GlobalOomVerdict } from '../../src/core/verdicts/oom/oomVerdictTypes.ts';
import { unwrapPastedLog } from '../../src/core/probe/parsers/logUnwrap.ts';

const REAL = readFileSync(new URL('../fixtures/kernel-logs/course-dmesg-global-oom-group-6.1.log', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line !== '');
const noTime = (line: string) => line.replace(/^\[ *\d+\.\d+\] /, '');
/** A terminal or ticket cutting at `width` columns, mid-word, the continuation indented by four spaces. */
const hardWrap = (width: number) => (line: string) => {
  const out = [line.slice(0, width)];
  for (let at = width; at < line.length; at += width - 4) out.push(`    ${line.slice(at, at + width - 4)}`);
  return out.join('\n');
};
/** An editor wrapping at the last space before `width`: the space goes, the continuation is indented. */
const wordWrap = (width: number) => (line: string) => {
  const out: string[] = [];
  let rest = line;
  while (rest.length > width) {
    const cut = rest.lastIndexOf(' ', width);
    if (cut <= 0) break;
    out.push(out.length === 0 ? rest.slice(0, cut) : `    ${rest.slice(0, cut)}`);
    rest = rest.slice(cut + 1);
  }
  out.push(out.length === 0 ? rest : `    ${rest}`);
  return out.join('\n');
};

function victims(text: string): string[] {
  return explainKernelLogText(text).verdicts.map((verdict) => {
    const v = (verdict as GlobalOomVerdict).victim;
    return `${verdict.kind} ${v.pid} ${v.comm} anon-rss ${v.anonRssKb} total-vm ${v.totalVmKb}`;
  });
}

test('class 7: the victims of a real global OOM survive timestamps cut, re-wrapping and ticket indentation', () => {
  const expected = victims(REAL.join('\n'));
  assert.deepEqual(expected, [
    'global 10843 prometheus-conf anon-rss 5064 total-vm 719984',
    'global 115727 memory_leak anon-rss 11724804 total-vm 15469196',
  ]);
  const variants: Record<string, string> = {
    'no timestamps': REAL.map(noTime).join('\n'),
    'hard-wrapped at 80': REAL.map(hardWrap(80)).join('\n'),
    'no timestamps, hard-wrapped at 72': REAL.map((line) => hardWrap(72)(noTime(line))).join('\n'),
    'word-wrapped at 72': REAL.map(wordWrap(72)).join('\n'),
    'no timestamps, word-wrapped at 60': REAL.map((line) => wordWrap(60)(noTime(line))).join('\n'),
    'indented as a ticket code block': REAL.map((line) => `    ${line}`).join('\n'),
    'indented and word-wrapped': REAL.map((line) =>
      wordWrap(70)(line)
        .split('\n')
        .map((piece) => `  ${piece}`)
        .join('\n'),
    ).join('\n'),
  };
  for (const [name, text] of Object.entries(variants)) assert.deepEqual(victims(text), expected, name);
});

test('class 7: call-trace frames of dmesg -t output are not joined; a multi-line printk is', () => {
  const log = unwrapPastedLog([
    'Call Trace:',
    ' <TASK>',
    ' dump_stack_lvl+0x71/0x90',
    ' ? handle_mm_fault+0x536/0x850',
    'amd_pstate: The CPPC feature is supported but currently disabled by the BIOS.',
    '               Please enable it if your BIOS has the CPPC option.',
  ]);
  assert.deepEqual(
    log.lines.map((line) => [line.lineNo, line.text]),
    [
      [1, 'Call Trace:'],
      [2, ' <TASK>'],
      [3, ' dump_stack_lvl+0x71/0x90'],
      [4, ' ? handle_mm_fault+0x536/0x850'],
      [
        5,
        'amd_pstate: The CPPC feature is supported but currently disabled by the BIOS. Please enable it if your BIOS has the CPPC option.',
      ],
    ],
  );
});
