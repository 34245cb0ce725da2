// One node inspection as the agent's samples: the node's memory and GPUs, each pod's cgroup memory, GPU memory,
// true footprint and KFD evictions, and each HAMi container's quota and enforcement state. Pure: the same analysis
// Inspect Node shows (src/core/inspectionRun/analyze.ts), turned into the metric contract (metricContract.ts).
// Pods are labelled from the API's view of the node (namespace, name, container names by container ID); without
// it, by UID alone. No pid or process label: series stay bounded by pods × GPUs.
import type { NodeInspection } from '../inspectionRun/analyze.ts';
import type { CgroupLimit } from '../probe/parsers/cgroupMemory.ts';
import type { PodAccounting } from '../verdicts/memory/unaccountedMemory.ts';
import type { HamiQuotaRow } from '../verdicts/hami/hamiQuota.ts';
import type { PodEviction } from '../verdicts/eviction/kfdEviction.ts';
import type { ProcessGpuMemory } from '../probe/parsers/fdinfo.ts';
import { gpuProcessesOfPod } from '../probe/parsers/fdinfo.ts';
import type { PodCgroup } from '../probe/nodeModel.ts';
import type { GpuLevels } from './gpuLevels.ts';
import { gpuLevels, podVram, unaccountedOf } from './gpuLevels.ts';
import type { Sample } from './exposition.ts';
import { ownString } from '../text/ownString.ts';

const MiB = 1024 * 1024;

type EnforcementState = 'enforced' | 'bypassed' | 'unknown';

/** What the Kubernetes API says of one pod on the node. */
export interface PodIdentity {
  readonly namespace: string;
  readonly name: string;
  /** Container ID (the runtime's hex id, without a `containerd://` prefix) → container name. */
  readonly containers: ReadonlyMap<string, string>;
}

export type PodIdentities = ReadonlyMap<string, PodIdentity>;

export function podLabels(uid: string, identities: PodIdentities): Record<string, string> {
  const identity = identities.get(uid);
  return identity ? { namespace: identity.namespace, pod: identity.name, uid } : { uid };
}

function limitBytes(limit: CgroupLimit | undefined): number | undefined {
  return limit?.kind === 'bytes' ? limit.bytes : undefined;
}

/** One sample of a node, before its `node` label and the pods' names are added. */
interface FactSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A HAMi container's quota on one GPU and the state its usage proves. */
interface HamiFact {
  readonly podUid: string;
  readonly gpu: string;
  readonly containerIds: readonly string[];
  readonly quotaBytes: number | undefined;
  readonly state: EnforcementState;
}

/**
 * What the samples of one node inspection need, and nothing else: numbers and the labels' strings. The agent keeps
 * this between cycles, not the inspection, whose model (every file of the capture, every DRM client) held 12.5 MiB
 * for the bench's node of 200 pods and 10,000 DRM fds. The pods' names are not in it: they come from the API's view
 * at each scrape.
 */
export interface NodeMetricFacts {
  readonly kernel: string;
  readonly node: readonly FactSample[];
  /** Per pod, by UID in order: its samples, whose labels add to the pod's. */
  readonly pods: readonly { readonly uid: string; readonly samples: readonly FactSample[] }[];
  /** Per container cgroup, by pod UID then container ID: its samples; the container's name comes at each scrape. */
  readonly containers: readonly ContainerFacts[];
  readonly hami: readonly HamiFact[];
}

const NO_LABELS: Readonly<Record<string, string>> = Object.freeze({});

function ownLabels(labels: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  const entries = Object.entries(labels);
  if (entries.length === 0) return NO_LABELS; // most samples: one object for all of them
  return Object.fromEntries(entries.map(([key, value]) => [key, ownString(value)]));
}

export interface ContainerFacts {
  readonly uid: string;
  readonly containerId: string;
  readonly samples: readonly FactSample[];
}

/** The GPU figures of a full cycle's pods, as the agent's maxima record them (gpuPeaks.ts). */
export function nodeGpuLevels(node: NodeInspection): GpuLevels {
  return gpuLevels(node.pods, node.model.gpuProcesses);
}

export function nodeMetricFacts(node: NodeInspection, levels: GpuLevels = nodeGpuLevels(node)): NodeMetricFacts {
  const collect = (into: FactSample[]) => (name: string, labels: Record<string, string>, value: number | undefined) => {
    if (value === undefined || !Number.isFinite(value)) return;
    into.push({ name, labels: ownLabels(labels), value });
  };
  const nodeFacts: FactSample[] = [];
  const push = collect(nodeFacts);
  const { accounting, model } = node;
  push('gpumem_node_memory_total_bytes', {}, accounting.memTotal);
  push('gpumem_node_memory_available_bytes', {}, accounting.memAvailable);
  const active = model.meminfo.get('GPUActive');
  push('gpumem_node_gpu_active_bytes', {}, active);
  push('gpumem_node_gpu_reclaim_bytes', {}, accounting.gpuReclaim);
  for (const card of [...model.gpus].sort((a, b) => a.card.localeCompare(b.card))) {
    push('gpumem_node_gtt_total_bytes', { card: card.card }, card.gttTotal);
    push('gpumem_node_gtt_used_bytes', { card: card.card }, card.gttUsed);
    push('gpumem_node_vram_total_bytes', { card: card.card }, card.vramTotal);
    push('gpumem_node_vram_used_bytes', { card: card.card }, card.vramUsed);
  }
  if (node.nvidia.node.kind === 'read') {
    for (const gpu of node.nvidia.node.gpus) {
      if (gpu.index === undefined || gpu.unifiedMemory) continue;
      const card = `nvidia${gpu.index}`;
      push('gpumem_node_vram_total_bytes', { card }, gpu.memoryTotalMiB === undefined ? undefined : gpu.memoryTotalMiB * MiB);
      push('gpumem_node_vram_used_bytes', { card }, gpu.memoryUsedMiB === undefined ? undefined : gpu.memoryUsedMiB * MiB);
    }
  }
  const kubepods = model.kubepodsLevels.find((level) => level.path === '/kubepods.slice' || level.path === '/kubepods');
  for (const [region, capacity] of [...model.dmemCapacity].sort(([a], [b]) => a.localeCompare(b))) {
    push('gpumem_node_dmem_capacity_bytes', { region }, limitBytes(capacity));
    push('gpumem_node_dmem_current_bytes', { region }, limitBytes(kubepods?.dmem.current.get(region)));
  }
  // Each KFD eviction by its pod, once (gpuProcessesOfPod indexes the GPU processes): per-pod lookups stay linear.
  const evictions = new Map(node.kfd.pods.map((eviction) => [eviction.podUid, eviction]));
  const pods = [...node.pods]
    .sort((a, b) => a.podUid.localeCompare(b.podUid))
    .map((pod) => {
      const samples: FactSample[] = [];
      podSamples(pod, collect(samples), gpuProcessesOfPod(node.model.gpuProcesses, pod.podUid), evictions.get(pod.podUid));
      return { uid: ownString(pod.podUid), samples };
    });
  const cgroups = new Map(model.pods.map((pod) => [pod.podUid, pod]));
  const containers = pods.flatMap(({ uid }) => containerFacts(uid, cgroups.get(uid), levels, collect));
  return { kernel: ownString(model.kernel ?? ''), node: nodeFacts, pods, containers, hami: hamiFacts(node.hamiQuotas) };
}

/**
 * Each container cgroup of a pod: its working set as cAdvisor computes container_memory_working_set_bytes (usage less
 * inactive file cache: google/cadvisor container/libcontainer/handler.go), so right-sizing reads the figure KRR and
 * VPA read; the kernel's high-water mark since the container started (memory.peak, Linux 5.19+; v1
 * memory.max_usage_in_bytes), which counts page cache too; and the GPU memory in RAM its processes hold.
 */
function containerFacts(
  uid: string,
  cgroup: PodCgroup | undefined,
  levels: GpuLevels,
  collect: (into: FactSample[]) => Push,
): ContainerFacts[] {
  const gpu = levels.pods.get(uid)?.containers ?? new Map<string, number>();
  const ids = new Set<string>();
  const out: ContainerFacts[] = [];
  for (const container of cgroup?.containers ?? []) {
    const id = container.containerId;
    if (id === undefined || ids.has(id)) continue;
    ids.add(id);
    const samples: FactSample[] = [];
    const push = collect(samples);
    const inactive = container.stat.get('inactive_file') ?? container.stat.get('total_inactive_file') ?? 0;
    push(
      'gpumem_container_memory_working_set_bytes',
      {},
      container.current === undefined ? undefined : Math.max(0, container.current - inactive),
    );
    push('gpumem_container_memory_peak_bytes', {}, container.peak);
    push('gpumem_container_unaccounted_bytes', {}, gpu.get(id) ?? 0);
    out.push({ uid, containerId: ownString(id), samples });
  }
  // A GPU process in a container whose cgroup the probe did not list (past its directory cap) still counts.
  for (const [id, bytes] of gpu) {
    if (ids.has(id)) continue;
    const samples: FactSample[] = [];
    collect(samples)('gpumem_container_unaccounted_bytes', {}, bytes);
    out.push({ uid, containerId: ownString(id), samples });
  }
  return out;
}

/** The facts' samples, each labelled with the node and each pod with its names from the API's view (else its UID). */
export function nodeFactSamples(facts: NodeMetricFacts, nodeName: string, identities: PodIdentities): Sample[] {
  const out: Sample[] = [];
  for (const sample of facts.node) out.push({ name: sample.name, labels: { node: nodeName, ...sample.labels }, value: sample.value });
  for (const pod of facts.pods) {
    const labels = podLabels(pod.uid, identities);
    for (const sample of pod.samples)
      out.push({ name: sample.name, labels: { node: nodeName, ...labels, ...sample.labels }, value: sample.value });
  }
  for (const container of facts.containers) {
    const identity = identities.get(container.uid);
    // With the API's view, a cgroup that is none of the pod's containers is its sandbox (pause): not a workload's.
    if (identity && !identity.containers.has(container.containerId)) continue;
    const labels = { node: nodeName, ...podLabels(container.uid, identities), container: containerName(container.containerId, identity) };
    for (const sample of container.samples) out.push({ name: sample.name, labels: { ...labels, ...sample.labels }, value: sample.value });
  }
  hamiSamples(facts.hami, identities, (name, labels, value) => {
    if (value !== undefined && Number.isFinite(value)) out.push({ name, labels: { node: nodeName, ...labels }, value });
  });
  return out;
}

export function nodeSamples(node: NodeInspection, nodeName: string, identities: PodIdentities): Sample[] {
  return nodeFactSamples(nodeMetricFacts(node), nodeName, identities);
}

type Push = (name: string, labels: Record<string, string>, value: number | undefined) => void;

/** A pod's samples; their labels are the pod's own additions (gpu), the pod's identity comes later. */
function podSamples(pod: PodAccounting, push: Push, processes: readonly ProcessGpuMemory[], eviction: PodEviction | undefined): void {
  const labels = {};
  push('gpumem_pod_cgroup_memory_bytes', labels, pod.accounted);
  push('gpumem_pod_memory_limit_bytes', labels, pod.limit);
  push('gpumem_pod_gtt_bytes', labels, pod.gtt);
  // GPU memory in RAM that no cgroup counts: what the true footprint adds to memory.current (GTT, and a
  // unified-memory NVIDIA GPU's used_memory); GTT alone when memory.current is unknown.
  push('gpumem_pod_unaccounted_bytes', labels, unaccountedOf(pod));
  push('gpumem_pod_true_footprint_bytes', labels, pod.trueFootprint);
  for (const [gpu, bytes] of podVram(pod, processes)) push('gpumem_pod_vram_bytes', { ...labels, gpu }, bytes);
  for (const gpu of eviction?.gpus ?? [])
    push('gpumem_pod_evicted_seconds_total', { ...labels, gpu: String(gpu.gpuId) }, gpu.evictedMs / 1000);
}

/** Each HAMi row as the samples need it: its container IDs (from its processes) and the state its usage proves. */
function hamiFacts(rows: readonly HamiQuotaRow[]): HamiFact[] {
  return [...rows]
    .sort((a, b) => a.podUid.localeCompare(b.podUid) || a.gpu.localeCompare(b.gpu))
    .map((row) => ({
      podUid: ownString(row.podUid),
      gpu: ownString(row.gpu),
      containerIds: [...new Set(row.processes.flatMap((process) => (process.containerId ? [ownString(process.containerId)] : [])))],
      quotaBytes: row.quotaBytes,
      state: row.status.kind === 'exceeded' ? 'bypassed' : row.status.kind === 'held' ? 'enforced' : 'unknown',
    }));
}

/**
 * Per HAMi container (from its processes' container IDs; `container` empty when no process is listed): its quota per
 * GPU, and one enforcement series per state, 1 for its state and 0 for the others, so an alert can test `== 1` and a
 * dashboard can count. A container on two GPUs is bypassed when it is over on either.
 */
function hamiSamples(rows: readonly HamiFact[], identities: PodIdentities, push: Push): void {
  const states = new Map<string, { labels: Record<string, string>; state: EnforcementState }>();
  const rank: Record<EnforcementState, number> = { enforced: 0, unknown: 1, bypassed: 2 };
  for (const row of rows) {
    const identity = identities.get(row.podUid);
    const containers = row.containerIds.length > 0 ? row.containerIds.map((id) => containerName(id, identity)) : [''];
    const { state } = row;
    for (const container of containers) {
      const labels = { ...(identity ? { namespace: identity.namespace, pod: identity.name } : { pod: row.podUid }), container };
      push('gpumem_hami_quota_bytes', { ...labels, gpu: row.gpu.replace(/^GPU /, '') }, row.quotaBytes);
      const key = `${row.podUid}\u0000${container}`;
      const previous = states.get(key);
      if (!previous || rank[state] > rank[previous.state]) states.set(key, { labels, state });
    }
  }
  for (const { labels, state } of states.values())
    for (const candidate of ['enforced', 'bypassed', 'unknown'] as const)
      push('gpumem_hami_enforcement', { ...labels, state: candidate }, candidate === state ? 1 : 0);
}

export function containerName(containerId: string, identity: PodIdentity | undefined): string {
  return identity?.containers.get(containerId) ?? containerId.slice(0, 12);
}
