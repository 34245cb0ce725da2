// The fleet panel's Recommendations section as display cells: one row per container of each workload, with
// today's request and limit, the recommendation (or why there is none), the observed peaks each with the series it
// came from, the kills by cause, how much data backs it, and whether the workload has a patch to copy. The header
// says where the figures came from and when they were read. The host builds it (recommendationsModel.ts); the
// webview renders and sorts it (this module is light: the webview bundle imports it). Pure.
import type { Recommendation } from './recommend.ts';

export const RECOMMENDATIONS_VIEW_VERSION = 1;

/** One observed figure: its text, its bytes (null when unknown) and the series it came from. */
export interface FigureCell {
  readonly text: string;
  readonly bytes: number | null;
  readonly source: string;
}

export interface QuantityCell {
  readonly text: string;
  readonly bytes: number | null;
}

export interface RecommendationRowView {
  /** The row's position in the host's order: the tie-breaker of every sort. */
  readonly order: number;
  readonly workload: { readonly kind: string; readonly apiVersion: string; readonly namespace: string; readonly name: string };
  /** `kind/namespace/name`: the workload's key (its patch, its live manifest). */
  readonly workloadKey: string;
  readonly workloadText: string;
  readonly container: string;
  readonly request: QuantityCell;
  readonly limit: QuantityCell;
  readonly recommended: {
    readonly kind: Recommendation['kind'];
    /** "24Gi"; "no number" or "unchanged" when there is none. */
    readonly text: string;
    readonly bytes: number | null;
    /** The gpumem.io/gpu-memory declaration that goes with it: `key: value`. */
    readonly gpuMemory: string | null;
    /** Below today's request: "lower: saves 2 GiB". */
    readonly lower: string | null;
  };
  /** Why this number, or why no number. */
  readonly reason: string;
  readonly notes: readonly string[];
  readonly observed: {
    readonly cgroup: FigureCell;
    readonly gpuInRam: FigureCell;
    readonly vram: FigureCell;
    readonly trueFootprint: FigureCell;
    /** The kernel's high-water mark (memory.peak), page cache included: an upper bound. */
    readonly kernelPeak: FigureCell;
  };
  readonly kills: {
    readonly memcg: number;
    readonly globalGpu: number;
    readonly globalOther: number;
    readonly kubeletUnknown: number;
    readonly total: number;
    readonly text: string;
  };
  readonly data: { readonly samples: number; readonly hours: number; readonly text: string };
  /** Whether Copy patch has something to copy for this workload, else why not. */
  readonly patch: { readonly kind: 'patch' } | { readonly kind: 'none'; readonly reason: string };
  /** Whether Open live manifest can read this kind. */
  readonly openable: boolean;
}

export interface RecommendationsViewModel {
  readonly version: typeof RECOMMENDATIONS_VIEW_VERSION;
  readonly header: {
    readonly context: string;
    /** "namespaces ml, default" or "all namespaces". */
    readonly scope: string;
    readonly source: string;
    readonly window: string;
    readonly sources: readonly string[];
    readonly problems: readonly string[];
    readonly headroomPercent: number;
    /** When the figures were read (Unix ms): the page says their age. */
    readonly readAtMs: number;
    /** "2026-12-07 19:30:12 UTC" */
    readonly readAtText: string;
    /** "3 workloads, 4 containers: 2 to change, 1 without a number" */
    readonly line: string;
  };
  /** What could not be read, one sentence each (lists refused, figures missing). */
  readonly notes: readonly string[];
  readonly rows: readonly RecommendationRowView[];
}

/** "just now", "4 min ago", "2 h ago": the age of the figures, as the page shows it beside their source. */
export function ageText(readAtMs: number, nowMs: number): string {
  const seconds = Math.max(0, Math.round((nowMs - readAtMs) / 1000));
  if (seconds < 60) return 'just now';
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.floor(hours / 24)} d ago`;
}

export const RECOMMENDATION_SORT_KEYS = [
  'workload',
  'container',
  'request',
  'limit',
  'recommended',
  'trueFootprint',
  'cgroup',
  'gpuInRam',
  'vram',
  'kills',
  'data',
] as const;
export type RecommendationSortKey = (typeof RECOMMENDATION_SORT_KEYS)[number];
export type RecommendationSortDirection = 'ascending' | 'descending';

function sortValue(row: RecommendationRowView, key: RecommendationSortKey): string | number | null {
  switch (key) {
    case 'workload':
      return row.workloadText;
    case 'container':
      return row.container;
    case 'request':
      return row.request.bytes;
    case 'limit':
      return row.limit.bytes;
    case 'recommended':
      return row.recommended.bytes;
    case 'kills':
      return row.kills.total;
    case 'data':
      return row.data.samples;
    default:
      return row.observed[key].bytes;
  }
}

/**
 * The rows ordered by one column: names alphabetically, figures by their bytes (not their text: "900 MiB" is less
 * than "1 GiB"). Unknown values ("unset", "–", no number) go last in either direction; ties keep the host's order.
 */
export function sortRecommendationRows(
  rows: readonly RecommendationRowView[],
  key: RecommendationSortKey,
  direction: RecommendationSortDirection,
): RecommendationRowView[] {
  const sign = direction === 'ascending' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = sortValue(a, key);
    const y = sortValue(b, key);
    if (x === null || y === null) return x === y ? a.order - b.order : x === null ? 1 : -1;
    const order = typeof x === 'string' || typeof y === 'string' ? String(x).localeCompare(String(y), 'en') : x - y;
    return order * sign || a.order - b.order;
  });
}
