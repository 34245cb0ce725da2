// From the answers of the constant query set (queries.ts) to figures per pod and per container, each with the
// source it came from. A query that failed or answered nothing leaves its figure unknown and says so in `problems`
// and `sources`; a value that is no byte count (NaN, negative, infinite) is dropped, never used.
import type { PromAnswer, PromVectorSample } from '../prometheus/answer.ts';
import { amountOf, instantSamples } from '../prometheus/answer.ts';
import type { KillCounts } from './kills.ts';
import { NO_KILLS } from './kills.ts';
import type { NodePressure } from './evidence.ts';

export interface ContainerFigures {
  readonly cgroupPeak: number | undefined;
  readonly trueFootprintPeak: number | undefined;
  readonly samples: number;
  readonly first: number | undefined;
  readonly last: number | undefined;
  readonly kernelPeak: number | undefined;
  readonly kubeletOom: boolean;
  /** The agent's working set of this container (as cAdvisor computes it), where cAdvisor has no series for it. */
  readonly agentWorkingSetPeak?: number | undefined;
  /** The container's own GPU memory in system RAM (the agent's per-container series), and its maximum between scrapes. */
  readonly gpuInRamPeak?: number | undefined;
  readonly gpuMaxBetweenScrapes?: number | undefined;
}

export interface PodFigures {
  readonly gpuInRamPeak: number | undefined;
  readonly gpuMaxBetweenScrapes: number | undefined;
  readonly vramPeak: number | undefined;
  readonly kills: KillCounts;
  /** The agent's pod-level figures, used where cAdvisor has none for the pod. */
  readonly agentCgroupPeak: number | undefined;
  readonly agentTrueFootprintPeak: number | undefined;
  readonly agentSamples: number;
  readonly agentFirst: number | undefined;
  readonly agentLast: number | undefined;
}

export interface PromFigures {
  /** Keyed `namespace/pod/container`. */
  readonly containers: ReadonlyMap<string, ContainerFigures>;
  /** Keyed `namespace/pod`. */
  readonly pods: ReadonlyMap<string, PodFigures>;
  readonly pressure: ReadonlyMap<string, NodePressure>;
  /** Which sources answered: cAdvisor, the agent, the recording rule, the high-water marks, kube-state-metrics. */
  readonly sources: readonly string[];
  readonly problems: readonly string[];
  /** Pods (`namespace/pod`) whose GPU memory the agent reports per container: theirs is never split among containers. */
  readonly podsWithContainerGpu?: ReadonlySet<string>;
}

export const containerKey = (namespace: string, pod: string, container: string): string => `${namespace}/${pod}/${container}`;
export const podKey = (namespace: string, pod: string): string => `${namespace}/${pod}`;

/** One number per key, from one query's answer. */
function byKey(samples: readonly PromVectorSample[], key: (labels: Readonly<Record<string, string>>) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const sample of samples) {
    const value = amountOf(sample);
    if (value !== undefined) out.set(key(sample.metric), value);
  }
  return out;
}

const ofContainer = (l: Readonly<Record<string, string>>): string =>
  containerKey(l['namespace'] ?? '', l['pod'] ?? '', l['container'] ?? '');
const ofPod = (l: Readonly<Record<string, string>>): string => podKey(l['namespace'] ?? '', l['pod'] ?? '');

export function figuresFrom(answers: ReadonlyMap<string, PromAnswer>): PromFigures {
  const problems: string[] = [];
  const get = (name: string): readonly PromVectorSample[] => instantSamples(answers, name, problems);
  const container = (name: string): Map<string, number> => byKey(get(name), ofContainer);
  const pod = (name: string): Map<string, number> => byKey(get(name), ofPod);
  const wsPeak = container('wsPeak');
  const recorded = container('trueFootprintPeak');
  const fallback = container('trueFootprintFallback');
  const trueFootprint = recorded.size > 0 ? recorded : fallback;
  const wsSamples = container('wsSamples');
  const wsFirst = container('wsFirst');
  const wsLast = container('wsLast');
  const kernelPeak = container('kernelPeak');
  const kubeletOom = container('kubeletOom');
  const agentWs = container('agentWsPeak');
  const containerGpu = container('containerGpuInRamPeak');
  const containerGpuMax = container('containerGpuMaxBetweenScrapes');
  const containers = new Map<string, ContainerFigures>();
  const podsWithContainerGpu = new Set<string>();
  const keys = [
    ...wsPeak.keys(),
    ...kubeletOom.keys(),
    ...kernelPeak.keys(),
    ...agentWs.keys(),
    ...containerGpu.keys(),
    ...containerGpuMax.keys(),
  ];
  for (const key of new Set(keys)) {
    const gpu = containerGpu.get(key);
    const gpuMax = containerGpuMax.get(key);
    if (gpu !== undefined || gpuMax !== undefined) podsWithContainerGpu.add(key.slice(0, key.lastIndexOf('/')));
    const cgroup = wsPeak.get(key);
    containers.set(key, {
      cgroupPeak: cgroup,
      trueFootprintPeak: trueFootprint.get(key) ?? cgroup ?? agentWs.get(key),
      samples: wsSamples.get(key) ?? 0,
      first: wsFirst.get(key),
      last: wsLast.get(key),
      kernelPeak: kernelPeak.get(key),
      kubeletOom: (kubeletOom.get(key) ?? 0) >= 1,
      agentWorkingSetPeak: agentWs.get(key),
      gpuInRamPeak: gpu,
      gpuMaxBetweenScrapes: gpuMax,
    });
  }
  const gpu = pod('gpuInRamPeak');
  const gpuMax = pod('gpuMaxBetweenScrapes');
  const vram = pod('vramPeak');
  const agentCgroup = pod('agentCgroupPeak');
  const agentTrue = pod('agentTrueFootprintPeak');
  const agentSamples = pod('agentSamples');
  const agentFirst = pod('agentFirst');
  const agentLast = pod('agentLast');
  const kills = killsByPod([...get('killsGrown'), ...get('killsBorn')]);
  const pods = new Map<string, PodFigures>();
  for (const key of new Set([...gpu.keys(), ...vram.keys(), ...agentCgroup.keys(), ...kills.keys(), ...gpuMax.keys()])) {
    pods.set(key, {
      gpuInRamPeak: gpu.get(key),
      gpuMaxBetweenScrapes: gpuMax.get(key),
      vramPeak: vram.get(key),
      kills: kills.get(key) ?? NO_KILLS,
      agentCgroupPeak: agentCgroup.get(key),
      agentTrueFootprintPeak: agentTrue.get(key),
      agentSamples: agentSamples.get(key) ?? 0,
      agentFirst: agentFirst.get(key),
      agentLast: agentLast.get(key),
    });
  }
  const sources: string[] = [];
  if (wsPeak.size > 0) sources.push('cAdvisor container_memory_working_set_bytes');
  if (recorded.size > 0) sources.push('the recording rule namespace_pod_container:gpumem_true_footprint_bytes');
  else if (fallback.size > 0) sources.push('the true footprint summed by a subquery (the recording rule is not loaded)');
  if (agentCgroup.size > 0 || gpu.size > 0 || agentWs.size > 0) sources.push('the gpumem agents');
  if (containerGpu.size > 0) sources.push("the agents' per-container GPU memory");
  if (kernelPeak.size > 0 || gpuMax.size > 0 || containerGpuMax.size > 0) sources.push("the agents' high-water marks");
  if (kubeletOom.size > 0) sources.push('kube-state-metrics');
  return {
    containers,
    pods,
    pressure: pressureFrom(get('pressureNodes'), get('pressurePods')),
    sources,
    problems,
    podsWithContainerGpu,
  };
}

function killsByPod(samples: readonly PromVectorSample[]): Map<string, KillCounts> {
  const out = new Map<string, KillCounts>();
  for (const sample of samples) {
    const value = amountOf(sample);
    if (value === undefined) continue;
    // increase() extrapolates to the window's edges; kills are whole events.
    const count = Math.round(value);
    const key = ofPod(sample.metric);
    const kills = out.get(key) ?? NO_KILLS;
    const scope = sample.metric['scope'];
    const signature = sample.metric['gpu_signature'] === 'true';
    if (scope === 'memcg') out.set(key, { ...kills, memcg: kills.memcg + count });
    else if (scope === 'global' && signature) out.set(key, { ...kills, globalGpu: kills.globalGpu + count });
    else if (scope === 'global') out.set(key, { ...kills, globalOther: kills.globalOther + count });
  }
  return out;
}

function pressureFrom(nodes: readonly PromVectorSample[], pods: readonly PromVectorSample[]): Map<string, NodePressure> {
  const out = new Map<string, NodePressure>();
  for (const sample of nodes) {
    const node = sample.metric['node'];
    if (!node) continue;
    const biggestPods = pods
      .filter((one) => one.metric['node'] === node)
      .map((one) => ({ pod: podKey(one.metric['namespace'] ?? '', one.metric['pod'] ?? ''), bytes: amountOf(one) ?? 0 }))
      .sort((a, b) => b.bytes - a.bytes);
    out.set(node, { node, at: amountOf(sample), biggestPods, biggestPodsWhen: 'window' });
  }
  return out;
}
