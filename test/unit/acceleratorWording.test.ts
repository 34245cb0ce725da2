// gpu-no-memory-limit speaks of the container's own accelerator: a CUDA context is NVIDIA's; AWS Neuron (Inferentia,
// Trainium: aws.amazon.com/neuron, as in AWS's Neuron device plugin examples) and Intel Gaudi (habana.ai/gaudi, the
// Habana device plugin's resource) have runtimes of their own, and AMD runs HIP/ROCm.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lint, yaml } from './helpers/lint.ts';

const pod = (resource: string) => yaml`
apiVersion: v1
kind: Pod
metadata:
  name: infer
spec:
  containers:
    - name: model
      image: registry.example/model:1
      resources:
        limits:
          ${resource}: 1
`;

const message = (resource: string) =>
  lint(pod(resource)).findings.find((finding) => finding.ruleId === 'gpu-no-memory-limit')?.message ?? '';

test('Neuron and Gaudi containers are not told about a CUDA context; NVIDIA ones are', () => {
  assert.match(message('aws.amazon.com/neuron'), /host-side buffers \(Neuron runtime, host-side tensors, pinned memory, data loaders\)/);
  assert.match(message('habana.ai/gaudi'), /host-side buffers \(SynapseAI \(Habana\) runtime, pinned memory, data loaders\)/);
  assert.match(message('amd.com/gpu'), /HIP\/ROCm runtime/);
  for (const resource of ['aws.amazon.com/neuron', 'habana.ai/gaudi', 'amd.com/gpu'])
    assert.doesNotMatch(message(resource), /CUDA/, resource);
  assert.match(message('nvidia.com/gpu'), /host-side buffers \(CUDA context, pinned memory, data loaders\)/);
});
