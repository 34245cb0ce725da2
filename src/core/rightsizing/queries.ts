// The PromQL of `gpumem recommend`: one constant set of instant queries over the window, whatever the number of
// workloads, never one per workload. Peaks with max_over_time; the true footprint from the recording rule of
// deploy/agent/prometheus/rightsizing-rules.yaml when Prometheus has it, else the same sum as a subquery at a step
// that keeps about 1,000 points over the window (a fallback query, sent only when the rule answered nothing).
// cAdvisor's container_memory_working_set_bytes is the cgroup part where the kubelet's cAdvisor is scraped;
// without it, the agent's own working set per container stands in (the pod's memory.current, which counts page
// cache, only for a one-container pod of an agent without per-container series), and the output says so. GPU
// memory in RAM is each container's own (the agent's per-container series); a pod's is split only where those are
// missing.
import type { FleetWindow } from '../fleet/facts.ts';

/** The agent's high-water marks (docs/agent.md): memory.peak per container, GPU memory in RAM at its maximum between scrapes. */
export const HWM_SERIES = {
  containerMemoryPeak: 'gpumem_container_memory_peak_bytes',
  podGpuMemoryMax: 'gpumem_pod_unaccounted_max_bytes',
  containerGpuMemoryMax: 'gpumem_container_unaccounted_max_bytes',
} as const;

/** The agent's per-container series (docs/agent.md): a container's own working set and GPU memory in system RAM. */
export const CONTAINER_SERIES = {
  workingSet: 'gpumem_container_memory_working_set_bytes',
  gpuInRam: 'gpumem_container_unaccounted_bytes',
} as const;

export const RECORDED = {
  trueFootprint: 'namespace_pod_container:gpumem_true_footprint_bytes',
  kills: 'namespace_pod:gpumem_oom_kills:sum',
} as const;

const WS = 'container_memory_working_set_bytes';
const CONTAINER = 'namespace, pod, container';
const POD = 'namespace, pod';

/** A PromQL regex matching exactly these names (escaped; namespaces are DNS labels in practice). */
export function exactRegex(values: readonly string[]): string {
  return values.map((value) => value.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&').replace(/["\\]/g, '\\$&')).join('|');
}

export interface QueryScope {
  readonly window: FleetWindow;
  /** The namespaces to read; empty for all. */
  readonly namespaces: readonly string[];
}

function stepOf(window: FleetWindow): string {
  return `${Math.max(60, Math.round(window.seconds / 1000))}s`;
}

/** Selector text: `{a, b, namespace=~"…"}`. */
function selector(scope: QueryScope, ...matchers: string[]): string {
  const all = [...matchers];
  if (scope.namespaces.length > 0) all.push(`namespace=~"${exactRegex(scope.namespaces)}"`);
  return `{${all.join(', ')}}`;
}

export function recommendQueries(scope: QueryScope): Readonly<Record<string, string>> {
  const w = scope.window.label;
  const ws = `${WS}${selector(scope, 'container!=""', 'container!="POD"')}`;
  const step = stepOf(scope.window);
  return {
    // The cgroup part: cAdvisor per container.
    wsPeak: `max by (${CONTAINER}) (max_over_time(${ws}[${w}]))`,
    wsSamples: `sum by (${CONTAINER}) (count_over_time(${ws}[${w}]))`,
    wsFirst: `min by (${CONTAINER}) (min_over_time(timestamp(${ws})[${w}:${step}]))`,
    wsLast: `max by (${CONTAINER}) (max_over_time(timestamp(${ws})[${w}:${step}]))`,
    trueFootprintPeak: `max by (${CONTAINER}) (max_over_time(${RECORDED.trueFootprint}${selector(scope)}[${w}]))`,
    // Without cAdvisor: the agent's pod cgroup (memory.current) and true footprint.
    agentCgroupPeak: `max by (${POD}) (max_over_time(gpumem_pod_cgroup_memory_bytes${selector(scope)}[${w}]))`,
    agentTrueFootprintPeak: `max by (${POD}) (max_over_time(gpumem_pod_true_footprint_bytes${selector(scope)}[${w}]))`,
    agentSamples: `sum by (${POD}) (count_over_time(gpumem_pod_cgroup_memory_bytes${selector(scope)}[${w}]))`,
    agentFirst: `min by (${POD}) (min_over_time(timestamp(gpumem_pod_cgroup_memory_bytes${selector(scope)})[${w}:${step}]))`,
    agentLast: `max by (${POD}) (max_over_time(timestamp(gpumem_pod_cgroup_memory_bytes${selector(scope)})[${w}:${step}]))`,
    // Without cAdvisor, per container: the agent's working set (usage less inactive file, as cAdvisor computes it).
    agentWsPeak: `max by (${CONTAINER}) (max_over_time(${CONTAINER_SERIES.workingSet}${selector(scope)}[${w}]))`,
    // GPU memory in system RAM of each container's own processes, and its maximum between scrapes: a container's
    // recommendation carries its own GPU memory, not a share of its pod's.
    containerGpuInRamPeak: `max by (${CONTAINER}) (max_over_time(${CONTAINER_SERIES.gpuInRam}${selector(scope)}[${w}]))`,
    containerGpuMaxBetweenScrapes: `max by (${CONTAINER}) (max_over_time(${HWM_SERIES.containerGpuMemoryMax}${selector(scope)}[${w}]))`,
    // GPU memory of the pod: in system RAM outside the cgroup, VRAM, and the maxima between scrapes.
    gpuInRamPeak: `max by (${POD}) (max_over_time(gpumem_pod_unaccounted_bytes${selector(scope)}[${w}]))`,
    gpuMaxBetweenScrapes: `max by (${POD}) (max_over_time(${HWM_SERIES.podGpuMemoryMax}${selector(scope)}[${w}]))`,
    vramPeak: `max by (${POD}) (max_over_time(sum by (${POD}, uid) (gpumem_pod_vram_bytes${selector(scope)})[${w}:${step}]))`,
    kernelPeak: `max by (${CONTAINER}) (max_over_time(${HWM_SERIES.containerMemoryPeak}${selector(scope)}[${w}]))`,
    // Kills: the growth of counters that existed at the window's start, and the whole value of those born inside it.
    killsGrown: `sum by (node, ${POD}, scope, gpu_signature) (increase(gpumem_oom_kills_total${selector(scope)}[${w}]) and gpumem_oom_kills_total${selector(scope)} offset ${w})`,
    killsBorn: `sum by (node, ${POD}, scope, gpu_signature) (gpumem_oom_kills_total${selector(scope)} unless gpumem_oom_kills_total${selector(scope)} offset ${w})`,
    // Global kills without the GPU signature: when, on which node, and that node's biggest pods over the window
    // (replaced by those at the time of the kill, pressureAtKillQuery, where the kill's time is known).
    pressureNodes: `max by (node) (max_over_time(gpumem_oom_kill_last_timestamp_seconds{scope="global", gpu_signature="false"}[${w}]))`,
    pressurePods: `topk by (node) (3, max by (node, ${POD}) (max_over_time(gpumem_pod_true_footprint_bytes[${w}])))`,
    // kube-state-metrics: containers whose last termination was OOMKilled at some time in the window.
    kubeletOom: `max by (${CONTAINER}) (max_over_time(kube_pod_container_status_last_terminated_reason${selector(scope, 'reason="OOMKilled"')}[${w}]))`,
  };
}

/**
 * Sent only when `trueFootprintPeak` answered nothing: the recording rule's sum as a subquery, at the rule's own
 * 1-minute resolution (a coarser step would miss peaks between its points). Costly on a big cluster over 14 days:
 * the output says to load the rule.
 */
export function trueFootprintFallbackQuery(scope: QueryScope): string {
  const ws = `max by (${CONTAINER}) (${WS}${selector(scope, 'container!=""', 'container!="POD"')})`;
  const agentWs = `max by (${CONTAINER}) (${CONTAINER_SERIES.workingSet}${selector(scope)})`;
  const gpu = `max by (${CONTAINER}) (${CONTAINER_SERIES.gpuInRam}${selector(scope)})`;
  const sum = `(${ws} + on (${CONTAINER}) ${gpu}) or ${ws} or (${agentWs} + on (${CONTAINER}) ${gpu}) or ${agentWs}`;
  return `max by (${CONTAINER}) (max_over_time((${sum})[${scope.window.label}:1m]))`;
}

/** How far before a kill the pods' footprint is read: a few scrapes, since the victim's series ends with it. */
export const PRESSURE_LOOKBACK = '5m';

/**
 * The biggest pods on a node just before a global kill there, evaluated at the kill's time: one query per node that
 * had such a kill (at most MAX_PRESSURE_NODES), never one per workload.
 */
export function pressureAtKillQuery(node: string): string {
  const escaped = node.replace(/["\\]/g, '\\$&');
  return `topk(3, max by (node, ${POD}) (max_over_time(gpumem_pod_true_footprint_bytes{node="${escaped}"}[${PRESSURE_LOOKBACK}])))`;
}

export const MAX_PRESSURE_NODES = 10;
