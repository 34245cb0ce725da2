// Right-sizing rows for the workloads of a cluster's namespaces, read once: the live objects and pods (the API),
// the figures (Prometheus; else the gpumem agents' /metrics; else none), the kills the API reports, reduced to one
// row per container. `gpumem recommend`,
// the editor's Right-Size Workloads command and the live manifest checks all read through here, so they show the
// same numbers with the same sources. Read-only against the cluster and Prometheus; cancellable.
import { errorMessage } from '../core/errorMessage.ts';
import type { FleetWindow } from '../core/fleet/facts.ts';
import { apiOomKills } from '../core/rightsizing/apiKills.ts';
import type { EvidenceBasis } from '../core/rightsizing/evidence.ts';
import { SINCE_START_WINDOW } from '../core/rightsizing/format.ts';
import type { RecommendHeader } from '../core/rightsizing/format.ts';
import { readFigures } from '../core/rightsizing/readFigures.ts';
import type { PromFigures } from '../core/rightsizing/figures.ts';
import { recommendationRows } from '../core/rightsizing/rows.ts';
import type { RecommendationRow } from '../core/rightsizing/rows.ts';
import { matchPods } from '../core/rightsizing/workloadPods.ts';
import type { PodMatching } from '../core/rightsizing/workloadPods.ts';
import type { ClusterClient } from '../kube/clusterClient.ts';
import { PrometheusClient } from '../prometheus/client.ts';
import { discoverPrometheus } from '../prometheus/discovery.ts';
import { readAgentFigures } from './agentFigures.ts';
import { readWorkloads } from './readWorkloads.ts';
import type { LiveWorkloads } from './readWorkloads.ts';

/**
 * Where the figures come from: a Prometheus the caller chose, the cluster's own (discovered), or none. Without one
 * that answers, the gpumem agents' /metrics are read (no history), and without agents the API's kills alone.
 */
export type FiguresFrom =
  | { readonly kind: 'prometheus'; readonly client: PrometheusClient }
  | { readonly kind: 'discover' }
  | { readonly kind: 'none'; readonly reason: string };

export interface GatherOptions {
  /** Namespaces to read; empty: every namespace. */
  readonly namespaces: readonly string[];
  readonly window: FleetWindow;
  readonly headroomPercent: number;
  readonly figuresFrom: FiguresFrom;
  readonly signal: AbortSignal;
  /** The instant the window ends (Unix ms). */
  readonly nowMs: number;
}

export type Gathered =
  | {
      readonly kind: 'read';
      readonly rows: readonly RecommendationRow[];
      readonly matching: PodMatching;
      readonly header: RecommendHeader;
      /** Lists the API refused or could not answer, and why figures are missing: one sentence each. */
      readonly notes: readonly string[];
      /** The pods' API objects and the figures the rows came from, for per-pod views (src/core/live/livePods.ts). */
      readonly pods: readonly unknown[];
      readonly figures: PromFigures | undefined;
      /** The Prometheus the figures came from, when one answered. */
      readonly prometheus: PrometheusClient | undefined;
    }
  | { readonly kind: 'unreadable'; readonly reason: string };

export async function gatherRecommendations(client: ClusterClient, options: GatherOptions): Promise<Gathered> {
  const live = await readWorkloads(client, options.namespaces, options.signal);
  // Every list failed (unreachable, refused): the first cause, once, rather than one note per resource.
  if (live.listsRead === 0 && live.notes.length > 0) return { kind: 'unreadable', reason: live.notes[0] ?? 'nothing could be read' };
  return recommendFrom(client, live, options);
}

/** The rows of workloads and pods already read (a list, or a watch cache): the figures, the kills, the matching. */
export async function recommendFrom(
  client: ClusterClient,
  live: Pick<LiveWorkloads, 'objects' | 'pods' | 'notes'>,
  options: GatherOptions,
): Promise<Gathered & { readonly kind: 'read' }> {
  const figures = await readFiguresOf(client, options);
  return rowsFrom(live, figures, options.headroomPercent);
}

/** The figures of the namespaces, and what they cover: over the window (Prometheus), since start (the agents), or none. */
export interface FiguresRead {
  readonly figures: PromFigures | undefined;
  readonly basis: EvidenceBasis;
  readonly header: RecommendHeader;
  readonly notes: readonly string[];
  readonly prometheus: PrometheusClient | undefined;
}

/**
 * Prometheus (given or discovered) when it answers; else the agents' /metrics through the API server (no history:
 * since each container started); else the API's last termination reasons alone. Each step down is a note, never a
 * failure: a Prometheus that is down still leaves the agents and the API.
 */
export async function readFiguresOf(client: ClusterClient, options: GatherOptions): Promise<FiguresRead> {
  const { signal, window } = options;
  const prometheus = await resolvePrometheus(client, options.figuresFrom, signal);
  let without: string;
  if (prometheus.kind === 'prometheus') {
    try {
      const read = await readFigures(
        (queries, time) => prometheus.client.instantAll(queries, time, { signal }),
        { window, namespaces: options.namespaces },
        Math.floor(options.nowMs / 1000),
      );
      const header: RecommendHeader = {
        source: `${prometheus.client.description} (${read.queries} queries)`,
        window: window.label,
        sources: read.figures.sources,
        problems: read.figures.problems,
        basis: 'history',
      };
      return { figures: read.figures, basis: 'history', header, notes: [], prometheus: prometheus.client };
    } catch (error) {
      if (signal.aborted) throw error;
      without = `${prometheus.client.description} did not answer (${errorMessage(error)})`;
    }
  } else without = prometheus.reason;
  const agents = await readAgentFigures(client, signal);
  if (agents.kind === 'read') {
    const header: RecommendHeader = {
      source: `the /metrics of ${agents.agents} gpumem agent${agents.agents === 1 ? '' : 's'} through the API server (${without})`,
      window: SINCE_START_WINDOW,
      sources: agents.figures.sources,
      problems: [...agents.problems, ...agents.figures.problems],
      basis: 'since-start',
    };
    const note = `${without}: figures from the gpumem agents' /metrics, since each container started (no history, so no number)`;
    return { figures: agents.figures, basis: 'since-start', header, notes: [note], prometheus: undefined };
  }
  const header: RecommendHeader = {
    source: `the Kubernetes API only (${without}; ${agents.reason})`,
    window: window.label,
    sources: ["the API's last termination reasons"],
    problems: [],
    basis: 'api-only',
  };
  const note = `${without}; ${agents.reason}: only the API's last termination reasons are read, no figures`;
  return { figures: undefined, basis: 'api-only', header, notes: [note], prometheus: undefined };
}

/** The rows from objects and pods and figures already read: no request (the editor rebuilds them on watch events). */
export function rowsFrom(
  live: Pick<LiveWorkloads, 'objects' | 'pods' | 'notes'>,
  read: FiguresRead,
  headroomPercent: number,
): Gathered & { readonly kind: 'read' } {
  const matching = matchPods(live.objects, live.pods);
  const rows = recommendationRows({
    matching,
    figures: read.figures,
    basis: read.basis,
    apiOomKills: apiOomKills(live.pods),
    headroomPercent,
  });
  return {
    kind: 'read',
    rows,
    matching,
    header: read.header,
    notes: [...live.notes, ...read.notes],
    pods: live.pods,
    figures: read.figures,
    prometheus: read.prometheus,
  };
}

async function resolvePrometheus(
  client: ClusterClient,
  from: FiguresFrom,
  signal: AbortSignal,
): Promise<{ readonly kind: 'prometheus'; readonly client: PrometheusClient } | { readonly kind: 'none'; readonly reason: string }> {
  if (from.kind !== 'discover') return from;
  const found = await discoverPrometheus(client, signal);
  return found.kind === 'found'
    ? { kind: 'prometheus', client: new PrometheusClient({ kind: 'service', service: found.service, client }) }
    : found;
}

/** The namespace a context works in when none is given: its own, else `default` (as kubectl). */
export function contextNamespace(client: ClusterClient): string {
  return client.kubeConfig.getContextObject(client.context)?.namespace ?? 'default';
}
