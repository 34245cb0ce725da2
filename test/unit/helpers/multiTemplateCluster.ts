// The cluster the multi-template unit tests read: the RayCluster rc-demo and the LeaderWorkerSet vllm with their
// StatefulSets and pods, as their operators leave them (test/simulator/fixtures-groups/ray-lws.yaml, which names the
// upstream sources), hand-written figures per pod, and the manifests as a user keeps them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { liveSnapshot } from '../../../src/core/live/liveSnapshot.ts';
import type { ContainerFigures, PodFigures, PromFigures } from '../../../src/core/rightsizing/figures.ts';
import { NO_KILLS } from '../../../src/core/rightsizing/kills.ts';
import { recommendationRows } from '../../../src/core/rightsizing/rows.ts';
import type { RecommendationRow } from '../../../src/core/rightsizing/rows.ts';
import { matchPods } from '../../../src/core/rightsizing/workloadPods.ts';

export const GiB = 1024 ** 3;
const FIXTURE = join(import.meta.dirname, '../../simulator/fixtures-groups/ray-lws.yaml');
const all = parseAllDocuments(readFileSync(FIXTURE, 'utf8')).map((doc) => doc.toJS() as Record<string, unknown>);
export const kindOf = (object: unknown) => (object as { kind: string }).kind;
export const objects = all.filter((one) => kindOf(one) !== 'Pod');
export const pods = all.filter((one) => kindOf(one) === 'Pod');

export const templatesOf = (matching: ReturnType<typeof matchPods>, kind: string, name: string) => {
  const workload = matching.workloads.find((one) => one.ref.kind === kind && one.ref.name === name);
  assert.ok(workload, `${kind} ${name} is a workload`);
  return Object.fromEntries(workload.pods.map((pod) => [pod.name, pod.template]));
};

/** Per pod: its one container's working set and GPU memory in RAM (GiB), over 24 h of samples. */
const USE: Record<string, { container: string; cgroup: number; gpu: number }> = {
  'rc-demo-head-x7k2p': { container: 'ray-head', cgroup: 6, gpu: 0 },
  'rc-demo-workergroup-worker-q4m8d': { container: 'ray-worker', cgroup: 3, gpu: 0 },
  'rc-demo-gpu-group-worker-z9t5r': { container: 'ray-worker', cgroup: 10, gpu: 12 },
  'vllm-0': { container: 'vllm-leader', cgroup: 8, gpu: 20 },
  'vllm-0-1': { container: 'vllm-worker', cgroup: 5, gpu: 14 },
  'vllm-0-2': { container: 'vllm-worker', cgroup: 6, gpu: 18 },
};

export function figures(): PromFigures {
  const containers = new Map<string, ContainerFigures>();
  const podFigures = new Map<string, PodFigures>();
  for (const [pod, use] of Object.entries(USE)) {
    containers.set(`groups/${pod}/${use.container}`, {
      cgroupPeak: use.cgroup * GiB,
      trueFootprintPeak: (use.cgroup + use.gpu) * GiB,
      samples: 2880,
      first: 0,
      last: 86_400,
      kernelPeak: undefined,
      kubeletOom: false,
    });
    podFigures.set(`groups/${pod}`, {
      gpuInRamPeak: use.gpu * GiB,
      gpuMaxBetweenScrapes: undefined,
      vramPeak: undefined,
      kills: NO_KILLS,
      agentCgroupPeak: undefined,
      agentTrueFootprintPeak: undefined,
      agentSamples: 0,
      agentFirst: undefined,
      agentLast: undefined,
    });
  }
  return { containers, pods: podFigures, pressure: new Map(), sources: ['hand-written'], problems: [] };
}

export function rows(): RecommendationRow[] {
  return recommendationRows({
    matching: matchPods(objects, pods),
    figures: figures(),
    basis: 'history',
    apiOomKills: new Map(),
    headroomPercent: 20,
  });
}

// The manifest as a user keeps it: the worker groups in another order than the cluster's, comments kept.
export const RAY_MANIFEST = `# rc-demo as kept in git
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: rc-demo
  namespace: groups
spec:
  headGroupSpec:
    template:
      spec:
        containers:
        - name: ray-head
          resources:
            limits: {cpu: "1", memory: 8Gi}
            requests: {cpu: "1", memory: 8Gi}
  workerGroupSpecs:
  - groupName: gpu-group
    template:
      spec:
        containers:
        - name: ray-worker
          resources:
            limits: {cpu: "4", memory: 16Gi, nvidia.com/gpu: "1"}
            requests: {cpu: "4", memory: 16Gi, nvidia.com/gpu: "1"}
  - groupName: workergroup
    template:
      spec:
        containers:
        - name: ray-worker
          resources:
            limits: {cpu: "1", memory: 4Gi}
            requests: {cpu: "1", memory: 4Gi}
`;

// kubernetes-sigs/lws docs/examples/vllm/GPU/lws.yaml's shape, trimmed to what the judgement reads.
export const LWS_MANIFEST = `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: vllm
  namespace: groups
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 3
    leaderTemplate:
      spec:
        containers:
          - name: vllm-leader
            image: vllm/vllm-openai:latest
            resources:
              limits:
                nvidia.com/gpu: "1"
                memory: 24Gi
              requests:
                memory: 24Gi
    workerTemplate:
      spec:
        containers:
          - name: vllm-worker
            image: vllm/vllm-openai:latest
            resources:
              limits:
                nvidia.com/gpu: "1"
                memory: 20Gi
              requests:
                memory: 20Gi
`;

export function snapshot() {
  const matching = matchPods(objects, pods);
  return liveSnapshot({
    context: 'prod',
    defaultNamespace: 'default',
    source: 'hand-written figures',
    window: '1d',
    windowSeconds: 86_400,
    fetchedAtMs: 1_000_000,
    matching,
    rows: rows(),
    pods,
    figures: figures(),
  });
}
