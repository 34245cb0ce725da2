// No TypeScript file of src/ or webview/ passes 450 lines (README, "Architecture"): a file that long has usually grown
// a second concern.
// The node probe's script (532 lines) and the cluster client (457) passed it unnoticed before this test; they were
// split along their concerns (nodeNvidiaScript.ts, kubeCall.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceFiles } from './helpers/sourceFiles.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAX_LINES = 450;

/** Lines as an editor counts them: a final newline does not start another. */
function lineCount(text: string): number {
  if (text === '') return 0;
  let lines = 1;
  for (let at = text.indexOf('\n'); at >= 0 && at < text.length - 1; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
}

test('lineCount counts as wc -l does for text ending in a newline, and the last line without one', () => {
  assert.equal(lineCount(''), 0);
  assert.equal(lineCount('a'), 1);
  assert.equal(lineCount('a\n'), 1);
  assert.equal(lineCount('a\nb'), 2);
  assert.equal(lineCount('a\nb\n'), 2);
  assert.equal(lineCount('\n\n'), 2);
});

test(`no file in src/ or webview/ passes ${MAX_LINES} lines`, () => {
  const long = [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'webview'))]
    .map((file) => ({ file: relative(ROOT, file), lines: lineCount(readFileSync(file, 'utf8')) }))
    .filter((entry) => entry.lines > MAX_LINES)
    .map((entry) => `${entry.file}: ${entry.lines} lines`);
  assert.deepEqual(long, []);
});
