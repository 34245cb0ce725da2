// The agent's OOM-kill counters. Each cycle reads the whole kernel log again, so a kill is counted once by its key
// (the kernel's own timestamp and the victim's pid): a key the previous read already had is not new. The first read
// after a start is the baseline: its kills are known (their last timestamps are served) but not counted, so a restarted
// agent does not count them again. Prometheus sees a counter reset on restart and `increase()` handles it.
// Every pod on the node gets its zero series up front (global with and without the GPU signature, memcg), so the
// first kill of a pod is an increase Prometheus can see, not a series that is born at 1.
// Bounded: at most MAX_SEEN_KILLS keys are kept; the series are at most MAX_OOM_SERIES, the oldest of pods
// no longer on the node dropped first.
import type { OomVerdict } from '../verdicts/oom/oomVerdictTypes.ts';
import type { Sample } from './exposition.ts';
import type { PodIdentities } from './nodeSamples.ts';
import { podLabels } from './nodeSamples.ts';

export const MAX_OOM_SERIES = 4096;
export const MAX_SEEN_KILLS = 8192;

export type OomScope = 'global' | 'memcg' | 'unknown';

interface OomSeries {
  readonly scope: OomScope;
  readonly gpuSignature: boolean;
  /** The victim's pod; undefined for a process outside pods. */
  readonly podUid: string | undefined;
  readonly count: number;
  /** Unix seconds of the last kill with these labels, when the log's timestamp could be placed. */
  readonly lastTimestamp: number | undefined;
  /** Agent time (ms) the series last changed or its pod was last seen, for pruning. */
  readonly touched: number;
}

export interface OomLedger {
  readonly seen: ReadonlySet<string>;
  readonly series: ReadonlyMap<string, OomSeries>;
}

export interface OomAdvance {
  readonly ledger: OomLedger;
  /** Kills first seen in this read (none on the baseline read). */
  readonly newKills: readonly OomVerdict[];
}

export function killScope(kill: OomVerdict): OomScope {
  return kill.kind;
}

/** The GPU signature: a global kill of a pod under its own limit with GTT that no cgroup counts (`oom.global-gtt`). */
export function hasGpuSignature(kill: OomVerdict): boolean {
  return kill.id.startsWith('oom.global-gtt:');
}

/** A kill's identity across reads: the log's timestamp and the victim's pid, comm as a tie-breaker. */
export function killKey(kill: OomVerdict): string {
  const stamp = kill.event.monotonic ?? kill.timestamp ?? '';
  return `${stamp}\u0000${kill.victim.pid ?? ''}\u0000${kill.victim.comm ?? ''}`;
}

/**
 * Unix seconds of a kill: an RFC 3339 stamp as it is; else a bracketed seconds-since-boot stamp placed on the agent's
 * clock with the node's uptime (dmesg and `journalctl -o short-monotonic` print it); undefined for anything else
 * (syslog's "Mar  1 10:00:00" has no year).
 */
export function killUnixSeconds(kill: OomVerdict, nowMs: number, uptimeSeconds: number | undefined): number | undefined {
  // A wall-clock stamp (rsyslog's RFC 3339 kern.log, journald's ISO output) is the time itself.
  const wall = kill.timestamp !== undefined && RFC3339.test(kill.timestamp) ? Date.parse(kill.timestamp) : NaN;
  if (Number.isFinite(wall)) return Math.round(wall) / 1000;
  // Trimmed first, then one unambiguous pattern: a tenant's log line cannot make the match backtrack.
  let stamp = (kill.event.monotonic ?? kill.timestamp ?? '').trim();
  if (stamp.startsWith('[') && stamp.endsWith(']')) stamp = stamp.slice(1, -1).trim();
  if (!/^\d{1,12}(\.\d{1,9})?$/.test(stamp) || uptimeSeconds === undefined) return undefined;
  const seconds = Number(stamp);
  if (!Number.isFinite(seconds) || seconds > uptimeSeconds + 1) return undefined;
  return Math.round((nowMs / 1000 - uptimeSeconds + seconds) * 1000) / 1000;
}

function seriesKey(scope: OomScope, gpuSignature: boolean, podUid: string | undefined): string {
  return `${scope}\u0000${gpuSignature ? 1 : 0}\u0000${podUid ?? ''}`;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

export const EMPTY_LEDGER: OomLedger = { seen: new Set(), series: new Map() };

/**
 * The ledger after one read of the kernel log. `kills` undefined means the log could not be read this time: nothing
 * is forgotten and nothing counted. `baseline` is true for the first read after the agent started.
 */
export function advanceOomLedger(
  ledger: OomLedger,
  kills: readonly OomVerdict[] | undefined,
  options: {
    readonly baseline: boolean;
    readonly nowMs: number;
    readonly uptimeSeconds: number | undefined;
    readonly podUids: readonly string[];
  },
): OomAdvance {
  const series = new Map(ledger.series);
  const touch = (scope: OomScope, signature: boolean, podUid: string | undefined): void => {
    const key = seriesKey(scope, signature, podUid);
    const existing = series.get(key);
    series.set(
      key,
      existing
        ? { ...existing, touched: options.nowMs }
        : { scope, gpuSignature: signature, podUid, count: 0, lastTimestamp: undefined, touched: options.nowMs },
    );
  };
  for (const podUid of options.podUids) {
    touch('global', true, podUid);
    touch('global', false, podUid);
    touch('memcg', false, podUid);
  }
  touch('global', false, undefined);
  let seen = ledger.seen;
  const newKills: OomVerdict[] = [];
  if (kills) {
    const keys = new Set<string>();
    for (const kill of kills) {
      const key = killKey(kill);
      if (keys.has(key)) continue;
      keys.add(key);
      const isNew = !options.baseline && !ledger.seen.has(key);
      const scope = killScope(kill);
      const signature = hasGpuSignature(kill);
      const id = seriesKey(scope, signature, kill.victim.podUid);
      const previous = series.get(id);
      const at = killUnixSeconds(kill, options.nowMs, options.uptimeSeconds);
      series.set(id, {
        scope,
        gpuSignature: signature,
        podUid: kill.victim.podUid,
        count: (previous?.count ?? 0) + (isNew ? 1 : 0),
        lastTimestamp: at === undefined ? previous?.lastTimestamp : Math.max(at, previous?.lastTimestamp ?? 0),
        touched: options.nowMs,
      });
      if (isNew) newKills.push(kill);
    }
    // The keys of earlier reads stay too (a read cut short cannot make a kill new again), the oldest dropped first.
    const merged = new Set([...ledger.seen, ...keys]);
    seen = merged.size <= MAX_SEEN_KILLS ? merged : new Set([...merged].slice(merged.size - MAX_SEEN_KILLS));
  }
  return { ledger: { seen, series: prune(series) }, newKills };
}

function prune(series: Map<string, OomSeries>): Map<string, OomSeries> {
  if (series.size <= MAX_OOM_SERIES) return series;
  const ordered = [...series].sort(([, a], [, b]) => b.touched - a.touched);
  return new Map(ordered.slice(0, MAX_OOM_SERIES));
}

export function oomSamples(ledger: OomLedger, nodeName: string, identities: PodIdentities): Sample[] {
  const out: Sample[] = [];
  const ordered = [...ledger.series.values()].sort(
    (a, b) =>
      (a.podUid ?? '').localeCompare(b.podUid ?? '') || a.scope.localeCompare(b.scope) || Number(a.gpuSignature) - Number(b.gpuSignature),
  );
  for (const entry of ordered) {
    const labels = {
      node: nodeName,
      scope: entry.scope,
      gpu_signature: String(entry.gpuSignature),
      ...(entry.podUid !== undefined ? podLabels(entry.podUid, identities) : {}),
    };
    out.push({ name: 'gpumem_oom_kills_total', labels, value: entry.count });
    if (entry.lastTimestamp !== undefined) out.push({ name: 'gpumem_oom_kill_last_timestamp_seconds', labels, value: entry.lastTimestamp });
  }
  return out;
}
