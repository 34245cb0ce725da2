// GPUs through DRA device classes beyond the drivers' own list, and DRA devices requested as extended resources
// (Kubernetes 1.34+). Fixtures: kubernetes-sigs/dra-example-driver (test/fixtures/manifests/dra/example-driver/README.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyGpuResource } from '../../src/core/gpuResources.ts';
import { isGpuDeviceClass, nameSaysGpu } from '../../src/core/gpuDeviceClasses.ts';
import { fixture, lint } from './helpers/lint.ts';

const gpuContainers = (name: string) =>
  lint(fixture(`dra/example-driver/${name}`)).containers.map((container) => container.title.split(' · ')[0]);

test('a claim of a device class whose name says GPU (gpu.example.com) makes a GPU container', () => {
  assert.deepEqual(gpuContainers('basic-resourceclaimtemplate.yaml'), [
    'GPU via claim gpu → class gpu.example.com',
    'GPU via claim gpu → class gpu.example.com',
  ]);
});

test('deviceclass.resource.kubernetes.io/<class> and an extendedResourceName are GPU requests', () => {
  assert.equal(gpuContainers('extended-resource-request.yaml').length, 2);
  assert.equal(classifyGpuResource('deviceclass.resource.kubernetes.io/gpu.example.com')?.role, 'count');
  assert.equal(classifyGpuResource('deviceclass.resource.kubernetes.io/gpu.nvidia.com')?.vendor, 'DRA');
  // Another device requested the same way is no GPU.
  assert.equal(classifyGpuResource('deviceclass.resource.kubernetes.io/sriov-nic.example.com'), undefined);
});

test('which class names say GPU, and which accelerators do not count', () => {
  assert.deepEqual(
    [
      'gpu.example.com',
      'tesla-gpu',
      'vgpu.corp',
      'mig.nvidia.com',
      'gaudi.intel.com',
      'gpumem.io',
      'neuron.aws.com',
      'npu.huawei.com',
      'tpu.google.com',
    ].map((name) => isGpuDeviceClass(name)),
    [true, true, true, true, true, false, false, false, false],
  );
  assert.equal(nameSaysGpu('compute-domain-default-channel.nvidia.com'), false);
});
