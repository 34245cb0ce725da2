// The benchmarks import the TypeScript sources directly and no test runs them: a module moved in src/ (e.g. the
// split of core/kube/treeItems.ts) broke `npm run bench` silently. Every relative import in bench/ must resolve.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const BENCH = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench');
const IMPORT = /^\s*(?:import|export)\b[^'"]*?from\s+'(\.{1,2}\/[^']+)'/gm;

test('every relative import of bench/ resolves to a file', () => {
  const missing: string[] = [];
  for (const name of readdirSync(BENCH).filter((file) => /\.(?:mjs|ts)$/.test(file))) {
    const text = readFileSync(join(BENCH, name), 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const target = match[1] as string;
      // An import written into generated code (a template literal) is not this file's own.
      if (target.includes('${')) continue;
      if (!existsSync(resolve(BENCH, target))) missing.push(`bench/${name}: ${target}`);
    }
  }
  assert.deepEqual(missing, []);
});
