// The Fleet view's settings (gpumem.fleet.*): the Prometheus URL only when it is an http(s) URL without
// credentials in it, the CA file, the window from its enum, the top count clamped to 5-200; and package.json
// declares them so (the URL and the CA file machine-scoped and restricted: a workspace cannot redirect the
// credentials or choose which server is trusted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseFleetSettings } from '../../src/core/settings.ts';

const reader =
  (values: Record<string, unknown>) =>
  (key: string): unknown =>
    values[key];

test('defaults: no Prometheus (the agents), 24h, top 20, the linter’s 30 % headroom', () => {
  assert.deepEqual(parseFleetSettings(reader({})), {
    prometheusUrl: undefined,
    prometheusCaFile: undefined,
    window: '24h',
    top: 20,
    scanConcurrency: 8,
    headroomPercent: 30,
    problems: [],
  });
});

test('the Prometheus URL: http(s) only, trailing slashes dropped, never with credentials', () => {
  const url = (value: unknown) => parseFleetSettings(reader({ 'gpumem.fleet.prometheusUrl': value }));
  assert.equal(url(' https://prom.example:9090/ ').prometheusUrl, 'https://prom.example:9090');
  assert.equal(url('http://127.0.0.1:9090/prometheus').prometheusUrl, 'http://127.0.0.1:9090/prometheus');
  for (const bad of ['file:///etc/passwd', 'prom:9090', 'javascript:alert(1)', 'not a url']) {
    const parsed = url(bad);
    assert.equal(parsed.prometheusUrl, undefined, bad);
    assert.match(parsed.problems[0] ?? '', /not an http/);
  }
  const withUser = url('https://admin:secret@prom.example');
  assert.equal(withUser.prometheusUrl, undefined);
  assert.match(withUser.problems[0] ?? '', /credentials in the URL are ignored/);
  assert.ok(!withUser.problems.join(' ').includes('secret'), 'the password is never repeated');
  assert.equal(url(42).prometheusUrl, undefined);
  assert.deepEqual(url('').problems, []);
});

test('window and top: the enum, clamped', () => {
  const parse = (values: Record<string, unknown>) => parseFleetSettings(reader(values));
  assert.equal(parse({ 'gpumem.fleet.window': '1h' }).window, '1h');
  assert.equal(parse({ 'gpumem.fleet.window': '7d' }).window, '7d');
  assert.equal(parse({ 'gpumem.fleet.window': '30d' }).window, '24h');
  assert.equal(parse({ 'gpumem.fleet.top': 1 }).top, 5);
  assert.equal(parse({ 'gpumem.fleet.top': 5000 }).top, 200);
  assert.equal(parse({ 'gpumem.fleet.top': 42.4 }).top, 42);
  assert.equal(parse({ 'gpumem.fleet.top': '50' }).top, 20);
  assert.equal(parse({ 'gpumem.fleet.prometheusCaFile': ' ~/ca.pem ' }).prometheusCaFile, '~/ca.pem');
  assert.equal(parse({ 'gpumem.fleet.scanConcurrency': 0 }).scanConcurrency, 1);
  assert.equal(parse({ 'gpumem.fleet.scanConcurrency': 1000 }).scanConcurrency, 64);
  assert.equal(parse({ 'gpumem.fleet.scanConcurrency': 12 }).scanConcurrency, 12);
  assert.equal(parse({ 'gpumem.fleet.scanConcurrency': 'all' }).scanConcurrency, 8);
});

test('package.json: the fleet settings as parsed, the URL and CA file machine-scoped and restricted', () => {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, Record<string, unknown>> } };
    capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
  };
  const properties = [manifest.contributes.configuration].flat()[0]?.properties ?? {};
  for (const key of ['gpumem.fleet.prometheusUrl', 'gpumem.fleet.prometheusCaFile']) {
    assert.equal(properties[key]?.scope, 'machine', key);
    assert.equal(properties[key]?.restricted, true, key);
    assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(key), key);
  }
  assert.deepEqual(properties['gpumem.fleet.window']?.enum, ['1h', '24h', '7d']);
  assert.equal(properties['gpumem.fleet.window']?.default, '24h');
  assert.deepEqual(
    [properties['gpumem.fleet.top']?.default, properties['gpumem.fleet.top']?.minimum, properties['gpumem.fleet.top']?.maximum],
    [20, 5, 200],
  );
  assert.deepEqual(
    ['default', 'minimum', 'maximum'].map((key) => properties['gpumem.fleet.scanConcurrency']?.[key]),
    [8, 1, 64],
  );
});
