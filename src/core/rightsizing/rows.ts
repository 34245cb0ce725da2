// One row per container of each workload: today's resources, what its pods were seen using over the window (each
// figure from the pods the workload owns, joined by pod and container name), the kills by cause, and the
// recommendation. GPU memory in RAM is each container's own where the agent reports it per container; otherwise the
// pod's goes to the containers that use a GPU, or to every container when none declares one (a DRA claim, a GPU the
// manifest does not name). VRAM and kills are per pod; memcg kills go to the containers the kubelet reported
// OOMKilled when it names any.
import { kindKey } from '../manifest/workloads.ts';
import type { KillCounts } from './kills.ts';
import { addKills, NO_KILLS, withKubeletReports } from './kills.ts';
import type { ContainerEvidence, EvidenceBasis, NodePressure, Observed } from './evidence.ts';
import { containerKey, podKey } from './figures.ts';
import type { PromFigures } from './figures.ts';
import { liveTemplates } from './liveContainers.ts';
import type { LiveContainer } from './liveContainers.ts';
import { recommendObserved } from './recommend.ts';
import type { Recommendation } from './recommend.ts';
import type { Peak } from './series.ts';
import type { MatchedPod, MatchedWorkload, PodMatching, WorkloadRef } from './workloadPods.ts';
import type { ContainerChange, WorkloadChange } from './changes.ts';

/** The row's note when the agent's pod cgroup stood in for cAdvisor (the editor names that figure's source from it). */
export const AGENT_CGROUP_NOTE = "cgroup memory from the agent's memory.current (includes page cache): no cAdvisor series for these pods";
/** The row's note when the agent's working set of the container stood in for cAdvisor's (the same formula). */
export const AGENT_WORKING_SET_NOTE = "cgroup memory from the agent's working set of the container: no cAdvisor series for these pods";

export interface RecommendationRow {
  readonly workload: WorkloadRef;
  /** Which of the workload's pod templates (podTemplates.ts: `workerGroupSpecs[gpu]`); undefined for a kind with one. */
  readonly template?: string;
  readonly container: string;
  readonly current: LiveContainer;
  readonly observed: Observed;
  readonly kernelPeak: number | undefined;
  readonly kills: KillCounts;
  readonly recommendation: Recommendation;
  /** About the data behind the row: pods of an old template, no pods, pod-level figures. */
  readonly notes: readonly string[];
}

export interface RowInputs {
  readonly matching: PodMatching;
  /** Undefined without Prometheus. */
  readonly figures: PromFigures | undefined;
  readonly basis: EvidenceBasis;
  /** `namespace/pod/container` → OOMKilled terminations the API reports (last state), for when kube-state-metrics is absent. */
  readonly apiOomKills: ReadonlyMap<string, number>;
  readonly headroomPercent: number;
}

export function recommendationRows(inputs: RowInputs): RecommendationRow[] {
  const rows: RecommendationRow[] = [];
  const namedPods = podsWithNamedOom(inputs);
  for (const workload of inputs.matching.workloads) {
    const templates = liveTemplates(workload.object);
    if (templates.kind === 'none') continue;
    for (const template of templates.templates) {
      const anyGpu = template.containers.some((one) => one.usesGpu);
      const pods = workload.pods.filter((pod) => pod.template === template.role);
      const shape = {
        template: template.role,
        pods,
        anyGpu,
        gpuContainers: template.multipleGpuContainers ? 2 : 1,
        containerCount: template.containers.length,
      };
      for (const container of template.containers) rows.push(rowOf(workload, container, shape, inputs, namedPods));
    }
  }
  return rows;
}

function maxPeak(current: Peak | undefined, bytes: number | undefined, pod: string): Peak | undefined {
  if (bytes === undefined || !Number.isFinite(bytes)) return current;
  return !current || bytes > current.bytes ? { bytes, at: undefined, pod } : current;
}

/** One pod template of a workload: its pods and what its containers have in common. */
interface TemplateShape {
  readonly template: string | undefined;
  readonly pods: readonly MatchedPod[];
  readonly anyGpu: boolean;
  readonly gpuContainers: number;
  readonly containerCount: number;
}

function rowOf(
  workload: MatchedWorkload,
  container: LiveContainer,
  shape: TemplateShape,
  inputs: RowInputs,
  namedPods: ReadonlySet<string>,
): RecommendationRow {
  const { namespace } = workload.ref;
  const { anyGpu, gpuContainers, containerCount, pods } = shape;
  const getsPodGpu = container.usesGpu || !anyGpu;
  const notes: string[] = [];
  let cgroupPeak: Peak | undefined;
  let gpuInRamPeak: Peak | undefined;
  let vramPeak: Peak | undefined;
  let trueFootprintPeak: Peak | undefined;
  let kernelPeak: number | undefined;
  let gpuMax: number | undefined;
  let samples = 0;
  let first = Infinity;
  let last = -Infinity;
  let kills = NO_KILLS;
  let kubeletReports = 0;
  let agentOnly: 'container' | 'pod' | undefined;
  const nodes = new Set<string>();
  for (const pod of pods) {
    if (pod.node) nodes.add(pod.node);
    const cf = inputs.figures?.containers.get(containerKey(namespace, pod.name, container.name));
    const pf = inputs.figures?.pods.get(podKey(namespace, pod.name));
    const named = inputs.apiOomKills.get(containerKey(namespace, pod.name, container.name)) ?? 0;
    // The agent reports this pod's GPU memory per container: each container's own, none split from the pod.
    const ownGpu = inputs.figures?.podsWithContainerGpu?.has(podKey(namespace, pod.name)) === true;
    kubeletReports += Math.max(named, cf?.kubeletOom ? 1 : 0);
    if (cf && cf.cgroupPeak !== undefined) {
      cgroupPeak = maxPeak(cgroupPeak, cf.cgroupPeak, pod.name);
      trueFootprintPeak = maxPeak(trueFootprintPeak, ownGpu || getsPodGpu ? cf.trueFootprintPeak : cf.cgroupPeak, pod.name);
      samples += cf.samples;
      if (cf.first !== undefined) first = Math.min(first, cf.first);
      if (cf.last !== undefined) last = Math.max(last, cf.last);
    } else if (cf && cf.agentWorkingSetPeak !== undefined && pf) {
      // No cAdvisor series for the pod: the agent's working set of the container stands in (the same formula).
      agentOnly = 'container';
      cgroupPeak = maxPeak(cgroupPeak, cf.agentWorkingSetPeak, pod.name);
      trueFootprintPeak = maxPeak(trueFootprintPeak, cf.trueFootprintPeak ?? cf.agentWorkingSetPeak, pod.name);
      samples += pf.agentSamples;
      if (pf.agentFirst !== undefined) first = Math.min(first, pf.agentFirst);
      if (pf.agentLast !== undefined) last = Math.max(last, pf.agentLast);
    } else if (pf && pf.agentCgroupPeak !== undefined && containerCount === 1) {
      // No cAdvisor series for the pod: the agent's pod cgroup stands in (memory.current, page cache included).
      agentOnly = 'pod';
      cgroupPeak = maxPeak(cgroupPeak, pf.agentCgroupPeak, pod.name);
      trueFootprintPeak = maxPeak(trueFootprintPeak, pf.agentTrueFootprintPeak ?? pf.agentCgroupPeak, pod.name);
      samples += pf.agentSamples;
      if (pf.agentFirst !== undefined) first = Math.min(first, pf.agentFirst);
      if (pf.agentLast !== undefined) last = Math.max(last, pf.agentLast);
    }
    if (cf?.kernelPeak !== undefined) kernelPeak = Math.max(kernelPeak ?? 0, cf.kernelPeak);
    if (ownGpu) {
      gpuInRamPeak = maxPeak(gpuInRamPeak, cf?.gpuInRamPeak, pod.name);
      if (cf?.gpuMaxBetweenScrapes !== undefined) gpuMax = Math.max(gpuMax ?? 0, cf.gpuMaxBetweenScrapes);
    }
    if (pf) {
      if (getsPodGpu) {
        if (!ownGpu) {
          gpuInRamPeak = maxPeak(gpuInRamPeak, pf.gpuInRamPeak, pod.name);
          if (pf.gpuMaxBetweenScrapes !== undefined) gpuMax = Math.max(gpuMax ?? 0, pf.gpuMaxBetweenScrapes);
        }
        vramPeak = maxPeak(vramPeak, pf.vramPeak, pod.name);
      }
      const memcgHere = named > 0 || cf?.kubeletOom === true || !namedPods.has(podKey(namespace, pod.name));
      kills = addKills(kills, { ...pf.kills, memcg: memcgHere ? pf.kills.memcg : 0, kubeletUnknown: 0 });
    }
  }
  kills = withKubeletReports(kills, kubeletReports);
  if (pods.length === 0)
    notes.push(
      shape.template === undefined
        ? 'no live pods: nothing was matched to this workload'
        : `no live pods: nothing was matched to its ${shape.template}`,
    );
  const old = pods.filter((pod) => pod.oldTemplate).length;
  if (old > 0) notes.push(`${old} of the pods are from an older ReplicaSet (an earlier pod template)`);
  // From the agents alone (no Prometheus), every figure is the agent's: the header says so once.
  if (agentOnly === 'container' && inputs.basis === 'history') notes.push(AGENT_WORKING_SET_NOTE);
  if (agentOnly === 'pod') notes.push(AGENT_CGROUP_NOTE);
  const observed: Observed = {
    cgroupPeak,
    gpuInRamPeak,
    vramPeak,
    trueFootprintPeak,
    samples,
    hours: samples > 0 && last >= first ? (last - first) / 3600 : 0,
    dropped: 0,
  };
  const pressure: NodePressure[] = [];
  for (const node of nodes) {
    const known = inputs.figures?.pressure.get(node);
    if (known) pressure.push(known);
  }
  const evidence: ContainerEvidence = {
    container: container.name,
    basis: inputs.basis,
    pods: [],
    kills,
    pressure,
    kernelPeak,
    gpuMaxBetweenScrapes: gpuMax,
    current: { request: container.request?.bytes, limit: container.limit?.bytes },
    unifiedMemory: (gpuInRamPeak?.bytes ?? 0) > 0,
  };
  const recommendation = recommendObserved(evidence, observed, { headroomPercent: inputs.headroomPercent, gpuContainers });
  return {
    workload: workload.ref,
    ...(shape.template === undefined ? {} : { template: shape.template }),
    container: container.name,
    current: container,
    observed,
    kernelPeak,
    kills,
    recommendation,
    notes,
  };
}

/** Pods (`namespace/pod`) of which the kubelet named a container OOMKilled: their memcg kills go to those containers. */
function podsWithNamedOom(inputs: RowInputs): Set<string> {
  const out = new Set<string>();
  const podOf = (key: string): string => key.slice(0, key.lastIndexOf('/'));
  for (const [key, count] of inputs.apiOomKills) if (count > 0) out.add(podOf(key));
  if (inputs.figures) for (const [key, figures] of inputs.figures.containers) if (figures.kubeletOom) out.add(podOf(key));
  return out;
}

/** The changes the sized rows ask for, one per workload and pod template. */
export function changesOf(rows: readonly RecommendationRow[]): WorkloadChange[] {
  const byWorkload = new Map<
    string,
    { ref: WorkloadRef; template: string | undefined; containers: ContainerChange[]; annotations: Map<string, string> }
  >();
  for (const row of rows) {
    if (row.recommendation.kind !== 'sized') continue;
    const key = `${kindKey(row.workload.kind, row.workload.apiVersion)}/${row.workload.namespace}/${row.workload.name}/${row.template ?? ''}`;
    const entry = byWorkload.get(key) ?? {
      ref: row.workload,
      template: row.template,
      containers: [],
      annotations: new Map<string, string>(),
    };
    entry.containers.push({ container: row.container, memory: row.recommendation.memory.text });
    if (row.recommendation.gpuMemory) entry.annotations.set(row.recommendation.gpuMemory.key, row.recommendation.gpuMemory.value.text);
    byWorkload.set(key, entry);
  }
  return [...byWorkload.values()].map(({ template, ...change }) => (template === undefined ? change : { ...change, template }));
}
