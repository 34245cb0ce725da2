// parseKubeconfigText on hostile shapes the fuzz suite found (test/fuzz/kubeconfig.fuzz.ts): a deeply nested
// document used to escape as js-yaml's "nesting exceeded maxDepth (100)" from client-node, or as a RangeError
// (stack overflow); now it is one clear Error that loadKubeconfigs reports as "not a kubeconfig (…)".
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { parseKubeconfigText } from '../../src/kube/kubeconfig.ts';

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
        assert.equal(error.name, expected.name);
        assert.equal(error.message, expected.message);
        return true;
      },
    );
  }
});
