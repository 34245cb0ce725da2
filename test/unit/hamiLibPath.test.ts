// The gpumem.probe.hamiLibPath setting (HAMi's devicePlugin.libPath): parsed like --hami-lib-path, an
// invalid value reported and replaced by the default, never written into the probe script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DEFAULT_HAMI_LIB_PATH, hamiLibPathOption, parseHamiLibPathSetting } from '../../src/core/probe/hamiLibPath.ts';
import { buildProbeScript } from '../../src/core/probe/script.ts';

test('unset, empty and the chart default mean the default directory', () => {
  for (const raw of [undefined, null, '', '   ', DEFAULT_HAMI_LIB_PATH]) {
    assert.deepEqual(parseHamiLibPathSetting(raw), { kind: 'default' }, String(raw));
    assert.deepEqual(hamiLibPathOption(parseHamiLibPathSetting(raw)), {});
  }
});

test('a moved directory is used by the node probe', () => {
  const setting = parseHamiLibPathSetting(' /var/lib/hami ');
  assert.deepEqual(setting, { kind: 'custom', path: '/var/lib/hami' });
  const script = buildProbeScript({ scope: 'node', nonce: '0123456789abcdef', ...hamiLibPathOption(setting) });
  assert.match(script, /^GPUMEM_HAMI_DIR='\/var\/lib\/hami'$/m);
});

test('a value that could leave the quotes or the tree is refused with a reason', () => {
  for (const raw of ["/x' ; reboot '", 'relative/dir', '/a/../etc', '/a/./b', '/a b', '/a/', `/${'a'.repeat(5000)}`]) {
    const setting = parseHamiLibPathSetting(raw);
    assert.equal(setting.kind, 'invalid', raw);
    if (setting.kind === 'invalid') assert.match(setting.problem, /absolute path of letters, digits/);
    assert.deepEqual(hamiLibPathOption(setting), {});
  }
  for (const raw of [42, true, ['/usr/local/vgpu'], { path: '/x' }])
    assert.equal(parseHamiLibPathSetting(raw).kind, 'invalid', JSON.stringify(raw));
});

test('package.json: the setting exists, restricted, with the same default and a pattern that agrees with the parser', () => {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
    contributes: {
      configuration: {
        properties: Record<string, { default?: unknown; pattern?: string; restricted?: boolean; markdownDescription?: string }>;
      };
    };
  };
  const schema = manifest.contributes.configuration.properties['gpumem.probe.hamiLibPath'];
  assert.ok(schema, 'contributed');
  assert.equal(schema.default, DEFAULT_HAMI_LIB_PATH);
  assert.equal(schema.restricted, true);
  assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.includes('gpumem.probe.hamiLibPath'));
  assert.match(schema.markdownDescription ?? '', /devicePlugin\.libPath/);
  const pattern = new RegExp(schema.pattern ?? '');
  for (const value of ['/usr/local/vgpu', '/var/lib/hami', '/opt/hami-1.2_x', '/a/../etc', '/a/./b', 'relative', "/x'y", '/a/', '/']) {
    assert.equal(pattern.test(value), parseHamiLibPathSetting(value).kind !== 'invalid', value);
  }
});
