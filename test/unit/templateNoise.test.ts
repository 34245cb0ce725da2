// Template notices only where masking hid a value a rule judges: real files whose actions hide nothing about a
// GPU (test/fixtures/manifests/template-noise/README.md) get none; a GPU container's templated value keeps its
// notice, named for its template language ("a Go template action", never "an envsubst-style variable").
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { assertNone, lint, ruleIds, yaml } from './helpers/lint.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/manifests/template-noise/${name}`, import.meta.url), 'utf8');

describe('template notices that were noise', () => {
  test('an Argo workflow of CPU steps (argo-workflows examples/dag-diamond.yaml) gets no notice', () => {
    assert.deepEqual(ruleIds(lint(fixture('argo-dag-diamond.yaml'))), []);
  });

  test("helm create's Service gets no helm-template notice: it has no pod", () => {
    assert.deepEqual(ruleIds(lint(fixture('helm-create-service.yaml'))), []);
  });

  test('the same Argo expression in a GPU step keeps the notice', () => {
    const gpu = fixture('argo-dag-diamond.yaml').replace(
      '      command: [echo, "{{inputs.parameters.message}}"]',
      '      command: [echo, "{{inputs.parameters.message}}"]\n      resources:\n        limits:\n          nvidia.com/gpu: 1\n          memory: 1Gi',
    );
    assert.deepEqual(ruleIds(lint(gpu)), ['unrendered-template']);
  });

  test("a CPU step's templated memory is not a notice; a GPU step's is, and so is a templated GPU count", () => {
    const text = yaml`
apiVersion: argoproj.io/v1alpha1
kind: WorkflowTemplate
metadata:
  name: train
spec:
  templates:
    - name: prepare
      container:
        image: python:3.12
        resources:
          limits:
            memory: "{{inputs.parameters.prepMemory}}"
    - name: train
      container:
        image: nvcr.io/nvidia/pytorch:24.05-py3
        resources:
          limits:
            nvidia.com/gpu: "{{inputs.parameters.gpus}}"
            memory: 64Gi
`;
    const result = lint(text);
    assertNone(result, 'invalid-quantity');
    const values = result.findings.filter((finding) => finding.ruleId === 'unrendered-template' && finding.container !== undefined);
    assert.deepEqual(
      values.map((finding) => text.slice(finding.span.start, finding.span.end)),
      ['"{{inputs.parameters.gpus}}"'],
    );
    // The file's notice stays: the GPU count is hidden.
    assert.equal(
      result.findings.filter((finding) => finding.ruleId === 'unrendered-template' && finding.container === undefined).length,
      1,
    );
  });

  test('a `$variable` in a template action is the template language, not envsubst', () => {
    // The shape of public charts' GPU limits: `nvidia.com/gpu: {{ $gpu }}` after `{{- $gpu := … }}`.
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: engine
spec:
  containers:
    - name: engine
      image: vllm/vllm-openai:v0.6.3
      resources:
        limits:
          nvidia.com/gpu: 1
          memory: {{ $memory }}
`;
    const result = lint(text);
    const value = result.findings.find((finding) => finding.ruleId === 'unrendered-template' && finding.container === 'engine');
    assert.match(value?.message ?? '', /resources\.limits\["memory"\] is \{\{ \$memory \}\}, a Go template action/);
    assert.ok(!result.findings.some((finding) => finding.message.includes('envsubst')));
  });
});
