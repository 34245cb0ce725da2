// What the fleet view and `gpumem fleet` know about a cluster's GPU nodes, whichever source gave it: Prometheus
// holding the agents' metrics (promFacts.ts), the agents' /metrics read directly (agentFacts.ts), or a one-shot
// scan. Plain data; summary.ts judges it.

export type FleetSourceKind = 'prometheus' | 'agents' | 'scan';

export interface FleetWindow {
  /** As the user wrote it: `1h`, `24h`, `7d`. */
  readonly label: string;
  readonly seconds: number;
}

export interface NodeFacts {
  readonly node: string;
  readonly memTotal: number | undefined;
  readonly memAvailable: number | undefined;
  /** The pods' memory.current, summed. */
  readonly cgroup: number;
  /** GPU memory in RAM the pods hold that no cgroup counts, summed. */
  readonly unaccounted: number;
  /** The highest cgroup + unaccounted over the window (Prometheus); the current value otherwise. */
  readonly peakUsed: number | undefined;
  readonly gttUsed: number | undefined;
  readonly pods: number;
  /** amd / nvidia from the agent's cards, refined by the node's labels when the API is read. */
  readonly vendor: 'amd' | 'nvidia' | 'intel' | 'none' | undefined;
  readonly unifiedMemory: boolean | undefined;
  readonly labels: Readonly<Record<string, string>>;
  /** Unix seconds of the agent's last good cycle. */
  readonly lastSeen: number | undefined;
}

export interface PodFacts {
  readonly node: string;
  readonly namespace: string | undefined;
  readonly pod: string | undefined;
  readonly uid: string;
  readonly cgroup: number | undefined;
  readonly limit: number | undefined;
  readonly unaccounted: number | undefined;
  readonly footprint: number | undefined;
  /** The highest true footprint over the window (Prometheus); the current value otherwise. */
  readonly peakFootprint: number | undefined;
}

export interface KillFacts {
  readonly node: string;
  readonly namespace: string | undefined;
  readonly pod: string | undefined;
  readonly uid: string | undefined;
  readonly scope: 'global' | 'memcg' | 'unknown';
  readonly gpuSignature: boolean;
  /** Kills in the window (Prometheus: increase); since each agent started (agents). */
  readonly count: number;
}

export interface HamiFacts {
  readonly node: string;
  readonly namespace: string | undefined;
  readonly pod: string;
  readonly container: string;
  readonly state: 'enforced' | 'bypassed' | 'unknown';
  readonly quotaBytes: number | undefined;
}

export interface KillPoint {
  /** Unix seconds, the end of the step. */
  readonly t: number;
  readonly scope: 'global' | 'memcg' | 'unknown';
  readonly count: number;
}

export interface FleetFacts {
  readonly source: { readonly kind: FleetSourceKind; readonly description: string };
  readonly window: FleetWindow;
  /** Unix seconds the facts are for. */
  readonly at: number;
  readonly nodes: readonly NodeFacts[];
  /** The pods worth showing: the top ones by unaccounted memory and by footprint over limit (and, from agents, all). */
  readonly pods: readonly PodFacts[];
  readonly podCounts: { readonly total: number; readonly overLimit: number };
  readonly kills: readonly KillFacts[];
  /** What `kills` counts: kills in the window, since each agent started, or every kill in the nodes' kernel logs (a scan). */
  readonly killsMeaning: 'window' | 'since-agent-start' | 'in-kernel-log';
  readonly killsOverTime: readonly KillPoint[];
  readonly hami: readonly HamiFacts[];
  /** GPU nodes the API lists that no agent reported (when the API was read). */
  readonly silentNodes: readonly string[];
  /** What could not be read, with the reason (a query that failed, an agent that did not answer). */
  readonly problems: readonly string[];
}
