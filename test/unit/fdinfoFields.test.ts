// parseFdinfo reads only the drm-* and amd-* lines of an fdinfo file, without splitting the file into lines first
// (the agent parses 10,000 of these a cycle). Its oracle is the first form: every line split at its first colon,
// key and value trimmed, the last value of a repeated key kept in its key's first place. On any text over an
// alphabet of colons, newlines, the blanks trim() removes and the control characters it keeps, both give the same
// client and the same problems.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseFdinfo, procFileOf } from '../../src/core/probe/parsers/fdinfo.ts';
import type { NumberProblem } from '../../src/core/probe/parsers/kernelNumber.ts';

/** The fields as the first parseFdinfo read them, restricted to the keys it then used. */
function fieldsBySplitting(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    fields.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return fields;
}

const PIECES = [
  'drm-driver',
  'drm-client-id',
  'drm-pdev',
  'drm-memory-vram',
  'drm-resident-vram',
  'drm-total-gtt',
  'drm-total-cycles-gfx',
  'drm-engine-gfx',
  'amd-requested-vram',
  'amd-evicted-vram',
  'pos',
  ':',
  '\n',
  ' ',
  '\t',
  '\r',
  '\u00a0',
  '\ufeff',
  '\u0001',
  '12',
  ' KiB',
  'amdgpu',
  '0000:c5:00.0',
  '-',
];

test('parseFdinfo: the same client and problems as reading every line', () => {
  const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((parts) => parts.join(''));
  fc.assert(
    fc.property(text, (input) => {
      const problems: NumberProblem[] = [];
      const client = parseFdinfo(input, { file: 'f', problems });
      // The oracle's client from its own fields: a file made of those fields alone parses to the same client.
      const fields = fieldsBySplitting(input);
      const canonical = [...fields]
        .filter(([key]) => key.startsWith('drm-') || key.startsWith('amd-'))
        .map(([key, value]) => `${key}: ${value}`)
        .join('\n');
      const oracleProblems: NumberProblem[] = [];
      const oracle = parseFdinfo(canonical, { file: 'f', problems: oracleProblems });
      assert.deepEqual(client, oracle);
      assert.deepEqual(problems, oracleProblems);
      assert.equal(client.clientId, fields.get('drm-client-id'));
      assert.equal(client.driver, fields.get('drm-driver'));
      assert.equal(client.pdev, fields.get('drm-pdev'));
    }),
    { seed: 20261204, numRuns: 3000 },
  );
});

test('parseFdinfo: lines without a colon, or a colon only far ahead, are read in one pass', () => {
  const noColons = 'x'.repeat(10) + '\n'.repeat(200_000) + 'drm-client-id: 7\n';
  assert.equal(parseFdinfo(noColons).clientId, '7');
});

// procFileOf reads a record's path by position; its oracle is the regular expression FdinfoAggregate matched before.
const PROC_FILE = /\/proc\/(\d{1,10})\/(fdinfo\/(\d{1,10})|cgroup|comm)$/;
const PATH_PIECES = fc.constantFrom(
  '/proc/',
  '/host',
  '/',
  'proc',
  'fdinfo/',
  'fdinfo',
  'cgroup',
  'comm',
  '1',
  '42',
  '12345678901',
  '0',
  '٣',
  'x',
  '.',
);

test('procFileOf names the same pid, file and fd as the regular expression it replaced', () => {
  fc.assert(
    fc.property(fc.oneof(fc.string({ unit: PATH_PIECES, maxLength: 12 }), fc.string({ maxLength: 40 })), (path) => {
      const match = PROC_FILE.exec(path);
      const expected = !match?.[1]
        ? undefined
        : match[2] === 'comm' || match[2] === 'cgroup'
          ? { pid: Number(match[1]), kind: match[2] }
          : { pid: Number(match[1]), kind: 'fdinfo', fd: match[3] };
      assert.deepEqual(procFileOf(path), expected);
    }),
    { seed: 0x70f1, numRuns: 5000 },
  );
  assert.deepEqual(procFileOf('/host/proc/20001/fdinfo/10'), { pid: 20001, kind: 'fdinfo', fd: '10' });
  assert.deepEqual(procFileOf('/proc/7/cgroup'), { pid: 7, kind: 'cgroup' });
  assert.equal(procFileOf('proc/7/comm'), undefined);
});
