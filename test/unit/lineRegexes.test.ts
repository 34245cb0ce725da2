// A class of super-linear parsing found twice by the long fuzz run (an ssh config line, a /proc/vmstat line): in
// JavaScript `.` matches no CR, U+2028 or U+2029, so a line regex ending in `(.*)$` fails on a line that holds one,
// and the engine gives back the blanks before it one at a time: a 300,000-blank line with a CR never finished. Line
// regexes take the rest of the line with `[^\n]*` (lines are split on \n), which cannot fail. This scan keeps a new
// one from ending in `.*$` or `.+$` without the s flag.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseKeyNumber } from '../../src/core/probe/parsers/keyValue.ts';
import { parseDmem } from '../../src/core/probe/parsers/cgroupDmem.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

test('no regex in src/ ends in `.*$` or `.+$` without the s flag', () => {
  const found: string[] = [];
  for (const file of sources(join(ROOT, 'src'))) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, index) => {
      if (/^\s*(\/\/|\*)/.test(line)) return;
      for (const match of line.matchAll(/(?<!\\)\.[*+]\??\)?\$\/([a-z]*)/g))
        if (!match[1]?.includes('s')) found.push(`${relative(ROOT, file)}:${index + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(found, []);
});

test('a key, blanks, a CR and more blanks: the value is kept (the CR is a blank to the number parser)', () => {
  const blanks = ' '.repeat(3_000);
  assert.deepEqual([...parseKeyNumber(`nr_gpu_active${blanks}\r${blanks}7\n`)], [['nr_gpu_active', 7]]);
  assert.equal(parseDmem(`drm/0000:c3:00.0/vram${blanks}\r${blanks}536870912\n`).get('drm/0000:c3:00.0/vram')?.kind, 'bytes');
});
