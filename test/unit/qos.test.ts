// One QoS computation for live pods and manifests (src/core/kube/qos.ts), against the examples of
// https://kubernetes.io/docs/tasks/configure-pod-container/quality-service-pod/ (qos-demo … qos-demo-4),
// https://kubernetes.io/docs/concepts/workloads/pods/pod-qos/ and the pod-level resources task
// (https://kubernetes.io/docs/tasks/configure-pod-container/assign-pod-level-resources/, KEP-2837).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeQosClass } from '../../src/core/kube/pods.ts';
import { lintText } from '../../src/core/lint.ts';

interface Resources {
  readonly limits?: Record<string, string>;
  readonly requests?: Record<string, string>;
}

interface Case {
  readonly name: string;
  readonly containers: readonly Resources[];
  readonly initContainers?: readonly Resources[];
  readonly pod?: Resources;
  readonly qos: 'Guaranteed' | 'Burstable' | 'BestEffort';
}

const CASES: readonly Case[] = [
  {
    name: 'qos-demo: requests equal limits for cpu and memory',
    containers: [{ limits: { memory: '200Mi', cpu: '700m' }, requests: { memory: '200Mi', cpu: '700m' } }],
    qos: 'Guaranteed',
  },
  { name: 'limits only: the requests default to them', containers: [{ limits: { memory: '200Mi', cpu: '700m' } }], qos: 'Guaranteed' },
  {
    name: 'qos-demo-2: memory request below its limit',
    containers: [{ limits: { memory: '200Mi' }, requests: { memory: '100Mi' } }],
    qos: 'Burstable',
  },
  {
    name: 'a memory-only pod (limit = request) without a cpu limit',
    containers: [{ limits: { memory: '1Gi' }, requests: { memory: '1Gi' } }],
    qos: 'Burstable',
  },
  { name: 'qos-demo-3: no requests or limits', containers: [{}], qos: 'BestEffort' },
  {
    name: 'qos-demo-4: one container requests memory, the other nothing',
    containers: [{ requests: { memory: '200Mi' } }, {}],
    qos: 'Burstable',
  },
  {
    name: 'one of two containers is not Guaranteed',
    containers: [{ limits: { memory: '1Gi', cpu: '1' } }, { limits: { memory: '1Gi', cpu: '1' }, requests: { cpu: '500m' } }],
    qos: 'Burstable',
  },
  {
    name: 'an init container without limits',
    initContainers: [{ requests: { cpu: '100m' } }],
    containers: [{ limits: { memory: '1Gi', cpu: '1' } }],
    qos: 'Burstable',
  },
  {
    name: 'equal quantities in other units; GPU resources do not count',
    containers: [{ limits: { memory: '1Gi', cpu: '1', 'nvidia.com/gpu': '1' }, requests: { memory: '1024Mi', cpu: '1000m' } }],
    qos: 'Guaranteed',
  },
  { name: 'zero requests count as unset', containers: [{ requests: { cpu: '0' } }], qos: 'BestEffort' },
  {
    name: 'pod-level resources decide: limits for cpu and memory',
    pod: { limits: { cpu: '1', memory: '100Mi' } },
    containers: [{ requests: { cpu: '500m' } }],
    qos: 'Guaranteed',
  },
  {
    name: 'pod-level resources decide: a cpu request below the limit',
    pod: { limits: { cpu: '1', memory: '100Mi' }, requests: { cpu: '500m', memory: '100Mi' } },
    containers: [{ limits: { cpu: '1', memory: '100Mi' } }],
    qos: 'Burstable',
  },
  { name: 'pod-level resources without a memory limit', pod: { limits: { cpu: '1' } }, containers: [{}], qos: 'Burstable' },
];

function livePod(c: Case): unknown {
  const container = (resources: Resources, index: number) => ({ name: `c${index}`, image: 'x', resources });
  return {
    spec: {
      ...(c.pod ? { resources: c.pod } : {}),
      ...(c.initContainers ? { initContainers: c.initContainers.map(container) } : {}),
      containers: c.containers.map(container),
    },
  };
}

function block(resources: Record<string, string> | undefined, indent: string): string {
  return resources
    ? `\n${indent}${Object.entries(resources)
        .map(([k, v]) => `${k}: "${v}"`)
        .join(`\n${indent}`)}`
    : ' {}';
}

/** The same pod as a manifest on a unified-memory node, where uma-not-guaranteed names a non-Guaranteed QoS. */
function manifest(c: Case): string {
  const container = (r: Resources, index: number, prefix: string) =>
    `    - name: ${prefix}${index}\n      image: x\n      resources:\n        limits:${block({ 'amd.com/gpu': '1', ...r.limits }, '          ')}\n        requests:${block(r.requests, '          ')}\n`;
  const pod = c.pod ? `  resources:\n    limits:${block(c.pod.limits, '      ')}\n    requests:${block(c.pod.requests, '      ')}\n` : '';
  const init = c.initContainers ? `  initContainers:\n${c.initContainers.map((r, i) => container(r, i, 'i')).join('')}` : '';
  return `apiVersion: v1\nkind: Pod\nmetadata:\n  name: q\n  annotations:\n    gpumem.io/gpu-memory: "8Gi"\nspec:\n  nodeSelector:\n    amd.com/gpu.device-id: "1586"\n${pod}${init}  containers:\n${c.containers.map((r, i) => container(r, i, 'c')).join('')}`;
}

for (const c of CASES) {
  test(`QoS ${c.qos}: ${c.name}`, () => {
    assert.equal(computeQosClass(livePod(c)), c.qos, 'live pod');
    const finding = lintText(manifest(c)).findings.find((f) => f.ruleId === 'uma-not-guaranteed');
    // A GPU limit on every container makes no difference: only cpu and memory count.
    if (c.qos === 'Guaranteed') assert.equal(finding, undefined, finding?.message);
    else assert.match(finding?.message ?? '(no finding)', new RegExp(`is ${c.qos} QoS`));
  });
}
