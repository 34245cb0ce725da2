// What the editor's live cache keeps of an API object (src/core/live/trimObject.ts): on recorded objects (a
// Deployment with managedFields and the last-applied annotation, its ReplicaSet, a StatefulSet, a CronJob and its
// Job, their pods), the matching and the live containers read from the trimmed objects are those read from the
// originals, and the heavy fields are gone; on arbitrary JSON the trimming never throws and gives plain JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { trimPod, trimWorkload } from '../../src/core/live/trimObject.ts';
import { liveTemplates } from '../../src/core/rightsizing/liveContainers.ts';
import { apiOomKills } from '../../src/core/rightsizing/apiKills.ts';
import { matchPods } from '../../src/core/rightsizing/workloadPods.ts';

const managedFields = [{ manager: 'kubectl', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }];
const template = (app: string, memory: string) => ({
  metadata: { labels: { app } },
  spec: {
    containers: [
      {
        name: 'main',
        image: 'example',
        env: [
          { name: 'CUDA_DEVICE_MEMORY_LIMIT', value: '8192m' },
          { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
        ],
        resources: { requests: { memory }, limits: { memory, 'nvidia.com/gpu': '1' } },
      },
    ],
  },
});
const owner = (apiVersion: string, kind: string, name: string, uid: string) => [
  { apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true },
];

const objects = [
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'llm',
      namespace: 'ml',
      uid: 'd1',
      managedFields,
      annotations: { 'deployment.kubernetes.io/revision': '2', 'kubectl.kubernetes.io/last-applied-configuration': '{"big":"json"}' },
    },
    spec: { replicas: 2, selector: { matchLabels: { app: 'llm' } }, template: template('llm', '48Gi') },
    status: { replicas: 2 },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: 'llm-1',
      namespace: 'ml',
      uid: 'rs1',
      annotations: { 'deployment.kubernetes.io/revision': '1' },
      ownerReferences: owner('apps/v1', 'Deployment', 'llm', 'd1'),
    },
    spec: { selector: { matchLabels: { app: 'llm' } }, template: template('llm', '32Gi') },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: 'llm-2',
      namespace: 'ml',
      uid: 'rs2',
      annotations: { 'deployment.kubernetes.io/revision': '2' },
      ownerReferences: owner('apps/v1', 'Deployment', 'llm', 'd1'),
    },
    spec: { selector: { matchLabels: { app: 'llm' } }, template: template('llm', '48Gi') },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db', namespace: 'ml', uid: 's1' },
    spec: { selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['db'] }] }, template: template('db', '4Gi') },
  },
  {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'nightly', namespace: 'ml', uid: 'c1' },
    spec: { schedule: '0 2 * * *', jobTemplate: { spec: { template: template('nightly', '2Gi') } } },
  },
  {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'nightly-1', namespace: 'ml', uid: 'j1', ownerReferences: owner('batch/v1', 'CronJob', 'nightly', 'c1') },
    spec: { selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'j1' } }, template: template('nightly', '2Gi') },
  },
];
const pod = (name: string, labels: Record<string, string>, ownerRef: unknown, oom: boolean) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'ml', uid: `u-${name}`, labels, ownerReferences: ownerRef, managedFields },
  spec: { nodeName: 'n1', containers: [{ name: 'main', image: 'example', args: ['--long'] }] },
  status: {
    phase: 'Running',
    containerStatuses: [
      {
        name: 'main',
        restartCount: 1,
        imageID: 'sha256:abc',
        state: { running: { startedAt: '2026-12-01T00:00:00Z' } },
        lastState: oom ? { terminated: { reason: 'OOMKilled', exitCode: 137, finishedAt: new Date('2026-12-01T00:00:00Z') } } : {},
      },
    ],
  },
});
const pods = [
  pod('llm-2-a', { app: 'llm' }, owner('apps/v1', 'ReplicaSet', 'llm-2', 'rs2'), true),
  pod('llm-1-b', { app: 'llm' }, owner('apps/v1', 'ReplicaSet', 'llm-1', 'rs1'), false),
  pod('db-0', { app: 'db' }, owner('apps/v1', 'StatefulSet', 'db', 's1'), true),
  pod('nightly-1-x', { 'batch.kubernetes.io/controller-uid': 'j1' }, owner('batch/v1', 'Job', 'nightly-1', 'j1'), false),
];

const trimAll = () => ({
  objects: objects.map((one) => trimWorkload(one, one.kind, one.apiVersion)),
  pods: pods.map((one) => trimPod(one)),
});

test('the matching and the live containers of trimmed objects are those of the originals', () => {
  const trimmed = trimAll();
  const summary = (matching: ReturnType<typeof matchPods>) =>
    matching.workloads.map((w) => [w.ref.kind, w.ref.name, w.pods.map((p) => `${p.name}${p.oldTemplate ? ' old' : ''}@${p.node}`)]).sort();
  assert.deepEqual(summary(matchPods(trimmed.objects, trimmed.pods)), summary(matchPods(objects, pods)));
  // The workloads as the fixture writes them: the Deployment with its current and its older pod, the StatefulSet, the CronJob.
  assert.deepEqual(summary(matchPods(trimmed.objects, trimmed.pods)), [
    ['CronJob', 'nightly', ['nightly-1-x@n1']],
    ['Deployment', 'llm', ['llm-2-a@n1', 'llm-1-b old@n1']],
    ['StatefulSet', 'db', ['db-0@n1']],
  ]);
  for (const [i, object] of objects.entries()) {
    if (object.kind === 'ReplicaSet' || object.kind === 'Job') continue; // their templates are their parents'
    assert.deepEqual(liveTemplates(trimmed.objects[i]), liveTemplates(object), object.kind);
  }
  assert.deepEqual([...apiOomKills(trimmed.pods)], [...apiOomKills(pods)]);
  assert.deepEqual(
    [...apiOomKills(trimmed.pods)],
    [
      ['ml/llm-2-a/main', 1],
      ['ml/db-0/main', 1],
    ],
  );
});

test('the heavy fields are gone: managedFields, last-applied, status of workloads, intermediate templates, env from secrets', () => {
  const { objects: trimmed, pods: trimmedPods } = trimAll();
  const text = JSON.stringify([trimmed, trimmedPods]);
  assert.ok(!text.includes('managedFields'));
  assert.ok(!text.includes('last-applied'));
  assert.ok(!text.includes('FROM_SECRET'));
  assert.ok(!text.includes('imageID'));
  assert.ok(text.includes('CUDA_DEVICE_MEMORY_LIMIT'), "HAMi's literal variables are kept");
  const replicaSet = trimmed[1] as { spec: Record<string, unknown> };
  assert.equal(replicaSet.spec['template'], undefined);
  // client-node's Date as RFC 3339 text.
  assert.match(text, /"finishedAt":"2026-12-01T00:00:00.000Z"/);
});

test('on arbitrary JSON the trimming never throws and gives plain JSON', () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.constantFrom('Deployment', 'ReplicaSet', 'Job', 'CronJob'), (value, kind) => {
      for (const out of [trimPod(value), trimWorkload(value, kind, 'apps/v1')]) assert.deepEqual(JSON.parse(JSON.stringify(out)), out);
    }),
    { seed: 36, numRuns: 300 },
  );
});
