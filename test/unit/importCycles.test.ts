// No import cycles in src/ or webview/: a cycle makes module initialisation order matter and hides which file
// is the leaf. A depth-first search over the import statements of src/**/*.ts (type-only imports too: they
// are still a dependency a reader has to follow).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceFiles } from './helpers/sourceFiles.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');
const WEBVIEW = join(ROOT, 'webview');

// A statement at the start of a line up to its `from '<relative path>'` (multi-line import lists included).
const IMPORT = /^(?:import|export)\b[^'";]*\bfrom\s+'(\.{1,2}\/[^']+)'/gm;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(IMPORT)) found.push(resolve(dirname(file), match[1] ?? ''));
  return found;
}

function findCycles(files: readonly string[]): string[] {
  const graph = new Map(
    files.map((file) => [file, importsOf(file).filter((target) => target.startsWith(SRC) || target.startsWith(WEBVIEW))]),
  );
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const cycles = new Set<string>();
  const visit = (file: string): void => {
    state.set(file, 'visiting');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'visiting') {
        const cycle = stack.slice(stack.indexOf(next)).map((f) => relative(ROOT, f));
        const first = cycle.indexOf([...cycle].sort()[0] ?? '');
        cycles.add(cycle.slice(first).concat(cycle.slice(0, first)).join(' → '));
      } else if (state.get(next) === undefined && graph.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (state.get(file) === undefined) visit(file);
  return [...cycles].sort();
}

test('no import cycles in src/ or webview/ (type-only imports included)', () => {
  assert.deepEqual(findCycles([...sourceFiles(SRC), ...sourceFiles(WEBVIEW)]), []);
});
