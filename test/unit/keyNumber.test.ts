// parseKeyNumber reads `key value` lines by position (keyValue.ts); its oracle is the form it replaced, a regular
// expression matched against every line of the text split at newlines. Both must give the same numbers and the same
// problems for any text, and in particular for texts made of the pieces those lines are made of.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { NumberProblem } from '../../src/core/probe/parsers/kernelNumber.ts';
import { kernelValue } from '../../src/core/probe/parsers/kernelNumber.ts';
import { parseKeyNumber } from '../../src/core/probe/parsers/keyValue.ts';

function oracle(text: string, problems: NumberProblem[], allowSentinels: boolean): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z0-9_.]+)[ \t]+([^\n]*)$/.exec(line);
    if (!match?.[1] || match[2] === undefined) continue;
    // The number options parseKeyNumber reads values with: a note after the value is read past, a second number is not.
    const value = kernelValue(match[2], match[1], { file: 'f', problems }, { allowSentinels, firstToken: true, noteOnly: true });
    if (value !== undefined) out.set(match[1], value);
  }
  return out;
}

const PIECES = fc.constantFrom(
  'anon',
  'file_mapped',
  'hierarchical_memory_limit',
  'nr.x',
  'Key9',
  ' ',
  '\t',
  '\n',
  '\r',
  ':',
  '-',
  '0',
  '42',
  '9223372036854771712',
  '18446744073709551615',
  'max',
  'é',
  '\u00a0',
  'KiB',
);
const TEXTS = fc.oneof(fc.string({ unit: PIECES, maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 200 }));

test('parseKeyNumber reads what the per-line regular expression read, numbers and problems alike', () => {
  fc.assert(
    fc.property(TEXTS, fc.boolean(), (text, allowSentinels) => {
      const expectedProblems: NumberProblem[] = [];
      const expected = oracle(text, expectedProblems, allowSentinels);
      const problems: NumberProblem[] = [];
      assert.deepEqual(parseKeyNumber(text, { file: 'f', problems }, { allowSentinels }), expected);
      assert.deepEqual(problems, expectedProblems);
    }),
    { seed: 0x6b6e, numRuns: 2000 },
  );
});

test('parseKeyNumber: a memory.stat as the kernel prints it', () => {
  const stat = 'anon 1048576\nfile 4096\nkernel\t8192\n\nbad line\nworkingset_refault_anon 3\n';
  assert.deepEqual(
    [...parseKeyNumber(stat)],
    [
      ['anon', 1048576],
      ['file', 4096],
      ['kernel', 8192],
      ['workingset_refault_anon', 3],
    ],
  );
});
