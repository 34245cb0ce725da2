// The pure Kubernetes models (src/core/kube): nodes, pods, node events and context states, on object JSON
// as the API returns it. Provenance of the fixtures:
// - Node/Pod/Event JSON layout: the core/v1 API (kubernetes/website content/en/docs/reference/kubernetes-api/
//   cluster-resources/node-v1.md, workload-resources/pod-v1.md, cluster-resources/event-v1.md) and real
//   `kubectl get … -o json` dumps (pachyderm/pachyderm#1372 for a node list).
// - NVIDIA GPU-operator labels (nvidia.com/gpu.present, gpu.product, gpu.memory): NVIDIA/gpu-operator#442
//   (`kubectl describe node` of an A30 node: `nvidia.com/gpu.product=NVIDIA-A30`, `nvidia.com/gpu.memory=24576`).
// - Node conditions: the kubelet's own strings (pkg/kubelet/nodestatus/setters.go), as printed in
//   Azure/acs-engine#4236 (`MemoryPressure False … KubeletHasSufficientMemory kubelet has sufficient memory
//   available`); the memory-pressure taint `node.kubernetes.io/memory-pressure:NoSchedule` (well-known taints).
// - `hami.io/node-nvidia-register`, CSV 7 fields: HAMi docs/develop/protocol.md before v2.8 (two V100s);
//   CSV 9 fields: protocol.md at HEAD; JSON: the HAMi lab annotation with an omitted index/numa
//   (`[{"id":"GPU-3cef3724-…","count":10,"devmem":11441,…},{…,"index":1,…}]`), the HAMi FAQ L40S entry,
//   and the AMD form from HAMi docs (amd-vgpu protocol, MI300X: devmem 196608, devcore 304).
// - Handshakes: `Requesting_2024.05.14 07:07:33` (HAMi Chinese docs), `Reported 2024-01-23 04:30:04.434037031
//   +0000 UTC m=+1104711.777756895` (protocol.md, older plugins), `Reported_2024-01-23 04:30:04` (HEAD).
// - The HAMi pod: DaoCloud/DaoCloud-docs docs/zh/docs/baize/developer/jobs/view.md (a PyTorchJob worker,
//   `hami.io/vgpu-devices-allocated: GPU-29d5fa0d-935b-2966-aff8-483a174d61d1,NVIDIA,1024,20:;`), converted
//   from YAML to JSON unchanged; the two-container to-allocate value from protocol.md.
// - The OOMKilled container status: kubernetes/website assign-memory-resource.md (memory-demo-2:
//   exitCode 137, reason OOMKilled, finishedAt 2017-06-20T20:52:19Z).
// - QoS pods: kubernetes/website quality-service-pod.md (qos-demo … qos-demo-4).
// - SystemOOM messages: `System OOM encountered, victim process: stress, pid: 16713` (a `kubectl get events`
//   paste, node3) and the older bare `System OOM encountered` (GKE memhog demo).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiException } from '@kubernetes/client-node';
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import { parseHamiHandshake, parseHamiNodeRegister } from '../../src/core/kube/hamiNodeAnnotations.ts';
import { compareNodesGpuFirst, summarizeNode } from '../../src/core/kube/nodes.ts';
import {
  computeQosClass,
  defaultExecContainer,
  hamiFactsFromPod,
  isHamiManaged,
  parseHamiPodDevices,
  podHealth,
  summarizePod,
} from '../../src/core/kube/pods.ts';
import { nodeMemoryEvents, parseSystemOomMessage, systemOomEvents } from '../../src/core/kube/events.ts';
import { classifyKubeError, parseForbiddenMessage } from '../../src/core/kube/kubeFailure.ts';
import { contextStateFromFailure, describeContextState } from '../../src/core/kube/contextState.ts';
import type { ContextState } from '../../src/core/kube/contextState.ts';

/** The state a failed request leaves its context in, as ClusterClient makes it: classify, then map. */
function stateOfError(error: unknown, attempted?: { verb: string; resource: string }): ContextState {
  return contextStateFromFailure(classifyKubeError(error, attempted));
}

// ---------------------------------------------------------------------------------------------------------
// Fixtures

const V100_CSV7 =
  'GPU-00552014-5c87-89ac-b1a6-7b53aa24b0ec,10,32768,100,NVIDIA-Tesla V100-PCIE-32GB,0,true:GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448,10,32768,100,NVIDIA-Tesla V100-PCIE-32GB,0,true:';
const V100_CSV9 =
  'GPU-00552014-5c87-89ac-b1a6-7b53aa24b0ec,10,32768,100,NVIDIA-Tesla V100-PCIE-32GB,0,true,0,hami-core:GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448,10,32768,100,NVIDIA-Tesla V100-PCIE-32GB,0,true,1,hami-core:';
const K80_JSON =
  '[{"id":"GPU-3cef3724-8228-5a66-b391-b0901788f5d0","count":10,"devmem":11441,"devcore":100,"type":"NVIDIA-Tesla-K80","mode":"hami-core","health":true},{"id":"GPU-5127182e-f297-5a25-bb44-0444c3be540c","index":1,"count":10,"devmem":11441,"devcore":100,"type":"NVIDIA-Tesla-K80","mode":"hami-core","health":true}]';
// MarshalNodeDevices of an unhealthy device (omitempty drops "health":false and the zero index/numa).
const UNHEALTHY_JSON =
  '[{"id":"GPU-fc28df76-54d2-c387-e52e-5f0a9495968c","count":10,"devmem":49140,"devcore":100,"type":"NVIDIA-NVIDIA L40S","mode":"hami-core"}]';
const AMD_JSON =
  '[{"id":"0xc1a3f5d2b7e49a10","index":0,"count":1,"devmem":196608,"devcore":304,"type":"AMDGPU","numa":0,"mode":"hami-core","health":true}]';

function kubeletConditions(memoryPressure: 'True' | 'False'): unknown[] {
  return [
    memoryPressure === 'True'
      ? {
          type: 'MemoryPressure',
          status: 'True',
          lastHeartbeatTime: '2026-08-20T09:14:02Z',
          lastTransitionTime: '2026-08-20T09:12:40Z',
          reason: 'KubeletHasInsufficientMemory',
          message: 'kubelet has insufficient memory available',
        }
      : {
          type: 'MemoryPressure',
          status: 'False',
          lastHeartbeatTime: '2026-08-20T09:14:02Z',
          lastTransitionTime: '2026-08-01T07:00:11Z',
          reason: 'KubeletHasSufficientMemory',
          message: 'kubelet has sufficient memory available',
        },
    {
      type: 'DiskPressure',
      status: 'False',
      lastHeartbeatTime: '2026-08-20T09:14:02Z',
      lastTransitionTime: '2026-08-01T07:00:11Z',
      reason: 'KubeletHasNoDiskPressure',
      message: 'kubelet has no disk pressure',
    },
    {
      type: 'PIDPressure',
      status: 'False',
      lastHeartbeatTime: '2026-08-20T09:14:02Z',
      lastTransitionTime: '2026-08-01T07:00:11Z',
      reason: 'KubeletHasSufficientPID',
      message: 'kubelet has sufficient PID available',
    },
    {
      type: 'Ready',
      status: 'True',
      lastHeartbeatTime: '2026-08-20T09:14:02Z',
      lastTransitionTime: '2026-08-01T07:00:42Z',
      reason: 'KubeletReady',
      message: 'kubelet is posting ready status',
    },
  ];
}

function nodeInfo(kubelet: string, kernel: string): Record<string, string> {
  return {
    machineID: 'a1eed271b0c04120807f55452047769a',
    systemUUID: 'C6331BB0-A1A1-0A42-9169-39EFFB20D972',
    bootID: '41e415f3-a2b4-4cf9-bf54-b9860f23965a',
    kernelVersion: kernel,
    osImage: 'Ubuntu 24.04.2 LTS',
    containerRuntimeVersion: 'containerd://1.7.27',
    kubeletVersion: kubelet,
    kubeProxyVersion: kubelet,
    operatingSystem: 'linux',
    architecture: 'amd64',
  };
}

const HAMI_NODE = {
  kind: 'Node',
  apiVersion: 'v1',
  metadata: {
    name: 'gpu-v100-1',
    uid: '9d83a5fa-f31d-11e6-963a-12cd63c7b19c',
    resourceVersion: '5111702',
    creationTimestamp: '2026-08-01T07:00:00Z',
    labels: {
      'beta.kubernetes.io/arch': 'amd64',
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/hostname': 'gpu-v100-1',
      'kubernetes.io/os': 'linux',
      gpu: 'on',
    },
    annotations: {
      'hami.io/node-handshake': 'Requesting_2024.05.14 07:07:33',
      'hami.io/node-nvidia-register': V100_CSV7,
      'node.alpha.kubernetes.io/ttl': '0',
      'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
    },
  },
  spec: {
    podCIDR: '10.244.1.0/24',
    podCIDRs: ['10.244.1.0/24'],
    taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }],
  },
  status: {
    capacity: {
      cpu: '32',
      'ephemeral-storage': '959786032Ki',
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
      memory: '263824616Ki',
      'nvidia.com/gpu': '20',
      pods: '110',
    },
    allocatable: {
      cpu: '32',
      'ephemeral-storage': '958737456Ki',
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
      memory: '263722216Ki',
      'nvidia.com/gpu': '20',
      pods: '110',
    },
    conditions: kubeletConditions('False'),
    addresses: [
      { type: 'InternalIP', address: '10.240.0.4' },
      { type: 'Hostname', address: 'gpu-v100-1' },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: nodeInfo('v1.31.4', '6.8.0-45-generic'),
  },
};

const APU_NODE = {
  kind: 'Node',
  apiVersion: 'v1',
  metadata: {
    name: 'strix-halo-1',
    uid: '15a8d2cc-594b-11ea-b91f-42010a800179',
    resourceVersion: '756658',
    creationTimestamp: '2026-08-02T10:22:40Z',
    labels: {
      'kubernetes.io/hostname': 'strix-halo-1',
      'kubernetes.io/os': 'linux',
      'amd.com/gpu.device-id': '1586',
      'amd.com/gpu.family': 'GC_11_5_1',
      'amd.com/gpu.product-name': 'AMD Radeon 8060S',
    },
    annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
  },
  spec: { taints: [{ key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule', timeAdded: '2026-08-20T09:12:41Z' }] },
  status: {
    capacity: { cpu: '32', memory: '131072000Ki', 'amd.com/gpu': '1', pods: '110' },
    allocatable: { cpu: '32', memory: '130969600Ki', 'amd.com/gpu': '1', pods: '110' },
    conditions: kubeletConditions('True'),
    addresses: [{ type: 'InternalIP', address: '192.168.10.21' }],
    nodeInfo: nodeInfo('v1.33.2', '6.14.0-29-generic'),
  },
};

const PLAIN_NODE = {
  kind: 'Node',
  apiVersion: 'v1',
  metadata: {
    name: 'kind-control-plane',
    labels: {
      'beta.kubernetes.io/arch': 'amd64',
      'kubernetes.io/hostname': 'kind-control-plane',
      'node-role.kubernetes.io/control-plane': '',
    },
    annotations: { 'kubeadm.alpha.kubernetes.io/cri-socket': 'unix:///run/containerd/containerd.sock' },
  },
  spec: {},
  status: {
    capacity: { cpu: '16', memory: '71442084Ki', pods: '110' },
    allocatable: { cpu: '16', memory: '71339684Ki', pods: '110' },
    conditions: kubeletConditions('False'),
    nodeInfo: nodeInfo('v1.27.16', '5.15.0-91-generic'),
  },
};

// DaoCloud docs, view.md: the pod YAML as printed, converted to JSON.
const DAOCLOUD_POD = {
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: {
    name: 'neko-tensorboard-job-test-202404181843-skxivllb-worker-0',
    namespace: 'default',
    uid: 'ddedb6ff-c278-47eb-ae1e-0de9b7c62f8c',
    resourceVersion: '41092552',
    creationTimestamp: '2024-04-18T10:43:36Z',
    labels: {
      'training.kubeflow.org/job-name': 'neko-tensorboard-job-test-202404181843-skxivllb',
      'training.kubeflow.org/operator-name': 'pytorchjob-controller',
      'training.kubeflow.org/replica-index': '0',
      'training.kubeflow.org/replica-type': 'worker',
    },
    annotations: {
      'cni.projectcalico.org/containerID': '0cfbb9af257d5e69027c603c6cb2d3890a17c4ae1a145748d5aef73a10d7fbe1',
      'cni.projectcalico.org/podIP': '',
      'cni.projectcalico.org/podIPs': '',
      'hami.io/bind-phase': 'success',
      'hami.io/bind-time': '1713437016',
      'hami.io/vgpu-devices-allocated': 'GPU-29d5fa0d-935b-2966-aff8-483a174d61d1,NVIDIA,1024,20:;',
      'hami.io/vgpu-devices-to-allocate': ';',
      'hami.io/vgpu-node': 'worker-a800-1',
      'hami.io/vgpu-time': '1713437016',
    },
    ownerReferences: [
      {
        apiVersion: 'kubeflow.org/v1',
        kind: 'PyTorchJob',
        name: 'neko-tensorboard-job-test-202404181843-skxivllb',
        uid: 'e5a8b05d-1f03-4717-8e1c-4ec928014b7b',
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  },
  spec: {
    volumes: [{ name: '0-dataset-pytorch-examples', persistentVolumeClaim: { claimName: 'pytorch-examples' } }],
    containers: [
      {
        name: 'pytorch',
        image: 'm.daocloud.io/docker.io/pytorch/pytorch',
        command: ['bash'],
        args: [
          '-c',
          'ls -la /root && which pip && pip install pytorch_lightning tensorboard && python /root/Git/pytorch/examples/mnist/main.py',
        ],
        ports: [{ name: 'pytorchjob-port', containerPort: 23456, protocol: 'TCP' }],
        env: [
          { name: 'PYTHONUNBUFFERED', value: '1' },
          { name: 'PET_NNODES', value: '1' },
        ],
        resources: {
          limits: { cpu: '4', memory: '8Gi', 'nvidia.com/gpucores': '20', 'nvidia.com/gpumem': '1024', 'nvidia.com/vgpu': '1' },
          requests: { cpu: '4', memory: '8Gi', 'nvidia.com/gpucores': '20', 'nvidia.com/gpumem': '1024', 'nvidia.com/vgpu': '1' },
        },
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        imagePullPolicy: 'Always',
      },
    ],
    restartPolicy: 'Never',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    serviceAccountName: 'default',
    nodeName: 'worker-a800-1',
    securityContext: {},
    affinity: {},
    schedulerName: 'hami-scheduler',
    priorityClassName: 'baize-high-priority',
    priority: 100000,
  },
  status: {
    phase: 'Succeeded',
    conditions: [
      { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: '2024-04-18T10:43:36Z', reason: 'PodCompleted' },
      { type: 'Ready', status: 'False', lastProbeTime: null, lastTransitionTime: '2024-04-18T10:46:34Z', reason: 'PodCompleted' },
      { type: 'ContainersReady', status: 'False', lastProbeTime: null, lastTransitionTime: '2024-04-18T10:46:34Z', reason: 'PodCompleted' },
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2024-04-18T10:43:36Z' },
    ],
    hostIP: '10.20.100.211',
    podIP: '10.233.97.184',
    startTime: '2024-04-18T10:43:36Z',
    containerStatuses: [
      {
        name: 'pytorch',
        state: {
          terminated: {
            exitCode: 0,
            reason: 'Completed',
            startedAt: '2024-04-18T10:43:39Z',
            finishedAt: '2024-04-18T10:46:34Z',
            containerID: 'containerd://09010214bcf3315e81d38fba50de3943c9d2b48f50a6cc2e83f8ef0e5c6eeec1',
          },
        },
        lastState: {},
        ready: false,
        restartCount: 0,
        image: 'm.daocloud.io/docker.io/pytorch/pytorch:latest',
        imageID: 'm.daocloud.io/docker.io/pytorch/pytorch@sha256:11691e035a3651d25a87116b4f6adc113a27a29d8f5a6a583f8569e0ee5ff897',
        started: false,
      },
    ],
    qosClass: 'Guaranteed',
  },
};

// kubernetes/website memory-request-limit-2.yaml after it was OOM-killed twice, with a GPU added (the
// status block is the page's `lastState` verbatim).
const OOM_POD = {
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: { name: 'memory-demo-2', namespace: 'mem-example', uid: '2f4d6c0e-8a1b-4c3d-9e5f-7a6b8c9d0e1f' },
  spec: {
    nodeName: 'strix-halo-1',
    containers: [
      {
        name: 'memory-demo-2-ctr',
        image: 'polinux/stress',
        command: ['stress'],
        args: ['--vm', '1', '--vm-bytes', '250M', '--vm-hang', '1'],
        resources: { requests: { memory: '50Mi', 'amd.com/gpu': '1' }, limits: { memory: '100Mi', 'amd.com/gpu': '1' } },
      },
    ],
    schedulerName: 'default-scheduler',
  },
  status: {
    phase: 'Running',
    containerStatuses: [
      {
        name: 'memory-demo-2-ctr',
        ready: true,
        restartCount: 2,
        state: { running: { startedAt: '2017-06-20T20:52:21Z' } },
        lastState: {
          terminated: {
            containerID: 'docker://65183c1877aaec2e8427bc95609cc52677a454b56fcb24340dbd22917c23b10f',
            exitCode: 137,
            finishedAt: '2017-06-20T20:52:19Z',
            reason: 'OOMKilled',
            startedAt: null,
          },
        },
      },
    ],
  },
};

function qosPod(name: string, containers: { name: string; image: string; resources?: unknown }[]): unknown {
  return { kind: 'Pod', apiVersion: 'v1', metadata: { name, namespace: 'qos-example' }, spec: { containers } };
}

// ---------------------------------------------------------------------------------------------------------
// HAMi node registration

test('HAMi register: 7-field CSV (≤ v2.7) defaults index 0 and mode hami-core', () => {
  const parsed = parseHamiNodeRegister(V100_CSV7);
  assert.equal(parsed.format, 'csv');
  assert.deepEqual(parsed.problems, []);
  assert.equal(parsed.devices.length, 2);
  assert.deepEqual(parsed.devices[0], {
    id: 'GPU-00552014-5c87-89ac-b1a6-7b53aa24b0ec',
    count: 10,
    devmemMiB: 32768,
    devcore: 100,
    type: 'NVIDIA-Tesla V100-PCIE-32GB',
    numa: 0,
    health: true,
    index: 0,
    mode: 'hami-core',
  });
  assert.equal(parsed.devices[1]?.index, 0);
});

test('HAMi register: 9-field CSV carries index and mode', () => {
  const parsed = parseHamiNodeRegister(V100_CSV9);
  assert.equal(parsed.format, 'csv');
  assert.deepEqual(
    parsed.devices.map((d) => [d.index, d.mode, d.health]),
    [
      [0, 'hami-core', true],
      [1, 'hami-core', true],
    ],
  );
});

test('HAMi register: JSON (≥ v2.8) with omitempty fields absent', () => {
  const parsed = parseHamiNodeRegister(K80_JSON);
  assert.equal(parsed.format, 'json');
  assert.deepEqual(parsed.problems, []);
  assert.deepEqual(
    parsed.devices.map((d) => [d.id.slice(0, 12), d.index, d.numa, d.count, d.devmemMiB, d.devcore, d.type, d.health, d.mode]),
    [
      ['GPU-3cef3724', 0, 0, 10, 11441, 100, 'NVIDIA-Tesla-K80', true, 'hami-core'],
      ['GPU-5127182e', 1, 0, 10, 11441, 100, 'NVIDIA-Tesla-K80', true, 'hami-core'],
    ],
  );
  // "health":false is dropped by omitempty: an absent health is an unhealthy device.
  assert.equal(parseHamiNodeRegister(UNHEALTHY_JSON).devices[0]?.health, false);
  const amd = parseHamiNodeRegister(AMD_JSON);
  assert.deepEqual(
    amd.devices.map((d) => [d.devmemMiB, d.devcore, d.type]),
    [[196608, 304, 'AMDGPU']],
  );
});

test('HAMi register: wrong field counts, garbage and empty values are reported, never thrown', () => {
  const eight = parseHamiNodeRegister('GPU-a,10,32768,100,NVIDIA-A100,0,true,0:');
  assert.equal(eight.format, 'invalid');
  assert.match(eight.problems[0] ?? '', /8 fields; HAMi accepts 7 or 9/);
  const mixed = parseHamiNodeRegister(`${V100_CSV7}GPU-b,ten,1024,100,NVIDIA-T4,0,yes:`);
  assert.equal(mixed.format, 'csv');
  assert.equal(mixed.devices.length, 3);
  assert.equal(mixed.devices[2]?.count, 0);
  assert.equal(mixed.devices[2]?.health, false);
  assert.equal(mixed.problems.length, 2);
  assert.equal(parseHamiNodeRegister('[{"id":').format, 'invalid');
  assert.equal(parseHamiNodeRegister('{"id":"x"}').format, 'invalid');
  assert.equal(parseHamiNodeRegister('   ').format, 'empty');
  assert.equal(parseHamiNodeRegister('hello').format, 'invalid');
});

test('HAMi handshake: Requesting_, Reported_, the old "Reported <time>" and unknown values', () => {
  assert.deepEqual(parseHamiHandshake('Requesting_2024.05.14 07:07:33'), {
    value: 'Requesting_2024.05.14 07:07:33',
    state: 'requesting',
    time: '2024.05.14 07:07:33',
  });
  assert.equal(parseHamiHandshake('Reported_2024-01-23 04:30:04').state, 'reported');
  const old = parseHamiHandshake('Reported 2024-01-23 04:30:04.434037031 +0000 UTC m=+1104711.777756895');
  assert.equal(old.state, 'reported');
  assert.equal(old.time, '2024-01-23 04:30:04.434037031 +0000 UTC m=+1104711.777756895');
  assert.equal(parseHamiHandshake('Deleted_2024-01-23 04:30:04').state, 'deleted');
  assert.equal(parseHamiHandshake('whatever').state, 'unknown');
});

// ---------------------------------------------------------------------------------------------------------
// Nodes

test('node: a HAMi V100 node (CSV registration, handshake, taint, capacity)', () => {
  const node = summarizeNode(HAMI_NODE);
  assert.equal(node.name, 'gpu-v100-1');
  assert.deepEqual(node.vendors, ['NVIDIA']);
  assert.equal(node.isGpuNode, true);
  assert.deepEqual(
    node.gpuResources.map((r) => [r.name, r.role, r.capacity, r.allocatableValue]),
    [['nvidia.com/gpu', 'count', '20', 20]],
  );
  assert.equal(node.unifiedMemory.unified, false);
  assert.equal(node.hami?.registrations.length, 1);
  assert.equal(node.hami?.registrations[0]?.vendor, 'NVIDIA');
  assert.equal(node.hami?.registrations[0]?.format, 'csv');
  assert.equal(
    node.hami?.registrations[0]?.devices.reduce((sum, d) => sum + d.devmemMiB, 0),
    65536,
  );
  assert.deepEqual(
    node.hami?.handshakes.map((h) => [h.annotation, h.state]),
    [['hami.io/node-handshake', 'requesting']],
  );
  assert.equal(node.memoryPressure?.status, 'False');
  assert.equal(node.memoryPressure?.reason, 'KubeletHasSufficientMemory');
  assert.equal(node.ready?.status, 'True');
  assert.deepEqual(node.taints, [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule', timeAdded: undefined }]);
  assert.equal(node.kubeletVersion, 'v1.31.4');
  assert.equal(node.memoryCapacityBytes, 263824616 * 1024);
  assert.deepEqual(node.addresses[0], { type: 'InternalIP', address: '10.240.0.4' });
});

test('node: the same node after an upgrade to JSON registration, and an AMD registration', () => {
  const upgraded = structuredClone(HAMI_NODE) as typeof HAMI_NODE & { metadata: { annotations: Record<string, string> } };
  upgraded.metadata.annotations['hami.io/node-nvidia-register'] = K80_JSON;
  upgraded.metadata.annotations['hami.io/node-amd-register'] = AMD_JSON;
  const node = summarizeNode(upgraded);
  assert.deepEqual(
    node.hami?.registrations.map((r) => [r.annotation, r.vendor, r.format, r.devices.length]),
    [
      ['hami.io/node-amd-register', 'AMD', 'json', 1],
      ['hami.io/node-nvidia-register', 'NVIDIA', 'json', 2],
    ],
  );
  assert.deepEqual(node.vendors, ['AMD', 'NVIDIA']);
});

test('node: a Strix Halo APU is unified memory by the lint label rules, under memory pressure', () => {
  const node = summarizeNode(APU_NODE);
  assert.equal(node.unifiedMemory.unified, true);
  assert.match(node.unifiedMemory.evidence ?? '', /amd\.com\/gpu\.device-id=1586 \(AMD GPU operator node labeller/);
  assert.deepEqual(node.vendors, ['AMD']);
  assert.equal(node.product, 'AMD Radeon 8060S');
  assert.equal(node.memoryPressure?.status, 'True');
  assert.equal(node.memoryPressure?.reason, 'KubeletHasInsufficientMemory');
  assert.deepEqual(
    node.taints.map((t) => `${t.key}:${t.effect}`),
    ['node.kubernetes.io/memory-pressure:NoSchedule'],
  );
  assert.equal(node.hami, undefined);
  // Custom rules replace the defaults, as the lint setting does.
  assert.equal(
    summarizeNode(APU_NODE, { unifiedMemoryLabels: [{ key: 'example.com/apu', values: ['true'] }] }).unifiedMemory.unified,
    false,
  );
});

test('node: a plain CPU node is not a GPU node; GPU nodes sort first', () => {
  const plain = summarizeNode(PLAIN_NODE);
  assert.equal(plain.isGpuNode, false);
  assert.deepEqual(plain.vendors, []);
  assert.deepEqual(plain.gpuResources, []);
  const sorted = [summarizeNode(PLAIN_NODE), summarizeNode(APU_NODE), summarizeNode(HAMI_NODE)]
    .sort(compareNodesGpuFirst)
    .map((n) => n.name);
  assert.deepEqual(sorted, ['gpu-v100-1', 'strix-halo-1', 'kind-control-plane']);
});

test('node: vendor labels alone (GPU operator, NFD) mark a GPU node whose plugin reports 0', () => {
  const node = summarizeNode({
    metadata: {
      name: 'a30-node',
      labels: {
        'nvidia.com/gpu.present': 'true',
        'nvidia.com/gpu.product': 'NVIDIA-A30',
        'nvidia.com/gpu.memory': '24576',
        'feature.node.kubernetes.io/pci-0302_10de.present': 'true',
      },
    },
    status: { capacity: { 'nvidia.com/gpu': '0' }, allocatable: { 'nvidia.com/gpu': '0' } },
  });
  assert.equal(node.isGpuNode, true);
  assert.deepEqual(node.vendors, ['NVIDIA']);
  assert.equal(node.product, 'NVIDIA-A30');
  assert.equal(node.gpuResources[0]?.capacityValue, 0);
});

test('node: a client-node V1Node (Dates instead of strings) reads the same', () => {
  const typed = ObjectSerializer.deserialize(structuredClone(APU_NODE), 'V1Node', '');
  assert.ok(typed.status.conditions[0].lastTransitionTime instanceof Date);
  const node = summarizeNode(typed);
  assert.equal(node.memoryPressure?.lastTransitionTime, '2026-08-20T09:12:40.000Z');
  assert.equal(node.taints[0]?.timeAdded, '2026-08-20T09:12:41.000Z');
  assert.equal(node.unifiedMemory.unified, true);
});

test('node: hostile and empty input never throws', () => {
  for (const input of [
    undefined,
    null,
    42,
    'node',
    [],
    {},
    { metadata: null, status: { capacity: ['x'], conditions: 'no' } },
    { spec: { taints: [null, 1, { key: 'k' }] } },
  ]) {
    const node = summarizeNode(input);
    assert.equal(node.isGpuNode, false);
    assert.deepEqual(node.taints, []);
  }
});

// ---------------------------------------------------------------------------------------------------------
// Pods

test('pod: the DaoCloud HAMi worker (vgpu resources, allocation, bind phase, scheduler)', () => {
  const pod = summarizePod(DAOCLOUD_POD);
  assert.equal(pod.isGpuPod, true);
  assert.equal(pod.qosClass, 'Guaranteed');
  assert.equal(pod.qosSource, 'status');
  assert.equal(computeQosClass(DAOCLOUD_POD), 'Guaranteed');
  assert.equal(pod.schedulerName, 'hami-scheduler');
  assert.equal(pod.nodeName, 'worker-a800-1');
  assert.equal(pod.owner, 'PyTorchJob/neko-tensorboard-job-test-202404181843-skxivllb');
  // nvidia.com/vgpu is this deployment's renamed count resource: unknown to the table, so only the HAMi
  // quota resources classify; the pod is a GPU pod through them and through the annotations.
  assert.deepEqual(
    pod.gpuContainers.map((c) => [c.container, c.resources.map((r) => `${r.name}=${r.amount}`)]),
    [['pytorch', ['nvidia.com/gpucores=20', 'nvidia.com/gpumem=1024']]],
  );
  assert.equal(pod.hami?.bindPhase, 'success');
  assert.equal(pod.hami?.node, 'worker-a800-1');
  assert.deepEqual(pod.hami?.allocated, [
    {
      index: 0,
      container: 'pytorch',
      devices: [{ uuid: 'GPU-29d5fa0d-935b-2966-aff8-483a174d61d1', type: 'NVIDIA', usedMemMiB: 1024, usedCores: 20 }],
    },
  ]);
  assert.deepEqual(pod.hami?.toAllocate, []);
  assert.deepEqual(pod.hami?.problems, []);
  assert.equal(pod.restarts[0]?.state, 'terminated');
  assert.equal(pod.restarts[0]?.stateReason, 'Completed');
  assert.equal(pod.oomKilled, false);
});

test('pod: OOMKilled last termination and restarts (kubernetes docs memory-demo-2)', () => {
  const pod = summarizePod(OOM_POD);
  assert.equal(pod.isGpuPod, true);
  assert.equal(pod.oomKilled, true);
  assert.equal(pod.totalRestarts, 2);
  const restart = pod.restarts[0];
  assert.equal(restart?.state, 'running');
  assert.deepEqual(restart?.lastTermination, {
    reason: 'OOMKilled',
    exitCode: 137,
    signal: undefined,
    finishedAt: '2017-06-20T20:52:19Z',
    message: undefined,
  });
  assert.equal(pod.qosClass, 'Burstable');
  assert.equal(pod.qosSource, 'computed');
  assert.deepEqual(
    pod.gpuContainers[0]?.resources.map((r) => [r.name, r.vendor, r.request, r.limit, r.amount]),
    [['amd.com/gpu', 'AMD', '1', '1', 1]],
  );
});

test('QoS as the kubelet computes it (kubernetes docs qos-demo … qos-demo-4, pod-level resources)', () => {
  assert.equal(
    computeQosClass(
      qosPod('qos-demo', [
        {
          name: 'qos-demo-ctr',
          image: 'nginx',
          resources: { limits: { memory: '200Mi', cpu: '700m' }, requests: { memory: '200Mi', cpu: '700m' } },
        },
      ]),
    ),
    'Guaranteed',
  );
  assert.equal(
    computeQosClass(
      qosPod('qos-demo-2', [
        { name: 'qos-demo-2-ctr', image: 'nginx', resources: { limits: { memory: '200Mi' }, requests: { memory: '100Mi' } } },
      ]),
    ),
    'Burstable',
  );
  assert.equal(computeQosClass(qosPod('qos-demo-3', [{ name: 'qos-demo-3-ctr', image: 'nginx' }])), 'BestEffort');
  assert.equal(
    computeQosClass(
      qosPod('qos-demo-4', [
        { name: 'qos-demo-4-ctr-1', image: 'nginx', resources: { requests: { memory: '200Mi' } } },
        { name: 'qos-demo-4-ctr-2', image: 'redis' },
      ]),
    ),
    'Burstable',
  );
  // Equal quantities in different units are equal; GPU resources do not count.
  assert.equal(
    computeQosClass(
      qosPod('units', [
        {
          name: 'c',
          image: 'x',
          resources: { limits: { memory: '1Gi', cpu: '1', 'nvidia.com/gpu': '1' }, requests: { memory: '1024Mi', cpu: '1000m' } },
        },
      ]),
    ),
    'Guaranteed',
  );
  // Zero requests are ignored, as the kubelet does.
  assert.equal(computeQosClass(qosPod('zero', [{ name: 'c', image: 'x', resources: { requests: { cpu: '0' } } }])), 'BestEffort');
  // Init containers count: an init container without limits makes the pod Burstable.
  const withInit = {
    spec: {
      initContainers: [{ name: 'init', image: 'busybox', resources: { requests: { cpu: '100m' } } }],
      containers: [{ name: 'c', image: 'x', resources: { limits: { memory: '1Gi', cpu: '1' }, requests: { memory: '1Gi', cpu: '1' } } }],
    },
  };
  assert.equal(computeQosClass(withInit), 'Burstable');
  // Pod-level resources (PodLevelResources) decide when present.
  assert.equal(
    computeQosClass({
      spec: {
        resources: { limits: { cpu: '2', memory: '4Gi' }, requests: { cpu: '2', memory: '4Gi' } },
        containers: [{ name: 'c', image: 'x' }],
      },
    }),
    'Guaranteed',
  );
});

test('HAMi pod devices: two containers (protocol.md), init containers first, older app-only form', () => {
  const twoContainers = 'GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448,NVIDIA,3000,0:;GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448,NVIDIA,5000,0:;';
  const parsed = parseHamiPodDevices(twoContainers, { all: ['init', 'a', 'b'], app: ['a', 'b'] });
  assert.deepEqual(
    parsed.entries.map((e) => [e.container, e.devices.map((d) => d.usedMemMiB)]),
    [
      ['a', [3000]],
      ['b', [5000]],
    ],
  );
  const withInit = parseHamiPodDevices(';GPU-1,NVIDIA,500,3:GPU-2,NVIDIA,500,3:;', { all: ['init', 'main'], app: ['main'] });
  assert.deepEqual(
    withInit.entries.map((e) => [e.container, e.devices.length]),
    [
      ['init', 0],
      ['main', 2],
    ],
  );
  const extra = parseHamiPodDevices('GPU-1,NVIDIA,500,3,extra:;');
  assert.equal(extra.entries[0]?.devices[0]?.usedCores, 3);
  const short = parseHamiPodDevices('GPU-1,NVIDIA,500:;');
  assert.equal(short.entries[0]?.devices.length, 0);
  assert.match(short.problems[0] ?? '', /3 fields/);
  assert.deepEqual(parseHamiPodDevices('').entries, []);
});

test('pod: privileged containers, runtime class, exec container choice, checklist facts', () => {
  const pod = {
    metadata: { name: 'trainer-0', namespace: 'ml', annotations: { 'kubectl.kubernetes.io/default-container': 'main' } },
    spec: {
      runtimeClassName: 'nvidia',
      initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always' }],
      containers: [
        { name: 'sidecar', image: 'busybox', securityContext: { privileged: true } },
        {
          name: 'main',
          image: 'cuda',
          env: [
            { name: 'CUDA_DISABLE_CONTROL', value: 'true' },
            { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
          ],
          resources: { limits: { 'nvidia.com/gpu': '1', 'nvidia.com/gpumem': '4096' } },
        },
      ],
    },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  };
  const summary = summarizePod(pod);
  assert.deepEqual(summary.privilegedContainers, ['sidecar']);
  assert.equal(summary.runtimeClassName, 'nvidia');
  assert.deepEqual(
    summary.gpuContainers.map((c) => c.container),
    ['main'],
  );
  assert.equal(defaultExecContainer(pod), 'main');
  assert.equal(defaultExecContainer(pod, 'sidecar'), 'sidecar');
  assert.equal(defaultExecContainer(pod, 'proxy'), 'main', 'init containers are not exec targets');
  assert.equal(
    defaultExecContainer({ spec: { containers: [{ name: 'a' }, { name: 'b', resources: { limits: { 'amd.com/gpu': '1' } } }] } }),
    'b',
  );
  assert.deepEqual(hamiFactsFromPod(pod), {
    runtimeClassName: 'nvidia',
    privileged: true,
    podEnv: { CUDA_DISABLE_CONTROL: 'true' },
    managedByHami: true,
  });
  assert.equal(isHamiManaged(summary), true, 'nvidia.com/gpumem is a HAMi-only resource');
  assert.equal(
    isHamiManaged(summarizePod({ spec: { containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': '1' } } }] } })),
    false,
    'nvidia.com/gpu alone is not HAMi',
  );
  assert.equal(
    isHamiManaged(
      summarizePod({
        spec: { schedulerName: 'hami-scheduler', containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': '1' } } }] },
      }),
    ),
    true,
  );
  assert.equal(
    hamiFactsFromPod({ spec: { containers: [{ name: 'c', resources: { limits: { 'amd.com/gpu': '1' } } }] } }).managedByHami,
    false,
  );
  assert.deepEqual(podHealth(pod), { name: 'trainer-0', phase: 'Running', ready: true });
});

test('pod: a plain pod is not a GPU pod; zero GPU requests do not count; hostile input never throws', () => {
  assert.equal(summarizePod(qosPod('qos-demo-3', [{ name: 'c', image: 'nginx' }])).isGpuPod, false);
  assert.equal(summarizePod({ spec: { containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': '0' } } }] } }).isGpuPod, false);
  for (const input of [
    undefined,
    null,
    'pod',
    [],
    {
      spec: { containers: 'x', initContainers: [null] },
      status: { containerStatuses: [1, null, {}] },
      metadata: { annotations: { 'hami.io/vgpu-devices-allocated': 42 } },
    },
  ]) {
    const pod = summarizePod(input);
    assert.equal(pod.isGpuPod, false);
  }
});

// ---------------------------------------------------------------------------------------------------------
// Events

function event(name: string, reason: string, message: string, extra: Record<string, unknown> = {}): unknown {
  return {
    kind: 'Event',
    apiVersion: 'v1',
    metadata: { name, namespace: 'default', creationTimestamp: '2020-11-27T11:01:09Z' },
    involvedObject: { kind: 'Node', name: 'node3', uid: 'node3', apiVersion: 'v1' },
    reason,
    message,
    source: { component: 'kubelet', host: 'node3' },
    firstTimestamp: '2020-11-27T11:01:09Z',
    lastTimestamp: '2020-11-27T11:01:09Z',
    count: 1,
    type: 'Warning',
    eventTime: null,
    reportingComponent: '',
    reportingInstance: '',
    ...extra,
  };
}

test('SystemOOM: the kubelet message with and without a victim', () => {
  assert.deepEqual(parseSystemOomMessage('System OOM encountered, victim process: stress, pid: 16713'), { victim: 'stress', pid: 16713 });
  assert.deepEqual(parseSystemOomMessage('System OOM encountered'), { victim: undefined, pid: undefined });
  assert.deepEqual(parseSystemOomMessage('System OOM encountered, victim process: python3 -m vllm, pid: 4242'), {
    victim: 'python3 -m vllm',
    pid: 4242,
  });
  assert.equal(parseSystemOomMessage('Memory cgroup out of memory'), undefined);
});

test('node events: SystemOOM and OOMKilling for one node, most recent first', () => {
  const events = [
    event('node3.164b5861e041a60e', 'SystemOOM', 'System OOM encountered, victim process: stress, pid: 16713'),
    event(
      'node3.164b58660f8d4590',
      'OOMKilling',
      'Out of memory: Kill process 16711 (stress) score 205 or sacrifice child Killed process 16711 (stress), UID 0, total-vm:826516kB, anon-rss:819296kB, file-rss:0kB, shmem-rss:0kB',
      {
        source: { component: 'kernel-monitor', host: 'node3' },
        firstTimestamp: '2020-11-27T11:01:27Z',
        lastTimestamp: '2020-11-27T11:01:27Z',
      },
    ),
    event('node3.old', 'SystemOOM', 'System OOM encountered', { lastTimestamp: '2020-11-20T08:00:00Z', count: 3 }),
    event('other', 'SystemOOM', 'System OOM encountered, victim process: x, pid: 1', { involvedObject: { kind: 'Node', name: 'node4' } }),
    event('pod', 'OOMKilled', 'x', { involvedObject: { kind: 'Pod', name: 'p' } }),
  ];
  const all = nodeMemoryEvents(events, 'node3');
  assert.deepEqual(
    all.map((e) => [e.kind, e.victim, e.pid, e.count, e.source]),
    [
      ['OOMKilling', undefined, undefined, 1, 'kernel-monitor'],
      ['SystemOOM', 'stress', 16713, 1, 'kubelet'],
      ['SystemOOM', undefined, undefined, 3, 'kubelet'],
    ],
  );
  assert.equal(systemOomEvents(events, 'node3').length, 2);
  assert.equal(systemOomEvents(events).length, 3);
  // events.k8s.io-style series and a client-node Date.
  const series = systemOomEvents([
    event('s', 'SystemOOM', 'System OOM encountered, victim process: a, pid: 2', {
      series: { count: 7, lastObservedTime: new Date('2026-01-01T00:00:00Z') },
    }),
  ]);
  assert.equal(series[0]?.count, 7);
  assert.equal(series[0]?.lastTime, '2026-01-01T00:00:00.000Z');
});

// ---------------------------------------------------------------------------------------------------------
// Context states

const FORBIDDEN_NODES = JSON.stringify({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'nodes is forbidden: User "limited" cannot list resource "nodes" in API group "" at the cluster scope',
  reason: 'Forbidden',
  details: { kind: 'nodes' },
  code: 403,
});

test('context state: 403 from client-node ApiException names the verb and resource from the Status', () => {
  const error = new ApiException(403, 'Unknown API Status Code!', FORBIDDEN_NODES, { 'content-type': 'application/json' });
  assert.deepEqual(stateOfError(error), { kind: 'Forbidden', verb: 'list', resource: 'nodes' });
  assert.deepEqual(
    parseForbiddenMessage(
      'pods "gpumem-debug-x" is forbidden: User "u" cannot create resource "pods/exec" in API group "" in the namespace "default"',
    ),
    { verb: 'create', resource: 'pods/exec' },
  );
  // No body: what the caller attempted.
  assert.deepEqual(stateOfError(new ApiException(403, 'Forbidden', undefined, {}), { verb: 'delete', resource: 'pods' }), {
    kind: 'Forbidden',
    verb: 'delete',
    resource: 'pods',
  });
  const view = describeContextState({ kind: 'Forbidden', verb: 'list', resource: 'nodes' }, 'prod');
  assert.equal(view.label, 'forbidden: list nodes');
  assert.match(view.action ?? '', /kubectl auth can-i list nodes --context prod/);
});

test('context state: 401, network, TLS, timeout, cancel, exec plugin, 5xx', () => {
  const unauthorized = stateOfError(new ApiException(401, 'Unauthorized', undefined, {}));
  assert.equal(unauthorized.kind, 'Unreachable');
  assert.equal(unauthorized.kind === 'Unreachable' && unauthorized.cause, 'auth');
  assert.match(describeContextState(unauthorized).action ?? '', /Log in again/);
  assert.equal(describeContextState(unauthorized).label, 'not authenticated');

  // undici: TypeError('fetch failed') with the socket error as cause.
  const refused = new TypeError('fetch failed', {
    cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED', syscall: 'connect' }),
  });
  assert.deepEqual(classifyKubeError(refused), { kind: 'network', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:1' });
  const tls = new TypeError('fetch failed', {
    cause: Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }),
  });
  assert.equal(classifyKubeError(tls).kind, 'tls');
  const connectTimeout = new TypeError('fetch failed', {
    cause: Object.assign(new Error('Connect Timeout Error'), { code: 'UND_ERR_CONNECT_TIMEOUT' }),
  });
  assert.equal(classifyKubeError(connectTimeout).kind, 'timeout');

  assert.equal(classifyKubeError(new DOMException('The operation was aborted due to timeout', 'TimeoutError')).kind, 'timeout');
  assert.equal(classifyKubeError(new DOMException('This operation was aborted', 'AbortError')).kind, 'cancelled');
  assert.deepEqual(stateOfError(new DOMException('aborted', 'AbortError')), { kind: 'Unknown' });

  const plugin = Object.assign(new Error('spawn gke-gcloud-auth-plugin ENOENT'), {
    code: 'ENOENT',
    syscall: 'spawn gke-gcloud-auth-plugin',
    path: 'gke-gcloud-auth-plugin',
  });
  assert.deepEqual(classifyKubeError(plugin), {
    kind: 'credentials',
    message: 'the exec credential plugin "gke-gcloud-auth-plugin" was not found on the PATH of this process',
  });

  const unavailable = stateOfError(
    new ApiException(
      503,
      'Unknown API Status Code!',
      '{"kind":"Status","status":"Failure","message":"etcdserver: leader changed","code":503}',
      {},
    ),
  );
  assert.equal(unavailable.kind === 'Unreachable' && unavailable.reason, 'the API server answered 503: etcdserver: leader changed');

  // The exec WebSocket's upgrade refusal.
  assert.deepEqual(
    classifyKubeError({ type: 'error', message: 'Unexpected server response: 403' }, { verb: 'create', resource: 'pods/exec' }),
    {
      kind: 'forbidden',
      verb: 'create',
      resource: 'pods/exec',
      message: 'Unexpected server response: 403',
    },
  );
  // Watch errors carry statusCode.
  assert.equal(classifyKubeError(Object.assign(new Error('Gone'), { statusCode: 410 })).kind, 'gone');
  assert.equal(classifyKubeError(new Error('No active cluster!')).kind, 'config');
  assert.equal(classifyKubeError('weird').kind, 'unknown');
  assert.deepEqual(describeContextState({ kind: 'Reachable', version: 'v1.31.4' }).label, 'v1.31.4');
});
