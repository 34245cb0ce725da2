// Pods of kinds, or API versions, the kind table does not place are found by their shape and checked, with the
// path in each finding and one read-by-shape notice per kind that runs a GPU. Inputs: a KServe ServingRuntime and a
// Kubeflow MPIJob v1alpha1 from the projects' own repositories (provenance in each fixture's header), and objects
// written here for what must stay quiet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { parseDocument } from 'yaml';
import { lintText } from '../../src/core/lint.ts';
import { findPodTemplatesByShape } from '../../src/core/manifest/shapeTemplates.ts';
import { YamlTree } from '../../src/core/manifest/yamlTree.ts';

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/manifests/by-shape/${name}`, import.meta.url), 'utf8');

test('a KServe ServingRuntime: spec and workerSpec are pod specs; the GPU container is summarised, the notice names both paths', () => {
  const result = lintText(fixture('kserve-servingruntime-multinode.yaml'));
  const gpu = result.containers.map((one) => one.container);
  // Only kserve-container asks for a GPU (nvidia.com/gpu: "1"); the worker asks for none in this runtime.
  assert.deepEqual(gpu, ['kserve-container']);
  assert.equal(result.containers[0]?.limit, '48Gi');
  const notices = result.findings.filter((one) => one.ruleId === 'read-by-shape');
  assert.equal(notices.length, 1);
  assert.equal(notices[0]?.severity, 'info');
  assert.match(notices[0]?.message ?? '', /^ServingRuntime \(serving\.kserve\.io\/v1alpha1\) is not a kind or API version gpumem knows/);
  assert.match(notices[0]?.message ?? '', /\(`spec`, `spec\.workerSpec`\)/);
});

test('an MPIJob of kubeflow.org/v1alpha1: its spec.template is read, and the GPU container without a memory limit is found, the path named', () => {
  const result = lintText(fixture('kubeflow-mpijob-v1alpha1.yaml'));
  assert.deepEqual(
    result.containers.map((one) => one.container),
    ['benchmarks'],
  );
  const noLimit = result.findings.find((one) => one.ruleId === 'gpu-no-memory-limit');
  assert.ok(noLimit, 'the container has nvidia.com/gpu and no memory limit');
  assert.match(noLimit.message, /\[spec\.template\]/);
  assert.equal(result.findings.filter((one) => one.ruleId === 'read-by-shape').length, 1);
});

test('known kinds keep their table and get no notice; kinds without a GPU pod stay quiet; metadata and status are never read', () => {
  const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: { name: d }
spec:
  template:
    spec:
      containers:
        - name: c
          image: x
          resources: { limits: { nvidia.com/gpu: 1, memory: 8Gi } }
`;
  assert.equal(lintText(deployment).findings.filter((one) => one.ruleId === 'read-by-shape').length, 0);
  const cpuOnly = `apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata: { name: p }
spec:
  containers:
    - name: prometheus
      image: quay.io/prometheus/prometheus:v3.0.0
`;
  const quiet = lintText(cpuOnly);
  assert.deepEqual(quiet.findings, []);
  const inStatus = `apiVersion: example.com/v1
kind: Thing
metadata:
  name: t
  annotations: {}
status:
  template:
    spec:
      containers: [{ name: c, image: x, resources: { limits: { nvidia.com/gpu: 1 } } }]
`;
  assert.deepEqual(lintText(inStatus).findings, []);
});

test('two objects of one unknown kind: one notice, counting both', () => {
  const one = (name: string) => `apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata: { name: ${name} }
spec:
  template:
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.11.0
          resources: { limits: { nvidia.com/gpu: 1, memory: 64Gi }, requests: { memory: 64Gi } }
`;
  const result = lintText(`${one('a')}---\n${one('b')}`);
  const notices = result.findings.filter((finding) => finding.ruleId === 'read-by-shape');
  assert.equal(notices.length, 1);
  assert.match(notices[0]?.message ?? '', /in 2 objects/);
  assert.equal(result.containers.length, 2);
});

test('the shape search visits each node once: an anchor named by many aliases is walked once, and any YAML never throws', () => {
  const aliases = Array.from({ length: 2000 }, (_, i) => `  k${i}: *big`).join('\n');
  const bigMap = Array.from({ length: 500 }, (_, i) => `    f${i}: { a: [1, 2, 3] }`).join('\n');
  const text = `apiVersion: example.com/v1\nkind: Many\nmetadata: { name: m }\nspec:\n  big: &big\n${bigMap}\n${aliases}\n`;
  const doc = parseDocument(text);
  const tree = new YamlTree(doc, 1_000_000);
  assert.deepEqual(findPodTemplatesByShape(tree, tree.root!), []);
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
      const parsed = parseDocument(JSON.stringify({ apiVersion: 'x/v1', kind: 'K', metadata: { name: 'n' }, spec: value }));
      const yamlTree = new YamlTree(parsed);
      const root = yamlTree.root;
      if (root) findPodTemplatesByShape(yamlTree, root);
      lintText(String(parsed));
    }),
    { seed: 20261207, numRuns: 300 },
  );
});
