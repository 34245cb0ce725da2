// The strategic-merge patch and the in-place edit of a manifest: only the memory lines and the annotation change,
// comments and layout stay, and the linter (the checks a right-sized unified-memory pod must pass) accepts the result.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse, parseAllDocuments } from 'yaml';
import { editManifest } from '../../src/core/rightsizing/manifestEdit.ts';
import { patchStream, strategicMergePatch } from '../../src/core/rightsizing/patch.ts';
import type { WorkloadChange } from '../../src/core/rightsizing/changes.ts';
import { lintText } from '../../src/core/lint.ts';

const MANIFEST = `# The LLM server (owned by the ML team)
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
  namespace: ml
spec:
  replicas: 2
  selector:
    matchLabels: {app: llm}
  template:
    metadata:
      labels:
        app: llm   # keep in sync with the Service
    spec:
      nodeSelector:
        gpumem.io/unified-memory: "true"
      containers:
        - name: server
          image: ghcr.io/example/llm:1.2
          resources:
            requests:
              memory: "8Gi"   # was sized by hand
            limits:
              amd.com/gpu: 1
              memory: 8Gi
        - name: sidecar
          image: busybox:1.36
---
apiVersion: v1
kind: Service
metadata:
  name: llm
spec:
  ports: [{port: 80}]
`;

const change: WorkloadChange = {
  ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ml', name: 'llm' },
  containers: [
    { container: 'server', memory: '31.5Gi' },
    { container: 'sidecar', memory: '64Mi' },
  ],
  annotations: new Map([['gpumem.io/gpu-memory', '18Gi']]),
};

function changedLines(before: string, after: string): { removed: string[]; added: string[] } {
  const a = before.split('\n');
  const b = after.split('\n');
  const inB = new Map<string, number>();
  for (const line of b) inB.set(line, (inB.get(line) ?? 0) + 1);
  const removed: string[] = [];
  for (const line of a) {
    const left = inB.get(line) ?? 0;
    if (left > 0) inB.set(line, left - 1);
    else removed.push(line);
  }
  const inA = new Map<string, number>();
  for (const line of a) inA.set(line, (inA.get(line) ?? 0) + 1);
  const added: string[] = [];
  for (const line of b) {
    const left = inA.get(line) ?? 0;
    if (left > 0) inA.set(line, left - 1);
    else added.push(line);
  }
  return { removed, added };
}

test('in place: only the memory lines and the annotation change; comments, quotes and flow style stay', () => {
  const outcome = editManifest(MANIFEST, change);
  assert.ok(outcome.found);
  assert.deepEqual(outcome.skipped, []);
  const diff = changedLines(MANIFEST, outcome.text);
  assert.deepEqual(diff.removed, ['              memory: "8Gi"   # was sized by hand', '              memory: 8Gi']);
  assert.deepEqual(diff.added, [
    '      annotations:',
    '        gpumem.io/gpu-memory: 18Gi',
    '              memory: "31.5Gi"   # was sized by hand',
    '              memory: 31.5Gi',
    '          resources:',
    '            requests:',
    '              memory: 64Mi',
    '            limits:',
    '              memory: 64Mi',
  ]);
  assert.ok(outcome.text.startsWith('# The LLM server (owned by the ML team)\n'));
  assert.ok(outcome.text.includes('app: llm   # keep in sync with the Service'));
  // The result reads back with the values asked for.
  const doc = parseAllDocuments(outcome.text, { version: '1.1' })[0]!.toJS() as {
    spec: { template: { metadata: { annotations: Record<string, string> }; spec: { containers: { resources: unknown }[] } } };
  };
  assert.deepEqual(doc.spec.template.metadata.annotations, { 'gpumem.io/gpu-memory': '18Gi' });
  assert.deepEqual(doc.spec.template.spec.containers[0]!.resources, {
    requests: { memory: '31.5Gi' },
    limits: { 'amd.com/gpu': 1, memory: '31.5Gi' },
  });
  assert.deepEqual(doc.spec.template.spec.containers[1]!.resources, { requests: { memory: '64Mi' }, limits: { memory: '64Mi' } });
  // Applying it again changes nothing.
  const again = editManifest(outcome.text, change);
  assert.equal(again.text, outcome.text);
  assert.deepEqual(again.applied, []);
});

test('the edited manifest passes the unified-memory checks the original failed', () => {
  const rules = (text: string): string[] => lintText(text).findings.map((finding) => finding.ruleId);
  const before = rules(MANIFEST);
  assert.ok(before.includes('uma-gpu-memory-undeclared'), before.join(', '));
  const after = rules(editManifest(MANIFEST, change).text);
  for (const id of ['uma-gpu-memory-undeclared', 'uma-headroom', 'yaml-syntax'])
    assert.ok(!after.includes(id), `${id} in ${after.join(', ')}`);
});

test('in place: flow mappings, CRLF, a missing container and values behind a merge key', () => {
  const flow = MANIFEST.replace(
    '          resources:\n            requests:\n              memory: "8Gi"   # was sized by hand\n            limits:\n              amd.com/gpu: 1\n              memory: 8Gi\n',
    '          resources: {limits: {amd.com/gpu: 1}}\n',
  ).replace(/\n/g, '\r\n');
  const outcome = editManifest(flow, { ...change, containers: [...change.containers, { container: 'gone', memory: '1Gi' }] });
  assert.ok(outcome.text.includes('resources: {limits: {amd.com/gpu: 1, memory: 31.5Gi}, requests: {memory: 31.5Gi}}'), outcome.text);
  assert.ok(!/[^\r]\n/.test(outcome.text), 'CRLF kept');
  assert.deepEqual(outcome.skipped, ['container gone: not in the manifest']);
  const merged = `apiVersion: apps/v1
kind: Deployment
metadata: {name: llm, namespace: ml}
spec:
  template:
    spec:
      containers:
        - name: server
          resources:
            limits: &lim
              memory: 8Gi
            requests:
              <<: *lim
`;
  const mergedOutcome = editManifest(merged, { ...change, containers: [change.containers[0]!], annotations: new Map() });
  assert.deepEqual(mergedOutcome.applied, ['container server: limits.memory: 8Gi → 31.5Gi']);
  assert.match(mergedOutcome.skipped.join('\n'), /requests\.memory: its mapping uses a YAML merge key/);
  const elsewhere = editManifest(merged.replace('name: llm', 'name: other'), change);
  assert.equal(elsewhere.found, false);
  assert.equal(elsewhere.text, merged.replace('name: llm', 'name: other'));
});

test('the patch: one strategic-merge document per workload at the kind’s pod template', () => {
  const patch = strategicMergePatch(change);
  assert.ok(patch.kind === 'patch');
  assert.deepEqual(parse(patch.text), {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'llm', namespace: 'ml' },
    spec: {
      template: {
        metadata: { annotations: { 'gpumem.io/gpu-memory': '18Gi' } },
        spec: {
          containers: [
            { name: 'server', resources: { requests: { memory: '31.5Gi' }, limits: { memory: '31.5Gi' } } },
            { name: 'sidecar', resources: { requests: { memory: '64Mi' }, limits: { memory: '64Mi' } } },
          ],
        },
      },
    },
  });
  const cron = strategicMergePatch({ ...change, ref: { apiVersion: 'batch/v1', kind: 'CronJob', namespace: 'ml', name: 'nightly' } });
  assert.ok(cron.kind === 'patch');
  assert.ok((parse(cron.text) as { spec: { jobTemplate: { spec: { template: unknown } } } }).spec.jobTemplate.spec.template);
  const ray = strategicMergePatch({ ...change, ref: { apiVersion: 'ray.io/v1', kind: 'RayCluster', namespace: 'ml', name: 'r\nx' } });
  assert.equal(ray.kind, 'none');
  const stream = patchStream([change, { ...change, ref: { apiVersion: 'ray.io/v1', kind: 'RayCluster', namespace: 'ml', name: 'r\nx' } }]);
  assert.equal(parseAllDocuments(stream).length, 2);
  assert.match(stream, /# RayCluster ml\/r x: no patch/);
});
