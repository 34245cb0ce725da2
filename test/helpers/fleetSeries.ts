// A synthetic but realistic fleet in the agent's metric contract (src/core/agent/metricContract.ts), as OpenMetrics
// text for `promtool tsdb create-blocks-from openmetrics`: N GPU nodes (every 10th a Strix Halo APU with GTT, every
// 3rd an NVIDIA HAMi node, the rest discrete AMD), P pods spread over them, with a ground truth the test checks:
// which pods are over their limit once GPU memory is counted, which were killed by the global OOM killer (with the
// GPU signature) inside the window, which HAMi containers are bypassed. Three samples per series over the last
// 30 minutes; counters rise between samples for the killed pods.
import { writeFileSync } from 'node:fs';

const GiB = 1024 ** 3;

export interface FleetTruth {
  readonly nodes: number;
  readonly pods: number;
  readonly overLimit: readonly string[];
  readonly globalGpuKills: number;
  readonly memcgKills: number;
  readonly hamiBypassed: number;
  readonly hamiContainers: number;
  readonly nearFullNodes: readonly string[];
  /** The sample times (Unix seconds). */
  readonly times: readonly number[];
}

/** Writes the OpenMetrics file and returns what a correct fleet summary must find in it. */
export function writeFleetSeries(
  file: string,
  options: { readonly nodes: number; readonly pods: number; readonly now: number },
): FleetTruth {
  const times = [options.now - 1800, options.now - 900, options.now - 60];
  const lines: string[] = [];
  const family = (name: string, type: 'gauge' | 'counter', help: string) => lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
  const series = (name: string, labels: Record<string, string>, values: readonly number[]) => {
    const text = Object.entries(labels)
      .map(([key, value]) => `${key}="${value}"`)
      .join(',');
    times.forEach((t, i) => lines.push(`${name}{${text}} ${values[i] ?? values[values.length - 1]} ${t}`));
  };
  const nodeName = (n: number) => `gpu-node-${String(n).padStart(5, '0')}`;
  const kind = (n: number): 'apu' | 'hami' | 'amd' => (n % 10 === 0 ? 'apu' : n % 3 === 0 ? 'hami' : 'amd');

  const podsOn = new Map<number, number[]>();
  for (let p = 0; p < options.pods; p++) podsOn.set(p % options.nodes, [...(podsOn.get(p % options.nodes) ?? []), p]);
  const podLabels = (p: number) => ({
    node: nodeName(p % options.nodes),
    namespace: `team-${p % 40}`,
    pod: `worker-${p}`,
    uid: `00000000-0000-4000-8000-${String(p).padStart(12, '0')}`,
  });
  // Every 97th pod on an APU node holds more GTT than its limit leaves; every 499th pod is killed (global, GPU) once
  // inside the window; every 1,001st has one cgroup kill; every 7th HAMi container is over its quota.
  const overLimit: string[] = [];
  const nearFull = new Set<string>();
  let globalGpuKills = 0;
  let memcgKills = 0;
  let hamiBypassed = 0;
  let hamiContainers = 0;

  family('gpumem_node_memory_total_bytes', 'gauge', 'MemTotal of the node.');
  for (let n = 0; n < options.nodes; n++) series('gpumem_node_memory_total_bytes', { node: nodeName(n) }, [128 * GiB]);
  family('gpumem_node_gtt_used_bytes', 'gauge', 'GTT in use on a DRM card.');
  for (let n = 0; n < options.nodes; n += 10) series('gpumem_node_gtt_used_bytes', { node: nodeName(n), card: 'card1' }, [40 * GiB]);
  family('gpumem_node_gtt_total_bytes', 'gauge', 'GTT size of a DRM card.');
  for (let n = 0; n < options.nodes; n++)
    if (kind(n) !== 'hami') series('gpumem_node_gtt_total_bytes', { node: nodeName(n), card: 'card1' }, [96 * GiB]);
  family('gpumem_node_vram_total_bytes', 'gauge', 'VRAM of a GPU.');
  for (let n = 0; n < options.nodes; n++)
    if (kind(n) === 'hami') series('gpumem_node_vram_total_bytes', { node: nodeName(n), card: 'nvidia0' }, [80 * GiB]);
  family('gpumem_probe_last_success_timestamp_seconds', 'gauge', 'Unix time of the last good cycle.');
  for (let n = 0; n < options.nodes; n++)
    series(
      'gpumem_probe_last_success_timestamp_seconds',
      { node: nodeName(n) },
      times.map((t) => t - 5),
    );

  const pods: { p: number; cgroup: number; limit: number; unaccounted: number }[] = [];
  for (let p = 0; p < options.pods; p++) {
    const apu = kind(p % options.nodes) === 'apu';
    const over = apu && p % 97 === 0;
    const unaccounted = apu ? (over ? 20 * GiB : 2 * GiB) : 0;
    pods.push({ p, cgroup: 2 * GiB, limit: 16 * GiB, unaccounted });
    if (over) overLimit.push(podLabels(p).uid);
  }
  // A node is near full when its pods' cgroups plus GTT outside cgroups reach 90 % of 128 GiB.
  for (const [n, list] of podsOn) {
    const used = list.reduce((sum, p) => sum + (pods[p]?.cgroup ?? 0) + (pods[p]?.unaccounted ?? 0), 0);
    if (used >= 0.9 * 128 * GiB) nearFull.add(nodeName(n));
  }
  family('gpumem_pod_cgroup_memory_bytes', 'gauge', "The pod cgroup's memory.current.");
  for (const pod of pods) series('gpumem_pod_cgroup_memory_bytes', podLabels(pod.p), [pod.cgroup]);
  family('gpumem_pod_memory_limit_bytes', 'gauge', "The pod cgroup's memory.max.");
  for (const pod of pods) series('gpumem_pod_memory_limit_bytes', podLabels(pod.p), [pod.limit]);
  family('gpumem_pod_unaccounted_bytes', 'gauge', 'GPU memory in RAM no cgroup counts.');
  for (const pod of pods) series('gpumem_pod_unaccounted_bytes', podLabels(pod.p), [pod.unaccounted]);
  family('gpumem_pod_true_footprint_bytes', 'gauge', 'memory.current plus unaccounted.');
  for (const pod of pods) series('gpumem_pod_true_footprint_bytes', podLabels(pod.p), [pod.cgroup + pod.unaccounted]);
  // OpenMetrics names a counter family without _total; its samples carry it.
  family('gpumem_oom_kills', 'counter', 'OOM kills seen in the kernel log.');
  for (const pod of pods) {
    const labels = podLabels(pod.p);
    if (pod.p % 499 === 0) {
      series('gpumem_oom_kills_total', { ...labels, scope: 'global', gpu_signature: 'true' }, [0, 1, 1]);
      globalGpuKills++;
    }
    if (pod.p % 1001 === 0) {
      series('gpumem_oom_kills_total', { ...labels, scope: 'memcg', gpu_signature: 'false' }, [0, 0, 1]);
      memcgKills++;
    }
  }
  family('gpumem_hami_enforcement', 'gauge', "1 for a HAMi container's state.");
  for (const pod of pods) {
    if (kind(pod.p % options.nodes) !== 'hami') continue;
    hamiContainers++;
    const bypassed = pod.p % 7 === 0;
    if (bypassed) hamiBypassed++;
    const labels = { node: podLabels(pod.p).node, namespace: podLabels(pod.p).namespace, pod: podLabels(pod.p).pod, container: 'cuda' };
    series('gpumem_hami_enforcement', { ...labels, state: 'bypassed' }, [bypassed ? 1 : 0]);
    series('gpumem_hami_enforcement', { ...labels, state: 'enforced' }, [bypassed ? 0 : 1]);
  }
  lines.push('# EOF');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return {
    nodes: options.nodes,
    pods: options.pods,
    overLimit,
    globalGpuKills,
    memcgKills,
    hamiBypassed,
    hamiContainers,
    nearFullNodes: [...nearFull],
    times,
  };
}
