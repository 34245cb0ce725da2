// Where pod templates come from (the kinds table, List, multi-document files) and Helm input, rendered
// (`# Source:` comments) and unrendered (`{{ … }}` actions masked).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertNone, expectAll, expectOne, findingsOf, fixture, lint, ruleIds, yaml } from './helpers/lint.ts';

interface KindCase {
  readonly kind: string;
  readonly text: string;
  /** One gpu-no-memory-limit per template: the container, its line, and the role in the message. */
  readonly expected: readonly { readonly container: string; readonly line: number; readonly role?: string }[];
}

const KIND_CASES: readonly KindCase[] = [
  {
    kind: 'Pod',
    text: yaml`
apiVersion: v1
kind: Pod
metadata:
  name: w
spec:
  containers:
    - name: gpu
      resources:
        limits: {nvidia.com/gpu: 1}
`,
    expected: [{ container: 'gpu', line: 7 }],
  },
  ...(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet'] as const).map((kind) => ({
    kind,
    text: yaml`
apiVersion: apps/v1
kind: ${kind}
metadata:
  name: w
spec:
  template:
    spec:
      containers:
        - name: gpu
          resources:
            limits: {nvidia.com/gpu: 1}
`,
    expected: [{ container: 'gpu', line: 9 }],
  })),
  {
    kind: 'Job',
    text: yaml`
apiVersion: batch/v1
kind: Job
metadata:
  name: w
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: gpu
          resources:
            limits: {nvidia.com/gpu: 1}
`,
    expected: [{ container: 'gpu', line: 11 }],
  },
  {
    kind: 'CronJob',
    text: yaml`
apiVersion: batch/v1
kind: CronJob
metadata:
  name: w
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          containers:
            - name: gpu
              resources:
                limits: {nvidia.com/gpu: 1}
`,
    expected: [{ container: 'gpu', line: 12 }],
  },
  {
    kind: 'ReplicationController',
    text: yaml`
apiVersion: v1
kind: ReplicationController
metadata:
  name: w
spec:
  replicas: 1
  template:
    spec:
      containers:
        - name: gpu
          resources:
            limits: {nvidia.com/gpu: 1}
`,
    expected: [{ container: 'gpu', line: 10 }],
  },
  {
    kind: 'PodTemplate',
    text: yaml`
apiVersion: v1
kind: PodTemplate
metadata:
  name: w
template:
  spec:
    containers:
      - name: gpu
        resources:
          limits: {nvidia.com/gpu: 1}
`,
    expected: [{ container: 'gpu', line: 8 }],
  },
  {
    kind: 'Rollout (Argo)',
    text: yaml`
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: w
spec:
  strategy:
    canary: {steps: [{setWeight: 20}]}
  template:
    spec:
      containers:
        - name: gpu
          resources:
            limits: {nvidia.com/gpu: 1}
`,
    expected: [{ container: 'gpu', line: 11 }],
  },
  {
    kind: 'RayCluster',
    text: yaml`
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: w
spec:
  headGroupSpec:
    template:
      spec:
        containers:
          - name: head
            resources:
              limits: {nvidia.com/gpu: 1}
  workerGroupSpecs:
    - groupName: cpu-group
      template:
        spec:
          containers:
            - name: cpu-worker
    - groupName: gpu-group
      template:
        spec:
          containers:
            - name: gpu-worker
              resources:
                limits: {nvidia.com/gpu: 1}
`,
    expected: [
      { container: 'head', line: 10, role: '[headGroupSpec]' },
      { container: 'gpu-worker', line: 23, role: '[workerGroupSpecs[gpu-group]]' },
    ],
  },
  {
    kind: 'RayJob',
    text: yaml`
apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: w
spec:
  entrypoint: python train.py
  rayClusterSpec:
    headGroupSpec:
      template:
        spec:
          containers:
            - name: head
    workerGroupSpecs:
      - groupName: gpu-group
        template:
          spec:
            containers:
              - name: gpu-worker
                resources:
                  limits: {nvidia.com/gpu: 1}
`,
    expected: [{ container: 'gpu-worker', line: 18, role: '[workerGroupSpecs[gpu-group]]' }],
  },
  {
    kind: 'RayService',
    text: yaml`
apiVersion: ray.io/v1
kind: RayService
metadata:
  name: w
spec:
  serveConfigV2: |
    applications: []
  rayClusterConfig:
    headGroupSpec:
      template:
        spec:
          containers:
            - name: head
              resources:
                limits: {nvidia.com/gpu: 1}
    workerGroupSpecs:
      - groupName: gpu-group
        template:
          spec:
            containers:
              - name: gpu-worker
                resources:
                  limits: {nvidia.com/gpu: 1}
`,
    expected: [
      { container: 'head', line: 13, role: '[headGroupSpec]' },
      { container: 'gpu-worker', line: 21, role: '[workerGroupSpecs[gpu-group]]' },
    ],
  },
  {
    kind: 'List',
    text: yaml`
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Pod
    metadata:
      name: a
    spec:
      containers:
        - name: gpu
          resources:
            limits: {nvidia.com/gpu: 1}
  - apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: b
    spec:
      template:
        spec:
          containers:
            - name: other-gpu
              resources:
                limits: {nvidia.com/gpu: 1}
`,
    expected: [
      { container: 'gpu', line: 10 },
      { container: 'other-gpu', line: 21 },
    ],
  },
];

describe('kinds table', () => {
  for (const c of KIND_CASES) {
    test(`${c.kind}: every pod template is linted, with the role of multi-template kinds in the message`, () => {
      const result = lint(c.text);
      const findings = expectAll(
        c.text,
        result,
        'gpu-no-memory-limit',
        c.expected.map((e) => ({ severity: 'warning', container: e.container, token: e.container, line: e.line })),
      );
      findings.forEach((finding, i) => {
        const role = c.expected[i]?.role;
        if (role) assert.ok(finding.message.endsWith(` ${role}`), `role in ${finding.message}`);
        else assert.doesNotMatch(finding.message, /\]$/);
      });
      assert.deepEqual(
        result.containers.map((s) => s.container),
        c.expected.map((e) => e.container),
      );
    });
  }

  test('objects keep their kind and name', () => {
    const list = KIND_CASES.find((c) => c.kind === 'List');
    assert.ok(list);
    const objects = findingsOf(lint(list.text), 'gpu-no-memory-limit').map((f) => `${f.object?.kind}/${f.object?.name}`);
    assert.deepEqual(objects, ['Pod/a', 'Deployment/b']);
  });

  test('unknown kinds, and known kinds of another API group, produce nothing', () => {
    for (const [apiVersion, kind] of [
      ['example.com/v1', 'Widget'],
      ['example.com/v1', 'Deployment'],
      ['v1', 'Service'],
      ['v1', 'ConfigMap'],
    ]) {
      const text = yaml`
apiVersion: ${apiVersion}
kind: ${kind}
metadata:
  name: w
spec:
  template:
    spec:
      containers:
        - name: gpu
          resources:
            limits: {nvidia.com/gpu: 1}
`;
      const result = lint(text);
      assert.deepEqual(result.findings, [], `${apiVersion} ${kind}`);
      assert.deepEqual(result.containers, []);
    }
    // The same body as an apps/v1 Deployment is linted: the near miss above is the kind or the group.
    const deployment = yaml`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: w
spec:
  template:
    spec:
      containers:
        - name: gpu
          resources:
            limits: {nvidia.com/gpu: 1}
`;
    assert.equal(findingsOf(lint(deployment), 'gpu-no-memory-limit').length, 1);
  });

  test('init containers with GPUs count; ephemeral containers do not', () => {
    const text = yaml`
apiVersion: batch/v1
kind: Job
metadata:
  name: w
spec:
  template:
    spec:
      initContainers:
        - name: prefetch
          resources:
            limits: {nvidia.com/gpu: 1}
      containers:
        - name: main
          resources:
            limits: {cpu: 1}
      ephemeralContainers:
        - name: debug
          resources:
            limits: {nvidia.com/gpu: 1}
`;
    expectAll(text, lint(text), 'gpu-no-memory-limit', [{ severity: 'warning', container: 'prefetch', token: 'prefetch', line: 9 }]);
  });

  test('a realistic KubeRay RayCluster: only the GPU worker group on GB10 nodes is reported', () => {
    const text = fixture('raycluster-gpu.yaml');
    const result = lint(text);
    expectOne(text, result, {
      ruleId: 'gpu-no-memory-limit',
      severity: 'error',
      container: 'ray-worker',
      token: 'ray-worker',
      line: 58,
      message: '[workerGroupSpecs[gpu-group]]',
    });
    expectOne(text, result, {
      ruleId: 'uma-gpu-memory-undeclared',
      severity: 'info',
      container: 'ray-worker',
      token: 'ray-worker',
      line: 58,
      message: 'nodeSelector nvidia.com/gpu.product=NVIDIA-GB10',
    });
    expectOne(text, result, {
      ruleId: 'uma-not-guaranteed',
      severity: 'info',
      container: 'ray-worker',
      token: 'ray-worker',
      line: 58,
      message: 'container "ray-worker" has no memory limit',
    });
    assert.equal(result.findings.length, 3);
  });
});

describe('multi-document files', () => {
  test('findings in documents 1 and 3 have their own lines; a broken document 2 is reported and skipped', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: first
spec:
  containers:
    - name: one
      resources:
        limits: {nvidia.com/gpu: 1}
---
apiVersion: v1
kind: Service
metadata:
  name: svc: broken
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: third
spec:
  template:
    spec:
      containers:
        - name: three
          resources:
            limits:
              nvidia.com/gpu: 1
              memory: 1Gb
`;
    const result = lint(text);
    expectAll(text, result, 'gpu-no-memory-limit', [{ severity: 'warning', container: 'one', token: 'one', line: 7 }]);
    expectOne(text, result, { ruleId: 'invalid-quantity', severity: 'error', container: 'three', token: '1Gb', line: 28 });
    // The parser's error position: the start of the scalar that cannot be a compact mapping.
    const syntax = expectOne(text, result, { ruleId: 'yaml-syntax', severity: 'warning', container: undefined, token: 's', line: 14 });
    assert.equal(syntax.span.start, text.indexOf('svc: broken'));
    assert.match(syntax.message, /^This YAML document was not analysed: Nested mappings are not allowed in compact mappings/);
    assert.deepEqual(
      findingsOf(result, 'gpu-no-memory-limit').map((f) => f.object?.name),
      ['first'],
    );
    assert.equal(findingsOf(result, 'invalid-quantity')[0]?.object?.name, 'third');
  });

  test('the same pod twice in one file gives two findings, one per document', () => {
    const doc = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: gpu
      resources:
        limits: {nvidia.com/gpu: 1}
`;
    const text = `${doc}---\n${doc}`;
    expectAll(text, lint(text), 'gpu-no-memory-limit', [
      { severity: 'warning', container: 'gpu', token: 'gpu', line: 7 },
      { severity: 'warning', container: 'gpu', token: 'gpu', line: 17 },
    ]);
  });
});

describe('Helm-rendered output', () => {
  test('messages end with the # Source: template, per document', () => {
    const text = yaml`
---
# Source: chart/templates/x.yaml
apiVersion: v1
kind: Pod
metadata:
  name: x
spec:
  containers:
    - name: app
      resources:
        limits: {nvidia.com/gpu: 1}
---
# Source: chart/templates/y.yaml
apiVersion: v1
kind: Pod
metadata:
  name: y
spec:
  containers:
    - name: app
      resources:
        limits: {nvidia.com/gpu: 1}
---
apiVersion: v1
kind: Pod
metadata:
  name: z
spec:
  containers:
    - name: app
      resources:
        limits: {nvidia.com/gpu: 1}
`;
    const [x, y, z] = expectAll(text, lint(text), 'gpu-no-memory-limit', [
      { severity: 'warning', container: 'app', token: 'app', line: 9 },
      { severity: 'warning', container: 'app', token: 'app', line: 20 },
      { severity: 'warning', container: 'app', token: 'app', line: 30 },
    ]);
    assert.ok(x?.message.endsWith('(rendered from chart/templates/x.yaml)'), x?.message);
    assert.ok(y?.message.endsWith('(rendered from chart/templates/y.yaml)'), y?.message);
    assert.doesNotMatch(z?.message ?? '', /rendered from/);
    assert.equal(x?.object?.helmSource, 'chart/templates/x.yaml');
  });

  test("a realistic `helm template` output: the Deployment's findings name its template, through a rendered ConfigMap", () => {
    const text = fixture('helm-rendered.yaml');
    const result = lint(text);
    const suffix = '(rendered from llm/templates/deployment.yaml)';
    expectOne(text, result, {
      ruleId: 'gpu-no-memory-limit',
      severity: 'warning',
      container: 'llm',
      token: 'llm',
      line: 65,
      message: suffix,
    });
    expectOne(text, result, {
      ruleId: 'cuda-disable-control',
      severity: 'warning',
      container: 'llm',
      token: 'release-name-llm-env',
      line: 72,
      message: ['from envFrom ConfigMap "release-name-llm-env"', suffix],
    });
    assert.deepEqual(ruleIds(result), ['gpu-no-memory-limit', 'cuda-disable-control']);
    for (const finding of result.findings) assert.ok(finding.message.endsWith(suffix), finding.message);
  });
});

describe('unrendered Helm templates', () => {
  const template = yaml`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "chart.fullname" . }}
  labels:
    {{- include "chart.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicas }}
  template:
    metadata:
      annotations:
        {{- toYaml .Values.podAnnotations | nindent 8 }}
        gpumem.io/gpu-memory: {{ .Values.gpuMemory | quote }}
    spec:
      {{- if .Values.nodeSelector }}
      nodeSelector:
        {{- toYaml .Values.nodeSelector | nindent 8 }}
      {{- end }}
      containers:
        - name: trainer
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          env:
            - name: CUDA_DISABLE_CONTROL
              value: "true"
          resources:
            limits:
              nvidia.com/gpu: {{ .Values.gpus }}
              memory: {{ .Values.memory }}
            requests:
              memory: 1Gb
`;

  test('no yaml-syntax noise, one helm-template info on the first action that hides a judged value, literal problems still reported', () => {
    const result = lint(template);
    assertNone(result, 'yaml-syntax', 'manifest-skipped');
    // Not on the name's action (line 4): on the GPU pod's templated annotations.
    expectOne(template, result, {
      ruleId: 'helm-template',
      severity: 'info',
      container: undefined,
      token: '{{',
      line: 12,
      message: ['Unrendered Helm template: gpumem masked 12 template actions', 'values that come from templates are not checked'],
    });
    expectOne(template, result, { ruleId: 'cuda-disable-control', severity: 'warning', container: 'trainer', token: '"true"', line: 24 });
    expectOne(template, result, { ruleId: 'invalid-quantity', severity: 'error', container: 'trainer', token: '1Gb', line: 30 });
  });

  test('templated quantities, annotations and GPU counts are not judged', () => {
    const result = lint(template);
    // nvidia.com/gpu, memory and gpumem.io/gpu-memory come from templates: no invalid-quantity, gpu-resource-invalid or missing limit.
    assert.deepEqual(
      findingsOf(result, 'invalid-quantity').map((f) => template.slice(f.span.start, f.span.end)),
      ['1Gb'],
    );
    assertNone(result, 'gpu-resource-invalid', 'gpu-no-memory-limit', 'uma-headroom');
    assert.deepEqual(ruleIds(result), ['helm-template', 'cuda-disable-control', 'invalid-quantity']);
  });

  test('the same file rendered by hand: the template gives no findings that rendering would not', () => {
    const rendered = template
      .replace('{{ include "chart.fullname" . }}', 'release-chart')
      .replace('    {{- include "chart.labels" . | nindent 4 }}\n', '    app: chart\n')
      .replace('{{ .Values.replicas }}', '1')
      .replace('        {{- toYaml .Values.podAnnotations | nindent 8 }}\n', '')
      .replace('{{ .Values.gpuMemory | quote }}', '"8Gi"')
      .replace(/ {6}\{\{- if .Values.nodeSelector \}\}\n[^]*?\{\{- end \}\}\n/, '')
      .replace('"{{ .Values.image.repository }}:{{ .Values.image.tag }}"', 'nvcr.io/nvidia/pytorch:24.05-py3')
      .replace('{{ .Values.gpus }}', '1')
      .replace('{{ .Values.memory }}', '16Gi');
    assert.ok(!rendered.includes('{{'), rendered);
    assert.deepEqual(ruleIds(lint(rendered)), ['cuda-disable-control', 'invalid-quantity']);
  });

  test('a realistic `helm create` deployment template: readable container names, literal problems found', () => {
    const text = fixture('helm-unrendered-deployment.yaml');
    const result = lint(text);
    assertNone(result, 'yaml-syntax');
    expectOne(text, result, {
      ruleId: 'helm-template',
      severity: 'info',
      container: undefined,
      token: '{{',
      // The first action inside the pod template (`{{- with .Values.podAnnotations }}`), not the chart's name on line 6.
      line: 18,
      message: 'masked 41 template actions',
    });
    // `- name: {{ .Chart.Name }}` is shown as the action it was, not as masking characters.
    expectOne(text, result, { ruleId: 'cuda-disable-control', severity: 'warning', container: '{{…}}', token: '"true"', line: 43 });
    expectOne(text, result, { ruleId: 'invalid-quantity', severity: 'error', container: '{{…}}', token: '16GB', line: 58 });
    assert.equal(result.findings.length, 3);
    assert.equal(
      result.containers[0]?.title,
      'GPU: nvidia.com/gpu {{…}}, nvidia.com/gpumem {{…}} · GPU memory: undeclared · memory limit: {{…}} · ✖ 2 findings',
    );
  });

  test('a templated CUDA_DISABLE_CONTROL value is only "present", shown as the action', () => {
    const text = template.replace('value: "true"', 'value: {{ .Values.disableControl | quote }}');
    const result = lint(text);
    assertNone(result, 'cuda-disable-control');
    expectOne(text, result, {
      ruleId: 'cuda-disable-control-present',
      severity: 'info',
      container: 'trainer',
      token: '{{ .Values.disableControl | quote }}',
      line: 24,
      message: 'CUDA_DISABLE_CONTROL is set to "{{…}}"',
    });
  });

  test('a document that does not parse even when masked is skipped and counted, without yaml-syntax', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: {{ .Release.Name }}
spec:
  containers: [
---
apiVersion: v1
kind: Pod
metadata:
  name: ok
spec:
  containers:
    - name: gpu
      resources:
        limits: {nvidia.com/gpu: 1}
`;
    const result = lint(text);
    assertNone(result, 'yaml-syntax');
    expectOne(text, result, {
      ruleId: 'helm-template',
      severity: 'info',
      container: undefined,
      token: '{{',
      line: 4,
      message: '1 document could not be parsed even then and was skipped',
    });
    expectOne(text, result, { ruleId: 'gpu-no-memory-limit', severity: 'warning', container: 'gpu', token: 'gpu', line: 14 });
  });
});
