// Kernel files pasted into threads with notes after the values (test/fixtures/proc/annotated-meminfo-chromeos.txt,
// provenance in its .source.md): a value followed by text is the number before its unit, as sysfs values already
// are; a second number after the value is still no value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseMeminfo } from '../../src/core/probe/parsers/meminfo.ts';
import { parseKeyNumber } from '../../src/core/probe/parsers/keyValue.ts';
import type { NumberProblems } from '../../src/core/probe/parsers/kernelNumber.ts';

const KiB = 1024;

test('Chromium OS "Out of memory handling": an annotated /proc/meminfo gives every value, notes ignored', () => {
  const text = readFileSync(new URL('../fixtures/proc/annotated-meminfo-chromeos.txt', import.meta.url), 'utf8');
  const sink: NumberProblems = { file: '/proc/meminfo', problems: [] };
  const meminfo = parseMeminfo(text, sink);
  assert.equal(meminfo.get('MemTotal'), 1940064 * KiB);
  assert.equal(meminfo.get('Active(anon)'), 77216 * KiB);
  assert.equal(meminfo.get('Inactive(anon)'), 48744 * KiB);
  assert.equal(meminfo.get('Active(file)'), 33632 * KiB);
  assert.equal(meminfo.get('Inactive(file)'), 161904 * KiB);
  assert.equal(meminfo.get('Shmem'), 56448 * KiB);
  assert.equal(meminfo.get('PageTables'), 3380 * KiB);
  // Every `Key: value` line of the paste, and nothing else.
  assert.equal(meminfo.size, text.split('\n').filter((line) => /^[A-Za-z()]+: \d/.test(line)).length);
  assert.deepEqual(sink.problems, []);
});

test('key value counters with a note are read; a second number is still no value', () => {
  const sink: NumberProblems = { file: 'memory.events', problems: [] };
  const events = parseKeyNumber('oom 3   <- after the load\noom_kill 2 # the trainer\nmax 6 7\nhigh -1 x\n', sink);
  assert.deepEqual(
    [...events],
    [
      ['oom', 3],
      ['oom_kill', 2],
    ],
  );
  assert.deepEqual(
    sink.problems.map((problem) => [problem.field, problem.reason]),
    [
      ['max', 'unexpected text after the number'],
      ['high', 'unknown unit "x"'],
    ],
  );
  const meminfo = parseMeminfo('MemAvailable:  1234 kB   <- after the load\nMemFree: 5 kB 6\nGPUActive: 7 MB\n', sink);
  assert.deepEqual([...meminfo], [['MemAvailable', 1234 * KiB]]);
});
