// A repository's .vscode/settings.json must not choose what gpumem runs: every setting that names a file, a
// binary or an image gpumem executes or mounts is `machine` scope in package.json (user or remote settings
// only; VS Code ignores it in workspace and folder settings). `machine-overridable` would let the workspace win.
// https://code.visualstudio.com/api/references/contribution-points#contributes.configuration (scope)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

interface SettingSchema {
  readonly type?: string;
  readonly scope?: string;
  readonly restricted?: boolean;
  readonly description?: string;
  readonly markdownDescription?: string;
}

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, SettingSchema> } | { properties: Record<string, SettingSchema> }[] };
};
const sections = [manifest.contributes.configuration].flat();
const settings = new Map(sections.flatMap((section) => Object.entries(section.properties)));

/** The settings that choose a program, a file a program comes from, or an image run with the node's root. */
const EXECUTES = ['gpumem.kubeconfig', 'gpumem.kubernetes.kubectlPath', 'gpumem.kubernetes.debugImage'];
/** Paths the root probe reads on the node: not executed, but a repository must not choose them either. */
const READ_AS_ROOT = ['gpumem.probe.hamiLibPath'];
/** Files that decide whom gpumem trusts with credentials (the Fleet view's Prometheus CA). */
const TRUST_ANCHORS = ['gpumem.fleet.prometheusCaFile'];

/** A setting names something gpumem runs or loads when its key or description says path, binary, file or image. */
function namesAnExecutable(key: string, schema: SettingSchema): boolean {
  if (schema.type !== 'string') return false;
  const text = `${key} ${schema.description ?? ''} ${schema.markdownDescription ?? ''}`.toLowerCase();
  return /path\b|binary|kubeconfig|image\b|file\b/.test(text) && !/glob pattern/.test(text);
}

describe('settings that choose what gpumem runs are machine scope', () => {
  test('kubeconfig, kubectlPath and the debug image are machine scope and restricted', () => {
    for (const key of [...EXECUTES, ...READ_AS_ROOT, ...TRUST_ANCHORS]) {
      const schema = settings.get(key);
      assert.ok(schema, `${key} is contributed`);
      assert.equal(schema.scope, 'machine', `${key} scope`);
      assert.equal(schema.restricted, true, `${key} restricted`);
    }
  });

  test('no other string setting that names a path, binary, file or image is left to the workspace', () => {
    const found = [...settings]
      .filter(([key, schema]) => namesAnExecutable(key, schema))
      .map(([key]) => key)
      .sort();
    assert.deepEqual(
      found,
      [...EXECUTES, ...READ_AS_ROOT, ...TRUST_ANCHORS].sort(),
      'a new path/binary/image setting must be added to EXECUTES (and made machine scope)',
    );
  });

  test('no setting is machine-overridable', () => {
    const overridable = [...settings].filter(([, schema]) => schema.scope === 'machine-overridable').map(([key]) => key);
    assert.deepEqual(overridable, []);
  });
});
