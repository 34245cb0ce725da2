// No import cycle among the VS Code host's modules (src/vscode/, src/extension.ts): a cycle makes load order
// decide what is undefined at activation, and it is how module-level registries crept in before (the
// inspector panel, its serializer and the report view imported each other). Type-only imports count too:
// they keep two modules' designs tied together just the same.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sources(folder: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) for (const file of sources(path)) found.push(file);
    else if (path.endsWith('.ts')) found.push(path);
  }
  return found;
}

/** Every cycle reachable in the relative-import graph of `files`, each as a path list. */
function cycles(files: readonly string[]): string[] {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets: string[] = [];
    for (const match of readFileSync(file, 'utf8').matchAll(/\bfrom\s+'(\.[^']*)'/g)) {
      const target = resolve(dirname(file), match[1] ?? '');
      if (known.has(target)) targets.push(target);
    }
    graph.set(file, targets);
  }
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const found: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === 'open') found.push(stack.slice(stack.indexOf(target)).concat(target).map((path) => relative(repo, path)).join(' → '));
      else if (!state.has(target)) visit(target);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return found;
}

test('the VS Code host has no import cycle', () => {
  const files = sources(join(repo, 'src', 'vscode'));
  files.push(join(repo, 'src', 'extension.ts'));
  assert.deepEqual(cycles(files), []);
});
