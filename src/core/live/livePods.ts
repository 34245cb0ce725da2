// The per-pod lines of a live workload, for the hover's table: node, true footprint, GPU memory in system RAM (GTT),
// VRAM, the last OOM kill and its cause, and HAMi's enforcement of the memory quota where known; each figure with
// the source it came from. Computed from what the right-sizing reader returns (the matched pods, their API objects,
// the Prometheus figures and the agents' HAMi states), so the hover shows the numbers `gpumem recommend` shows. Pure.
import { asArray, asString, asTime, identity, path } from '../kube/json.ts';
import type { PromAnswer } from '../prometheus/answer.ts';
import { containerKey, podKey } from '../rightsizing/figures.ts';
import { exactRegex } from '../rightsizing/queries.ts';
import type { PromFigures } from '../rightsizing/figures.ts';
import type { KillCounts } from '../rightsizing/kills.ts';
import { NO_KILLS, totalKills } from '../rightsizing/kills.ts';
import type { MatchedPod } from '../rightsizing/workloadPods.ts';

/** A figure and where it came from, in words ("cAdvisor + the gpumem agent, via Prometheus …"). */
export interface Sourced<T> {
  readonly value: T;
  readonly source: string;
}

/** Why the last OOM kill happened, as far as anything tells. */
export type KillCause =
  | { readonly kind: 'memcg' }
  | { readonly kind: 'global-gpu' }
  | { readonly kind: 'global-other' }
  /** The agent counted kills of several causes in the window: the API's last one is one of them. */
  | { readonly kind: 'mixed'; readonly kills: KillCounts }
  /** No agent counted it: the kubelet says `OOMKilled` for memcg and global kills alike. */
  | { readonly kind: 'unknown' };

export interface LastKill {
  readonly container: string;
  /** RFC 3339, as the API reported `finishedAt`; undefined when it did not. */
  readonly at: string | undefined;
  readonly cause: Sourced<KillCause>;
  /** Where the kill itself was read: the API's container state. */
  readonly source: string;
}

/** What the gpumem agent measured of a HAMi container's quota (gpumem_hami_enforcement's `state`). */
export type HamiState = 'enforced' | 'bypassed' | 'unknown';

export interface LivePod {
  readonly name: string;
  readonly node: string | undefined;
  readonly oldTemplate: boolean;
  /** Which template of a multi-template workload it runs (a RayCluster's worker group); absent for a kind with one. */
  readonly template?: string;
  readonly trueFootprintPeak: Sourced<number> | undefined;
  readonly gttPeak: Sourced<number> | undefined;
  readonly vramPeak: Sourced<number> | undefined;
  /** The agent's kill counts of the window, by cause. */
  readonly kills: Sourced<KillCounts> | undefined;
  readonly lastKill: LastKill | undefined;
  /** HAMi: the agent's measured state, else that HAMi allocated the pod (its annotation) with nothing measured. */
  readonly hami: Sourced<HamiState | 'allocated'> | undefined;
}

/** `namespace/pod` → the agents' HAMi enforcement state for the pod (the worst of its containers). */
export type HamiStates = ReadonlyMap<string, HamiState>;

export interface PodInputs {
  readonly namespace: string;
  readonly pods: readonly MatchedPod[];
  /** The pods' API objects by `namespace/pod` (their last termination states and annotations). */
  readonly podObjects: ReadonlyMap<string, unknown>;
  readonly figures: PromFigures | undefined;
  /** Where the figures came from: "Prometheus http://… (17 queries)". */
  readonly figuresSource: string;
  readonly hami: HamiStates;
}

const HAMI_ALLOCATED = ['hami.io/vgpu-devices-allocated', 'hami.io/amd-devices-allocated'];

export function livePods(inputs: PodInputs): LivePod[] {
  return inputs.pods.map((pod) => livePod(pod, inputs));
}

function livePod(pod: MatchedPod, inputs: PodInputs): LivePod {
  const key = podKey(inputs.namespace, pod.name);
  const object = inputs.podObjects.get(key);
  const pf = inputs.figures?.pods.get(key);
  const via = inputs.figuresSource;
  const footprint = podFootprint(inputs, pod.name, object);
  const kills = pf && totalKills(pf.kills) > 0 ? { value: pf.kills, source: `gpumem_oom_kills_total of the agent, ${via}` } : undefined;
  return {
    name: pod.name,
    node: pod.node,
    oldTemplate: pod.oldTemplate,
    ...(pod.template === undefined ? {} : { template: pod.template }),
    trueFootprintPeak: footprint,
    gttPeak:
      pf?.gpuInRamPeak !== undefined ? { value: pf.gpuInRamPeak, source: `gpumem_pod_unaccounted_bytes of the agent, ${via}` } : undefined,
    vramPeak: pf?.vramPeak !== undefined ? { value: pf.vramPeak, source: `gpumem_pod_vram_bytes of the agent, ${via}` } : undefined,
    kills,
    lastKill: lastKill(object, pf?.kills ?? NO_KILLS, via),
    hami: hamiOf(inputs.hami.get(key), object, via),
  };
}

/** The pod's peak true footprint: the largest of its containers' (cAdvisor and the recording rule), else the agent's. */
function podFootprint(inputs: PodInputs, pod: string, object: unknown): Sourced<number> | undefined {
  const containers = containerNames(object);
  let best: number | undefined;
  for (const container of containers) {
    const cf = inputs.figures?.containers.get(containerKey(inputs.namespace, pod, container));
    const value = cf?.trueFootprintPeak;
    if (value !== undefined && (best === undefined || value > best)) best = value;
  }
  const pf = inputs.figures?.pods.get(podKey(inputs.namespace, pod));
  if (best !== undefined && containers.length === 1)
    return { value: best, source: `the container's working set + GPU memory in RAM, ${inputs.figuresSource}` };
  if (pf?.agentTrueFootprintPeak !== undefined)
    return { value: pf.agentTrueFootprintPeak, source: `gpumem_pod_true_footprint_bytes of the agent, ${inputs.figuresSource}` };
  if (best !== undefined)
    return { value: best, source: `the largest container's working set + GPU memory in RAM, ${inputs.figuresSource}` };
  return undefined;
}

function containerNames(object: unknown): string[] {
  const out: string[] = [];
  for (const container of asArray(path(object, 'spec', 'containers'))) {
    const name = asString(path(container, 'name'));
    if (name) out.push(name);
  }
  return out;
}

/** The latest OOMKilled termination the API reports for any container of the pod (current or last state). */
function lastKill(object: unknown, kills: KillCounts, via: string): LastKill | undefined {
  let found: { container: string; at: string | undefined } | undefined;
  for (const status of asArray(path(object, 'status', 'containerStatuses'))) {
    const container = asString(path(status, 'name')) ?? '';
    for (const state of ['state', 'lastState']) {
      const terminated = path(status, state, 'terminated');
      if (asString(path(terminated, 'reason')) !== 'OOMKilled') continue;
      const at = asTime(path(terminated, 'finishedAt'));
      if (!found || (at !== undefined && (found.at === undefined || at > found.at))) found = { container, at };
    }
  }
  if (!found) return undefined;
  return { ...found, cause: causeOf(kills, via), source: "the API's container status (OOMKilled)" };
}

function causeOf(kills: KillCounts, via: string): Sourced<KillCause> {
  const source = `gpumem_oom_kills_total of the agent, ${via}`;
  const causes = [kills.memcg > 0, kills.globalGpu > 0, kills.globalOther > 0].filter(Boolean).length;
  if (causes === 0)
    return { value: { kind: 'unknown' }, source: "no agent counted it; the kubelet's OOMKilled does not tell memcg from global kills" };
  if (causes > 1) return { value: { kind: 'mixed', kills }, source };
  if (kills.memcg > 0) return { value: { kind: 'memcg' }, source };
  if (kills.globalGpu > 0) return { value: { kind: 'global-gpu' }, source };
  return { value: { kind: 'global-other' }, source };
}

function hamiOf(measured: HamiState | undefined, object: unknown, via: string): Sourced<HamiState | 'allocated'> | undefined {
  if (measured) return { value: measured, source: `gpumem_hami_enforcement of the agent, ${via}` };
  const annotations = identity(object).annotations;
  const key = HAMI_ALLOCATED.find((one) => annotations.has(one));
  return key ? { value: 'allocated', source: `the pod's ${key} annotation; no agent measured the quota` } : undefined;
}

/** "memcg (limit hit)", "global, GPU signature", … for the hover. */
export function causeText(cause: KillCause): string {
  switch (cause.kind) {
    case 'memcg':
      return 'memcg (limit hit)';
    case 'global-gpu':
      return 'global, GPU signature';
    case 'global-other':
      return 'global, without the GPU signature';
    case 'mixed':
      return `one of: ${cause.kills.memcg} memcg, ${cause.kills.globalGpu} global with the GPU signature, ${cause.kills.globalOther} global without it`;
    case 'unknown':
      return 'unknown (no agent saw it)';
  }
}

/** The agents' current HAMi state per pod and container of the namespaces (docs/agent.md, gpumem_hami_enforcement). */
export function hamiEnforcementQuery(namespaces: readonly string[]): string {
  const scope = namespaces.length > 0 ? `{namespace=~"${exactRegex(namespaces)}"}` : '';
  return `max by (namespace, pod, state) (gpumem_hami_enforcement${scope} == 1)`;
}

/** The worst state per pod from the query's answer (bypassed over unknown over enforced); a failed answer: none. */
export function hamiStatesFrom(answer: PromAnswer | undefined): Map<string, HamiState> {
  const rank: Record<HamiState, number> = { enforced: 0, unknown: 1, bypassed: 2 };
  const out = new Map<string, HamiState>();
  if (answer?.kind !== 'vector') return out;
  for (const sample of answer.samples) {
    const state = sample.metric['state'];
    if (state !== 'enforced' && state !== 'bypassed' && state !== 'unknown') continue;
    const key = podKey(sample.metric['namespace'] ?? '', sample.metric['pod'] ?? '');
    const before = out.get(key);
    if (before === undefined || rank[state] > rank[before]) out.set(key, state);
  }
  return out;
}
