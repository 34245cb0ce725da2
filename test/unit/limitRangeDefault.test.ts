// gpu-no-memory-limit honours a LimitRange of the same file and namespace: the LimitRanger admission plugin gives a
// container created without a memory limit the LimitRange's `default.memory`. The LimitRange is the one of the
// Kubernetes documentation, "Configure Default Memory Requests and Limits for a Namespace"
// (kubernetes/website content/en/examples/admin/resource/memory-defaults.yaml), in the GPU pod's namespace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lint, yaml } from './helpers/lint.ts';

const LIMIT_RANGE = yaml`
apiVersion: v1
kind: LimitRange
metadata:
  name: mem-limit-range
  namespace: ml
spec:
  limits:
  - default:
      memory: 512Mi
    defaultRequest:
      memory: 256Mi
    type: Container
`;

const gpuPod = (namespace: string) => yaml`
apiVersion: v1
kind: Pod
metadata:
  name: train
  namespace: ${namespace}
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:25.01-py3
      resources:
        limits:
          nvidia.com/gpu: 1
`;

const noLimit = (text: string) => lint(text).findings.filter((finding) => finding.ruleId === 'gpu-no-memory-limit');

test('a LimitRange default in the same namespace and file: information that names it and its default', () => {
  const [finding, ...more] = noLimit(`${LIMIT_RANGE}---\n${gpuPod('ml')}`);
  assert.equal(more.length, 0);
  assert.equal(finding?.severity, 'info');
  assert.match(finding?.message ?? '', /the LimitRange "mem-limit-range" in namespace ml \(in this file\) gives it its default, 512Mi/);
});

test('a LimitRange of another namespace, or none: the warning stands', () => {
  assert.equal(noLimit(`${LIMIT_RANGE}---\n${gpuPod('other')}`)[0]?.severity, 'warning');
  assert.equal(noLimit(gpuPod('ml'))[0]?.severity, 'warning');
  // A LimitRange for pods only (type: Pod) gives containers no default.
  assert.equal(noLimit(`${LIMIT_RANGE.replace('type: Container', 'type: Pod')}---\n${gpuPod('ml')}`)[0]?.severity, 'warning');
});
