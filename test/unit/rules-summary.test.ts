// Container summaries (the CodeLens line above each GPU container) and hovers on resources and annotations.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hoverAt } from '../../src/core/analysis/hover.ts';
import { lint, yaml } from './helpers/lint.ts';

const GIB = 1024 ** 3;

describe('container summaries', () => {
  test('a unified-memory container: GPU, declared memory, limit, headroom against the target, verdict', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: llm
  annotations:
    gpumem.io/gpu-memory: 48Gi
    gpumem.io/host-memory: 4Gi
spec:
  nodeSelector:
    amd.com/gpu.device-id: "1586"
  containers:
    - name: web
      resources:
        limits: {cpu: 1, memory: 1Gi}
    - name: server
      resources:
        limits: {amd.com/gpu: 1, cpu: 8, memory: 64Gi}
`;
    const { containers } = lint(text);
    assert.equal(containers.length, 1, 'only GPU containers get a summary');
    const summary = containers[0]!;
    assert.equal(
      summary.title,
      'GPU: amd.com/gpu 1 (unified memory) · GPU memory: 48 GiB · memory limit: 64Gi · headroom: 23 % (target 30 %) · ⚠ 1 finding',
    );
    assert.equal(text.slice(summary.span.start, summary.span.end), 'server');
    assert.equal(summary.container, 'server');
    assert.equal(summary.object.name, 'llm');
    assert.equal(summary.unifiedMemory, true);
    assert.deepEqual(summary.gpuResources, [{ name: 'amd.com/gpu', value: '1' }]);
    assert.equal(summary.gpuMemoryBytes, 48 * GIB);
    assert.equal(summary.gpuMemorySource, 'annotation gpumem.io/gpu-memory');
    assert.equal(summary.limit, '64Gi');
    assert.equal(summary.nominalBytes, 52 * GIB);
    assert.equal(summary.requiredBytes, Math.ceil(52 * GIB * 1.3));
    assert.ok(Math.abs((summary.headroomPercent ?? 0) - (64 / 52 - 1) * 100) < 1e-9);
    assert.equal(summary.worst, 'warning');
    assert.equal(summary.findingCount, 1);
  });

  test('a discrete-GPU container with a HAMi quota: no headroom target, a clean verdict', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: vgpu
spec:
  containers:
    - name: trainer
      resources:
        limits: {nvidia.com/gpu: 2, nvidia.com/gpumem: 8000, memory: 16Gi}
`;
    const [summary] = lint(text).containers;
    assert.ok(summary);
    assert.equal(
      summary.title,
      'GPU: nvidia.com/gpu 2, nvidia.com/gpumem 8000 · GPU memory: 15.6 GiB · memory limit: 16Gi · ✓ no findings',
    );
    assert.equal(summary.unifiedMemory, false);
    assert.equal(summary.gpuMemoryBytes, 16000 * 1024 * 1024);
    assert.equal(summary.gpuMemorySource, 'nvidia.com/gpumem 8000 MiB × 2 GPUs');
    assert.equal(summary.nominalBytes, undefined);
    assert.equal(summary.headroomPercent, undefined);
    assert.equal(summary.worst, undefined);
    assert.equal(summary.findingCount, 0);
  });

  test('without a limit: what it needs, and the worst finding of that container only', () => {
    const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: llm
  annotations:
    gpumem.io/unified-memory: "true"
    gpumem.io/gpu-memory.a: 48Gi
    gpumem.io/gpu-memory.b: 8Gi
spec:
  containers:
    - name: a
      resources:
        limits: {nvidia.com/gpu: 1}
    - name: b
      resources:
        limits: {nvidia.com/gpu: 1, cpu: 1, memory: 16Gi}
`;
    const titles = lint(text).containers.map((s) => s.title);
    // a: gpu-no-memory-limit (error) and uma-not-guaranteed (info, the first Burstable container).
    assert.deepEqual(titles, [
      'GPU: nvidia.com/gpu 1 (unified memory) · GPU memory: 48 GiB · memory limit: none · needs: 62.4 GiB · ✖ 2 findings',
      'GPU: nvidia.com/gpu 1 (unified memory) · GPU memory: 8 GiB · memory limit: 16Gi · headroom: 100 % (target 30 %) · ✓ no findings',
    ]);
  });
});

describe('container summaries of multi-template kinds', () => {
  // KubeRay samples name every worker group's container "ray-worker". Findings are grouped for the summaries by
  // (object, container name), and all templates of a RayCluster share one object, so the clean group's lens counts
  // the other group's finding. The fix belongs in lint.ts (a per-template object or key), which is being edited.
  test("each worker group's summary counts only its own findings", () => {
    const text = yaml`
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: rc
spec:
  headGroupSpec:
    template:
      spec:
        containers:
          - name: ray-head
  workerGroupSpecs:
    - groupName: small
      template:
        spec:
          containers:
            - name: ray-worker
              resources:
                limits: {nvidia.com/gpu: 1, memory: 8Gi}
    - groupName: big
      template:
        spec:
          containers:
            - name: ray-worker
              resources:
                limits: {nvidia.com/gpu: 1}
`;
    const result = lint(text);
    assert.deepEqual(
      result.findings.map((f) => f.message.endsWith(' [workerGroupSpecs[big]]')),
      [true],
    );
    assert.deepEqual(
      result.containers.map((s) => [s.limit ?? 'none', s.findingCount]),
      [
        ['8Gi', 0],
        ['none', 1],
      ],
    );
  });
});

describe('hoverAt', () => {
  const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: vgpu
  annotations:
    gpumem.io/gpu-memory.trainer: 24Gi
spec:
  containers:
    - name: trainer
      resources:
        limits:
          nvidia.com/gpu: 1
          nvidia.com/gpumem: 8000
          memory: 32Gi
          cpu: 500m
        requests:
          memory: 1Gb
`;
  const at = (needle: string, delta = 1) => {
    const offset = text.indexOf(needle);
    assert.ok(offset >= 0, needle);
    return hoverAt(text, offset + delta);
  };

  test('nvidia.com/gpumem: 8000 is MiB per GPU, shown in bytes and GiB, over the whole entry', () => {
    for (const hover of [at('8000'), at('nvidia.com/gpumem')]) {
      assert.ok(hover);
      assert.match(hover.markdown, /^\*\*nvidia\.com\/gpumem\*\* \(limit\)/);
      assert.ok(hover.markdown.includes('HAMi vGPU memory quota per GPU, in MiB'), hover.markdown);
      assert.ok(hover.markdown.includes('8000 MiB = 8,388,608,000 bytes (7.8 GiB) per GPU.'), hover.markdown);
      assert.equal(text.slice(hover.start, hover.end), 'nvidia.com/gpumem: 8000');
    }
  });

  test('memory: 32Gi is 34,359,738,368 bytes', () => {
    const hover = at('32Gi');
    assert.ok(hover);
    assert.ok(hover.markdown.includes('32Gi = 34,359,738,368 bytes (32 GiB).'), hover.markdown);
    assert.ok(hover.markdown.includes('unified-memory'), hover.markdown);
    assert.equal(text.slice(hover.start, hover.end), 'memory: 32Gi');
  });

  test('a GPU count, cpu, an invalid request and the memory annotation', () => {
    assert.ok(at('nvidia.com/gpu:')?.markdown.includes('NVIDIA: whole GPUs (NVIDIA device plugin) or vGPUs (HAMi).'));
    assert.ok(at('500m')?.markdown.includes('500m = 0.5 CPUs.'));
    const invalid = at('1Gb');
    assert.ok(invalid);
    assert.match(invalid.markdown, /^\*\*memory\*\* \(request\)/);
    assert.ok(invalid.markdown.includes('Not a valid quantity: unknown suffix'), invalid.markdown);
    const annotation = at('24Gi');
    assert.ok(annotation);
    assert.ok(
      annotation.markdown.includes(
        'Declared GPU memory (expected GTT / unified-memory footprint) of container "trainer": 25,769,803,776 bytes (24 GiB).',
      ),
      annotation.markdown,
    );
  });

  test('elsewhere, no hover', () => {
    assert.equal(at('name: trainer'), undefined);
    assert.equal(at('apiVersion'), undefined);
    assert.equal(hoverAt('key: [unclosed', 3), undefined);
  });
});

describe('hoverAt: scheduler annotations and vendor memory units', () => {
  const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: shared
  annotations:
    gpu-memory: "2000"
    gpu-fraction-container-name: worker
spec:
  containers:
    - name: worker
      resources:
        limits:
          aliyun.com/gpu-mem: 8
          tencent.com/vcuda-memory: 4
`;
  const at = (needle: string) => hoverAt(text, text.indexOf(needle) + 1);

  test('gpu-memory and gpu-fraction-container-name explain what KAI Scheduler does with them', () => {
    assert.match(at('gpu-memory')?.markdown ?? '', /^\*\*gpu-memory\*\*\n\nKAI Scheduler \/ Run:ai: GPU memory in MiB/);
    assert.ok(at('gpu-fraction-container-name')?.markdown.includes('init containers first'));
  });

  test('Alibaba gpushare counts GiB and TKE vcuda-memory 256 MiB units', () => {
    assert.ok(
      at('aliyun.com/gpu-mem')?.markdown.includes('8 GiB = 8,589,934,592 bytes (8 GiB) per GPU.'),
      at('aliyun.com/gpu-mem')?.markdown,
    );
    assert.ok(
      at('tencent.com/vcuda-memory')?.markdown.includes('4 × 256 MiB = 1,073,741,824 bytes (1 GiB) per GPU.'),
      at('tencent.com/vcuda-memory')?.markdown,
    );
  });
});
