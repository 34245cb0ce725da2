// One live snapshot of a cluster's namespaces: the right-sizing reader's rows (src/rightsizing/gather.ts), the pods'
// lines and the agents' HAMi states, built into a LiveSnapshot (src/core/live/liveSnapshot.ts). `gpumem lint --live`
// reads one; the editor's sources read or refresh one. Read-only; every request has the client's deadline and the
// caller's signal.
import type { FleetWindow } from '../core/fleet/facts.ts';
import { hamiEnforcementQuery, hamiStatesFrom } from '../core/live/livePods.ts';
import type { HamiStates } from '../core/live/livePods.ts';
import { liveSnapshot } from '../core/live/liveSnapshot.ts';
import type { LiveSnapshot } from '../core/live/liveSnapshot.ts';
import type { ClusterClient } from '../kube/clusterClient.ts';
import { contextNamespace, readFiguresOf, rowsFrom } from '../rightsizing/gather.ts';
import type { FiguresFrom, FiguresRead } from '../rightsizing/gather.ts';
import { readWorkloads } from '../rightsizing/readWorkloads.ts';
import type { LiveWorkloads } from '../rightsizing/readWorkloads.ts';

export interface LiveReadOptions {
  /** Namespaces to read; empty: the context's namespace. */
  readonly namespaces: readonly string[];
  readonly window: FleetWindow;
  readonly headroomPercent: number;
  readonly figuresFrom: FiguresFrom;
  readonly signal: AbortSignal;
  readonly nowMs: number;
}

export type LiveRead =
  | { readonly kind: 'read'; readonly snapshot: LiveSnapshot; readonly notes: readonly string[] }
  | { readonly kind: 'unreadable'; readonly reason: string };

/** The namespaces a read covers: those asked, else the context's own (never every namespace by default). */
export function scopeOf(client: ClusterClient, namespaces: readonly string[]): string[] {
  return namespaces.length > 0 ? [...new Set(namespaces)] : [contextNamespace(client)];
}

/** Lists the workloads and pods once, then builds the snapshot. */
export async function readLiveSnapshot(client: ClusterClient, options: LiveReadOptions): Promise<LiveRead> {
  const namespaces = scopeOf(client, options.namespaces);
  const live = await readWorkloads(client, namespaces, options.signal);
  // Every list failed (unreachable, refused): the first cause, once, rather than one note per resource.
  if (live.listsRead === 0 && live.notes.length > 0) return { kind: 'unreadable', reason: live.notes[0] ?? 'nothing could be read' };
  const figures = await readLiveFigures(client, { ...options, namespaces });
  return { kind: 'read', ...buildLiveSnapshot(client, live, figures, options) };
}

/** The figures and the agents' HAMi states: the part of a snapshot that costs Prometheus queries. */
export interface LiveFigures {
  readonly read: FiguresRead;
  readonly hami: HamiStates;
  readonly notes: readonly string[];
}

export async function readLiveFigures(client: ClusterClient, options: LiveReadOptions): Promise<LiveFigures> {
  const namespaces = scopeOf(client, options.namespaces);
  const read = await readFiguresOf(client, { ...options, namespaces });
  if (!read.prometheus) return { read, hami: new Map(), notes: [] };
  const answer = await read.prometheus.instant(hamiEnforcementQuery(namespaces), Math.floor(options.nowMs / 1000), {
    signal: options.signal,
  });
  return {
    read,
    hami: hamiStatesFrom(answer),
    notes: answer.kind === 'failed' ? [`HAMi enforcement states not read: ${answer.reason}`] : [],
  };
}

/** The snapshot of workloads and pods already held (a list, the editor's watch cache) with figures read before. */
export function buildLiveSnapshot(
  client: ClusterClient,
  held: Pick<LiveWorkloads, 'objects' | 'pods' | 'notes'>,
  figures: LiveFigures,
  options: Pick<LiveReadOptions, 'window' | 'headroomPercent'> & { readonly fetchedAtMs?: number; readonly nowMs: number },
): { readonly snapshot: LiveSnapshot; readonly notes: readonly string[] } {
  const gathered = rowsFrom(held, figures.read, options.headroomPercent);
  const snapshot = liveSnapshot({
    context: client.context,
    defaultNamespace: contextNamespace(client),
    source: gathered.header.source,
    window: options.window.label,
    windowSeconds: options.window.seconds,
    fetchedAtMs: options.fetchedAtMs ?? options.nowMs,
    matching: gathered.matching,
    rows: gathered.rows,
    pods: gathered.pods,
    ...(gathered.figures ? { figures: gathered.figures } : {}),
    hami: figures.hami,
  });
  return { snapshot, notes: [...gathered.notes, ...figures.notes] };
}
