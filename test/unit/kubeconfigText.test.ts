// parseKubeconfigText on hostile shapes the fuzz suite found (test/fuzz/kubeconfig.fuzz.ts): a deeply nested
// document used to escape as js-yaml's "nesting exceeded maxDepth (100)" from client-node, or as a RangeError
// (stack overflow); now it is one clear Error that loadKubeconfigs reports as "not a kubeconfig (…)".
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { Composer, Parser, parse as parseYaml } from 'yaml';
import type { Document } from 'yaml';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readBoundedText } from '../../src/files/boundedRead.ts';
import { loadKubeconfigs, MAX_KUBECONFIG_BYTES, parseKubeconfigText } from '../../src/kube/kubeconfig.ts';
import { keepFirstError } from '../../src/core/text/boundedYaml.ts';

const HEAD = 'apiVersion: v1\nkind: Config\nclusters:\n- name: a\n  cluster:\n    server: https://192.0.2.1:6443\n';

function nested(depth: number): string {
  return `${HEAD}${Array.from({ length: depth }, (_, i) => `${' '.repeat(i * 2)}k${i}:`).join('\n')} x\n`;
}

test('kubeconfig: a document nested deeper than any kubeconfig is refused with a clear message', () => {
  for (const depth of [150, 800, 3000]) {
    assert.throws(
      () => parseKubeconfigText(nested(depth), '/home/ana/.kube/config'),
      (error: unknown) => {
        assert.ok(error instanceof Error && !(error instanceof RangeError), `depth ${depth}: ${String(error)}`);
        assert.match(error.message, /nests deeper than/, `depth ${depth}`);
        return true;
      },
    );
  }
});

test('kubeconfig: ordinary nesting still loads', () => {
  const { parsed, problems } = parseKubeconfigText(
    `${HEAD}contexts:\n- name: a\n  context: {cluster: a, user: u}\nusers:\n- name: u\n  user: {token: t}\ncurrent-context: a\n`,
    '/home/ana/.kube/config',
  );
  assert.deepEqual(problems, []);
  assert.equal(parsed.currentContext, 'a');
  assert.deepEqual(
    parsed.clusters.map((cluster) => cluster.server),
    ['https://192.0.2.1:6443'],
  );
});

// A run of stray flow brackets after the document (the long fuzz run, seed 1532204069: 4 MiB, ~2.9M of them)
// is one CST error token per character; yaml's parse() built a YAMLParseError with a captured stack for each
// before throwing the first, gigabytes of heap. The refusal must stay in memory bounded by the text.
test('kubeconfig: a megabyte of stray brackets is refused within a small heap', () => {
  const module = new URL('../../src/kube/kubeconfig.ts', import.meta.url).href;
  const script = `import { parseKubeconfigText } from ${JSON.stringify(module)};
const text = ${JSON.stringify(HEAD)} + '- name: b\\n  cluster: {server: x}}' + '['.repeat(1 << 20) + '\\n';
try { parseKubeconfigText(text, '/home/ana/.kube/config'); console.log('parsed'); } catch (error) { console.log(error.name); }`;
  const child = spawnSync(process.execPath, ['--max-old-space-size=96', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(
    child.status,
    0,
    `exit ${child.status} ${child.signal ?? ''}: ${child.stderr.split('\n').find((line) => /heap|Error/.test(line)) ?? child.stderr.slice(0, 300)}`,
  );
  assert.equal(child.stdout.trim(), 'YAMLParseError');
});

// yaml.parse throws a bare ReferenceError, with no position, for an unresolved alias (it resolves aliases in toJS):
// the kubeconfig parser throws it as the parse error it is, with yaml.parse's message, its line and column (long fuzz
// run, seed 814983: the text `**` escaped as a ReferenceError).
test('kubeconfig: broken YAML throws the first error yaml.parse would throw', () => {
  const inputs = [
    `${HEAD}- name: b\n  cluster: {server: x}}${'['.repeat(50)}\n`,
    `${HEAD}}}}]]]`,
    `${HEAD}a: 1\na: 2\n`,
    `${HEAD}  bad indent: [\n`,
    `${HEAD}---\nkind: Config\n`,
    `--- !x\n]]\n---\n{{`,
    '*undefinedAlias',
    `${HEAD}x: {a: b: c}\n]`,
    // Compose-time errors, one per line: the first is the one thrown.
    `${HEAD}${'a: 1\n'.repeat(500)}`,
    `${HEAD}x:\n${'\tb: 1\n'.repeat(500)}`,
    `${HEAD}${'y: *nowhere\n'.repeat(500)}`,
    `a: {${'b: 1, '.repeat(500)}}\n`,
  ];
  for (const input of inputs) {
    let expected: unknown;
    try {
      parseYaml(input, { logLevel: 'error' });
    } catch (error) {
      expected = error;
    }
    assert.ok(expected instanceof Error, `yaml.parse throws on ${JSON.stringify(input.slice(-40))}`);
    assert.throws(
      () => parseKubeconfigText(input, '/home/ana/.kube/config'),
      (error: unknown) => {
        assert.ok(error instanceof Error);
        if (expected instanceof ReferenceError) {
          assert.equal(error.name, 'YAMLParseError');
          assert.equal((error as { code?: string }).code, 'BAD_ALIAS');
          assert.ok(error.message.startsWith(`${expected.message} at line `), error.message);
          return true;
        }
        assert.equal(error.name, expected.name);
        assert.equal(error.message, expected.message);
        return true;
      },
    );
  }
});

// A file of duplicate keys (or tab indents, or unknown aliases) made the composer build one YAMLParseError, stack
// included, per line: 370 bytes of heap per character of the file. It keeps the first now, the one parse() throws.
test('kubeconfig: the composer keeps only the first of many compose-time errors, the same first error', () => {
  const text = `${HEAD}${'a: 1\n'.repeat(10_000)}`;
  const compose = (limit: boolean): Document.Parsed[] => {
    const composer = new Composer({ logLevel: 'error' });
    if (limit) keepFirstError(composer);
    return [...composer.compose(new Parser().parse(text), true, text.length)];
  };
  const [all] = compose(false);
  const [kept] = compose(true);
  assert.ok(all && kept);
  assert.ok(all.errors.length >= 9_999, `${all.errors.length} errors without the limit`);
  assert.equal(kept.errors.length, 1);
  assert.equal(kept.errors[0]?.code, all.errors[0]?.code);
  assert.deepEqual(kept.errors[0]?.pos, all.errors[0]?.pos);
  assert.equal(kept.warnings.length, 0);
});

test('kubeconfig: a file larger than the cap is not read past it, with a clear problem; one under it loads', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpumem-kubeconfig-'));
  try {
    const big = join(dir, 'big');
    writeFileSync(big, `${HEAD}#${'x'.repeat(MAX_KUBECONFIG_BYTES)}\n`);
    const small = join(dir, 'small');
    writeFileSync(
      small,
      `${HEAD}contexts:\n- name: a\n  context: {cluster: a, user: u}\nusers:\n- name: u\n  user: {token: t}\ncurrent-context: a\n`,
    );
    assert.deepEqual(await readBoundedText(big, { kind: 'kubeconfig' }), {
      kind: 'too-large',
      limitBytes: MAX_KUBECONFIG_BYTES,
      reason: 'stopped at 8 MiB: a kubeconfig is read up to 8 MiB',
    });
    const loaded = await loadKubeconfigs({ env: { KUBECONFIG: [big, small].join(':') }, home: dir });
    assert.deepEqual(loaded.problems, [`${big}: not read: stopped at 8 MiB: a kubeconfig is read up to 8 MiB`]);
    assert.deepEqual(
      loaded.contexts.map((context) => context.name),
      ['a'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('kubeconfig: an endless source (/dev/zero) is refused as a device, not read', async () => {
  const loaded = await loadKubeconfigs({ env: { KUBECONFIG: '/dev/zero' }, home: '/nonexistent' });
  assert.deepEqual(loaded.problems, ['/dev/zero: not read: is a character device, not a regular file']);
});

test('kubeconfig: an alias with no anchor before it, or too many alias expansions, is a YAML error at that alias', () => {
  const cases: [string, RegExp][] = [
    ['**', /^Unresolved alias \(the anchor must be set before the alias\): \* at line 1, column 1:/],
    [
      `${HEAD}users:\n- name: a\n  user: *creds\n`,
      /^Unresolved alias \(the anchor must be set before the alias\): creds at line \d+, column 9:/,
    ],
    [
      `a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]\nb: &b [${'*a, '.repeat(8)}*a]\nc: &c [${'*b, '.repeat(8)}*b]\nd: [${'*c, '.repeat(8)}*c]\n`,
      /^Excessive alias count indicates a resource exhaustion attack at line 2, column 8:/,
    ],
  ];
  for (const [input, message] of cases) {
    assert.throws(
      () => parseKubeconfigText(input, '/home/ana/.kube/config'),
      (error: unknown) => error instanceof Error && error.name === 'YAMLParseError' && message.test(error.message),
      JSON.stringify(input.slice(0, 40)),
    );
  }
});
