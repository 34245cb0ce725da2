// Fleet facts from Prometheus holding the agents' metrics (docs/agent.md): a constant set of PromQL queries per
// view, never one per node; peaks with max_over_time over the window and OOM kills with increase(). A second,
// constant pair of queries reads the details of the pods the first set ranked at the top. Pure: the queries as text,
// and the facts from their answers (the HTTP client is src/prometheus/client.ts).
import { parseFloatValue } from '../agent/promText.ts';
import type { PromAnswer, PromVectorSample } from '../prometheus/answer.ts';
import { amountOf, instantSamples } from '../prometheus/answer.ts';
import type { FleetFacts, FleetWindow, HamiFacts, KillFacts, KillPoint, NodeFacts, PodFacts } from './facts.ts';

const POD_KEY = 'node, namespace, pod, uid';

/** `30s`, `1h`, `24h`, `7d`: a duration PromQL accepts; undefined otherwise. */
export function parseWindow(text: string): FleetWindow | undefined {
  const match = /^(\d{1,4})(m|h|d|w)$/.exec(text.trim());
  if (!match?.[1] || !match[2]) return undefined;
  const seconds = Number(match[1]) * { m: 60, h: 3600, d: 86_400, w: 604_800 }[match[2] as 'm' | 'h' | 'd' | 'w'];
  if (seconds < 300 || seconds > 90 * 86_400) return undefined;
  return { label: `${match[1]}${match[2]}`, seconds };
}

/** A subquery step that keeps about 300 points over the window (at least a minute). */
function stepOf(window: FleetWindow): string {
  return `${Math.max(60, Math.round(window.seconds / 300))}s`;
}

/** The first set: every node's numbers, the counts, the top pods, the kills, HAMi. */
export function fleetQueries(window: FleetWindow, top: number): Readonly<Record<string, string>> {
  const w = window.label;
  const k = Math.max(1, Math.min(500, Math.floor(top)));
  return {
    memTotal: 'max by (node) (gpumem_node_memory_total_bytes)',
    memAvailable: 'max by (node) (gpumem_node_memory_available_bytes)',
    cgroup: 'sum by (node) (gpumem_pod_cgroup_memory_bytes)',
    unaccounted: 'sum by (node) (gpumem_pod_unaccounted_bytes)',
    pods: 'count by (node) (gpumem_pod_cgroup_memory_bytes)',
    peakUsed: `max_over_time((sum by (node) (gpumem_pod_cgroup_memory_bytes) + on (node) sum by (node) (gpumem_pod_unaccounted_bytes))[${w}:${stepOf(window)}])`,
    gttUsed: 'sum by (node) (gpumem_node_gtt_used_bytes)',
    amdCards: 'count by (node) (gpumem_node_gtt_total_bytes)',
    nvidiaGpus: 'count by (node) (gpumem_node_vram_total_bytes{card=~"nvidia.*"})',
    lastSeen: 'max by (node) (gpumem_probe_last_success_timestamp_seconds)',
    podTotal: 'count(gpumem_pod_cgroup_memory_bytes)',
    overLimitCount: `count(max_over_time(gpumem_pod_true_footprint_bytes[${w}]) > on (${POD_KEY}) gpumem_pod_memory_limit_bytes)`,
    topUnaccounted: `topk(${k}, max_over_time(gpumem_pod_unaccounted_bytes[${w}]) > 0)`,
    topOverLimit: `topk(${k}, (max_over_time(gpumem_pod_true_footprint_bytes[${w}]) - on (${POD_KEY}) gpumem_pod_memory_limit_bytes) > 0)`,
    kills: `sum by (node, namespace, pod, uid, scope, gpu_signature) (increase(gpumem_oom_kills_total[${w}])) > 0`,
    hami: 'gpumem_hami_enforcement == 1',
    hamiQuota: 'sum by (node, namespace, pod, container) (gpumem_hami_quota_bytes)',
  };
}

/** The OOM kills over time, one range query: kills per step by scope. */
export function killsOverTimeQuery(window: FleetWindow): { readonly query: string; readonly stepSeconds: number } {
  const stepSeconds = Math.max(300, Math.round(window.seconds / 48));
  return { query: `sum by (scope) (increase(gpumem_oom_kills_total[${stepSeconds}s]))`, stepSeconds };
}

/** A PromQL regex that matches exactly these UIDs (each escaped; UIDs are hex and dashes in practice). */
function uidRegex(uids: readonly string[]): string {
  return uids.map((uid) => uid.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&').replace(/["\\]/g, '\\$&')).join('|');
}

/** The second set: the numbers of the pods the first set ranked (at most 2 × top UIDs, so the query stays short). */
export function podDetailQueries(uids: readonly string[], window: FleetWindow): Readonly<Record<string, string>> {
  if (uids.length === 0) return {};
  const match = `uid=~"${uidRegex(uids)}"`;
  return {
    podCurrent: `{__name__=~"gpumem_pod_(cgroup_memory|memory_limit|unaccounted|true_footprint)_bytes", ${match}}`,
    podPeak: `max_over_time(gpumem_pod_true_footprint_bytes{${match}}[${window.label}])`,
  };
}

function byNode(samples: readonly PromVectorSample[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const sample of samples) {
    const node = sample.metric['node'];
    const value = amountOf(sample);
    if (node && value !== undefined) out.set(node, value);
  }
  return out;
}

/** The UIDs the first set ranked, for podDetailQueries. */
export function rankedUids(answers: ReadonlyMap<string, PromAnswer>): string[] {
  const uids = new Set<string>();
  for (const name of ['topUnaccounted', 'topOverLimit']) {
    const answer = answers.get(name);
    if (answer?.kind === 'vector') for (const sample of answer.samples) if (sample.metric['uid']) uids.add(sample.metric['uid']);
  }
  return [...uids];
}

const scopeOf = (text: string | undefined): KillFacts['scope'] => (text === 'global' || text === 'memcg' ? text : 'unknown');

export function promFleetFacts(
  answers: ReadonlyMap<string, PromAnswer>,
  options: { readonly at: number; readonly window: FleetWindow; readonly description: string },
): FleetFacts {
  const problems: string[] = [];
  const get = (name: string) => byNode(instantSamples(answers, name, problems));
  const memTotal = get('memTotal');
  const memAvailable = get('memAvailable');
  const cgroup = get('cgroup');
  const unaccounted = get('unaccounted');
  const pods = get('pods');
  const peakUsed = get('peakUsed');
  const gttUsed = get('gttUsed');
  const amd = get('amdCards');
  const nvidia = get('nvidiaGpus');
  const lastSeen = get('lastSeen');
  const names = new Set([...memTotal.keys(), ...cgroup.keys(), ...lastSeen.keys()]);
  const nodes: NodeFacts[] = [...names].map((node) => ({
    node,
    memTotal: memTotal.get(node),
    memAvailable: memAvailable.get(node),
    cgroup: cgroup.get(node) ?? 0,
    unaccounted: unaccounted.get(node) ?? 0,
    peakUsed: peakUsed.get(node),
    gttUsed: gttUsed.get(node),
    pods: pods.get(node) ?? 0,
    vendor: nvidia.has(node) ? 'nvidia' : amd.has(node) ? 'amd' : undefined,
    unifiedMemory: undefined,
    labels: {},
    lastSeen: lastSeen.get(node),
  }));
  const scalar = (name: string): number => {
    const [sample] = instantSamples(answers, name, problems);
    return sample ? Math.round(amountOf(sample) ?? 0) : 0;
  };
  // The ranked pods' numbers: current values, and the peak footprint over the window.
  const podMap = new Map<string, { -readonly [K in keyof PodFacts]: PodFacts[K] }>();
  const podOf = (metric: Readonly<Record<string, string>>) => {
    const uid = metric['uid'];
    const node = metric['node'];
    if (!uid || !node) return undefined;
    const key = `${node}\u0000${uid}`;
    let entry = podMap.get(key);
    if (!entry) {
      entry = {
        node,
        namespace: metric['namespace'],
        pod: metric['pod'],
        uid,
        cgroup: undefined,
        limit: undefined,
        unaccounted: undefined,
        footprint: undefined,
        peakFootprint: undefined,
      };
      podMap.set(key, entry);
    }
    return entry;
  };
  for (const name of ['topUnaccounted', 'topOverLimit']) for (const sample of instantSamples(answers, name, problems)) podOf(sample.metric);
  for (const sample of instantSamples(answers, 'podCurrent', problems)) {
    const entry = podOf(sample.metric);
    const value = amountOf(sample);
    if (!entry || value === undefined) continue;
    const family = sample.metric['__name__'];
    if (family === 'gpumem_pod_cgroup_memory_bytes') entry.cgroup = value;
    else if (family === 'gpumem_pod_memory_limit_bytes') entry.limit = value;
    else if (family === 'gpumem_pod_unaccounted_bytes') entry.unaccounted = value;
    else if (family === 'gpumem_pod_true_footprint_bytes') entry.footprint = value;
  }
  for (const sample of instantSamples(answers, 'podPeak', problems)) {
    const entry = podOf(sample.metric);
    const value = amountOf(sample);
    if (entry && value !== undefined) entry.peakFootprint = value;
  }
  const kills: KillFacts[] = [];
  for (const sample of instantSamples(answers, 'kills', problems)) {
    const value = amountOf(sample);
    const node = sample.metric['node'];
    // increase() extrapolates: 0.97 of a kill is one kill.
    if (value === undefined || !node || Math.round(value) < 1) continue;
    kills.push({
      node,
      namespace: sample.metric['namespace'],
      pod: sample.metric['pod'],
      uid: sample.metric['uid'],
      scope: scopeOf(sample.metric['scope']),
      gpuSignature: sample.metric['gpu_signature'] === 'true',
      count: Math.round(value),
    });
  }
  const quotas = new Map<string, number>();
  const hamiKey = (metric: Readonly<Record<string, string>>) =>
    `${metric['node'] ?? ''}\u0000${metric['namespace'] ?? ''}\u0000${metric['pod'] ?? ''}\u0000${metric['container'] ?? ''}`;
  for (const sample of instantSamples(answers, 'hamiQuota', problems)) {
    const value = amountOf(sample);
    if (value !== undefined) quotas.set(hamiKey(sample.metric), value);
  }
  const hami: HamiFacts[] = [];
  for (const sample of instantSamples(answers, 'hami', problems)) {
    const state = sample.metric['state'];
    const node = sample.metric['node'];
    const pod = sample.metric['pod'];
    if (!node || pod === undefined || (state !== 'enforced' && state !== 'bypassed' && state !== 'unknown')) continue;
    hami.push({
      node,
      namespace: sample.metric['namespace'],
      pod,
      container: sample.metric['container'] ?? '',
      state,
      quotaBytes: quotas.get(hamiKey(sample.metric)),
    });
  }
  const killsOverTime: KillPoint[] = [];
  const range = answers.get('killsOverTime');
  if (range?.kind === 'failed') problems.push(`query killsOverTime: ${range.reason}`);
  if (range?.kind === 'matrix')
    for (const series of range.series)
      for (const [t, text] of series.values) {
        const value = parseFloatValue(text);
        if (value !== undefined && Number.isFinite(value) && value >= 0 && Number.isFinite(t))
          killsOverTime.push({ t, scope: scopeOf(series.metric['scope']), count: Math.max(0, Math.round(value * 100) / 100) });
      }
  return {
    source: { kind: 'prometheus', description: options.description },
    window: options.window,
    at: options.at,
    nodes,
    pods: [...podMap.values()],
    podCounts: { total: scalar('podTotal'), overLimit: scalar('overLimitCount') },
    kills,
    killsMeaning: 'window',
    killsOverTime,
    hami,
    silentNodes: [],
    problems,
  };
}
