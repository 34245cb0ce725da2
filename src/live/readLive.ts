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
import { contextNamespace, gatherRecommendations, recommendFrom } from '../rightsizing/gather.ts';
import type { FiguresFrom, Gathered } from '../rightsizing/gather.ts';
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
  const gathered = await gatherRecommendations(client, { ...options, namespaces });
  if (gathered.kind === 'unreadable') return gathered;
  return { kind: 'read', ...(await finish(client, gathered, { ...options, namespaces })) };
}

/** Builds the snapshot from workloads and pods already held (the editor's watch cache). */
export async function snapshotFromHeld(
  client: ClusterClient,
  held: Pick<LiveWorkloads, 'objects' | 'pods' | 'notes'>,
  options: LiveReadOptions,
): Promise<{ readonly snapshot: LiveSnapshot; readonly notes: readonly string[] }> {
  const namespaces = scopeOf(client, options.namespaces);
  const gathered = await recommendFrom(client, held, { ...options, namespaces });
  return finish(client, gathered, { ...options, namespaces });
}

async function finish(
  client: ClusterClient,
  gathered: Gathered & { readonly kind: 'read' },
  options: LiveReadOptions,
): Promise<{ readonly snapshot: LiveSnapshot; readonly notes: readonly string[] }> {
  const notes = [...gathered.notes];
  let hami: HamiStates = new Map();
  if (gathered.prometheus) {
    const answer = await gathered.prometheus.instant(hamiEnforcementQuery(options.namespaces), Math.floor(options.nowMs / 1000), {
      signal: options.signal,
    });
    if (answer.kind === 'failed') notes.push(`HAMi enforcement states not read: ${answer.reason}`);
    hami = hamiStatesFrom(answer);
  }
  const snapshot = liveSnapshot({
    context: client.context,
    defaultNamespace: contextNamespace(client),
    source: gathered.header.source,
    window: options.window.label,
    windowSeconds: options.window.seconds,
    fetchedAtMs: options.nowMs,
    matching: gathered.matching,
    rows: gathered.rows,
    pods: gathered.pods,
    ...(gathered.figures ? { figures: gathered.figures } : {}),
    hami,
  });
  return { snapshot, notes };
}
