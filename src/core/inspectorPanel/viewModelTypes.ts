// The inspector's view model: what the webview renders (webview/inspector/), built from an Inspection by
// buildInspectorViewModel (viewModel.ts). Plain data, versioned (VIEW_MODEL_VERSION), because it is also the
// webview state a panel restored after a reload renders from (src/core/inspector/protocol.ts).
import type { Severity } from '../findings.ts';
import type { CheckStatus as HamiCheckStatus } from '../verdicts/hami/hamiCheck.ts';
import type { HamiVerdict } from '../verdicts/hami/hamiChecklist.ts';
import type { CheckStatus } from '../verdicts/verdict.ts';

export const VIEW_MODEL_VERSION = 1;
/** Pods drawn one bar each; the rest are summed into "others". */
export const DEFAULT_TOP_PODS = 12;
/** A raw section longer than this is cut in the panel (the saved capture keeps everything). */
export const DEFAULT_MAX_RAW_SECTION_CHARS = 512 * 1024;
/** Evidence lines kept per OOM kill, HAMi check or verdict. */
export const MAX_EVIDENCE = 40;

export type Tone = 'error' | 'warning' | 'info' | 'ok';

/** A byte count: the number for sorting and charts, the short text for cells, the exact text for tooltips. */
export interface BytesCell {
  readonly value: number | null;
  readonly text: string;
  readonly exact: string;
}

export interface Banner {
  readonly tone: Tone;
  /** A few words: what kind of problem ("A pod is over its memory limit in reality"). */
  readonly headline: string;
  /** The finding, one sentence. */
  readonly sentence: string;
  readonly remedy: string;
  /** The verdict's id without its `:<line>` suffix, e.g. `memory.pod-over-limit-in-reality`; null when all is well. */
  readonly docsId: string | null;
  /** `<errors> errors, <warnings> warnings, <infos> notes`. */
  readonly counts: { readonly error: number; readonly warning: number; readonly info: number };
  /** Findings besides this one. */
  readonly more: number;
  /**
   * What the probe could not read, why, and the verdicts that leaves unknown, shown before the finding; empty when it
   * read what the verdicts need.
   */
  readonly unread: readonly UnreadRow[];
}

export interface UnreadRow {
  readonly input: string;
  readonly why: string;
  /** The verdict ids left unknown, or "any verdict" for a capture cut short. */
  readonly unknown: string;
  readonly remedy: string;
}

export interface VerdictRow {
  readonly id: string;
  readonly docsId: string;
  readonly severity: Severity;
  readonly title: string;
  readonly explanation: string;
  readonly remedy: string;
  readonly evidence: readonly string[];
}

export interface Header {
  readonly title: string;
  readonly target: string;
  readonly scope: 'node' | 'container' | 'unknown';
  readonly facts: readonly Fact[];
  /** The probe printed its final marker. */
  readonly complete: boolean;
  readonly problems: readonly string[];
}

export interface Fact {
  readonly label: string;
  readonly value: string;
}

/** The segments of one stacked bar, in bytes; the order is the stacking order. */
export interface ChartSegments {
  /** memory.current (v1: usage_in_bytes): what the cgroup is charged. Node: the sum over pods. */
  readonly accounted: number;
  /** GTT held by the pod's processes (node: GTT in use / GPUActive), charged to no cgroup. */
  readonly gtt: number;
  /** Pod: limit − (accounted + GTT), when positive. Node: MemAvailable. */
  readonly free: number;
  /** Node only: what the kernel holds outside pods' cgroups, GTT aside (TTM pools, unreclaimable slab, vmalloc, page
   *  tables, kernel stacks, per-CPU), from /proc/meminfo less the pods' charges (kernelMemory.ts). */
  readonly kernel: number;
  /** Node only: the rest of the RAM in use outside pods' cgroups (system services, page cache). */
  readonly other: number;
  /** VRAM the processes hold (dedicated GPU memory, or the APU's carve-out). */
  readonly vram: number;
}

export type SegmentKey = keyof ChartSegments;

export interface ChartRow {
  readonly key: string;
  readonly kind: 'node' | 'pod' | 'others';
  readonly label: string;
  readonly podUid: string | null;
  /** Pods summed into this row (others: how many). */
  readonly podCount: number;
  readonly segments: ChartSegments;
  /** The memory limit (pod), MemTotal (node); null when there is none. */
  readonly limit: number | null;
  /** Exact figures, one line each, for the tooltip and the hidden data table. */
  readonly details: readonly string[];
}

export interface MemoryChart {
  readonly available: boolean;
  readonly series: readonly { readonly key: SegmentKey; readonly label: string }[];
  readonly node: ChartRow | null;
  /** Sorted by true footprint, largest first; at most topN pods plus one "others" row. */
  readonly pods: readonly ChartRow[];
  readonly totalPods: number;
  readonly shownPods: number;
  /** One paragraph for the chart's aria-label. */
  readonly summary: string;
}

export interface PodRow {
  readonly podUid: string;
  /** `namespace/name` when known, else the UID. */
  readonly pod: string;
  readonly named: boolean;
  readonly qos: string;
  /** Short container ids (12 hex digits) of the pod's containers that hold GPU memory, else of all its containers. */
  readonly container: string;
  /** The pod's GPU processes: `comm (pid)`. */
  readonly processes: readonly string[];
  readonly limit: BytesCell;
  readonly current: BytesCell;
  readonly gtt: BytesCell;
  readonly vram: BytesCell;
  readonly footprint: BytesCell;
  readonly headroom: BytesCell;
  readonly headroomTone: Tone;
  /** The GTT its processes hold per amdgpu_gem_info, only when the capture read debugfs. */
  readonly debugfsGtt?: BytesCell;
  /**
   * KFD evictions of its processes since they started (value: ms evicted), with the rate over their lifetime; only
   * when the capture read the kfd counters and the pod has a KFD process.
   */
  readonly evicted?: BytesCell;
  readonly lastOom: { readonly text: string; readonly sortKey: string; readonly tone: Tone };
  readonly cgroupPath: string;
}

export interface OomRow {
  readonly id: string;
  readonly severity: Severity;
  readonly when: string;
  readonly kind: 'global' | 'memcg' | 'unknown';
  readonly kindLabel: string;
  readonly victim: string;
  readonly pod: string;
  readonly podUid: string | null;
  readonly title: string;
  readonly remedy: string;
  readonly evidence: readonly { readonly line: number; readonly text: string }[];
}

export interface OomTimeline {
  /** False when the capture has no readable kernel log. */
  readonly available: boolean;
  readonly summary: string;
  readonly source: string | null;
  readonly rows: readonly OomRow[];
}

export interface HamiRow {
  readonly id: string;
  readonly status: HamiCheckStatus;
  /** The finding (the check's title). */
  readonly check: string;
  readonly summary: string;
  readonly command: string;
  readonly evidence: readonly string[];
  readonly remedy: string | null;
  readonly impact: 'bypass' | 'risk';
}

export interface HamiSection {
  readonly verdict: HamiVerdict;
  readonly summary: string;
  /** "Reported by the container itself: …" when the checklist rests on a container capture; null for node-side evidence. */
  readonly provenance: string | null;
  readonly rows: readonly HamiRow[];
}

export interface KernelRow {
  readonly id: string;
  readonly status: CheckStatus;
  readonly title: string;
  readonly detail: string;
  readonly evidence: readonly string[];
  readonly remedy: string;
}

export interface RawSection {
  readonly name: string;
  readonly text: string;
  readonly lines: number;
  readonly truncated: boolean;
  readonly complete: boolean;
}

export interface LivePod {
  readonly podUid: string;
  readonly label: string;
  readonly limit: number | null;
}

export interface InspectorViewModel {
  readonly v: typeof VIEW_MODEL_VERSION;
  readonly header: Header;
  readonly banner: Banner;
  readonly verdicts: readonly VerdictRow[];
  readonly chart: MemoryChart;
  readonly pods: readonly PodRow[];
  readonly oom: OomTimeline;
  readonly hami: HamiSection | null;
  readonly kernel: { readonly checks: readonly KernelRow[]; readonly facts: readonly Fact[] };
  readonly raw: readonly RawSection[];
  /** What the live chart can follow: the node's pods, largest true footprint first. */
  readonly live: { readonly possible: boolean; readonly pods: readonly LivePod[] };
}

export interface ViewModelOptions {
  readonly topPods?: number;
  readonly maxRawSectionChars?: number;
}

export const SERIES: readonly { readonly key: SegmentKey; readonly label: string }[] = [
  { key: 'accounted', label: 'cgroup-accounted (memory.current)' },
  { key: 'gtt', label: 'GTT charged to no cgroup' },
  { key: 'free', label: 'free (headroom to the limit; node: MemAvailable)' },
  { key: 'kernel', label: 'kernel memory outside pods (slab, vmalloc, TTM pools…)' },
  { key: 'other', label: 'other RAM in use (outside pods)' },
  { key: 'vram', label: 'VRAM' },
];
