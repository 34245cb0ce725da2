// RBAC advice names the namespace the API server refused, not the one the caller expected: a fleet read touches the
// agents' namespace, Prometheus's (the service proxy), the scan's and cluster-scoped nodes. The messages are the API
// server's Forbidden wording (plugin/pkg/auth/authorizer/rbac), as test/simulator/status.ts writes them too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { explainKubeFailure } from '../../src/core/kube/failureMessages.ts';

const place = { context: 'prod', namespace: 'gpumem-system', action: 'Read the fleet' };

test('a refusal in another namespace names that namespace in the advice and the can-i command', () => {
  const text = explainKubeFailure(
    {
      kind: 'forbidden',
      verb: 'get',
      resource: 'services/proxy',
      message:
        'services "prometheus-k8s" is forbidden: User "dev" cannot get resource "services/proxy" in API group "" in the namespace "monitoring"',
    },
    place,
  );
  assert.match(text, /may not get services\/proxy in namespace "monitoring" \(RBAC\)/);
  assert.match(text, /kubectl auth can-i get services --subresource=proxy -n monitoring --context=prod/);
  assert.doesNotMatch(text, /gpumem-system/);
});

test('a cluster-scoped refusal names no namespace', () => {
  const text = explainKubeFailure(
    {
      kind: 'forbidden',
      verb: 'list',
      resource: 'nodes',
      message: 'nodes is forbidden: User "dev" cannot list resource "nodes" in API group "" at the cluster scope',
    },
    place,
  );
  assert.match(text, /may not list nodes \(RBAC\)/);
  assert.match(text, /kubectl auth can-i list nodes --context=prod\./);
  assert.doesNotMatch(text, /namespace|-n /);
});

test('a message without either phrase keeps the namespace the caller gave', () => {
  const text = explainKubeFailure({ kind: 'forbidden', verb: 'list', resource: 'pods', message: 'forbidden' }, place);
  assert.match(text, /may not list pods in namespace "gpumem-system"/);
});
