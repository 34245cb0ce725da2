// Templates gpumem masks or names: Helm actions that stand for a whole value (never a manifest-shape finding),
// the language of non-Helm `{{ … }}` files (Argo Workflows, other Go templates, Jinja), and placeholders in
// quantities (envsubst, Tekton, Kustomize vars) that are unresolved, not invalid. The Helm shapes are those of
// the `helm create` scaffold (helm/helm) and of charts that inline `toYaml`/`toJson` on the key's line; the
// Argo ones follow the Argo Workflows docs' examples (argoproj/argo-workflows, docs/variables.md).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { maskHelmTemplates, placeholderIn } from '../../src/core/manifest/source.ts';
import { assertNone, expectAll, expectOne, lint, ruleIds, yaml } from './helpers/lint.ts';

describe('Helm actions that stand for a whole value', () => {
  const chart = yaml`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "llm.fullname" . }}
spec:
  template:
    metadata:
      {{- with .Values.podAnnotations }}
      annotations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    spec:
      securityContext: {{- toYaml .Values.podSecurityContext | nindent 8 }}
      initContainers: {{ toYaml .Values.initContainers | nindent 8 }}
      containers:
        - name: server
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          securityContext: {{ toYaml .Values.securityContext | nindent 12 }}
          args: {{ toJson .Values.args }}
          env: {{ toYaml .Values.env | nindent 12 }}
          resources: {{ .Values.resources | toJson }}
          volumeMounts: {{- toYaml .Values.volumeMounts | nindent 12 }}
        {{- with .Values.sidecars }}
        - {{ toYaml . | nindent 10 }}
        {{- end }}
      tolerations: {{ toYaml .Values.tolerations | nindent 8 }}
      volumes: {{- toYaml .Values.volumes | nindent 8 }}
`;

  test('are masked as unknown values: no manifest-shape, only the helm-template notice', () => {
    const result = lint(chart);
    assertNone(result, 'manifest-shape', 'yaml-syntax', 'unrendered-template');
    expectOne(chart, result, {
      ruleId: 'helm-template',
      severity: 'info',
      container: undefined,
      token: '{{',
      // On `resources: {{ .Values.resources | toJson }}`, the first action that may hide a GPU, not the name on line 4.
      line: 21,
      message: 'Unrendered Helm template: gpumem masked 18 template actions',
    });
  });

  test('a literal value of the wrong type in the same chart is still manifest-shape', () => {
    const text = chart.replace('tolerations: {{ toYaml .Values.tolerations | nindent 8 }}', 'tolerations: "none"');
    expectOne(text, lint(text), {
      ruleId: 'manifest-shape',
      severity: 'warning',
      container: undefined,
      token: '"none"',
      line: 26,
      message: 'spec.tolerations should be a list, found the string "none"',
    });
  });
});

describe("the language of a file's template actions", () => {
  test('Helm, Go, Argo, Jinja and bare placeholders, decided per file with Helm first', () => {
    const language = (text: string) => maskHelmTemplates(text)?.language;
    assert.equal(language('name: {{ .Release.Name }}\nimage: {{ .Values.image }}'), 'helm');
    assert.equal(language('{{- if .GPU }}\nname: {{ .Name }}\n{{- end }}'), 'go');
    assert.equal(language('image: "{{workflow.parameters.image}}"\nn: "{{=asInt(inputs.parameters.n) * 2}}"'), 'argo');
    // A Helm chart that templates an Argo workflow escapes Argo's braces: still a Helm chart.
    assert.equal(language('name: {{ .Release.Name }}\ngpus: "{{`{{inputs.parameters.gpus}}`}}"'), 'helm');
    assert.equal(language('{% if gpu %}\nname: "{{ name }}"\n{% endif %}'), 'jinja');
    assert.equal(language('name: "{{ name }}"'), 'placeholder');
    assert.equal(maskHelmTemplates('name: plain'), undefined);
  });

  test('a Jinja statement line is blanked, so the document still parses', () => {
    const text = yaml`
{% if gpu %}
apiVersion: v1
kind: Pod
metadata:
  name: "{{ name }}"
spec:
  containers:
    - name: trainer
      resources:
        limits:
          nvidia.com/gpu: 1
          memory: "{{ memory }}"
{% endif %}
`;
    const result = lint(text);
    assertNone(result, 'yaml-syntax', 'helm-template', 'invalid-quantity');
    // The file's notice sits on the first action inside the GPU pod, not on the `{% if gpu %}` around the document.
    expectAll(text, result, 'unrendered-template', [
      {
        severity: 'info',
        container: undefined,
        token: '{{',
        line: 5,
        message: ['Unrendered Jinja template: gpumem masked 4 template actions (here: {{ name }})'],
      },
      {
        severity: 'info',
        container: 'trainer',
        token: '"{{ memory }}"',
        line: 12,
        message: 'resources.limits["memory"] is "{{ memory }}", a Jinja template action, so gpumem cannot check its value',
      },
    ]);
  });

  test('an Argo parameter as the GPU count: an info on the value, no invalid-quantity or gpu-resource-invalid', () => {
    const text = yaml`
apiVersion: batch/v1
kind: Job
metadata:
  name: "{{workflow.name}}-train"
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: train
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/gpu: "{{inputs.parameters.gpus}}"
              memory: 64Gi
`;
    const result = lint(text);
    assertNone(result, 'invalid-quantity', 'gpu-resource-invalid', 'helm-template');
    expectAll(text, result, 'unrendered-template', [
      {
        severity: 'info',
        container: 'train',
        token: '"{{inputs.parameters.gpus}}"',
        line: 14,
        message: 'is "{{inputs.parameters.gpus}}", an Argo Workflows expression, substituted when the workflow runs',
      },
      {
        severity: 'info',
        container: undefined,
        token: '{{',
        line: 14,
        message: [
          'Argo Workflows expressions: gpumem masked 2 expressions (here: {{inputs.parameters.gpus}})',
          'Argo substitutes them when the workflow runs',
        ],
      },
    ]);
  });

  test('a Go template rendered by a controller is not called Helm', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: {{ .Name }}
spec:
  containers:
    - name: kserve-container
      image: {{ .Image }}
      resources:
        limits: {nvidia.com/gpu: 1, memory: 24Gi}
`;
    const result = lint(text);
    assertNone(result, 'helm-template');
    expectOne(text, result, {
      ruleId: 'unrendered-template',
      severity: 'info',
      container: undefined,
      token: '{{',
      line: 4,
      message: [
        'Unrendered Go template (no Helm objects such as .Values or include): gpumem masked 2 template actions (first: {{ .Name }})',
      ],
    });
  });
});

describe('placeholders in quantities', () => {
  test('envsubst, Tekton and Kustomize placeholders are told apart; literal text is no placeholder', () => {
    assert.deepEqual(placeholderIn('${MEM}'), { kind: 'envsubst', text: '${MEM}' });
    assert.deepEqual(placeholderIn('${MEM:-16Gi}'), { kind: 'envsubst', text: '${MEM:-16Gi}' });
    assert.deepEqual(placeholderIn('$GPU_MEMORY'), { kind: 'envsubst', text: '$GPU_MEMORY' });
    assert.deepEqual(placeholderIn('$(params.gpus)'), { kind: 'tekton', text: '$(params.gpus)' });
    assert.deepEqual(placeholderIn('$(MEMORY)'), { kind: 'kustomize', text: '$(MEMORY)' });
    for (const literal of ['16Gi', '$', '$1', '${unclosed', '']) assert.equal(placeholderIn(literal), undefined, literal);
    assert.equal(placeholderIn(`${'$'.repeat(100_000)}{`), undefined);
  });

  test('each placeholder is an info on its value, not invalid-quantity; the annotation too', () => {
    const text = yaml`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: inference
spec:
  template:
    metadata:
      annotations:
        gpumem.io/gpu-memory: "\${GPU_MEMORY}"
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.6.3
          resources:
            limits:
              nvidia.com/gpu: 1
              memory: \${SERVER_MEMORY}
              cpu: $(params.cpu)
            requests:
              memory: bogus
`;
    const result = lint(text);
    assertNone(result, 'helm-template');
    expectAll(text, result, 'unrendered-template', [
      {
        severity: 'info',
        container: undefined,
        token: '"${GPU_MEMORY}"',
        line: 9,
        message: 'Annotation gpumem.io/gpu-memory is "${GPU_MEMORY}", an envsubst-style variable',
      },
      {
        severity: 'info',
        container: 'server',
        token: '${SERVER_MEMORY}',
        line: 17,
        message:
          'resources.limits["memory"] is ${SERVER_MEMORY}, an envsubst-style variable, substituted before the manifest is applied, so gpumem cannot check its value',
      },
      { severity: 'info', container: 'server', token: '$(params.cpu)', line: 18, message: 'a Tekton parameter' },
    ]);
    // A literal that is no quantity is still reported.
    expectOne(text, result, { ruleId: 'invalid-quantity', severity: 'error', container: 'server', token: 'bogus', line: 20 });
    assert.ok(!ruleIds(result).includes('manifest-shape'));
  });
});
