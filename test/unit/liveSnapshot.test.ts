// A live snapshot built from recorded API objects (the shapes `kubectl get -o json` returns: a Deployment with its
// ReplicaSet, a StatefulSet, their pods with OOMKilled last states and a HAMi annotation) and Prometheus figures
// written by hand: the workloads keyed by kind, namespace and name, and one line per pod with its node, true
// footprint, GTT, VRAM, last kill, cause and HAMi state, each with its source. The expected values are the
// fixture's own numbers, not computed by the code under test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { causeText, hamiEnforcementQuery, hamiStatesFrom } from '../../src/core/live/livePods.ts';
import { liveKey, liveSnapshot } from '../../src/core/live/liveSnapshot.ts';
import type { ContainerFigures, PodFigures, PromFigures } from '../../src/core/rightsizing/figures.ts';
import { NO_KILLS } from '../../src/core/rightsizing/kills.ts';
import { matchPods } from '../../src/core/rightsizing/workloadPods.ts';

const GiB = 1024 ** 3;

function owner(kind: string, name: string, uid: string) {
  return { apiVersion: 'apps/v1', kind, name, uid, controller: true, blockOwnerDeletion: true };
}

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'llm', namespace: 'ml', uid: 'd1', annotations: { 'deployment.kubernetes.io/revision': '2' } },
  spec: {
    selector: { matchLabels: { app: 'llm' } },
    template: {
      metadata: { labels: { app: 'llm' } },
      spec: { containers: [{ name: 'server', resources: { limits: { memory: '48Gi', 'amd.com/gpu': '1' } } }] },
    },
  },
};
const replicaSet = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: {
    name: 'llm-6f7c9',
    namespace: 'ml',
    uid: 'rs2',
    annotations: { 'deployment.kubernetes.io/revision': '2' },
    ownerReferences: [owner('Deployment', 'llm', 'd1')],
  },
  spec: { selector: { matchLabels: { app: 'llm', 'pod-template-hash': '6f7c9' } }, template: deployment.spec.template },
};
const statefulSet = {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'cache', namespace: 'ml', uid: 's1' },
  spec: {
    selector: { matchLabels: { app: 'cache' } },
    template: {
      metadata: { labels: { app: 'cache' } },
      spec: { containers: [{ name: 'redis', resources: { limits: { memory: '4Gi' } } }] },
    },
  },
};

function pod(
  name: string,
  labels: Record<string, string>,
  ownerRef: object,
  node: string,
  extra: { status?: object; annotations?: object } = {},
) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ml', uid: `${name}-uid`, labels, ownerReferences: [ownerRef], annotations: extra.annotations ?? {} },
    spec: { nodeName: node, containers: [{ name: labels['app'] === 'llm' ? 'server' : 'redis' }] },
    status: extra.status ?? { phase: 'Running' },
  };
}

const llmLabels = { app: 'llm', 'pod-template-hash': '6f7c9' };
const llmA = pod('llm-6f7c9-abcde', llmLabels, owner('ReplicaSet', 'llm-6f7c9', 'rs2'), 'strix-1', {
  status: {
    phase: 'Running',
    containerStatuses: [
      {
        name: 'server',
        restartCount: 2,
        state: { running: { startedAt: '2026-12-06T10:00:00Z' } },
        lastState: { terminated: { reason: 'OOMKilled', exitCode: 137, finishedAt: '2026-12-06T09:59:50Z' } },
      },
    ],
  },
});
const llmB = pod('llm-6f7c9-fghij', llmLabels, owner('ReplicaSet', 'llm-6f7c9', 'rs2'), 'strix-2');
const cache0 = pod('cache-0', { app: 'cache' }, owner('StatefulSet', 'cache', 's1'), 'gpu-3', {
  annotations: { 'hami.io/vgpu-devices-allocated': 'GPU-0f3e,NVIDIA,6144,30:;' },
  status: {
    phase: 'Running',
    containerStatuses: [
      {
        name: 'redis',
        state: { terminated: { reason: 'OOMKilled', exitCode: 137, finishedAt: '2026-12-07T08:00:00Z' } },
        lastState: { terminated: { reason: 'OOMKilled', exitCode: 137, finishedAt: '2026-12-05T08:00:00Z' } },
      },
    ],
  },
});

const containerFigures = (cgroup: number, footprint: number): ContainerFigures => ({
  cgroupPeak: cgroup,
  trueFootprintPeak: footprint,
  samples: 2000,
  first: 0,
  last: 7 * 86400,
  kernelPeak: undefined,
  kubeletOom: false,
});
const podFigures = (over: Partial<PodFigures>): PodFigures => ({
  gpuInRamPeak: undefined,
  gpuMaxBetweenScrapes: undefined,
  vramPeak: undefined,
  kills: NO_KILLS,
  agentCgroupPeak: undefined,
  agentTrueFootprintPeak: undefined,
  agentSamples: 0,
  agentFirst: undefined,
  agentLast: undefined,
  ...over,
});
const figures: PromFigures = {
  containers: new Map([
    ['ml/llm-6f7c9-abcde/server', containerFigures(9.1 * GiB, 61.2 * GiB)],
    ['ml/cache-0/redis', containerFigures(3.9 * GiB, 3.9 * GiB)],
  ]),
  pods: new Map([
    ['ml/llm-6f7c9-abcde', podFigures({ gpuInRamPeak: 52.1 * GiB, vramPeak: 0.5 * GiB, kills: { ...NO_KILLS, globalGpu: 2 } })],
    ['ml/llm-6f7c9-fghij', podFigures({ agentTrueFootprintPeak: 40 * GiB, agentCgroupPeak: 8 * GiB, gpuInRamPeak: 32 * GiB })],
    ['ml/cache-0', podFigures({ kills: { ...NO_KILLS, memcg: 1, globalGpu: 1 } })],
  ]),
  pressure: new Map(),
  sources: ['cAdvisor container_memory_working_set_bytes', 'the gpumem agents'],
  problems: [],
};

const SOURCE = 'Prometheus at 127.0.0.1:9090 (17 queries)';

function build(withFigures: boolean) {
  const pods = [llmA, llmB, cache0];
  return liveSnapshot({
    context: 'prod-eu',
    defaultNamespace: 'ml',
    source: SOURCE,
    window: '7d',
    windowSeconds: 7 * 86400,
    fetchedAtMs: 0,
    matching: matchPods([deployment, replicaSet, statefulSet], pods),
    rows: [],
    pods,
    ...(withFigures ? { figures } : {}),
    hami: hamiStatesFrom({
      kind: 'vector',
      samples: [{ metric: { namespace: 'ml', pod: 'llm-6f7c9-fghij', state: 'enforced' }, value: [0, '1'] }],
    }),
  });
}

test('the snapshot keys workloads by kind, namespace and name; ReplicaSets of Deployments are not workloads of their own', () => {
  const snapshot = build(true);
  assert.deepEqual(
    [...snapshot.workloads.keys()].sort(),
    [liveKey('Deployment', 'ml', 'llm'), liveKey('StatefulSet', 'ml', 'cache')].sort(),
  );
  assert.deepEqual(snapshot.workloads.get(liveKey('Deployment', 'ml', 'llm'))?.pods, { total: 2, oldTemplate: 0 });
});

test('pod lines: node, true footprint, GTT, VRAM, last kill and cause, HAMi, each with its source', () => {
  const snapshot = build(true);
  const llm = snapshot.workloads.get(liveKey('Deployment', 'ml', 'llm'))?.podLines ?? [];
  assert.equal(llm.length, 2);
  const [a, b] = llm;
  assert.equal(a?.name, 'llm-6f7c9-abcde');
  assert.equal(a?.node, 'strix-1');
  assert.equal(a?.trueFootprintPeak?.value, 61.2 * GiB);
  assert.match(a?.trueFootprintPeak?.source ?? '', /working set \+ GPU memory in RAM, Prometheus at 127\.0\.0\.1:9090/);
  assert.equal(a?.gttPeak?.value, 52.1 * GiB);
  assert.match(a?.gttPeak?.source ?? '', /^gpumem_pod_unaccounted_bytes of the agent/);
  assert.equal(a?.vramPeak?.value, 0.5 * GiB);
  assert.deepEqual(a?.kills?.value, { memcg: 0, globalGpu: 2, globalOther: 0, kubeletUnknown: 0 });
  assert.equal(a?.lastKill?.container, 'server');
  assert.equal(a?.lastKill?.at, '2026-12-06T09:59:50Z');
  assert.deepEqual(a?.lastKill?.cause.value, { kind: 'global-gpu' });
  assert.equal(causeText({ kind: 'global-gpu' }), 'global, GPU signature');
  assert.equal(a?.hami, undefined);
  // No cAdvisor series: the agent's pod true footprint stands in, and says so.
  assert.equal(b?.trueFootprintPeak?.value, 40 * GiB);
  assert.match(b?.trueFootprintPeak?.source ?? '', /^gpumem_pod_true_footprint_bytes of the agent/);
  assert.equal(b?.lastKill, undefined);
  assert.deepEqual(b?.hami, { value: 'enforced', source: `gpumem_hami_enforcement of the agent, ${SOURCE}` });

  const [cache] = snapshot.workloads.get(liveKey('StatefulSet', 'ml', 'cache'))?.podLines ?? [];
  // The latest of the current and the last termination; two causes counted in the window: it is one of them.
  assert.equal(cache?.lastKill?.at, '2026-12-07T08:00:00Z');
  assert.equal(cache?.lastKill?.cause.value.kind, 'mixed');
  assert.deepEqual(cache?.hami, {
    value: 'allocated',
    source: "the pod's hami.io/vgpu-devices-allocated annotation; no agent measured the quota",
  });
});

test('without Prometheus a kill the API reports has an unknown cause and no figures are invented', () => {
  const [a] = build(false).workloads.get(liveKey('Deployment', 'ml', 'llm'))?.podLines ?? [];
  assert.equal(a?.trueFootprintPeak, undefined);
  assert.equal(a?.gttPeak, undefined);
  assert.equal(a?.kills, undefined);
  assert.deepEqual(a?.lastKill?.cause.value, { kind: 'unknown' });
  assert.match(a?.lastKill?.cause.source ?? '', /no agent counted it/);
});

test('HAMi states: the worst of a pod’s containers; a failed answer is no state; the query is scoped', () => {
  const states = hamiStatesFrom({
    kind: 'vector',
    samples: [
      { metric: { namespace: 'ml', pod: 'p', state: 'enforced' }, value: [0, '1'] },
      { metric: { namespace: 'ml', pod: 'p', state: 'bypassed' }, value: [0, '1'] },
      { metric: { namespace: 'ml', pod: 'q', state: 'weird' }, value: [0, '1'] },
    ],
  });
  assert.deepEqual([...states], [['ml/p', 'bypassed']]);
  assert.equal(hamiStatesFrom({ kind: 'failed', reason: 'HTTP 503' }).size, 0);
  assert.equal(
    hamiEnforcementQuery(['ml', 'prod.x']),
    'max by (namespace, pod, state) (gpumem_hami_enforcement{namespace=~"ml|prod\\\\.x"} == 1)',
  );
  assert.equal(hamiEnforcementQuery([]), 'max by (namespace, pod, state) (gpumem_hami_enforcement == 1)');
});
