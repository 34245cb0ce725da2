// The right-sizer's text and object inputs: the in-place manifest edit of `gpumem recommend --apply`
// (src/core/rightsizing/manifestEdit.ts) on mutated manifests, and the label-selector match that ties pods to their
// workloads (src/core/rightsizing/labelSelector.ts) on mutated selectors and against an oracle written from the
// Kubernetes API reference (a LabelSelector's requirements are ANDed; In needs the label with a listed value, NotIn
// is met by a missing label, Exists / DoesNotExist test the key only).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import type { WorkloadChange } from '../../src/core/rightsizing/changes.ts';
import { matchSelector } from '../../src/core/rightsizing/labelSelector.ts';
import { editManifest } from '../../src/core/rightsizing/manifestEdit.ts';
import { MANIFESTS } from './corpus.ts';
import { fuzzTarget, renderViolations, RUNS, SEED } from './harness.ts';
import type { Violation } from './harness.ts';

// Manifests of the workloads the changes below name, in the layouts people write: block and flow style, comments,
// quotes, an existing annotation, a missing resources block, a CronJob's nested template, CRLF line ends.
const DEPLOYMENT = `# the inference service
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
  namespace: ml
spec:
  selector: {matchLabels: {app: llm}}
  template:
    metadata:
      labels: {app: llm}
      annotations:
        prometheus.io/scrape: "true"
    spec:
      containers:
        - name: server # holds the GPU
          image: "vllm:0.10"
          resources:
            requests: {memory: 8Gi, amd.com/gpu: "1"}
            limits:
              memory: '16Gi'
              amd.com/gpu: "1"
        - name: proxy
          image: envoy:1.34
`;
const CRONJOB = `apiVersion: batch/v1
kind: CronJob
metadata: {name: embed, namespace: ml}
spec:
  schedule: "0 2 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: embed
            resources:
              limits: {memory: 8Gi}
`;
const EDIT_CORPUS = [DEPLOYMENT, CRONJOB, DEPLOYMENT.replace(/\n/g, '\r\n'), `${DEPLOYMENT}---\n${CRONJOB}`, ...MANIFESTS.slice(0, 6)];

const CHANGES: readonly WorkloadChange[] = [
  {
    ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ml', name: 'llm' },
    containers: [
      { container: 'server', memory: '47Gi' },
      { container: 'proxy', memory: '256Mi' },
    ],
    annotations: new Map([['gpumem.io/gpu-memory', '31Gi']]),
  },
  {
    ref: { apiVersion: 'batch/v1', kind: 'CronJob', namespace: 'ml', name: 'embed' },
    containers: [{ container: 'embed', memory: '10Gi' }],
    annotations: new Map(),
  },
];

const parsesCleanly = (text: string): boolean => parseAllDocuments(text).every((doc) => doc.errors.length === 0);

fuzzTarget({
  name: 'rightsizing.editManifest',
  corpus: EDIT_CORPUS,
  nest: 'yaml',
  run: (input) => CHANGES.map((change) => ({ change, outcome: editManifest(input, change) })),
  check: (results, input): Violation[] => {
    const out: Violation[] = [];
    for (const { change, outcome } of results) {
      const name = change.ref.name;
      out.push(...renderViolations(`editManifest ${name} applied`, outcome.applied.join('\n')));
      out.push(...renderViolations(`editManifest ${name} skipped`, outcome.skipped.join('\n')));
      if (outcome.applied.length === 0 && outcome.text !== input)
        out.push({ property: 'render', message: `${name}: nothing applied, yet the text changed` });
      if (outcome.applied.length === 0) continue;
      // What was valid YAML stays valid YAML, and the edit is done once: a second pass changes nothing.
      if (parsesCleanly(input) && !parsesCleanly(outcome.text))
        out.push({ property: 'render', message: `${name}: the edited text no longer parses` });
      const again = editManifest(outcome.text, change);
      if (again.applied.length > 0 || again.text !== outcome.text)
        out.push({ property: 'differs', message: `${name}: a second pass changed ${JSON.stringify(again.applied)}` });
    }
    return out;
  },
  growth: [
    {
      label: 'many documents before the workload',
      make: (n) =>
        `${Array.from({ length: Math.ceil(n / 40) }, (_, i) => `kind: ConfigMap\nmetadata: {name: c${i}}`).join('\n---\n')}\n---\n${DEPLOYMENT}`,
    },
    {
      label: 'many containers',
      make: (n) =>
        DEPLOYMENT.replace(
          '        - name: proxy\n',
          `${Array.from({ length: Math.ceil(n / 40) }, (_, i) => `        - name: side${i}\n          image: x\n`).join('')}        - name: proxy\n`,
        ),
    },
  ],
});

// Selectors as workloads carry them (JSON, as the API serves them), mutated; the pod's labels are fixed.
const LABELS = new Map([
  ['app', 'llm'],
  ['pod-template-hash', '6f7c9'],
  ['tier', 'gpu'],
]);
const SELECTORS = [
  '{"matchLabels":{"app":"llm","pod-template-hash":"6f7c9"}}',
  '{"matchExpressions":[{"key":"tier","operator":"In","values":["gpu","cpu"]},{"key":"canary","operator":"DoesNotExist"}]}',
  '{"matchLabels":{"app":"llm"},"matchExpressions":[{"key":"tier","operator":"NotIn","values":["cpu"]},{"key":"app","operator":"Exists"}]}',
  '{}',
];

fuzzTarget({
  name: 'rightsizing.matchSelector',
  corpus: SELECTORS,
  nest: 'json',
  run: (input) => {
    let selector: unknown;
    try {
      selector = JSON.parse(input) as unknown;
    } catch {
      return { kind: 'not JSON' };
    }
    return matchSelector(selector, LABELS);
  },
  check: (result): Violation[] => ('reason' in result ? renderViolations('matchSelector reason', result.reason) : []),
});

// The oracle: Kubernetes' semantics, written here from the API reference rather than from the code under test.
type Requirement = { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values: string[] };
function oracle(matchLabels: Record<string, string>, expressions: readonly Requirement[], labels: ReadonlyMap<string, string>): boolean {
  const byLabels = Object.entries(matchLabels).every(([key, value]) => labels.get(key) === value);
  const byExpressions = expressions.every((r) => {
    const value = labels.get(r.key);
    switch (r.operator) {
      case 'In':
        return value !== undefined && r.values.includes(value);
      case 'NotIn':
        return value === undefined || !r.values.includes(value);
      case 'Exists':
        return labels.has(r.key);
      case 'DoesNotExist':
        return !labels.has(r.key);
    }
  });
  return byLabels && byExpressions;
}

test('rightsizing.matchSelector agrees with the API semantics on random selectors and labels', () => {
  const key = fc.constantFrom('app', 'tier', 'pod-template-hash', 'canary', 'x/y');
  const value = fc.constantFrom('llm', 'gpu', 'cpu', '6f7c9', '');
  const requirement = fc.record({
    key,
    operator: fc.constantFrom('In', 'NotIn', 'Exists', 'DoesNotExist') as fc.Arbitrary<Requirement['operator']>,
    values: fc.array(value, { maxLength: 3 }),
  });
  fc.assert(
    fc.property(
      fc.dictionary(key, value, { maxKeys: 3 }),
      fc.array(requirement, { maxLength: 4 }),
      fc.dictionary(key, value, { maxKeys: 5 }),
      (matchLabels, expressions, labelObject) => {
        const labels = new Map(Object.entries(labelObject));
        const result = matchSelector({ matchLabels, matchExpressions: expressions }, labels);
        assert.notEqual(result.kind, 'invalid');
        assert.equal(
          result.kind === 'match',
          oracle(matchLabels, expressions, labels),
          JSON.stringify({ matchLabels, expressions, labelObject }),
        );
      },
    ),
    { seed: SEED, numRuns: RUNS * 10 },
  );
});
