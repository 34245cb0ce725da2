// HAMi rules: cuda-disable-control(-present), hami-readonly-rootfs, hami-privileged, hami-manual-memory-limit,
// hami-resource-conflict, hami-gvisor and hami-musl-image, positive and near-miss negative.
// HAMi facts (what the device plugin injects and skips): Project-HAMi/HAMi docs and pkg/device/nvidia, cited per rule in docs/rules/.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { goParseBool } from '../../src/core/rules/hamiRules.ts';
import { assertNone, config, expectAll, expectOne, findingsOf, lint, yaml } from './helpers/lint.ts';

/** A HAMi vGPU pod (nvidia.com/gpumem makes HAMi manage it) with one env variable set to `value` (written as is). */
function withDisableControl(value: string): string {
  return yaml`
apiVersion: v1
kind: Pod
metadata:
  name: vgpu
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      env:
        - name: NCCL_DEBUG
          value: INFO
        - name: CUDA_DISABLE_CONTROL
          value: ${value}
      resources:
        limits:
          nvidia.com/gpu: 1
          nvidia.com/gpumem: 8000
          memory: 16Gi
`;
}

describe('cuda-disable-control', () => {
  test("goParseBool is Go's strconv.ParseBool", () => {
    for (const yes of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.equal(goParseBool(yes), true, yes);
    for (const no of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.equal(goParseBool(no), false, no);
    for (const neither of ['yes', 'y', 'on', 'tRUE', ' true', 'true ', '', '2'])
      assert.equal(goParseBool(neither), undefined, JSON.stringify(neither));
  });

  for (const value of ['1', 't', 'T', 'TRUE', 'true', 'True']) {
    test(`"${value}" parses true: a warning on the value, with a fix that removes the entry`, () => {
      const text = withDisableControl(`"${value}"`);
      const result = lint(text);
      const finding = expectOne(text, result, {
        ruleId: 'cuda-disable-control',
        severity: 'warning',
        container: 'trainer',
        token: `"${value}"`,
        line: 13,
        message: [`CUDA_DISABLE_CONTROL=${value} turns off HAMi memory enforcement`, '/etc/ld.so.preload'],
      });
      assertNone(result, 'cuda-disable-control-present');
      assert.deepEqual(
        finding.fixes.map((f) => f.title),
        ['Remove CUDA_DISABLE_CONTROL'],
      );
    });
  }

  for (const value of ['0', 'f', 'false', 'False', 'FALSE', 'yes', 'on', 'tRuE', '']) {
    test(`"${value}" does not parse true: only cuda-disable-control-present`, () => {
      const text = withDisableControl(`"${value}"`);
      const result = lint(text);
      assertNone(result, 'cuda-disable-control');
      expectOne(text, result, {
        ruleId: 'cuda-disable-control-present',
        severity: 'info',
        container: 'trainer',
        token: `"${value}"`,
        line: 13,
        message: `CUDA_DISABLE_CONTROL is set to "${value}"; HAMi before v2.4.0`,
      });
    });
  }

  test('an entry without a value (empty) is present, on its name', () => {
    const text = withDisableControl('').replace('          value: \n', '');
    assert.ok(!text.includes('value: \n'));
    expectOne(text, lint(text), {
      ruleId: 'cuda-disable-control-present',
      severity: 'info',
      container: 'trainer',
      token: 'CUDA_DISABLE_CONTROL',
      line: 12,
    });
  });

  test('without the variable, nothing', () => {
    const text = withDisableControl('"true"').replace('CUDA_DISABLE_CONTROL', 'CUDA_DISABLE_CONTROLS');
    const result = lint(text);
    assertNone(result, 'cuda-disable-control', 'cuda-disable-control-present');
    assert.deepEqual(result.findings, []);
  });

  test('in a container that requests no GPU, nothing', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
    - name: web
      env:
        - name: CUDA_DISABLE_CONTROL
          value: "true"
`;
    assert.deepEqual(lint(text).findings, []);
  });

  const configMap = yaml`
apiVersion: v1
kind: ConfigMap
metadata:
  name: gpu-env
data:
  CUDA_DISABLE_CONTROL: "true"
  DISABLE_CONTROL: "1"
  LOG_LEVEL: debug
---
`;

  test('through envFrom of a ConfigMap defined in the same file, on the ConfigMap reference, without a fix', () => {
    const text =
      configMap +
      yaml`
apiVersion: v1
kind: Pod
metadata:
  name: vgpu
spec:
  containers:
    - name: trainer
      envFrom:
        - configMapRef:
            name: gpu-env
      resources:
        limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 8000, memory: 16Gi}
`;
    const finding = expectOne(text, lint(text), {
      ruleId: 'cuda-disable-control',
      severity: 'warning',
      container: 'trainer',
      token: 'gpu-env',
      line: 19,
      message: 'CUDA_DISABLE_CONTROL=true (from envFrom ConfigMap "gpu-env")',
    });
    // The entry lives in the ConfigMap, shared with other workloads: no automatic removal.
    assert.deepEqual(finding.fixes, []);
  });

  test('through envFrom with a prefix that makes the variable name', () => {
    const text =
      configMap +
      yaml`
apiVersion: v1
kind: Pod
metadata:
  name: vgpu
spec:
  containers:
    - name: trainer
      envFrom:
        - prefix: CUDA_
          configMapRef:
            name: gpu-env
      resources:
        limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 8000, memory: 16Gi}
`;
    expectOne(text, lint(text), {
      ruleId: 'cuda-disable-control',
      severity: 'warning',
      container: 'trainer',
      token: 'gpu-env',
      line: 20,
      message: 'CUDA_DISABLE_CONTROL=1',
    });
  });

  test('an env entry overrides envFrom', () => {
    const text =
      configMap +
      yaml`
apiVersion: v1
kind: Pod
metadata:
  name: vgpu
spec:
  containers:
    - name: trainer
      envFrom:
        - configMapRef: {name: gpu-env}
      env:
        - name: CUDA_DISABLE_CONTROL
          value: "false"
      resources:
        limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 8000, memory: 16Gi}
`;
    const result = lint(text);
    assertNone(result, 'cuda-disable-control');
    expectOne(text, result, { ruleId: 'cuda-disable-control-present', severity: 'info', container: 'trainer', token: '"false"', line: 21 });
  });

  test('a later envFrom source overrides an earlier one', () => {
    const text =
      configMap +
      yaml`
apiVersion: v1
kind: ConfigMap
metadata:
  name: enforce
data:
  CUDA_DISABLE_CONTROL: "false"
---
apiVersion: v1
kind: Pod
metadata:
  name: vgpu
spec:
  containers:
    - name: trainer
      envFrom:
        - configMapRef: {name: gpu-env}
        - configMapRef: {name: enforce}
      resources:
        limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 8000, memory: 16Gi}
`;
    const result = lint(text);
    assertNone(result, 'cuda-disable-control');
    expectOne(text, result, { ruleId: 'cuda-disable-control-present', severity: 'info', container: 'trainer', token: 'enforce', line: 26 });
  });

  test('through valueFrom.configMapKeyRef, on the key', () => {
    const text =
      configMap +
      yaml`
apiVersion: v1
kind: Pod
metadata:
  name: vgpu
spec:
  containers:
    - name: trainer
      env:
        - name: CUDA_DISABLE_CONTROL
          valueFrom:
            configMapKeyRef:
              name: gpu-env
              key: DISABLE_CONTROL
      resources:
        limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 8000, memory: 16Gi}
`;
    const finding = expectOne(text, lint(text), {
      ruleId: 'cuda-disable-control',
      severity: 'warning',
      container: 'trainer',
      token: 'DISABLE_CONTROL',
      line: 22,
      message: 'CUDA_DISABLE_CONTROL=1 (from ConfigMap "gpu-env" key "DISABLE_CONTROL")',
    });
    assert.deepEqual(
      finding.fixes.map((f) => f.title),
      ['Remove CUDA_DISABLE_CONTROL'],
    );
  });

  test('near misses: a ConfigMap in another namespace, a missing key, a Secret', () => {
    const text = yaml`
apiVersion: v1
kind: ConfigMap
metadata:
  name: gpu-env
  namespace: other
data:
  CUDA_DISABLE_CONTROL: "true"
---
apiVersion: v1
kind: Pod
metadata:
  name: vgpu
  namespace: ml
spec:
  containers:
    - name: a
      envFrom:
        - configMapRef: {name: gpu-env}
        - secretRef: {name: gpu-env}
      resources:
        limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 8000, memory: 16Gi}
    - name: b
      env:
        - name: CUDA_DISABLE_CONTROL
          valueFrom:
            configMapKeyRef: {name: gpu-env, key: NOPE}
      resources:
        limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 8000, memory: 16Gi}
`;
    assert.deepEqual(lint(text).findings, []);
    // The same file with the ConfigMap in the pod's namespace is reported, so the miss above is the namespace.
    const same = text.replace('namespace: other', 'namespace: ml');
    expectOne(same, lint(same), { ruleId: 'cuda-disable-control', severity: 'warning', container: 'a', token: 'gpu-env', line: 18 });
  });
});

/** A pod with `securityContext` lines for container "trainer", which requests `resources`, plus pod-level `spec` lines. */
function hamiPod(options: { resources: string; securityContext?: string; spec?: string; image?: string }): string {
  return yaml`
apiVersion: v1
kind: Pod
metadata:
  name: vgpu
spec:
${options.spec ?? '  restartPolicy: Never'}
  containers:
    - name: trainer
      image: ${options.image ?? 'nvcr.io/nvidia/pytorch:24.05-py3'}
      securityContext:
${options.securityContext ?? '        runAsNonRoot: true'}
      resources:
        limits: ${options.resources}
`;
}

const HAMI = '{nvidia.com/gpu: 1, nvidia.com/gpumem: 8000, memory: 16Gi}';
const PLAIN = '{nvidia.com/gpu: 1, memory: 16Gi}';

describe('hami-readonly-rootfs', () => {
  test('readOnlyRootFilesystem: true on a HAMi container is an info on the value', () => {
    const text = hamiPod({ resources: HAMI, securityContext: '        readOnlyRootFilesystem: true' });
    const finding = expectOne(text, lint(text), {
      ruleId: 'hami-readonly-rootfs',
      severity: 'info',
      container: 'trainer',
      token: 'true',
      line: 11,
      message: 'readOnlyRootFilesystem is fine to keep',
    });
    // A "verify" hint: never advise turning the read-only root off.
    assert.doesNotMatch(finding.message, /false|turn (it )?off|disable/i);
    assert.deepEqual(finding.fixes, []);
  });

  test('false, or a GPU container HAMi does not manage: nothing', () => {
    const off = hamiPod({ resources: HAMI, securityContext: '        readOnlyRootFilesystem: false' });
    assert.deepEqual(lint(off).findings, []);
    const plain = hamiPod({ resources: PLAIN, securityContext: '        readOnlyRootFilesystem: true' });
    assert.deepEqual(lint(plain).findings, []);
  });

  test('HAMi detection: the HAMi scheduler, hamiDetection always and never', () => {
    const scheduled = hamiPod({
      resources: PLAIN,
      securityContext: '        readOnlyRootFilesystem: true',
      spec: '  schedulerName: hami-scheduler',
    });
    expectOne(scheduled, lint(scheduled), {
      ruleId: 'hami-readonly-rootfs',
      severity: 'info',
      container: 'trainer',
      token: 'true',
      line: 11,
    });
    const plain = hamiPod({ resources: PLAIN, securityContext: '        readOnlyRootFilesystem: true' });
    expectOne(plain, lint(plain, config({ hamiDetection: 'always' })), {
      ruleId: 'hami-readonly-rootfs',
      severity: 'info',
      container: 'trainer',
      token: 'true',
      line: 11,
    });
    const hami = hamiPod({ resources: HAMI, securityContext: '        readOnlyRootFilesystem: true' });
    assertNone(lint(hami, config({ hamiDetection: 'never' })), 'hami-readonly-rootfs');
  });

  test('a HAMi pod annotation (nvidia.com/use-gputype) marks a plain GPU request as HAMi-managed', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: vgpu
  annotations:
    nvidia.com/use-gputype: "A100"
spec:
  containers:
    - name: trainer
      securityContext: {readOnlyRootFilesystem: true}
      resources:
        limits: {nvidia.com/gpu: 1, memory: 16Gi}
`;
    expectOne(text, lint(text), { ruleId: 'hami-readonly-rootfs', severity: 'info', container: 'trainer', token: 'true', line: 10 });
  });
});

describe('hami-privileged', () => {
  test('a privileged container requesting HAMi resources is an error on the value', () => {
    const text = hamiPod({ resources: HAMI, securityContext: '        privileged: true' });
    expectOne(text, lint(text), {
      ruleId: 'hami-privileged',
      severity: 'error',
      container: 'trainer',
      token: 'true',
      line: 11,
      message: ['is privileged and requests HAMi resources', 'v2.10'],
    });
  });

  test('not privileged, or privileged without HAMi: nothing', () => {
    const off = hamiPod({ resources: HAMI, securityContext: '        privileged: false' });
    assert.deepEqual(lint(off).findings, []);
    const plain = hamiPod({ resources: PLAIN, securityContext: '        privileged: true' });
    assert.deepEqual(lint(plain).findings, []);
  });

  test('a privileged container without GPU resources in a HAMi pod: nothing', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: vgpu
spec:
  containers:
    - name: trainer
      resources:
        limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 8000, memory: 16Gi}
    - name: debugger
      securityContext:
        privileged: true
`;
    assert.deepEqual(lint(text).findings, []);
  });
});

describe('hami-manual-memory-limit', () => {
  const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: vgpu
spec:
  containers:
    - name: trainer
      env:
        - name: CUDA_DEVICE_MEMORY_LIMIT_0
          value: 0m
        - name: CUDA_DEVICE_MEMORY_LIMIT
          value: 4g
        - name: CUDA_DEVICE_MEMORY_SHARED_CACHE
          value: /tmp/cache
        - name: CUDA_DEVICE_SM_LIMIT
          value: "50"
        - name: CUDA_DEVICE_MEMORY_LIMIT_X
          value: 1g
      resources:
        limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 8000, memory: 16Gi}
`;

  test('a hand-set limit is a warning on the name; 0m means no limit; other HAMi variables are fine', () => {
    const [zero, fallback] = expectAll(text, lint(text), 'hami-manual-memory-limit', [
      {
        severity: 'warning',
        container: 'trainer',
        token: 'CUDA_DEVICE_MEMORY_LIMIT_0',
        line: 9,
        message: 'CUDA_DEVICE_MEMORY_LIMIT_0=0m means no memory limit to HAMi-core',
      },
      {
        severity: 'warning',
        container: 'trainer',
        token: 'CUDA_DEVICE_MEMORY_LIMIT',
        line: 11,
        message: "is injected by HAMi's device plugin from nvidia.com/gpumem",
      },
    ]);
    assert.doesNotMatch(fallback?.message ?? '', /no memory limit/);
    assert.deepEqual(
      zero?.fixes.map((f) => f.title),
      ['Remove CUDA_DEVICE_MEMORY_LIMIT_0'],
    );
    assert.deepEqual(
      fallback?.fixes.map((f) => f.title),
      ['Remove CUDA_DEVICE_MEMORY_LIMIT'],
    );
  });

  test('"0" also means no limit', () => {
    const zero = text.replace('value: 0m', 'value: "0"');
    expectAll(zero, lint(zero), 'hami-manual-memory-limit', [
      {
        severity: 'warning',
        container: 'trainer',
        token: 'CUDA_DEVICE_MEMORY_LIMIT_0',
        line: 9,
        message: 'CUDA_DEVICE_MEMORY_LIMIT_0=0 means no memory limit',
      },
      { severity: 'warning', container: 'trainer', token: 'CUDA_DEVICE_MEMORY_LIMIT', line: 11 },
    ]);
  });

  test('a plain NVIDIA GPU container is checked too (HAMi may inject there); AMD or no GPU is not', () => {
    const plain = text.replace('nvidia.com/gpumem: 8000, ', '');
    assert.equal(findingsOf(lint(plain), 'hami-manual-memory-limit').length, 2);
    const amd = text.replace('{nvidia.com/gpu: 1, nvidia.com/gpumem: 8000, memory: 16Gi}', '{amd.com/gpu: 1, memory: 16Gi}');
    assert.notEqual(amd, text);
    assertNone(lint(amd), 'hami-manual-memory-limit');
    const noGpu = text.replace('{nvidia.com/gpu: 1, nvidia.com/gpumem: 8000, memory: 16Gi}', '{memory: 16Gi}');
    assert.deepEqual(lint(noGpu).findings, []);
  });
});

describe('hami-resource-conflict', () => {
  const pod = (limits: string) => yaml`
apiVersion: v1
kind: Pod
metadata:
  name: vgpu
spec:
  containers:
    - name: trainer
      resources:
        limits:
${limits}
          memory: 16Gi
`;

  test('gpumem together with gpumem-percentage, on the percentage key', () => {
    const text = pod('          nvidia.com/gpu: 1\n          nvidia.com/gpumem: 8000\n          nvidia.com/gpumem-percentage: 50');
    expectOne(text, lint(text), {
      ruleId: 'hami-resource-conflict',
      severity: 'warning',
      container: 'trainer',
      token: 'nvidia.com/gpumem-percentage',
      line: 12,
      message: 'both nvidia.com/gpumem and nvidia.com/gpumem-percentage',
    });
  });

  test('gpumem or gpucores without nvidia.com/gpu, on each key', () => {
    const text = pod('          nvidia.com/gpumem: 8000\n          nvidia.com/gpucores: 30');
    expectAll(text, lint(text), 'hami-resource-conflict', [
      {
        severity: 'warning',
        container: 'trainer',
        token: 'nvidia.com/gpumem',
        line: 10,
        message: 'requests nvidia.com/gpumem without a NVIDIA GPU count (such as nvidia.com/gpu)',
      },
      {
        severity: 'warning',
        container: 'trainer',
        token: 'nvidia.com/gpucores',
        line: 11,
        message: 'requests nvidia.com/gpucores without',
      },
    ]);
  });

  test("another vendor's GPU count does not count", () => {
    const text = pod('          amd.com/gpu: 1\n          nvidia.com/gpumem: 8000');
    expectOne(text, lint(text), {
      ruleId: 'hami-resource-conflict',
      severity: 'warning',
      container: 'trainer',
      token: 'nvidia.com/gpumem',
      line: 11,
    });
  });

  test('percentages out of range, on the value', () => {
    const text = pod('          nvidia.com/gpu: 1\n          nvidia.com/gpumem-percentage: 150\n          nvidia.com/gpucores: 101');
    expectAll(text, lint(text), 'hami-resource-conflict', [
      {
        severity: 'warning',
        container: 'trainer',
        token: '150',
        line: 11,
        message: 'nvidia.com/gpumem-percentage is 150; it must be between 1 and 100',
      },
      { severity: 'warning', container: 'trainer', token: '101', line: 12, message: 'from 0 to 100' },
    ]);
  });

  test('a well-formed HAMi request: nothing', () => {
    for (const limits of [
      '          nvidia.com/gpu: 1\n          nvidia.com/gpumem: 8000\n          nvidia.com/gpucores: 30',
      '          nvidia.com/gpu: 2\n          nvidia.com/gpumem-percentage: 100\n          nvidia.com/gpucores: 0',
      '          amd.com/gpu: 1\n          amd.com/gpumem: 4096',
    ]) {
      assert.deepEqual(lint(pod(limits)).findings, [], limits);
    }
  });
});

describe('hami-gvisor', () => {
  test('gVisor with a HAMi container is a warning on runtimeClassName', () => {
    const text = hamiPod({ resources: HAMI, spec: '  runtimeClassName: gvisor' });
    expectOne(text, lint(text), {
      ruleId: 'hami-gvisor',
      severity: 'warning',
      container: 'trainer',
      token: 'gvisor',
      line: 6,
      message: 'runtimeClassName "gvisor" runs container "trainer" under gVisor',
    });
    const runsc = hamiPod({ resources: HAMI, spec: '  runtimeClassName: runsc-kvm' });
    expectOne(runsc, lint(runsc), { ruleId: 'hami-gvisor', severity: 'warning', container: 'trainer', token: 'runsc-kvm', line: 6 });
  });

  test('another runtime, or gVisor without HAMi: nothing', () => {
    assert.deepEqual(lint(hamiPod({ resources: HAMI, spec: '  runtimeClassName: nvidia' })).findings, []);
    assert.deepEqual(lint(hamiPod({ resources: PLAIN, spec: '  runtimeClassName: gvisor' })).findings, []);
  });
});

describe('hami-musl-image', () => {
  for (const image of [
    'alpine:3.20',
    'python:3.12-alpine',
    'docker.io/library/busybox:1.36',
    'gcr.io/distroless/static-debian12',
    'ghcr.io/example/app-musl:1.0',
  ]) {
    test(`${image} on a HAMi container is an info on the image`, () => {
      const text = hamiPod({ resources: HAMI, image });
      expectOne(text, lint(text), {
        ruleId: 'hami-musl-image',
        severity: 'info',
        container: 'trainer',
        token: image,
        line: 9,
        message: 'looks musl-based or static',
      });
    });
  }

  for (const image of [
    'nvcr.io/nvidia/cuda:12.4.1-runtime-ubuntu22.04',
    'myorg/alpineish:1',
    'gcr.io/distroless/cc-debian12',
    'python:3.12-slim',
  ]) {
    test(`near miss: ${image} gives nothing`, () => {
      assert.deepEqual(lint(hamiPod({ resources: HAMI, image })).findings, []);
    });
  }

  test('a musl image on a GPU container HAMi does not manage: nothing', () => {
    assert.deepEqual(lint(hamiPod({ resources: PLAIN, image: 'alpine:3.20' })).findings, []);
  });
});
