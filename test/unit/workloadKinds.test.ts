// Workload kinds whose pods are not plain pod templates (src/core/manifest/workloads.ts with podShape.ts): which
// containers are GPU containers, under which role, and the KServe default memory limit. Fixtures under
// test/fixtures/manifests/<project>/ follow the API shapes each project publishes (cited in each file).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KINDS } from '../../src/core/manifest/workloads.ts';
import { assertNone, expectAll, expectOne, findingsOf, fixture, lint, yaml } from './helpers/lint.ts';
import type { LintResult } from '../../src/core/lint.ts';

/** "Kind/name [role] container" of every GPU container summary. */
function gpuContainers(result: LintResult): string[] {
  return result.containers.map((summary) => `${summary.object.kind}/${summary.object.name ?? '?'} ${summary.container}`);
}

describe('KServe InferenceService', () => {
  const text = fixture('kserve/inferenceservice.yaml');
  const result = lint(text);

  test("the predictor's model: container (kserve-container) and a GPU container of the transformer", () => {
    // The InferenceService's gpu-fraction reaches the transformer pod too, where it goes to the first container.
    assert.deepEqual(gpuContainers(result), [
      'InferenceService/huggingface-llama3 kserve-container',
      'InferenceService/huggingface-llama3 kserve-container',
      'InferenceService/huggingface-llama3 embedder',
    ]);
  });

  test("KServe's default memory limit lowers gpu-no-memory-limit to information on the model container only", () => {
    expectAll(text, result, 'gpu-no-memory-limit', [
      {
        severity: 'info',
        container: 'kserve-container',
        token: 'modelFormat',
        line: 15,
        message: ['KServe (the inferenceservice-config default', 'applies its default limit', '[predictor]'],
      },
      // The transformer's second container gets no default: KServe defaults only the first.
      { severity: 'warning', container: 'embedder', token: 'embedder', line: 34, message: '[transformer]' },
    ]);
  });

  test("the InferenceService's annotations reach its pods: gpu-fraction with nvidia.com/gpu is refused", () => {
    const found = findingsOf(result, 'gpu-share-annotation-invalid');
    assert.equal(found.length, 2, 'once per component with a whole-GPU container');
    assert.match(found[0]!.message, /cannot have both GPU fraction request and whole GPU/);
  });

  test('a framework key other than model: is a container too', () => {
    const pytorch = yaml`
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: torchserve
spec:
  predictor:
    pytorch:
      storageUri: gs://kfserving-examples/models/torchserve/image_classifier/v1
      resources:
        limits:
          nvidia.com/gpu: 1
          memory: 4Gi
`;
    const found = lint(pytorch);
    assert.deepEqual(gpuContainers(found), ['InferenceService/torchserve kserve-container']);
    assertNone(found, 'gpu-no-memory-limit');
  });
});

describe('KServe LLMInferenceService', () => {
  test('template, worker and prefill pod specs; the worker without a memory limit', () => {
    const text = fixture('kserve/llminferenceservice.yaml');
    const result = lint(text);
    assert.deepEqual(gpuContainers(result), [
      'LLMInferenceService/llama3-70b main',
      'LLMInferenceService/llama3-70b main',
      'LLMInferenceService/llama3-70b main',
    ]);
    expectOne(text, result, {
      ruleId: 'gpu-no-memory-limit',
      severity: 'warning',
      container: 'main',
      token: 'main',
      line: 24,
      message: '[worker]',
    });
  });
});

describe('Kubeflow Trainer', () => {
  test("TrainJob trainer.resourcesPerNode is the node container; a runtime's JobSet template is found", () => {
    const text = fixture('kubeflow-trainer/trainjob.yaml');
    const result = lint(text);
    assert.deepEqual(gpuContainers(result), ['TrainJob/fine-tune-llama node', 'ClusterTrainingRuntime/torch-distributed node']);
    expectOne(text, result, { ruleId: 'gpu-no-memory-limit', severity: 'warning', container: 'node', token: 'image', line: 13 });
  });
});

describe('KAITO Workspace, Knative Service', () => {
  test('Workspace inference.template', () => {
    const text = fixture('kaito/workspace.yaml');
    const result = lint(text);
    assert.deepEqual(gpuContainers(result), ['Workspace/workspace-custom-llm custom-llm-container']);
    expectOne(text, result, {
      ruleId: 'gpu-no-memory-limit',
      severity: 'warning',
      container: 'custom-llm-container',
      token: 'custom-llm-container',
      line: 17,
    });
  });

  test('Knative Service spec.template; a core Service is not a workload', () => {
    const text = fixture('knative/service.yaml');
    const result = lint(text);
    assert.deepEqual(gpuContainers(result), ['Service/whisper #0']);
    expectOne(text, result, { ruleId: 'gpu-no-memory-limit', severity: 'warning', container: '#0', token: 'image', line: 14 });
  });
});

describe('Argo Workflows', () => {
  const text = fixture('argo/workflows.yaml');
  const result = lint(text);

  test('container, script and containerSet templates, in Workflow and CronWorkflow', () => {
    assert.deepEqual(gpuContainers(result), ['Workflow/? main', 'Workflow/? main', 'Workflow/? a', 'CronWorkflow/nightly main']);
  });

  test("a template's own metadata annotations are its pod's (gpu-memory declares 8000 MiB)", () => {
    const train = result.containers[0]!;
    assert.equal(train.gpuMemorySource, 'annotation gpu-memory 8000 MiB');
  });

  test('findings name the template', () => {
    expectAll(text, result, 'gpu-no-memory-limit', [
      { severity: 'warning', container: 'main', token: 'image', line: 27, message: '[templates[evaluate]]' },
      { severity: 'warning', container: 'main', token: 'image', line: 57, message: '[templates[main]]' },
    ]);
  });
});

describe('Argo Workflows with DRA claims', () => {
  // The shape of argo-workflows examples/resource-claims-template-override.yaml: a workflow-level claim list that
  // templates inherit, and a template that replaces it with its own.
  const text = yaml`
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  generateName: gpu-claims-
spec:
  entrypoint: main
  resourceClaims:
  - name: accelerator
    resourceClaimTemplateName: shared-gpu
  templates:
  - name: default-device
    container:
      image: cuda:12
      resources:
        claims:
        - name: accelerator
  - name: other-device
    resourceClaims:
    - name: accelerator
      resourceClaimTemplateName: large-gpu
    container:
      image: cuda:12
      resources:
        claims:
        - name: accelerator
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: shared-gpu
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
`;
  const result = lint(text);

  test('a template without its own list gets the workflow-level claim, so its claim is declared and resolved', () => {
    assert.deepEqual(
      findingsOf(result, 'gpu-claim-unresolved').filter((finding) => finding.message.includes('does not declare')),
      [],
    );
    assert.deepEqual(gpuContainers(result), ['Workflow/? main']);
    assert.match(result.containers[0]!.gpuClaims[0] ?? '', /claim accelerator → class gpu\.nvidia\.com/);
  });

  test("a template's own list replaces the workflow's: its claim names the other template, not in the file", () => {
    const found = findingsOf(result, 'gpu-claim-unresolved');
    assert.equal(found.length, 1);
    assert.equal(found[0]!.severity, 'info');
    assert.match(found[0]!.message, /ResourceClaimTemplate "large-gpu"/);
  });
});

describe('KFServing InferenceService', () => {
  test('serving.kubeflow.org/v1beta1 (KServe before it left Kubeflow) has the same predictor shape', () => {
    const result = lint(yaml`
apiVersion: serving.kubeflow.org/v1beta1
kind: InferenceService
metadata:
  name: basnet
spec:
  predictor:
    containers:
    - name: kfserving-container
      image: example/basnet
      resources:
        limits:
          nvidia.com/gpu: "1"
`);
    assert.deepEqual(gpuContainers(result), ['InferenceService/basnet kfserving-container']);
  });
});

describe('Tekton', () => {
  test('Task steps and Pipeline taskSpec steps with computeResources', () => {
    const text = fixture('tekton/task.yaml');
    const result = lint(text);
    assert.deepEqual(gpuContainers(result), ['Task/gpu-test cuda-check', 'Pipeline/gpu-pipeline run']);
    expectOne(text, result, { ruleId: 'gpu-no-memory-limit', severity: 'warning', container: 'cuda-check', token: 'cuda-check', line: 9 });
  });
});

test('every kind is one entry per API group', () => {
  const seen = new Set<string>();
  for (const entry of KINDS) {
    for (const group of entry.groups) {
      const key = `${entry.kind} ${group}`;
      assert.ok(!seen.has(key), `${key} appears once`);
      seen.add(key);
    }
  }
});
