// The command ids in src/vscode/commandIds.ts are the ones package.json contributes, in both directions, and
// every menu entry names one of them: a command registered but not declared never shows, and one declared
// but not registered fails when it is run ("command 'gpumem.x' not found").
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { FLEET_VIEW_TYPE } from '../../src/core/fleet/viewType.ts';
import { INSPECTOR_VIEW_TYPE } from '../../src/core/inspectorPanel/viewType.ts';
import { COMMANDS } from '../../src/vscode/commandIds.ts';

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
