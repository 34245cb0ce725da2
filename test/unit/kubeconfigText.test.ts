// parseKubeconfigText on hostile shapes the fuzz suite found (test/fuzz/kubeconfig.fuzz.ts): a deeply nested
// document used to escape as js-yaml's "nesting exceeded maxDepth (100)" from client-node, or as a RangeError
// (stack overflow); now it is one clear Error that loadKubeconfigs reports as "not a kubeconfig (…)".
import assert from 'node:assert/strict';
import { test } from 'node:test';
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
