// Fleet facts from the agents' own /metrics (read through the API server's pod proxy when there is no Prometheus):
// the same aggregations the Prometheus queries make (promFacts.ts), done here over the samples. No history, so a
// peak is the current value and OOM kills are counted since each agent started. Linear in the samples.
import type { ParsedSample } from '../agent/promText.ts';
import type { FleetFacts, FleetWindow, HamiFacts, KillFacts, NodeFacts, PodFacts } from './facts.ts';

/** One agent's scrape: its pod (for problems) and what it served, or why it could not be read. */
export type AgentScrape =
  | { readonly kind: 'read'; readonly agent: string; readonly samples: readonly ParsedSample[] }
  | { readonly kind: 'failed'; readonly agent: string; readonly node: string | undefined; readonly reason: string };

interface NodeAcc {
  memTotal?: number;
  memAvailable?: number;
  cgroup: number;
  unaccounted: number;
  gttUsed?: number;
  pods: number;
  amd: boolean;
  nvidia: boolean;
  lastSeen?: number;
}

const scopeOf = (text: string | undefined): KillFacts['scope'] => (text === 'global' || text === 'memcg' ? text : 'unknown');
const stateOf = (text: string | undefined): HamiFacts['state'] | undefined =>
  text === 'enforced' || text === 'bypassed' || text === 'unknown' ? text : undefined;

export function agentFleetFacts(
  scrapes: readonly AgentScrape[],
  options: {
    readonly at: number;
    readonly window: FleetWindow;
    /** A scan's own source line and kill meaning (default: the agents'). */
    readonly source?: FleetFacts['source'];
    readonly killsMeaning?: FleetFacts['killsMeaning'];
  },
): FleetFacts {
  const nodes = new Map<string, NodeAcc>();
  const pods = new Map<
    string,
    {
      node: string;
      namespace?: string;
      pod?: string;
      uid: string;
      cgroup?: number;
      limit?: number;
      unaccounted?: number;
      footprint?: number;
    }
  >();
  const kills: KillFacts[] = [];
  const hami = new Map<string, HamiFacts>();
  const quotas = new Map<string, number>();
  const problems: string[] = [];
  const node = (name: string): NodeAcc => {
    let acc = nodes.get(name);
    if (!acc) {
      acc = { cgroup: 0, unaccounted: 0, pods: 0, amd: false, nvidia: false };
      nodes.set(name, acc);
    }
    return acc;
  };
  for (const scrape of scrapes) {
    if (scrape.kind === 'failed') {
      problems.push(`${scrape.agent}${scrape.node ? ` on node ${scrape.node}` : ''}: ${scrape.reason}`);
      continue;
    }
    for (const sample of scrape.samples) {
      // Every family read here is an amount: a negative value is no measurement.
      if (!(sample.value >= 0)) continue;
      const labels = sample.labels;
      const name = labels['node'];
      if (!name) continue;
      const acc = node(name);
      const uid = labels['uid'];
      const podKey = uid ? `${name}\u0000${uid}` : undefined;
      const pod = () => {
        if (!podKey || !uid) return undefined;
        let entry = pods.get(podKey);
        if (!entry) {
          entry = {
            node: name,
            uid,
            ...(labels['namespace'] ? { namespace: labels['namespace'] } : {}),
            ...(labels['pod'] ? { pod: labels['pod'] } : {}),
          };
          pods.set(podKey, entry);
        }
        return entry;
      };
      switch (sample.name) {
        case 'gpumem_node_memory_total_bytes':
          acc.memTotal = sample.value;
          break;
        case 'gpumem_node_memory_available_bytes':
          acc.memAvailable = sample.value;
          break;
        case 'gpumem_node_gtt_used_bytes':
          acc.gttUsed = (acc.gttUsed ?? 0) + sample.value;
          break;
        case 'gpumem_node_gtt_total_bytes':
          acc.amd = true;
          break;
        case 'gpumem_node_vram_total_bytes':
          if (labels['card']?.startsWith('nvidia')) acc.nvidia = true;
          break;
        case 'gpumem_probe_last_success_timestamp_seconds':
          acc.lastSeen = sample.value;
          break;
        case 'gpumem_pod_cgroup_memory_bytes': {
          const entry = pod();
          if (entry) entry.cgroup = sample.value;
          acc.cgroup += sample.value;
          acc.pods++;
          break;
        }
        case 'gpumem_pod_memory_limit_bytes': {
          const entry = pod();
          if (entry) entry.limit = sample.value;
          break;
        }
        case 'gpumem_pod_unaccounted_bytes': {
          const entry = pod();
          if (entry) entry.unaccounted = sample.value;
          acc.unaccounted += sample.value;
          break;
        }
        case 'gpumem_pod_true_footprint_bytes': {
          const entry = pod();
          if (entry) entry.footprint = sample.value;
          break;
        }
        case 'gpumem_oom_kills_total':
          kills.push({
            node: name,
            namespace: labels['namespace'],
            pod: labels['pod'],
            uid,
            scope: scopeOf(labels['scope']),
            gpuSignature: labels['gpu_signature'] === 'true',
            count: sample.value,
          });
          break;
        case 'gpumem_hami_enforcement': {
          const state = stateOf(labels['state']);
          if (state && sample.value === 1 && labels['pod'] !== undefined)
            hami.set(`${name}\u0000${labels['namespace'] ?? ''}\u0000${labels['pod']}\u0000${labels['container'] ?? ''}`, {
              node: name,
              namespace: labels['namespace'],
              pod: labels['pod'],
              container: labels['container'] ?? '',
              state,
              quotaBytes: undefined,
            });
          break;
        }
        case 'gpumem_hami_quota_bytes':
          if (labels['pod'] !== undefined) {
            const key = `${name}\u0000${labels['namespace'] ?? ''}\u0000${labels['pod']}\u0000${labels['container'] ?? ''}`;
            quotas.set(key, (quotas.get(key) ?? 0) + sample.value);
          }
          break;
        default:
          break;
      }
    }
  }
  const nodeFacts: NodeFacts[] = [...nodes].map(([name, acc]) => ({
    node: name,
    memTotal: acc.memTotal,
    memAvailable: acc.memAvailable,
    cgroup: acc.cgroup,
    unaccounted: acc.unaccounted,
    peakUsed: undefined,
    gttUsed: acc.gttUsed,
    pods: acc.pods,
    vendor: acc.nvidia ? 'nvidia' : acc.amd ? 'amd' : undefined,
    unifiedMemory: undefined,
    labels: {},
    lastSeen: acc.lastSeen,
  }));
  const podFacts: PodFacts[] = [...pods.values()].map((entry) => ({
    node: entry.node,
    namespace: entry.namespace,
    pod: entry.pod,
    uid: entry.uid,
    cgroup: entry.cgroup,
    limit: entry.limit,
    unaccounted: entry.unaccounted,
    footprint: entry.footprint,
    peakFootprint: undefined,
  }));
  const overLimit = podFacts.filter((pod) => pod.footprint !== undefined && pod.limit !== undefined && pod.footprint > pod.limit).length;
  return {
    source: options.source ?? { kind: 'agents', description: `the /metrics of ${scrapes.length} agent${scrapes.length === 1 ? '' : 's'}` },
    window: options.window,
    at: options.at,
    nodes: nodeFacts,
    pods: podFacts,
    podCounts: { total: podFacts.length, overLimit },
    kills,
    killsMeaning: options.killsMeaning ?? 'since-agent-start',
    killsOverTime: [],
    hami: [...hami].map(([key, row]) => ({ ...row, quotaBytes: quotas.get(key) })),
    silentNodes: [],
    problems,
  };
}
