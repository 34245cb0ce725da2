// The command ids in src/vscode/commandIds.ts are the ones package.json contributes, in both directions, and
// every menu entry names one of them: a command registered but not declared never shows, and one declared
// but not registered fails when it is run ("command 'gpumem.x' not found"). What is registered is read from the
// source that registers it: src/extension.ts's registerCommand calls and its table of dist/inspect.js commands,
// the REMOTE_COMMANDS it registers for dist/remote.js, and the handler table src/remote.ts answers them with.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { FLEET_VIEW_TYPE } from '../../src/core/fleet/viewType.ts';
import { INSPECTOR_VIEW_TYPE } from '../../src/core/inspectorPanel/viewType.ts';
import { CLUSTER_COMMANDS } from '../../src/vscode/clusters/commandIds.ts';
import { COMMANDS } from '../../src/vscode/commandIds.ts';
import { REMOTE_COMMANDS } from '../../src/vscode/remoteCommandIds.ts';

interface Manifest {
  readonly activationEvents?: readonly string[];
  readonly contributes: {
    readonly commands: readonly { readonly command: string }[];
    readonly menus: Readonly<Record<string, readonly { readonly command?: string; readonly submenu?: string }[]>>;
  };
}

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as Manifest;
const ids = Object.values(COMMANDS) as string[];

test('every command id is declared in package.json contributes.commands', () => {
  const declared = new Set(manifest.contributes.commands.map((entry) => entry.command));
  assert.deepEqual(
    ids.filter((id) => !declared.has(id)),
    [],
  );
});

test('every command package.json declares is in the union', () => {
  const known = new Set(ids);
  assert.deepEqual(
    manifest.contributes.commands.map((entry) => entry.command).filter((id) => !known.has(id)),
    [],
  );
});

test('the ids are unique and the keys say which command they are', () => {
  assert.equal(new Set(ids).size, ids.length);
  for (const [key, id] of Object.entries(COMMANDS)) assert.equal(id, `gpumem.${key}`);
});

test('every menu entry names a command of the union', () => {
  const known = new Set(ids);
  for (const [menu, entries] of Object.entries(manifest.contributes.menus)) {
    for (const entry of entries) if (entry.command !== undefined) assert.ok(known.has(entry.command), `${menu}: ${entry.command}`);
  }
});

test('every onCommand activation event names a command of the union', () => {
  const known = new Set(ids);
  for (const event of manifest.activationEvents ?? []) {
    if (event.startsWith('onCommand:')) assert.ok(known.has(event.slice('onCommand:'.length)), event);
  }
});

test('each panel with a serializer has its onWebviewPanel activation event (else a reload restores a blank panel)', () => {
  for (const viewType of [INSPECTOR_VIEW_TYPE, FLEET_VIEW_TYPE])
    assert.ok(manifest.activationEvents?.includes(`onWebviewPanel:${viewType}`), `onWebviewPanel:${viewType}`);
});

const EXTENSION_SOURCE = readFileSync(new URL('../../src/extension.ts', import.meta.url), 'utf8');
const REMOTE_SOURCE = readFileSync(new URL('../../src/remote.ts', import.meta.url), 'utf8');

/** `COMMANDS.key` / `CLUSTER_COMMANDS.key` as the id it names; a key neither table has fails the test. */
function idOf(table: string, key: string): string {
  const source: Readonly<Record<string, string>> = table === 'CLUSTER_COMMANDS' ? CLUSTER_COMMANDS : COMMANDS;
  const id = source[key];
  assert.ok(id !== undefined, `${table}.${key} is no command`);
  return id;
}

/** The block of `source` from `start` to the first `end` after it. */
function block(source: string, start: string, end: string): string {
  const from = source.indexOf(start);
  assert.ok(from >= 0, `${start} not found`);
  return source.slice(from, source.indexOf(end, from));
}

/** Every id src/extension.ts registers, with repeats (a repeat throws at activation). */
function registeredIds(): string[] {
  const ids: string[] = [];
  for (const match of EXTENSION_SOURCE.matchAll(/registerCommand\(COMMANDS\.(\w+)/g)) ids.push(idOf('COMMANDS', match[1] ?? ''));
  const inspect = block(EXTENSION_SOURCE, 'const INSPECT_COMMANDS = new Map', ']);');
  for (const match of inspect.matchAll(/\[COMMANDS\.(\w+),/g)) ids.push(idOf('COMMANDS', match[1] ?? ''));
  assert.match(EXTENSION_SOURCE, /\.\.\.Array\.from\(INSPECT_COMMANDS, \(\[id, run\]\) =>\s+vscode\.commands\.registerCommand\(id,/);
  assert.match(EXTENSION_SOURCE, /\.\.\.REMOTE_COMMANDS\.map\(\(id\) => vscode\.commands\.registerCommand\(id,/);
  ids.push(...REMOTE_COMMANDS);
  return ids;
}

test('every declared command is registered exactly once, and nothing undeclared is', () => {
  const registered = registeredIds();
  assert.deepEqual(
    registered.filter((id, index) => registered.indexOf(id) !== index),
    [],
    'registered twice',
  );
  const declared = manifest.contributes.commands.map((entry) => entry.command);
  assert.deepEqual(
    declared.filter((id) => !registered.includes(id)),
    [],
    'declared but not registered',
  );
  assert.deepEqual(
    registered.filter((id) => !declared.includes(id)),
    [],
    'registered but not declared',
  );
});

test('src/remote.ts answers every command the extension registered for it, and no other', () => {
  const table = block(REMOTE_SOURCE, 'function remoteCommands(', '\n}\n');
  const answered = Array.from(table.matchAll(/\[(CLUSTER_COMMANDS|COMMANDS)\.(\w+)\]:/g), (match) => idOf(match[1] ?? '', match[2] ?? ''));
  assert.deepEqual([...answered].sort(), [...REMOTE_COMMANDS].sort());
});
