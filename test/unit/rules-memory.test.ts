// Memory rules: gpu-no-memory-limit, unified-memory detection, uma-headroom, uma-gpu-memory-undeclared,
// uma-not-guaranteed, uma-missing-toleration and gpu-shm-unbounded, positive and near-miss negative.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertNone, config, expectAll, expectOne, findingsOf, fixOf, lint, yaml } from './helpers/lint.ts';

describe('gpu-no-memory-limit', () => {
  test('a GPU container without a memory limit is a warning off unified memory, on its name', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        limits:
          nvidia.com/gpu: 1
`;
    const result = lint(text);
    const finding = expectOne(text, result, {
      ruleId: 'gpu-no-memory-limit',
      severity: 'warning',
      container: 'trainer',
      token: 'trainer',
      line: 7,
      message: 'has no memory limit',
    });
    assert.doesNotMatch(finding.message, /unified-memory/);
    assert.deepEqual(
      result.findings.map((f) => f.ruleId),
      ['gpu-no-memory-limit'],
    );
    assert.equal(finding.object?.kind, 'Pod');
    assert.equal(finding.object?.name, 'train');
  });

  test('a GPU container with a memory limit gives no finding', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        limits:
          nvidia.com/gpu: 1
          memory: 16Gi
`;
    assert.deepEqual(lint(text).findings, []);
  });

  test('a container without a GPU and without a memory limit gives nothing at all', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
    - name: nginx
      image: nginx:1.27
      resources:
        limits:
          cpu: 500m
`;
    const result = lint(text);
    assert.deepEqual(result.findings, []);
    assert.deepEqual(result.containers, []);
  });

  test('a memory request alone is not a limit', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      resources:
        requests:
          memory: 16Gi
        limits:
          nvidia.com/gpu: 1
`;
    expectOne(text, lint(text), { ruleId: 'gpu-no-memory-limit', severity: 'warning', container: 'trainer', token: 'trainer', line: 7 });
  });

  test('is an error on a unified-memory target, and says how much it needs', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: llm
  annotations:
    gpumem.io/gpu-memory: 48Gi
spec:
  nodeSelector:
    amd.com/gpu.device-id: "1586"
  containers:
    - name: server
      image: rocm/vllm:latest
      resources:
        limits:
          amd.com/gpu: 1
`;
    const finding = expectOne(text, lint(text), {
      ruleId: 'gpu-no-memory-limit',
      severity: 'error',
      container: 'server',
      token: 'server',
      line: 11,
      message: ['on a unified-memory node', 'It needs about 62.4 GiB (GPU 48 GiB + 30 %)'],
    });
    // 48 GiB × 1.3 = 62.4 GiB, rounded up to whole GiB for the fix.
    assert.equal(fixOf(finding, /^Set memory limit to /).title, 'Set memory limit to 63Gi (GPU 48 GiB + 30 % headroom)');
  });

  test('without declared memory, the message gives no size and the fix is a placeholder', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      resources:
        limits:
          nvidia.com/gpu: 1
`;
    const finding = expectOne(text, lint(text), {
      ruleId: 'gpu-no-memory-limit',
      severity: 'warning',
      container: 'trainer',
      token: 'trainer',
      line: 7,
    });
    assert.doesNotMatch(finding.message, /needs about/);
    assert.deepEqual(
      finding.fixes.map((f) => f.title),
      ['Insert a SET-ME memory limit placeholder to fill in'],
    );
  });

  test('declared host memory sizes the fix off unified memory too', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: train
  annotations:
    gpumem.io/host-memory: 10Gi
spec:
  containers:
    - name: trainer
      resources:
        limits:
          nvidia.com/gpu: 1
`;
    const finding = expectOne(text, lint(text), {
      ruleId: 'gpu-no-memory-limit',
      severity: 'warning',
      container: 'trainer',
      token: 'trainer',
      line: 9,
      message: 'It needs about 13 GiB (host 10 GiB + 30 %)',
    });
    assert.equal(finding.fixes[0]?.title, 'Set memory limit to 13Gi (host 10 GiB + 30 % headroom)');
  });

  test('reports each GPU container, including GPU init containers, and skips the others', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: mixed
spec:
  initContainers:
    - name: warmup
      resources:
        limits:
          nvidia.com/gpu: 1
  containers:
    - name: sidecar
      image: busybox
    - name: trainer
      resources:
        limits:
          nvidia.com/gpu: 1
`;
    expectAll(text, lint(text), 'gpu-no-memory-limit', [
      { severity: 'warning', container: 'warmup', token: 'warmup', line: 7 },
      { severity: 'warning', container: 'trainer', token: 'trainer', line: 14 },
    ]);
  });
});

/** A GPU pod with a memory limit but no declared GPU memory, and `extra` spliced into its spec. */
function targeted(spec: string, annotations = ''): string {
  return yaml`
apiVersion: v1
kind: Pod
metadata:
  name: target${annotations ? `\n  annotations:\n${annotations}` : ''}
spec:
${spec}
  containers:
    - name: app
      image: x
      resources:
        limits:
          nvidia.com/gpu: 1
`;
}

describe('unified-memory detection (severity of gpu-no-memory-limit, evidence of uma-gpu-memory-undeclared)', () => {
  const cases: readonly { name: string; text: string; unified: boolean; evidence?: string; config?: Record<string, unknown> }[] = [
    {
      name: 'Strix Halo device id in nodeSelector',
      text: targeted('  nodeSelector:\n    amd.com/gpu.device-id: "1586"'),
      unified: true,
      evidence: 'nodeSelector amd.com/gpu.device-id=1586',
    },
    {
      name: 'Strix Point device id under the beta prefix',
      text: targeted('  nodeSelector:\n    beta.amd.com/gpu.device-id: "150e"'),
      unified: true,
      evidence: 'nodeSelector beta.amd.com/gpu.device-id=150e',
    },
    {
      name: 'AMD family label GC_11_5_1',
      text: targeted('  nodeSelector:\n    amd.com/gpu.family: GC_11_5_1'),
      unified: true,
      evidence: 'nodeSelector amd.com/gpu.family=GC_11_5_1',
    },
    {
      name: 'near miss: an MI300X device id (discrete HBM)',
      text: targeted('  nodeSelector:\n    amd.com/gpu.device-id: "74a1"'),
      unified: false,
    },
    { name: 'near miss: family GC_9_4_2 (Instinct)', text: targeted('  nodeSelector:\n    amd.com/gpu.family: GC_9_4_2'), unified: false },
    {
      name: 'required node affinity with In values',
      text: targeted(yaml`
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - key: amd.com/gpu.device-id
                operator: In
                values: ["74a1", "1586"]`),
      unified: true,
      evidence: 'required node affinity amd.com/gpu.device-id In 74a1, 1586',
    },
    {
      name: 'near miss: NotIn the APU device ids',
      text: targeted(yaml`
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - key: amd.com/gpu.device-id
                operator: NotIn
                values: ["1586"]`),
      unified: false,
    },
    {
      name: 'near miss: only preferred node affinity',
      text: targeted(yaml`
  affinity:
    nodeAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 100
          preference:
            matchExpressions:
              - key: amd.com/gpu.device-id
                operator: In
                values: ["1586"]`),
      unified: false,
    },
    {
      name: 'NVIDIA GB10 product label',
      text: targeted('  nodeSelector:\n    nvidia.com/gpu.product: NVIDIA-GB10'),
      unified: true,
      evidence: 'nodeSelector nvidia.com/gpu.product=NVIDIA-GB10',
    },
    {
      name: 'near miss: NVIDIA GB200 (discrete HBM)',
      text: targeted('  nodeSelector:\n    nvidia.com/gpu.product: NVIDIA-GB200'),
      unified: false,
    },
    {
      name: 'near miss: NVIDIA H100',
      text: targeted('  nodeSelector:\n    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3'),
      unified: false,
    },
    {
      name: 'annotation gpumem.io/unified-memory: "true" alone',
      text: targeted('', '    gpumem.io/unified-memory: "true"'),
      unified: true,
      evidence: 'annotation gpumem.io/unified-memory: "true"',
    },
    {
      name: 'annotation gpumem.io/unified-memory: "false" overrides a Strix Halo nodeSelector',
      text: targeted('  nodeSelector:\n    amd.com/gpu.device-id: "1586"', '    gpumem.io/unified-memory: "false"'),
      unified: false,
    },
    {
      name: 'a custom label rule with values',
      text: targeted('  nodeSelector:\n    example.com/apu: strix-halo'),
      unified: true,
      evidence: 'nodeSelector example.com/apu=strix-halo (our APU pool)',
      config: { unifiedMemoryNodeLabels: [{ key: 'example.com/apu', values: ['strix-halo'], description: 'our APU pool' }] },
    },
    {
      name: 'a custom label rule with a pattern, in node affinity',
      text: targeted(yaml`
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - key: node.example.com/pool
                operator: In
                values: [apu-128g]`),
      unified: true,
      evidence: 'required node affinity node.example.com/pool In apu-128g',
      config: { unifiedMemoryNodeLabels: [{ key: 'node.example.com/pool', pattern: '^apu-' }] },
    },
    {
      name: 'near miss: the custom pattern does not match',
      text: targeted('  nodeSelector:\n    node.example.com/pool: gpu-128g'),
      unified: false,
      config: { unifiedMemoryNodeLabels: [{ key: 'node.example.com/pool', pattern: '^apu-' }] },
    },
    {
      name: 'custom label rules replace the defaults',
      text: targeted('  nodeSelector:\n    amd.com/gpu.device-id: "1586"'),
      unified: false,
      config: { unifiedMemoryNodeLabels: [{ key: 'example.com/apu', values: ['strix-halo'] }] },
    },
  ];
  for (const c of cases) {
    test(`${c.unified ? 'unified' : 'not unified'}: ${c.name}`, () => {
      const result = lint(c.text, c.config ? config(c.config) : undefined);
      const line = c.text.split('\n').findIndex((l) => l.includes('- name: app')) + 1;
      expectOne(c.text, result, {
        ruleId: 'gpu-no-memory-limit',
        severity: c.unified ? 'error' : 'warning',
        container: 'app',
        token: 'app',
        line,
      });
      if (c.unified) {
        expectOne(c.text, result, {
          ruleId: 'uma-gpu-memory-undeclared',
          severity: 'info',
          container: 'app',
          token: 'app',
          line,
          message: `(${c.evidence}`,
        });
        assert.equal(result.containers[0]?.unifiedMemory, true);
      } else {
        assertNone(result, 'uma-gpu-memory-undeclared', 'uma-not-guaranteed', 'uma-headroom');
        assert.equal(result.containers[0]?.unifiedMemory, false);
      }
    });
  }

  test("the unified-memory annotation on a Deployment's pod template counts", () => {
    const text = yaml`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
spec:
  template:
    metadata:
      annotations:
        gpumem.io/unified-memory: "true"
    spec:
      containers:
        - name: app
          resources:
            limits:
              nvidia.com/gpu: 1
`;
    expectOne(text, lint(text), { ruleId: 'gpu-no-memory-limit', severity: 'error', container: 'app', token: 'app', line: 12 });
  });
});

describe('uma-headroom', () => {
  /** A GB10 pod (by annotation) with the given annotations and resources. */
  const pod = (annotations: string, resources: string) => yaml`
apiVersion: v1
kind: Pod
metadata:
  name: llm
  annotations:
    gpumem.io/unified-memory: "true"
${annotations}
spec:
  containers:
    - name: server
      image: vllm/vllm-openai:latest
      resources:
${resources}
`;

  test('declared GPU memory from nvidia.com/gpumem is MiB times the GPU count', () => {
    // 8000 MiB × 2 GPUs = 16000 MiB (15.6 GiB); × 1.3 = 20800 MiB (20.3 GiB), so 20Gi (20480 MiB) is short.
    const text = pod(
      '    team: ml',
      yaml`
        limits:
          nvidia.com/gpu: 2
          nvidia.com/gpumem: 8000
          memory: 20Gi
          cpu: 4`,
    );
    const result = lint(text);
    const finding = expectOne(text, result, {
      ruleId: 'uma-headroom',
      severity: 'warning',
      container: 'server',
      token: '20Gi',
      line: 16,
      message: ['memory limit 20Gi leaves 28 % over its nominal 15.6 GiB', '(GPU 15.6 GiB)', 'at least 30 % (20.3 GiB)'],
    });
    assert.deepEqual(
      finding.fixes.map((f) => f.title),
      ['Raise memory limit to 21Gi'],
    );
    assert.deepEqual(
      result.findings.map((f) => f.ruleId),
      ['uma-headroom'],
    );
  });

  test('21Gi covers 8000 MiB × 2 GPUs plus 30 %', () => {
    const text = pod(
      '    team: ml',
      yaml`
        limits:
          nvidia.com/gpu: 2
          nvidia.com/gpumem: 8000
          memory: 21Gi
          cpu: 4`,
    );
    assert.deepEqual(lint(text).findings, []);
  });

  test('one GPU: 8000 MiB needs 10400 MiB', () => {
    const short = pod('    team: ml', '        limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 8000, memory: 10399Mi, cpu: 1}');
    expectOne(short, lint(short), { ruleId: 'uma-headroom', severity: 'warning', container: 'server', token: '10399Mi', line: 13 });
    const enough = pod('    team: ml', '        limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 8000, memory: 10400Mi, cpu: 1}');
    assertNone(lint(enough), 'uma-headroom');
  });

  test('GPU and host memory from the annotations; both the limit and the explicit request are checked', () => {
    // Nominal 48 + 4 = 52 GiB; × 1.3 = 67.6 GiB.
    const text = pod(
      '    gpumem.io/gpu-memory: 48Gi\n    gpumem.io/host-memory: 4Gi',
      yaml`
        limits:
          amd.com/gpu: 1
          memory: 64Gi
          cpu: 8
        requests:
          memory: 60Gi
          cpu: 8`,
    );
    const [limit, request] = expectAll(text, lint(text), 'uma-headroom', [
      {
        severity: 'warning',
        container: 'server',
        token: '64Gi',
        line: 16,
        message: ['memory limit 64Gi leaves 23 % over its nominal 52 GiB (GPU 48 GiB + host 4 GiB)', 'at least 30 % (67.6 GiB)'],
      },
      {
        severity: 'warning',
        container: 'server',
        token: '60Gi',
        line: 19,
        message: ['memory request 60Gi leaves 15 % over its nominal 52 GiB', 'the request is what reserves that RAM on the node'],
      },
    ]);
    assert.deepEqual(
      limit?.fixes.map((f) => f.title),
      ['Raise memory limit to 68Gi'],
    );
    assert.deepEqual(
      request?.fixes.map((f) => f.title),
      ['Raise memory request to 68Gi'],
    );
  });

  test('a sufficient limit with a short request flags only the request', () => {
    const text = pod(
      '    gpumem.io/gpu-memory: 48Gi\n    gpumem.io/host-memory: 4Gi',
      yaml`
        limits:
          amd.com/gpu: 1
          memory: 68Gi
        requests:
          memory: 52Gi`,
    );
    expectOne(text, lint(text), {
      ruleId: 'uma-headroom',
      severity: 'warning',
      container: 'server',
      token: '52Gi',
      line: 18,
      message: 'memory request 52Gi leaves 0 % over',
    });
  });

  test('an omitted request defaults to the limit: one finding, on the limit', () => {
    const text = pod(
      '    gpumem.io/gpu-memory: 48Gi',
      yaml`
        limits:
          amd.com/gpu: 1
          memory: 40Gi`,
    );
    expectOne(text, lint(text), {
      ruleId: 'uma-headroom',
      severity: 'warning',
      container: 'server',
      token: '40Gi',
      line: 15,
      message: 'memory limit 40Gi is below its nominal 48 GiB',
    });
  });

  test('enough headroom on limit and request gives no finding', () => {
    const text = pod(
      '    gpumem.io/gpu-memory: 48Gi\n    gpumem.io/host-memory: 4Gi',
      yaml`
        limits:
          amd.com/gpu: 1
          memory: 68Gi
          cpu: 8
        requests:
          memory: 68Gi
          cpu: 8`,
    );
    assert.deepEqual(lint(text).findings, []);
  });

  test('headroomPercent changes the verdict', () => {
    const text = pod(
      '    gpumem.io/gpu-memory: 48Gi\n    gpumem.io/host-memory: 4Gi',
      yaml`
        limits:
          amd.com/gpu: 1
          memory: 68Gi
          cpu: 8
        requests:
          memory: 68Gi
          cpu: 8`,
    );
    // 68 / 52 = 1.31: enough for 30 %, not for 40 % (72.8 GiB).
    const strict = lint(text, config({ headroomPercent: 40 }));
    expectAll(text, strict, 'uma-headroom', [
      { severity: 'warning', container: 'server', token: '68Gi', line: 16, message: ['leaves 31 % over', 'at least 40 % (72.8 GiB)'] },
      { severity: 'warning', container: 'server', token: '68Gi', line: 19, message: 'memory request 68Gi' },
    ]);
    assert.equal(findingsOf(strict, 'uma-headroom')[0]?.fixes[0]?.title, 'Raise memory limit to 73Gi');
    // And a lower target accepts a smaller limit.
    const small = pod('    gpumem.io/gpu-memory: 48Gi', '        limits: {amd.com/gpu: 1, memory: 50Gi}');
    expectOne(small, lint(small), { ruleId: 'uma-headroom', severity: 'warning', container: 'server', token: '50Gi', line: 13 });
    assertNone(lint(small, config({ headroomPercent: 4 })), 'uma-headroom');
    assertNone(lint(small, config({ headroomPercent: 0 })), 'uma-headroom');
  });

  test('the per-container annotation wins over the pod-wide one, for that container only', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: llm
  annotations:
    gpumem.io/unified-memory: "true"
    gpumem.io/gpu-memory: 8Gi
    gpumem.io/gpu-memory.trainer: 48Gi
spec:
  containers:
    - name: trainer
      resources:
        limits: {amd.com/gpu: 1, memory: 32Gi}
    - name: evaluator
      resources:
        limits: {amd.com/gpu: 1, memory: 16Gi}
`;
    // trainer: 48 GiB × 1.3 = 62.4 GiB > 32Gi; evaluator: 8 GiB × 1.3 = 10.4 GiB ≤ 16Gi.
    expectOne(text, lint(text), {
      ruleId: 'uma-headroom',
      severity: 'warning',
      container: 'trainer',
      token: '32Gi',
      line: 13,
      message: 'nominal 48 GiB (GPU 48 GiB)',
    });
  });

  test('the GPU memory annotation wins over a HAMi gpumem resource', () => {
    const text = pod('    gpumem.io/gpu-memory: 24Gi', '        limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 4000, memory: 16Gi}');
    expectOne(text, lint(text), {
      ruleId: 'uma-headroom',
      severity: 'warning',
      container: 'server',
      token: '16Gi',
      line: 13,
      message: 'nominal 24 GiB',
    });
  });

  test('not on a unified-memory target: no headroom check, whatever the limit', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: llm
  annotations:
    gpumem.io/gpu-memory: 48Gi
spec:
  containers:
    - name: server
      resources:
        limits: {nvidia.com/gpu: 1, memory: 1Gi}
`;
    assert.deepEqual(lint(text).findings, []);
  });

  test('an invalid memory limit is left to invalid-quantity, not judged for headroom', () => {
    const text = pod('    gpumem.io/gpu-memory: 48Gi', '        limits: {amd.com/gpu: 1, memory: 1Gb}');
    const result = lint(text);
    assertNone(result, 'uma-headroom', 'gpu-no-memory-limit');
    expectOne(text, result, { ruleId: 'invalid-quantity', severity: 'error', container: 'server', token: '1Gb', line: 13 });
  });
});

describe('uma-gpu-memory-undeclared', () => {
  test('a unified-memory GPU pod that declares no GPU memory gets an info on the container name', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: llm
spec:
  nodeSelector:
    amd.com/gpu.device-id: "1586"
  containers:
    - name: server
      resources:
        limits: {amd.com/gpu: 1, memory: 64Gi}
`;
    const finding = expectOne(text, lint(text), {
      ruleId: 'uma-gpu-memory-undeclared',
      severity: 'info',
      container: 'server',
      token: 'server',
      line: 9,
      message: ['declares no GPU memory', 'gpumem.io/gpu-memory: "24Gi"'],
    });
    assert.equal(finding.fixes[0]?.title, 'Declare the GPU memory with the gpumem.io/gpu-memory annotation');
  });

  test('with several GPU containers it names the per-container annotation', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: llm
  annotations:
    gpumem.io/unified-memory: "true"
    gpumem.io/gpu-memory.a: 8Gi
spec:
  containers:
    - name: a
      resources:
        limits: {amd.com/gpu: 1, memory: 64Gi}
    - name: b
      resources:
        limits: {amd.com/gpu: 1, memory: 64Gi}
`;
    expectOne(text, lint(text), {
      ruleId: 'uma-gpu-memory-undeclared',
      severity: 'info',
      container: 'b',
      token: 'b',
      line: 13,
      message: 'gpumem.io/gpu-memory.b: "24Gi"',
    });
  });

  test('declared by annotation, by a HAMi gpumem resource, or off unified memory: nothing', () => {
    const annotated = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: llm
  annotations:
    gpumem.io/gpu-memory: 8Gi
spec:
  nodeSelector: {amd.com/gpu.device-id: "1586"}
  containers:
    - name: server
      resources:
        limits: {amd.com/gpu: 1, memory: 64Gi}
`;
    assertNone(lint(annotated), 'uma-gpu-memory-undeclared');
    const hami = annotated
      .replace('    gpumem.io/gpu-memory: 8Gi\n', '    team: ml\n')
      .replace('{amd.com/gpu: 1,', '{amd.com/gpu: 1, amd.com/gpumem: 8192,');
    assert.notEqual(hami, annotated);
    assertNone(lint(hami), 'uma-gpu-memory-undeclared');
    const discrete = annotated.replace('    gpumem.io/gpu-memory: 8Gi\n', '    team: ml\n').replace('"1586"', '"74a1"');
    assertNone(lint(discrete), 'uma-gpu-memory-undeclared');
  });
});

describe('uma-not-guaranteed', () => {
  test('a Burstable unified-memory GPU pod: the reason names the container and resource', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: llm
  annotations:
    gpumem.io/unified-memory: "true"
    gpumem.io/gpu-memory: 8Gi
spec:
  containers:
    - name: server
      resources:
        limits: {amd.com/gpu: 1, cpu: "2", memory: 16Gi}
        requests: {cpu: "1", memory: 16Gi}
`;
    expectOne(text, lint(text), {
      ruleId: 'uma-not-guaranteed',
      severity: 'info',
      container: 'server',
      token: 'server',
      line: 10,
      message: 'Burstable QoS (container "server" requests 1 cpu but is limited to 2)',
    });
  });

  test('an init container counts for QoS', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: llm
  annotations:
    gpumem.io/unified-memory: "true"
    gpumem.io/gpu-memory: 8Gi
spec:
  initContainers:
    - name: fetch-weights
      resources:
        limits: {cpu: 1}
  containers:
    - name: server
      resources:
        limits: {amd.com/gpu: 1, cpu: 1, memory: 16Gi}
`;
    expectOne(text, lint(text), {
      ruleId: 'uma-not-guaranteed',
      severity: 'info',
      container: 'fetch-weights',
      token: 'fetch-weights',
      line: 10,
      message: 'container "fetch-weights" has no memory limit',
    });
  });

  test('no cpu or memory anywhere is BestEffort', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: llm
  annotations:
    gpumem.io/unified-memory: "true"
spec:
  containers:
    - name: server
      resources:
        limits: {amd.com/gpu: 1}
`;
    expectOne(text, lint(text), {
      ruleId: 'uma-not-guaranteed',
      severity: 'info',
      container: 'server',
      token: 'server',
      line: 9,
      message: 'BestEffort QoS (neither container "server" nor any other sets cpu or memory)',
    });
  });

  test('Guaranteed (limits everywhere, requests equal or defaulted), or not unified: nothing', () => {
    const guaranteed = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: llm
  annotations:
    gpumem.io/unified-memory: "true"
    gpumem.io/gpu-memory: 8Gi
spec:
  initContainers:
    - name: fetch-weights
      resources:
        limits: {cpu: 1, memory: 1Gi}
        requests: {cpu: 1000m, memory: 1024Mi}
  containers:
    - name: server
      resources:
        limits: {amd.com/gpu: 1, cpu: 1, memory: 16Gi}
`;
    assert.deepEqual(lint(guaranteed).findings, []);
    const burstableButDiscrete = guaranteed.replace('    gpumem.io/unified-memory: "true"\n', '').replace('cpu: 1000m', 'cpu: 500m');
    assert.notEqual(burstableButDiscrete, guaranteed);
    assert.deepEqual(lint(burstableButDiscrete).findings, []);
    // The same Burstable change on unified memory is reported, so the pair above is a real near miss.
    const burstable = guaranteed.replace('cpu: 1000m', 'cpu: 500m');
    expectOne(burstable, lint(burstable), {
      ruleId: 'uma-not-guaranteed',
      severity: 'info',
      container: 'fetch-weights',
      token: 'fetch-weights',
      line: 10,
    });
  });

  test('a unified-memory pod without GPU containers is not judged', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: web
  annotations:
    gpumem.io/unified-memory: "true"
spec:
  containers:
    - name: nginx
      resources:
        limits: {cpu: 1}
`;
    assert.deepEqual(lint(text).findings, []);
  });
});

describe('uma-missing-toleration', () => {
  const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: llm
  annotations:
    gpumem.io/gpu-memory: 8Gi
spec:
  nodeSelector:
    amd.com/gpu.device-id: "1586"
  containers:
    - name: server
      resources:
        limits: {amd.com/gpu: 1, cpu: 1, memory: 16Gi}
`;

  test('is off unless a dedicated-node taint key is configured', () => {
    assert.deepEqual(lint(text).findings, []);
  });

  test('with the key configured, a pod without tolerations is reported on the unified-memory evidence', () => {
    const finding = expectOne(text, lint(text, config({ dedicatedNodeTaintKey: 'amd.com/apu' })), {
      ruleId: 'uma-missing-toleration',
      severity: 'warning',
      container: 'server',
      token: '"1586"',
      line: 9,
      message: 'does not tolerate their dedicated-node taint "amd.com/apu", so GPU container "server" cannot schedule there',
    });
    assert.equal(finding.fixes[0]?.title, 'Tolerate the amd.com/apu taint');
  });

  test('tolerations for other keys are reported on the tolerations key', () => {
    const other = text.replace('  containers:\n', '  tolerations:\n    - key: nvidia.com/gpu\n      operator: Exists\n  containers:\n');
    expectOne(other, lint(other, config({ dedicatedNodeTaintKey: 'amd.com/apu' })), {
      ruleId: 'uma-missing-toleration',
      severity: 'warning',
      container: 'server',
      token: 'tolerations',
      line: 10,
    });
  });

  test('a toleration for the key, or one that tolerates everything, satisfies it', () => {
    const withKey = text.replace(
      '  containers:\n',
      '  tolerations:\n    - key: amd.com/apu\n      operator: Exists\n      effect: NoSchedule\n  containers:\n',
    );
    assertNone(lint(withKey, config({ dedicatedNodeTaintKey: 'amd.com/apu' })), 'uma-missing-toleration');
    const all = text.replace('  containers:\n', '  tolerations:\n    - operator: Exists\n  containers:\n');
    assertNone(lint(all, config({ dedicatedNodeTaintKey: 'amd.com/apu' })), 'uma-missing-toleration');
  });

  test('a discrete-GPU pod needs no toleration', () => {
    const discrete = text.replace('"1586"', '"74a1"');
    assert.deepEqual(lint(discrete, config({ dedicatedNodeTaintKey: 'amd.com/apu' })).findings, []);
  });
});

describe('gpu-shm-unbounded', () => {
  const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      resources:
        limits: {nvidia.com/gpu: 1, memory: 32Gi}
      volumeMounts:
        - name: dshm
          mountPath: /dev/shm
    - name: logger
      volumeMounts:
        - name: scratch
          mountPath: /scratch
  volumes:
    - name: dshm
      emptyDir:
        medium: Memory
    - name: scratch
      emptyDir:
        medium: Memory
`;

  test('a memory-backed emptyDir without sizeLimit mounted by a GPU container, on its medium', () => {
    const finding = expectOne(text, lint(text), {
      ruleId: 'gpu-shm-unbounded',
      severity: 'info',
      container: 'trainer',
      token: 'Memory',
      line: 20,
      message: ['Volume "dshm"', 'at /dev/shm'],
    });
    assert.deepEqual(finding.fixes, []);
  });

  test('a sizeLimit, a disk-backed emptyDir, or a mount only in a non-GPU container: nothing', () => {
    const limited = text.replace(
      '        medium: Memory\n    - name: scratch',
      '        medium: Memory\n        sizeLimit: 8Gi\n    - name: scratch',
    );
    assert.notEqual(limited, text);
    assert.deepEqual(lint(limited).findings, []);
    const disk = text.replace('      emptyDir:\n        medium: Memory\n    - name: scratch', '      emptyDir: {}\n    - name: scratch');
    assert.notEqual(disk, text);
    assert.deepEqual(lint(disk).findings, []);
  });
});
