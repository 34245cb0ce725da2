// Workload → pods on recorded API objects (the shapes `kubectl get -o json` returns): ownerReferences followed to
// the top owner, then the selector checked; pods of a renamed workload or an old ReplicaSet are said so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchPods } from '../../src/core/rightsizing/workloadPods.ts';
import { matchSelector } from '../../src/core/rightsizing/labelSelector.ts';

function meta(name: string, uid: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, namespace: 'ml', uid, ...extra };
}
function owner(kind: string, name: string, uid: string): Record<string, unknown> {
  return { apiVersion: 'apps/v1', kind, name, uid, controller: true, blockOwnerDeletion: true };
}

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: meta('llm', 'd1', { annotations: { 'deployment.kubernetes.io/revision': '3' } }),
  spec: {
    selector: { matchLabels: { app: 'llm' } },
    template: { metadata: { labels: { app: 'llm' } }, spec: { containers: [{ name: 'server' }] } },
  },
};
const currentRs = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: meta('llm-7d9f', 'rs3', {
    annotations: { 'deployment.kubernetes.io/revision': '3' },
    ownerReferences: [owner('Deployment', 'llm', 'd1')],
  }),
  spec: { selector: { matchLabels: { app: 'llm', 'pod-template-hash': '7d9f' } } },
};
const oldRs = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: meta('llm-5c2a', 'rs2', {
    annotations: { 'deployment.kubernetes.io/revision': '2' },
    ownerReferences: [owner('Deployment', 'llm', 'd1')],
  }),
  spec: { selector: { matchLabels: { app: 'llm', 'pod-template-hash': '5c2a' } } },
};
const statefulSet = {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: meta('db', 's1'),
  spec: { selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['db'] }] }, template: { spec: { containers: [] } } },
};
const cronJob = {
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: meta('nightly', 'c1'),
  spec: { jobTemplate: { spec: { template: { spec: {} } } } },
};
const job = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: meta('nightly-29001', 'j1', { ownerReferences: [{ ...owner('CronJob', 'nightly', 'c1'), apiVersion: 'batch/v1' }] }),
  spec: { selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'j1' } }, template: { spec: {} } },
};
const bareJob = { apiVersion: 'batch/v1', kind: 'Job', metadata: meta('once', 'j2'), spec: { template: { spec: {} } } };
const daemonSet = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: meta('agent', 'ds1'),
  spec: { selector: { matchLabels: { app: 'agent' } } },
};

function pod(name: string, labels: Record<string, string>, ownerRef: Record<string, unknown> | undefined, node = 'n1'): unknown {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: meta(name, `uid-${name}`, { labels, ...(ownerRef ? { ownerReferences: [ownerRef] } : {}) }),
    spec: { nodeName: node },
  };
}

test('pods reach their top owner through ReplicaSets and Jobs, and old-template pods are marked', () => {
  const pods = [
    pod('llm-7d9f-a', { app: 'llm', 'pod-template-hash': '7d9f' }, owner('ReplicaSet', 'llm-7d9f', 'rs3')),
    pod('llm-5c2a-b', { app: 'llm', 'pod-template-hash': '5c2a' }, owner('ReplicaSet', 'llm-5c2a', 'rs2'), 'n2'),
    pod('db-0', { app: 'db' }, owner('StatefulSet', 'db', 's1')),
    pod(
      'nightly-29001-x',
      { 'batch.kubernetes.io/controller-uid': 'j1' },
      { ...owner('Job', 'nightly-29001', 'j1'), apiVersion: 'batch/v1' },
    ),
    pod('once-y', { 'job-name': 'once' }, { ...owner('Job', 'once', 'j2'), apiVersion: 'batch/v1' }),
    pod('agent-z', { app: 'agent' }, owner('DaemonSet', 'agent', 'ds1')),
  ];
  const result = matchPods([deployment, currentRs, oldRs, statefulSet, cronJob, job, bareJob, daemonSet], pods);
  const byName = new Map(result.workloads.map((w) => [`${w.ref.kind}/${w.ref.name}`, w]));
  // ReplicaSets and Jobs with a controller are not workloads of their own; a bare Job is.
  assert.deepEqual([...byName.keys()].sort(), ['CronJob/nightly', 'DaemonSet/agent', 'Deployment/llm', 'Job/once', 'StatefulSet/db']);
  assert.deepEqual(
    byName.get('Deployment/llm')!.pods.map((p) => [p.name, p.node, p.oldTemplate]),
    [
      ['llm-7d9f-a', 'n1', false],
      ['llm-5c2a-b', 'n2', true],
    ],
  );
  assert.deepEqual(
    byName.get('CronJob/nightly')!.pods.map((p) => p.name),
    ['nightly-29001-x'],
  );
  assert.deepEqual(
    byName.get('StatefulSet/db')!.pods.map((p) => p.name),
    ['db-0'],
  );
  assert.deepEqual(
    byName.get('Job/once')!.pods.map((p) => p.name),
    ['once-y'],
  );
  assert.deepEqual(
    byName.get('DaemonSet/agent')!.pods.map((p) => p.name),
    ['agent-z'],
  );
  assert.deepEqual(result.unmatched, []);
});

test('a renamed workload, a selector that no longer selects, and a bare pod are reported, not guessed', () => {
  const pods = [
    pod('old-name-abc', { app: 'llm' }, owner('ReplicaSet', 'old-name-5f', 'rs-gone')),
    pod('llm-7d9f-c', { app: 'other', 'pod-template-hash': '7d9f' }, owner('ReplicaSet', 'llm-7d9f', 'rs3')),
    pod('debug', {}, undefined),
  ];
  const result = matchPods([deployment, currentRs], pods);
  assert.deepEqual(result.workloads.find((w) => w.ref.name === 'llm')!.pods, []);
  const reasons = new Map(result.unmatched.map((u) => [u.name, u.reason]));
  assert.match(reasons.get('old-name-abc')!, /ReplicaSet old-name-5f is not in the cluster \(renamed or deleted\)/);
  assert.match(reasons.get('llm-7d9f-c')!, /selector does not select it \(label app=llm missing\)/);
  assert.match(reasons.get('debug')!, /bare pod/);
});

test('label selectors: each operator as the API server reads it', () => {
  const labels = new Map([
    ['app', 'db'],
    ['tier', 'gpu'],
  ]);
  const cases: [unknown, string][] = [
    [{ matchLabels: { app: 'db' } }, 'match'],
    [{ matchLabels: { app: 'web' } }, 'no-match'],
    [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['gpu', 'cpu'] }] }, 'match'],
    [{ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['gpu'] }] }, 'no-match'],
    [{ matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }, 'match'],
    [{ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, 'no-match'],
    [{ matchExpressions: [{ key: 'zone', operator: 'Near' }] }, 'invalid'],
    [{ matchExpressions: [{ operator: 'In' }] }, 'invalid'],
  ];
  for (const [selector, expected] of cases) assert.equal(matchSelector(selector, labels).kind, expected, JSON.stringify(selector));
});
