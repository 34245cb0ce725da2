// The GPU resource table: every vendor resource the linter must recognise, its role and memory unit, and the
// rules' use of it (a memory-only HAMi share that HAMi admits is no conflict; Alibaba gpushare counts GiB).
// Sources per entry are in src/core/gpuResources.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyGpuResource, memoryUnitBytes } from '../../src/core/gpuResources.ts';
import { assertNone, expectAll, expectOne, lint, yaml } from './helpers/lint.ts';

describe('classifyGpuResource', () => {
  const cases: Array<[string, string, string, string | undefined]> = [
    // name, vendor, role, memory unit
    ['aliyun.com/gpu-mem', 'Alibaba gpushare', 'memory', 'GiB'],
    ['aliyun.com/gpu-count', 'Alibaba gpushare', 'count', undefined],
    ['aliyun.com/gpu-core.percentage', 'Alibaba gpushare', 'cores', undefined],
    ['volcano.sh/gpu-memory', 'Volcano gpu-share', 'memory', 'MiB'],
    ['volcano.sh/gpu-number', 'Volcano gpu-share', 'count', undefined],
    ['volcano.sh/vgpu-number', 'Volcano vGPU', 'count', undefined],
    ['volcano.sh/vgpu-memory', 'Volcano vGPU', 'memory', 'MiB'],
    ['volcano.sh/vgpu-cores', 'Volcano vGPU', 'cores', undefined],
    ['volcano.sh/vgpu-memory-percentage', 'Volcano vGPU', 'memory-percentage', undefined],
    ['volcano.sh/vgpu-anything-new', 'Volcano vGPU', 'other', undefined],
    ['habana.ai/gaudi', 'Intel Gaudi', 'count', undefined],
    ['nvidia.com/mig-1g.5gb', 'NVIDIA', 'count', undefined],
    ['nvidia.com/mig-1g.10gb', 'NVIDIA', 'count', undefined],
    ['nvidia.com/mig-3g.40gb', 'NVIDIA', 'count', undefined],
    ['nvidia.com/mig-7g.80gb', 'NVIDIA', 'count', undefined],
    ['nvidia.com/mig-1g.5gb+me', 'NVIDIA', 'count', undefined],
    ['nvidia.com/mig-1c.2g.20gb', 'NVIDIA', 'count', undefined],
    ['tencent.com/vcuda-memory', 'Tencent vCUDA', 'memory', '256MiB'],
    ['tencent.com/vcuda-core', 'Tencent vCUDA', 'cores', undefined],
    ['k8s.amazonaws.com/vgpu', 'AWS virtual GPU', 'count', undefined],
    ['enflame.com/gcu-memory', 'Enflame', 'memory', undefined],
  ];
  for (const [name, vendor, role, unit] of cases) {
    test(name, () => {
      const info = classifyGpuResource(name);
      assert.ok(info, `${name} is a GPU resource`);
      assert.equal(info.vendor, vendor);
      assert.equal(info.role, role);
      assert.equal(info.memoryUnit, unit);
    });
  }

  test('near misses are not GPU resources', () => {
    for (const name of [
      'memory',
      'cpu',
      'hugepages-2Mi',
      'aliyun.com/gpumem',
      'habana.ai/gaudix',
      'volcano.sh/queue',
      'example.com/gpu-mem',
    ]) {
      assert.equal(classifyGpuResource(name), undefined, name);
    }
  });

  test('memory units in bytes', () => {
    assert.equal(memoryUnitBytes('MiB'), 1024 ** 2);
    assert.equal(memoryUnitBytes('GiB'), 1024 ** 3);
    assert.equal(memoryUnitBytes('256MiB'), 256 * 1024 ** 2);
    assert.equal(memoryUnitBytes('quantity'), 1);
    assert.equal(memoryUnitBytes(undefined), 1);
  });
});

/** A pod on a unified-memory node with these limit lines (indented by ten spaces). */
const pod = (limits: string) => yaml`
apiVersion: v1
kind: Pod
metadata:
  name: shared
  annotations:
    gpumem.io/unified-memory: "true"
spec:
  containers:
    - name: infer
      image: vllm/vllm-openai:v0.11.0
      resources:
        limits:
${limits}
          memory: 64Gi
        requests:
          memory: 64Gi
`;

describe('vendor resources in the rules', () => {
  test('Alibaba gpushare memory counts GiB per GPU for the headroom rules', () => {
    // 8 GiB × 2 GPUs = 16 GiB of GPU memory, within a 64 GiB limit.
    const result = lint(pod('          aliyun.com/gpu-mem: 8\n          aliyun.com/gpu-count: 2'));
    assert.equal(result.containers[0]?.gpuMemoryBytes, 16 * 1024 ** 3);
    assert.equal(result.containers[0]?.gpuMemorySource, 'aliyun.com/gpu-mem 8 GiB × 2 GPUs');
    assertNone(result, 'uma-gpu-memory-undeclared', 'hami-resource-conflict');
  });

  test('Alibaba gpushare memory above the limit is a headroom finding', () => {
    const text = pod('          aliyun.com/gpu-mem: 60');
    expectAll(text, lint(text), 'uma-headroom', [
      { severity: 'warning', container: 'infer', token: '64Gi', line: 14, message: 'GPU 60 GiB' },
      { severity: 'warning', container: 'infer', token: '64Gi', line: 16 },
    ]);
  });

  test('TKE vcuda-memory counts units of 256 MiB', () => {
    const result = lint(pod('          tencent.com/vcuda-core: 50\n          tencent.com/vcuda-memory: 32'));
    assert.equal(result.containers[0]?.gpuMemoryBytes, 8 * 1024 ** 3);
  });

  test('a MIG profile or a Gaudi makes a GPU container', () => {
    for (const name of ['nvidia.com/mig-3g.40gb', 'nvidia.com/mig-1g.5gb+me', 'habana.ai/gaudi', 'volcano.sh/gpu-number']) {
      const result = lint(pod(`          ${name}: 1`));
      assert.deepEqual(
        result.containers.map((summary) => summary.container),
        ['infer'],
        name,
      );
    }
  });

  test('memory-only shares HAMi admits without a count (AMD, Enflame) are no hami-resource-conflict', () => {
    for (const limits of [
      '          enflame.com/gcu-memory: 16\n          enflame.com/gcu-core: 50',
      '          amd.com/gpumem: 16384',
      '          amd.com/gpucores: 50',
    ]) {
      assertNone(lint(pod(limits)), 'hami-resource-conflict');
    }
  });

  test('an NVIDIA gpumem without a count is still a conflict', () => {
    const text = pod('          nvidia.com/gpumem: 8000');
    expectOne(text, lint(text), {
      ruleId: 'hami-resource-conflict',
      severity: 'warning',
      container: 'infer',
      token: 'nvidia.com/gpumem',
      line: 13,
    });
  });

  test('Volcano gpu-share memory alone is no HAMi conflict (Volcano is not HAMi there)', () => {
    assertNone(lint(pod('          volcano.sh/gpu-memory: 4096')), 'hami-resource-conflict');
  });
});
