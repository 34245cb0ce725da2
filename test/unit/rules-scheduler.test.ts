// GPUs from scheduler annotations (KAI Scheduler / Run:ai gpu-fraction, gpu-memory …): which container they go to,
// that it is a GPU container for the GPU rules, gpu-memory as declared GPU memory, and gpu-share-annotation-invalid.
// Behaviour follows NVIDIA/KAI-Scheduler at 72de64fc (docs/gpu-sharing/README.md, pkg/binder/common/gpu_access.go,
// pkg/binder/plugins/gpusharing/gpu-request/gpu_request_validator.go); fixtures under
// test/fixtures/manifests/kai-scheduler/ follow that repository's docs/gpu-sharing/*.yaml.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSchedulerAnnotations } from '../../src/core/manifest/schedulerAnnotations.ts';
import type { Located } from '../../src/core/manifest/podModel.ts';
import { assertNone, expectAll, expectOne, findingsOf, fixture, lint, yaml } from './helpers/lint.ts';

/** A KAI pod with these annotation lines (already indented by four spaces) and two containers. */
function kaiPod(annotations: string, extra = ''): string {
  return yaml`
apiVersion: v1
kind: Pod
metadata:
  name: shared
  annotations:
${annotations}
spec:
  schedulerName: kai-scheduler
  containers:
    - name: worker
      image: nvidia/cuda:13.0.2-base-ubi8
      resources:
        limits:
          memory: 4Gi${extra}
    - name: logger
      image: busybox
`;
}

describe('scheduler annotations: which container gets the GPU', () => {
  test('no name: the first app container, and only it, is a GPU container (gpu-no-memory-limit)', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: gpu-sharing
  annotations:
    gpu-fraction: "0.5"
spec:
  schedulerName: kai-scheduler
  containers:
    - name: gpu-workload
      image: nvidia/cuda:13.0.2-base-ubi8
    - name: sidecar
      image: busybox
`;
    const result = lint(text);
    expectOne(text, result, {
      ruleId: 'gpu-no-memory-limit',
      severity: 'warning',
      container: 'gpu-workload',
      token: 'gpu-workload',
      line: 10,
    });
    assert.deepEqual(
      result.containers.map((summary) => summary.container),
      ['gpu-workload'],
    );
    assert.match(result.containers[0]!.title, /^GPU: annotation gpu-fraction 0\.5 · GPU memory: undeclared/);
  });

  test('gpu-fraction-container-name picks an init container (KAI searches init containers first)', () => {
    const text = fixture('kai-scheduler/gpu-sharing-init-container.yaml');
    const result = lint(text);
    expectOne(text, result, { ruleId: 'gpu-no-memory-limit', severity: 'warning', container: 'gpu-init', token: 'gpu-init', line: 15 });
    assert.deepEqual(
      result.containers.map((summary) => summary.container),
      ['gpu-init'],
    );
  });

  test('gpu-fraction-container-name picks an app container among sidecars', () => {
    const text = fixture('kai-scheduler/gpu-sharing-non-default-container.yaml');
    const result = lint(text);
    expectOne(text, result, {
      ruleId: 'gpu-no-memory-limit',
      severity: 'warning',
      container: 'gpu-workload',
      token: 'gpu-workload',
      line: 18,
    });
    assertNone(result, 'gpu-share-annotation-invalid');
  });

  test('the parser prefers an init container over an app container of the same name, and skips ephemeral ones', () => {
    const at = (value: string): Located<string> => ({ value, span: { start: 0, end: 1 } });
    const annotations = new Map([
      ['gpu-fraction', at('0.25')],
      ['gpu-fraction-container-name', at('x')],
    ]);
    const parsed = parseSchedulerAnnotations(annotations, [
      { name: 'x', role: 'ephemeral' },
      { name: 'x', role: 'container' },
      { name: 'x', role: 'sidecar' },
    ]);
    assert.equal(parsed.targetIndex, 2);
    assert.deepEqual(parsed.gpu?.share.kind, 'fraction');
    assert.equal(parsed.gpu?.chosenBy, 'name');
    const none = parseSchedulerAnnotations(new Map([['gpu-fraction', at('0.25')]]), [{ name: 'init', role: 'init' }]);
    assert.equal(none.targetIndex, undefined, 'no app container: nobody gets the share');
    assert.deepEqual(parseSchedulerAnnotations(new Map(), [{ name: 'a', role: 'container' }]), {
      targetIndex: undefined,
      gpu: undefined,
      problems: [],
    });
  });

  test('annotations on the workload, not its pod template, do not reach the pod; gpu-memory × devices is the declared GPU memory', () => {
    const text = fixture('kai-scheduler/gpu-memory-deployment.yaml');
    const result = lint(text);
    assertNone(result, 'gpu-share-annotation-invalid', 'uma-gpu-memory-undeclared', 'gpu-no-memory-limit');
    assert.deepEqual(
      result.containers.map((summary) => summary.container),
      ['vllm'],
    );
    const [summary] = result.containers;
    assert.equal(summary!.gpuMemoryBytes, 20000 * 2 * 1024 * 1024);
    assert.equal(summary!.gpuMemorySource, 'annotation gpu-memory 20000 MiB × 2 devices');
    // 48 GiB against 39 GiB of GPU memory + 30 %: the headroom rule sees the annotated memory.
    expectAll(text, result, 'uma-headroom', [
      { severity: 'warning', container: 'vllm', token: '48Gi', line: 30, message: 'GPU 39.1 GiB' },
      { severity: 'warning', container: 'vllm', token: '48Gi', line: 32 },
    ]);
  });

  test('a templated share still makes a GPU container, without a judgement of its value', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: shared
  annotations:
    gpu-fraction: "{{ .Values.fraction }}"
spec:
  containers:
    - name: worker
      image: nvidia/cuda:13.0.2-base-ubi8
`;
    const result = lint(text);
    assertNone(result, 'gpu-share-annotation-invalid');
    assert.equal(findingsOf(result, 'gpu-no-memory-limit').length, 1);
  });
});

describe('gpu-share-annotation-invalid', () => {
  for (const value of ['"50%"', '"0"', '"1"', '"1.5"', '"-0.5"', '"half"', '""']) {
    test(`gpu-fraction ${value} is refused`, () => {
      const text = kaiPod(`    gpu-fraction: ${value}`);
      const result = lint(text);
      expectOne(text, result, {
        ruleId: 'gpu-share-annotation-invalid',
        severity: 'error',
        container: 'worker',
        token: value,
        line: 6,
        message: 'above 0 and below 1',
      });
      assertNone(result, 'gpu-no-memory-limit');
    });
  }

  for (const value of ['"0.5"', '".25"', '0.75', '"5e-1"']) {
    test(`gpu-fraction ${value} is accepted`, () => {
      const result = lint(kaiPod(`    gpu-fraction: ${value}`));
      assertNone(result, 'gpu-share-annotation-invalid');
      assert.deepEqual(
        result.containers.map((summary) => summary.container),
        ['worker'],
      );
    });
  }

  for (const value of ['"2Gi"', '"2G"', '"1.5"', '"0"', '" 2000"', '"-1"', '"99999999999999999999"']) {
    test(`gpu-memory ${value} is refused`, () => {
      const text = kaiPod(`    gpu-memory: ${value}`);
      const result = lint(text);
      expectOne(text, result, {
        ruleId: 'gpu-share-annotation-invalid',
        severity: 'error',
        container: 'worker',
        token: value,
        line: 6,
        message: 'whole number of MiB above 0',
      });
    });
  }

  test('a unit on gpu-memory is named as the mistake', () => {
    const text = kaiPod('    gpu-memory: "2000Mi"');
    expectOne(text, lint(text), {
      ruleId: 'gpu-share-annotation-invalid',
      severity: 'error',
      container: 'worker',
      token: '"2000Mi"',
      line: 6,
      message: 'takes no unit',
    });
  });

  test('gpu-fraction and gpu-memory together', () => {
    const text = kaiPod('    gpu-fraction: "0.5"\n    gpu-memory: "2000"');
    expectOne(text, lint(text), {
      ruleId: 'gpu-share-annotation-invalid',
      severity: 'error',
      container: 'worker',
      token: '"2000"',
      line: 7,
      message: 'cannot request both GPU and GPU memory',
    });
  });

  test('a share and an nvidia.com/gpu limit in the same pod', () => {
    const text = kaiPod('    gpu-fraction: "0.5"', '\n          nvidia.com/gpu: 1');
    expectOne(text, lint(text), {
      ruleId: 'gpu-share-annotation-invalid',
      severity: 'error',
      container: 'worker',
      token: '"0.5"',
      line: 6,
      message: 'whole GPU resource',
    });
  });

  test('a container name the pod does not have', () => {
    const text = kaiPod('    gpu-fraction: "0.5"\n    gpu-fraction-container-name: "trainer"');
    const result = lint(text);
    expectOne(text, result, {
      ruleId: 'gpu-share-annotation-invalid',
      severity: 'error',
      container: undefined,
      token: '"trainer"',
      line: 7,
      message: ['"trainer"', 'it has "worker", "logger"'],
    });
    assert.deepEqual(result.containers, [], 'no container gets the share');
  });

  test('gpu-fraction-num-devices: not a whole number, or without a share', () => {
    const bad = kaiPod('    gpu-memory: "2000"\n    gpu-fraction-num-devices: "two"');
    expectOne(bad, lint(bad), {
      ruleId: 'gpu-share-annotation-invalid',
      severity: 'error',
      container: 'worker',
      token: '"two"',
      line: 7,
      message: 'whole number of devices',
    });
    const alone = kaiPod('    gpu-fraction-num-devices: "2"');
    expectOne(alone, lint(alone), {
      ruleId: 'gpu-share-annotation-invalid',
      severity: 'error',
      container: undefined,
      token: '"2"',
      line: 6,
      message: 'has no effect without gpu-fraction or gpu-memory',
    });
  });

  test('a container name without a share is only information', () => {
    const text = kaiPod('    gpu-fraction-container-name: "worker"');
    const result = lint(text);
    expectOne(text, result, {
      ruleId: 'gpu-share-annotation-invalid',
      severity: 'info',
      container: undefined,
      token: '"worker"',
      line: 6,
      message: 'has no effect',
    });
    assert.deepEqual(result.containers, []);
  });

  test('Run:ai gpu-fraction-limit below the request or above 1', () => {
    const below = kaiPod('    gpu-fraction: "0.5"\n    gpu-fraction-limit: "0.25"');
    expectOne(below, lint(below), {
      ruleId: 'gpu-share-annotation-invalid',
      severity: 'error',
      container: 'worker',
      token: '"0.25"',
      line: 7,
      message: 'at least the request',
    });
    const above = kaiPod('    gpu-fraction: "0.5"\n    gpu-fraction-limit: "1.5"');
    expectOne(above, lint(above), {
      ruleId: 'gpu-share-annotation-invalid',
      severity: 'error',
      container: 'worker',
      token: '"1.5"',
      line: 7,
      message: 'at most 1',
    });
    assertNone(lint(kaiPod('    gpu-fraction: "0.5"\n    gpu-fraction-limit: "1"')), 'gpu-share-annotation-invalid');
  });

  test('a pod without sharing annotations is untouched', () => {
    const result = lint(kaiPod('    example.com/owner: "team-a"'));
    assertNone(result, 'gpu-share-annotation-invalid', 'gpu-no-memory-limit');
    assert.deepEqual(result.containers, []);
  });
});
