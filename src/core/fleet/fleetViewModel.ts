// What the fleet webview draws, from a FleetSummary: every text already formatted (bytes, shares), the node rows
// with the shares of their stacked bars (cgroup-accounted / GPU memory outside any cgroup / free, of MemTotal), the
// filter facets, the top pods, the OOM chart's series (at most MAX_CHART_POINTS points), the HAMi rows, and the
// source/window line. Plus the table logic the webview runs on it (filter, sort), pure so it is unit-tested at
// 5,000 nodes. Linear in the summary; no DOM, no vscode.
import type { Severity } from '../findings.ts';
import { formatBytes } from '../sizing.ts';
import type { KillPoint } from './facts.ts';
import type { FleetSummary, PodRow, RankedNode } from './summary.ts';
import { NEAR_FULL_SHARE, podName } from './summary.ts';

/** What the kill counts cover, in words (as summary.ts says it). */
function killsWhen(facts: FleetSummary['facts']): string {
  return facts.killsMeaning === 'window'
    ? `in ${facts.window.label}`
    : facts.killsMeaning === 'since-agent-start'
      ? 'since the agents started'
      : "in the nodes' kernel logs";
}

export const FLEET_VIEW_MODEL_VERSION = 1;
/** The OOM chart never has more points than this (the kills over time are merged into wider steps). */
export const MAX_CHART_POINTS = 48;

export type Tone = 'error' | 'warning' | 'ok' | 'muted';
export type KillScope = 'global' | 'memcg' | 'unknown';

export interface Amount {
  readonly value: number | null;
  readonly text: string;
}

export interface FleetNodeRow {
  readonly node: string;
  /** 1 = the riskiest (the summary's order). */
  readonly rank: number;
  readonly risk: Amount;
  readonly memTotal: Amount;
  readonly cgroup: Amount;
  readonly unaccounted: Amount;
  readonly free: Amount;
  /** Shares of MemTotal for the stacked bar (sum ≤ 1); null without MemTotal. */
  readonly bar: { readonly cgroup: number; readonly unaccounted: number; readonly free: number } | null;
  readonly vendor: string;
  readonly vendorText: string;
  readonly unified: boolean | null;
  readonly labels: readonly (readonly [string, string])[];
  /** The namespaces of the pod rows on this node. */
  readonly namespaces: readonly string[];
  readonly pods: number;
  readonly globalKills: number;
  readonly gpuKills: number;
  readonly stale: boolean;
  readonly tone: Tone;
}

/**
 * One line for screen readers and the tooltip of a node row. Made by the webview for the rows on screen (nodeTable.ts),
 * not sent for every node: at 5,000 nodes it was a quarter of the message the view's first paint waits for.
 */
export function nodeRowSummary(row: FleetNodeRow): string {
  const parts = [
    `${row.node}: ${row.risk.text} of MemTotal ${row.memTotal.text} in use`,
    `cgroups ${row.cgroup.text}`,
    `GPU memory outside cgroups ${row.unaccounted.text}`,
    `free ${row.free.text}`,
  ];
  if (row.globalKills > 0) parts.push(`${row.globalKills} global OOM kills (${row.gpuKills} with the GPU signature)`);
  if (row.stale) parts.push('no current agent report');
  return parts.join(', ');
}

export interface FleetPodRowView {
  readonly namespace: string;
  readonly pod: string;
  readonly uid: string;
  readonly node: string;
  readonly name: string;
  readonly cgroup: Amount;
  readonly limit: Amount;
  readonly unaccounted: Amount;
  readonly footprint: Amount;
  readonly overBy: Amount;
}

export interface FleetKillRow {
  readonly name: string;
  readonly namespace: string;
  readonly pod: string;
  readonly uid: string;
  readonly node: string;
  readonly scope: KillScope;
  readonly gpuSignature: boolean;
  readonly count: number;
}

export interface FleetHamiRowView {
  readonly name: string;
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  readonly node: string;
  readonly state: 'enforced' | 'bypassed' | 'unknown';
  readonly quota: Amount;
}

export interface KillChart {
  /** `over-time`: kills per step; `totals`: one bar of the totals (no history from this source). */
  readonly mode: 'over-time' | 'totals';
  readonly labels: readonly string[];
  readonly series: readonly { readonly scope: KillScope; readonly label: string; readonly data: readonly number[] }[];
  /** The chart's accessible name: what it shows, in a sentence. */
  readonly description: string;
}

export interface FleetFacets {
  readonly vendors: readonly { readonly value: string; readonly text: string; readonly count: number }[];
  readonly unified: { readonly yes: number; readonly no: number; readonly unknown: number };
  readonly labelKeys: readonly string[];
  readonly namespaces: readonly string[];
}

export interface FleetViewModel {
  readonly version: typeof FLEET_VIEW_MODEL_VERSION;
  readonly header: {
    readonly context: string;
    readonly line: string;
    readonly worst: Severity | 'none';
    readonly badge: string;
    readonly source: string;
    readonly sourceKind: string;
    readonly window: string;
    /** "Prometheus at prom:9090 · window 24h · 12 GPU nodes, 340 pods · read 12:00:03 UTC" */
    readonly sourceLine: string;
  };
  readonly verdicts: readonly {
    readonly id: string;
    readonly severity: Severity;
    readonly title: string;
    readonly remedy: string;
    readonly docs: string;
  }[];
  readonly nodes: readonly FleetNodeRow[];
  readonly facets: FleetFacets;
  readonly overLimit: readonly FleetPodRowView[];
  readonly unaccounted: readonly FleetPodRowView[];
  readonly kills: {
    readonly when: string;
    readonly totals: { readonly global: number; readonly globalGpu: number; readonly memcg: number; readonly unknown: number };
    readonly chart: KillChart;
    readonly rows: readonly FleetKillRow[];
  };
  readonly hami: readonly FleetHamiRowView[];
  readonly problems: readonly string[];
}

const percent = (share: number | undefined): Amount =>
  share === undefined || !Number.isFinite(share) ? { value: null, text: '—' } : { value: share, text: `${Math.round(share * 100)} %` };

const bytes = (value: number | undefined): Amount =>
  value === undefined || !Number.isFinite(value) ? { value: null, text: '—' } : { value, text: formatBytes(value) };

const VENDOR_TEXT: Readonly<Record<string, string>> = { amd: 'AMD', nvidia: 'NVIDIA', intel: 'Intel', none: 'no GPU', unknown: 'unknown' };
const SCOPE_LABEL: Readonly<Record<KillScope, string>> = { global: 'global', memcg: 'cgroup (memcg)', unknown: 'unknown scope' };
const SCOPES: readonly KillScope[] = ['global', 'memcg', 'unknown'];

function barOf(node: RankedNode): FleetNodeRow['bar'] {
  const total = node.memTotal;
  if (total === undefined || !(total > 0)) return null;
  const used = node.cgroup + node.unaccounted;
  // More in use than MemTotal (a stale MemTotal, double counting): the bar is full, in the same proportions.
  const scale = used > total ? used : total;
  const cgroup = node.cgroup / scale;
  const unaccounted = node.unaccounted / scale;
  return { cgroup, unaccounted, free: Math.max(0, 1 - cgroup - unaccounted) };
}

function toneOf(node: RankedNode): Tone {
  if (node.gpuKills > 0 || node.globalKills > 0) return 'error';
  if (node.risk !== undefined && node.risk >= NEAR_FULL_SHARE) return 'warning';
  if (node.stale) return 'muted';
  return 'ok';
}

function podView(row: PodRow): FleetPodRowView {
  const peak = row.peakFootprint ?? row.footprint;
  return {
    namespace: row.namespace ?? '',
    pod: row.pod ?? '',
    uid: row.uid,
    node: row.node,
    name: podName(row),
    cgroup: bytes(row.cgroup),
    limit: bytes(row.limit),
    unaccounted: bytes(row.unaccounted),
    footprint: bytes(peak),
    overBy: bytes(row.overBy),
  };
}

/** `12:05` within a day, `01-31 12:05` for longer windows (UTC). */
function timeLabel(t: number, long: boolean): string {
  const iso = new Date(t * 1000).toISOString();
  return long ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16);
}

/** The kills over time, merged into at most MAX_CHART_POINTS steps, by scope. */
export function killChart(summary: FleetSummary): KillChart {
  const facts = summary.facts;
  const when = killsWhen(facts);
  const points: readonly KillPoint[] = facts.killsOverTime;
  if (points.length > 0) {
    const times = [...new Set(points.map((point) => point.t))].sort((a, b) => a - b);
    const per = Math.max(1, Math.ceil(times.length / MAX_CHART_POINTS));
    const buckets = Math.ceil(times.length / per);
    const bucketOf = new Map(times.map((t, i) => [t, Math.floor(i / per)]));
    const data = new Map<KillScope, number[]>(SCOPES.map((scope) => [scope, new Array<number>(buckets).fill(0)]));
    for (const point of points) {
      const series = data.get(point.scope);
      const bucket = bucketOf.get(point.t);
      if (series && bucket !== undefined && Number.isFinite(point.count) && point.count > 0)
        series[bucket] = (series[bucket] ?? 0) + point.count;
    }
    const long = facts.window.seconds > 86_400;
    // Each bucket is labelled by the end of its last step.
    const labels = Array.from({ length: buckets }, (_, i) => timeLabel(times[Math.min(times.length - 1, (i + 1) * per - 1)] ?? 0, long));
    const series = SCOPES.map((scope) => ({ scope, label: SCOPE_LABEL[scope], data: data.get(scope) ?? [] })).filter((s) =>
      s.data.some((value) => value > 0),
    );
    const total = series.reduce((sum, s) => sum + s.data.reduce((a, b) => a + b, 0), 0);
    return {
      mode: 'over-time',
      labels,
      series,
      description: `OOM kills ${when} by scope, ${buckets} steps: ${Math.round(total)} in all (${SCOPES.map((scope) => `${Math.round((data.get(scope) ?? []).reduce((a, b) => a + b, 0))} ${SCOPE_LABEL[scope]}`).join(', ')}).`,
    };
  }
  const { global, memcg, unknown } = summary.kills;
  const totals: Record<KillScope, number> = { global, memcg, unknown };
  return {
    mode: 'totals',
    labels: [`kills ${when}`],
    series: SCOPES.map((scope) => ({ scope, label: SCOPE_LABEL[scope], data: [totals[scope]] })).filter((s) => (s.data[0] ?? 0) > 0),
    description: `OOM kills ${when} by scope (totals, no history from this source): ${SCOPES.map((scope) => `${totals[scope]} ${SCOPE_LABEL[scope]}`).join(', ')}.`,
  };
}

const BADGE: Readonly<Record<Severity | 'none', string>> = { error: 'ERROR', warning: 'WARNING', info: 'INFO', none: 'OK' };

export interface FleetViewOptions {
  /** The kubeconfig context, or the Prometheus host when there is none. */
  readonly context: string;
  /** Problems of reading beside the facts' own (readFleet's notes). */
  readonly notes?: readonly string[];
}

export function buildFleetViewModel(summary: FleetSummary, options: FleetViewOptions): FleetViewModel {
  const facts = summary.facts;
  const namespacesByNode = new Map<string, Set<string>>();
  const allNamespaces = new Set<string>();
  for (const pod of facts.pods) {
    if (!pod.namespace) continue;
    allNamespaces.add(pod.namespace);
    let set = namespacesByNode.get(pod.node);
    if (!set) namespacesByNode.set(pod.node, (set = new Set()));
    set.add(pod.namespace);
  }
  const vendorCounts = new Map<string, number>();
  const labelKeys = new Set<string>();
  const unified = { yes: 0, no: 0, unknown: 0 };
  const nodes = summary.nodes.map((node, index): FleetNodeRow => {
    const vendor = node.vendor ?? 'unknown';
    vendorCounts.set(vendor, (vendorCounts.get(vendor) ?? 0) + 1);
    if (node.unifiedMemory === true) unified.yes++;
    else if (node.unifiedMemory === false) unified.no++;
    else unified.unknown++;
    const labels = Object.entries(node.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [key] of labels) labelKeys.add(key);
    return {
      node: node.node,
      rank: index + 1,
      risk: percent(node.risk),
      memTotal: bytes(node.memTotal),
      cgroup: bytes(node.cgroup),
      unaccounted: bytes(node.unaccounted),
      free: bytes(node.free),
      bar: barOf(node),
      vendor,
      vendorText: VENDOR_TEXT[vendor] ?? vendor,
      unified: node.unifiedMemory ?? null,
      labels,
      namespaces: [...(namespacesByNode.get(node.node) ?? [])].sort(),
      pods: node.pods,
      globalKills: node.globalKills,
      gpuKills: node.gpuKills,
      stale: node.stale,
      tone: toneOf(node),
    };
  });
  const readAt = new Date(facts.at * 1000).toISOString().slice(11, 19);
  const sourceLine = [
    facts.source.description,
    `window ${facts.window.label}`,
    `${nodes.length} GPU node${nodes.length === 1 ? '' : 's'}, ${facts.podCounts.total} pod${facts.podCounts.total === 1 ? '' : 's'}`,
    `read ${readAt} UTC`,
  ].join(' · ');
  return {
    version: FLEET_VIEW_MODEL_VERSION,
    header: {
      context: options.context,
      line: summary.line,
      worst: summary.worst,
      badge: BADGE[summary.worst],
      source: facts.source.description,
      sourceKind: facts.source.kind,
      window: facts.window.label,
      sourceLine,
    },
    verdicts: summary.verdicts.map(({ id, severity, title, remedy, docs }) => ({ id, severity, title, remedy, docs })),
    nodes,
    facets: {
      vendors: [...vendorCounts]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([value, count]) => ({ value, text: VENDOR_TEXT[value] ?? value, count })),
      unified,
      labelKeys: [...labelKeys].sort(),
      namespaces: [...allNamespaces].sort(),
    },
    overLimit: summary.topOverLimit.map(podView),
    unaccounted: summary.topUnaccounted.map(podView),
    kills: {
      when: killsWhen(facts),
      totals: {
        global: summary.kills.global,
        globalGpu: summary.kills.globalGpu,
        memcg: summary.kills.memcg,
        unknown: summary.kills.unknown,
      },
      chart: killChart(summary),
      rows: summary.kills.byPod.map((kill) => ({
        name: podName(kill),
        namespace: kill.namespace ?? '',
        pod: kill.pod ?? '',
        uid: kill.uid ?? '',
        node: kill.node,
        scope: kill.scope,
        gpuSignature: kill.gpuSignature,
        count: kill.count,
      })),
    },
    hami: summary.hami.map((row) => ({
      name: podName(row),
      namespace: row.namespace ?? '',
      pod: row.pod,
      container: row.container,
      node: row.node,
      state: row.state,
      quota: bytes(row.quotaBytes),
    })),
    problems: [...facts.problems, ...(options.notes ?? [])],
  };
}

// ---- the node table: filters and sort ---------------------------------------------------------------------

export interface NodeFilter {
  /** '' = any. */
  readonly vendor: string;
  readonly unified: 'any' | 'yes' | 'no';
  /** `key=value`, or `key` alone (the label is there); '' = any. */
  readonly label: string;
  /** '' = any: nodes with a pod row of this namespace. */
  readonly namespace: string;
}

export const NO_FILTER: NodeFilter = { vendor: '', unified: 'any', label: '', namespace: '' };

export type NodeSortKey = 'rank' | 'node' | 'risk' | 'memTotal' | 'cgroup' | 'unaccounted' | 'free' | 'vendor' | 'pods' | 'kills';
export type SortDirection = 'ascending' | 'descending';

function labelMatcher(text: string): ((row: FleetNodeRow) => boolean) | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const at = trimmed.indexOf('=');
  const key = (at < 0 ? trimmed : trimmed.slice(0, at)).trim();
  const value = at < 0 ? undefined : trimmed.slice(at + 1).trim();
  return (row) => row.labels.some(([k, v]) => k === key && (value === undefined || v === value));
}

export function filterNodes(rows: readonly FleetNodeRow[], filter: NodeFilter): FleetNodeRow[] {
  const label = labelMatcher(filter.label);
  return rows.filter(
    (row) =>
      (filter.vendor === '' || row.vendor === filter.vendor) &&
      (filter.unified === 'any' || row.unified === (filter.unified === 'yes')) &&
      (!label || label(row)) &&
      (filter.namespace === '' || row.namespaces.includes(filter.namespace)),
  );
}

function sortValue(row: FleetNodeRow, key: NodeSortKey): number | string | null {
  switch (key) {
    case 'rank':
      return row.rank;
    case 'node':
      return row.node;
    case 'vendor':
      return row.vendorText;
    case 'pods':
      return row.pods;
    case 'kills':
      return row.globalKills;
    default:
      return row[key].value;
  }
}

/** A new array sorted by `key`; unknown values last in either direction, ties in rank order. */
export function sortNodes(rows: readonly FleetNodeRow[], key: NodeSortKey, direction: SortDirection): FleetNodeRow[] {
  const sign = direction === 'ascending' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = sortValue(a, key);
    const y = sortValue(b, key);
    if (x === null || y === null) return x === y ? a.rank - b.rank : x === null ? 1 : -1;
    const order = typeof x === 'string' || typeof y === 'string' ? String(x).localeCompare(String(y)) : x - y;
    return order * sign || a.rank - b.rank;
  });
}

/** The rows a virtualised list draws for a scroll position: [first, end) with `overscan` rows either side. */
export function visibleRange(
  total: number,
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
  overscan = 8,
): { readonly first: number; readonly end: number } {
  if (total <= 0 || rowHeight <= 0) return { first: 0, end: 0 };
  const first = Math.max(0, Math.floor(Math.max(0, scrollTop) / rowHeight) - overscan);
  const end = Math.min(total, Math.ceil((Math.max(0, scrollTop) + Math.max(0, viewportHeight)) / rowHeight) + overscan);
  return { first, end: Math.max(first, end) };
}
