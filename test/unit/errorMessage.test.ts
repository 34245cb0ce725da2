// One helper for the message of anything thrown (src/core/errorMessage.ts): what it returns, and no source file
// spelling the ternary out again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errorMessage } from '../../src/core/errorMessage.ts';
import { sourceFiles } from './helpers/sourceFiles.ts';

test('errorMessage: an Error gives its message, anything else its text', () => {
  assert.equal(errorMessage(new TypeError('x is not a function')), 'x is not a function');
  assert.equal(errorMessage('plain text'), 'plain text');
  assert.equal(errorMessage(42), '42');
  assert.equal(errorMessage(undefined), 'undefined');
  assert.equal(errorMessage({ toString: () => 'custom' }), 'custom');
});

test('no source file repeats `error instanceof Error ? error.message : String(error)`', () => {
  const copy = /(\w+) instanceof Error \? \1\.message : String\(\1\)/;
  const offenders: string[] = [];
  for (const directory of ['../../src/', '../../webview/']) {
    for (const file of sourceFiles(fileURLToPath(new URL(directory, import.meta.url)))) {
      if (file.endsWith('/src/core/errorMessage.ts')) continue;
      if (copy.test(readFileSync(file, 'utf8'))) offenders.push(file);
    }
  }
  assert.deepEqual(offenders, []);
});
