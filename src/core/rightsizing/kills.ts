// OOM kills in the window, by cause. The agent's counter (gpumem_oom_kills_total) tells the kernel's scope and
// whether the kill carries the GPU (GTT) signature; the API only says `OOMKilled`, which the kubelet reports for a
// memcg kill and for a global kill alike (kubernetes/autoscaler#4589), so kills only the API saw keep an unknown
// cause.
import { counterIncrease } from './series.ts';
import type { Sample } from './series.ts';

export interface KillCounts {
  /** The container's cgroup hit its limit. */
  readonly memcg: number;
  /** The node's global OOM killer ran while GPU buffers held system RAM no cgroup counts. */
  readonly globalGpu: number;
  /** The node's global OOM killer ran without the GPU signature: pressure from elsewhere. */
  readonly globalOther: number;
  /** The kubelet reported `OOMKilled` and no agent saw the kill: cause unknown. */
  readonly kubeletUnknown: number;
}

export const NO_KILLS: KillCounts = { memcg: 0, globalGpu: 0, globalOther: 0, kubeletUnknown: 0 };

/** One series of gpumem_oom_kills_total, with its labels read. */
export interface KillSeries {
  readonly scope: string;
  readonly gpuSignature: string;
  readonly samples: readonly Sample[];
  /** The series first appeared inside the window (its first value is kills too). */
  readonly bornInWindow: boolean;
}

export function killsOf(series: readonly KillSeries[]): KillCounts {
  let memcg = 0;
  let globalGpu = 0;
  let globalOther = 0;
  for (const one of series) {
    const kills = counterIncrease(one.samples, one.bornInWindow);
    if (one.scope === 'memcg') memcg += kills;
    else if (one.scope === 'global' && one.gpuSignature === 'true') globalGpu += kills;
    else if (one.scope === 'global') globalOther += kills;
    // scope "unknown": the agent saw a kill it could not place; the kubelet's count below covers it.
  }
  return { memcg, globalGpu, globalOther, kubeletUnknown: 0 };
}

/**
 * Adds the kubelet's `OOMKilled` reports: those beyond the kills the agent explained have an unknown cause. Without
 * agents every one of them does.
 */
export function withKubeletReports(kills: KillCounts, kubeletOomKills: number): KillCounts {
  const explained = kills.memcg + kills.globalGpu + kills.globalOther;
  return { ...kills, kubeletUnknown: Math.max(0, kubeletOomKills - explained) };
}

export function totalKills(kills: KillCounts): number {
  return kills.memcg + kills.globalGpu + kills.globalOther + kills.kubeletUnknown;
}

export function addKills(a: KillCounts, b: KillCounts): KillCounts {
  return {
    memcg: a.memcg + b.memcg,
    globalGpu: a.globalGpu + b.globalGpu,
    globalOther: a.globalOther + b.globalOther,
    kubeletUnknown: a.kubeletUnknown + b.kubeletUnknown,
  };
}

/** "2 memcg, 1 global (GPU signature)"; "none". */
export function describeKills(kills: KillCounts): string {
  const parts: string[] = [];
  if (kills.memcg > 0) parts.push(`${kills.memcg} memcg (limit hit)`);
  if (kills.globalGpu > 0) parts.push(`${kills.globalGpu} global with the GPU signature`);
  if (kills.globalOther > 0) parts.push(`${kills.globalOther} global without it`);
  if (kills.kubeletUnknown > 0) parts.push(`${kills.kubeletUnknown} reported by the kubelet, cause unknown`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}
