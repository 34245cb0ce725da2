// What the recommendation of one container of one workload is computed from.
import type { KillCounts } from './kills.ts';
import type { Peak, PodSeries } from './series.ts';

/** A global OOM kill without the GPU signature: the node that ran out and its biggest pods at that time. */
export interface NodePressure {
  readonly node: string;
  /** Unix seconds of the kill; undefined when only the count is known. */
  readonly at: number | undefined;
  readonly biggestPods: readonly { readonly pod: string; readonly bytes: number }[];
  /**
   * `kill`: the pods' true footprint in the minutes before the kill; `window`: their peaks over the window (when the
   * kill's time is unknown or that query answered nothing).
   */
  readonly biggestPodsWhen: 'kill' | 'window';
}

/**
 * Where the figures come from. `history`: Prometheus range data over the window. `since-start`: the agents' current
 * values and high-water marks since each container started, no history. `api-only`: the Kubernetes API's last
 * termination reasons, no figures at all.
 */
export type EvidenceBasis = 'history' | 'since-start' | 'api-only';

export interface CurrentResources {
  /** The live object's memory request and limit in bytes; undefined when unset. */
  readonly request: number | undefined;
  readonly limit: number | undefined;
}

export interface ContainerEvidence {
  readonly container: string;
  readonly basis: EvidenceBasis;
  readonly pods: readonly PodSeries[];
  readonly kills: KillCounts;
  readonly pressure: readonly NodePressure[];
  /** The kernel's high-water mark (memory.peak; v1 memory.max_usage_in_bytes): includes reclaimable cache. */
  readonly kernelPeak: number | undefined;
  /** The agent's GPU-memory maximum between scrapes, which a sampled series can miss. */
  readonly gpuMaxBetweenScrapes: number | undefined;
  readonly current: CurrentResources;
  /** The pods run on nodes where GPU memory lives in system RAM (GTT, GB10 unified memory). */
  readonly unifiedMemory: boolean;
}

export interface Observed {
  readonly cgroupPeak: Peak | undefined;
  readonly gpuInRamPeak: Peak | undefined;
  readonly vramPeak: Peak | undefined;
  readonly trueFootprintPeak: Peak | undefined;
  readonly samples: number;
  readonly hours: number;
  readonly dropped: number;
}
