// Inspection → what the inspector webview renders. Pure: no VS Code, no DOM. Every string that comes from
// the target (host, pod, process and cgroup names, log lines, file contents) stays a plain string here: the
// webview puts it on the page as text (textContent), never as HTML, so nothing is escaped in this file.
//
// Sections, in the order the panel shows them:
//   banner    the worst finding first, in one sentence, with its remedy and its documentation anchor;
//   chart     memory accounting, stacked per node and per pod (cgroup-accounted, GTT no cgroup is charged
//             for, VRAM, free), the limit as a line, exact bytes for tooltips; the top N pods by true
//             footprint plus one "others" row, so 50 pods stay readable;
//   pods      one row per pod with numbers for sorting and texts for display;
//   oom       each kill of the kernel log: global or memory cgroup, the victim, the evidence lines;
//   hami      the HAMi enforcement checklist;
//   kernel    kernel, driver and dmem checks plus a few facts;
//   raw       every capture section as text.
import { pushAll } from '../arrays.ts';
import type { Severity } from '../findings.ts';
import type { Inspection } from '../inspection/analyze.ts';
import type { Capture, CaptureSection } from '../probe/capture.ts';
import { parsePodCgroup } from '../probe/podCgroup.ts';
import { describeBytes, formatBytes } from '../quantity.ts';
import { markdownCodeBlock, markdownText } from '../text/escape.ts';
import type { HamiVerdict } from '../verdicts/hamiChecklist.ts';
import { evidenceSourceNote, summaryAfterVerdict } from '../verdicts/hamiChecklist.ts';
import type { OomVerdict } from '../verdicts/oomRootCause.ts';
import type { PodAccounting } from '../verdicts/unaccountedMemory.ts';
import { MIN_HEADROOM_SHARE } from '../verdicts/unaccountedMemory.ts';
import type { CheckStatus, Verdict } from '../verdicts/verdict.ts';
import { oneLine } from '../textScan.ts';

export const VIEW_MODEL_VERSION = 1;
/** Pods drawn one bar each; the rest are summed into "others". */
export const DEFAULT_TOP_PODS = 12;
/** A raw section longer than this is cut in the panel (the saved capture keeps everything). */
export const DEFAULT_MAX_RAW_SECTION_CHARS = 512 * 1024;
/** Evidence lines kept per OOM kill, HAMi check or verdict. */
const MAX_EVIDENCE = 40;

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
  /** Node only: RAM in use outside pods' cgroups and GTT (system, page cache, kernel). */
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
  readonly status: 'pass' | 'fail' | 'unknown';
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
  { key: 'other', label: 'other RAM in use (outside pods)' },
  { key: 'vram', label: 'VRAM' },
];

const SEVERITY_TONE: Record<Severity, Tone> = { error: 'error', warning: 'warning', info: 'info' };

const HEADLINES: readonly (readonly [RegExp, string])[] = [
  [/^memory\.pod-over-limit-in-reality$/, 'A pod is over its memory limit in reality'],
  [/^memory\.pod-headroom-low$/, 'A pod is close to its memory limit once GTT is counted'],
  [/^memory\.pod-gtt$/, 'A pod holds GPU memory its cgroup does not count'],
  [/^memory\.unaccounted-node$/, 'GPU memory that no cgroup counts'],
  [/^oom\.global-gtt$/, 'A pod was killed by a global OOM (GTT signature)'],
  [/^oom\.global$/, 'A global OOM kill'],
  [/^oom\.memcg$/, 'A memory-cgroup OOM kill'],
  [/^oom\.unclassified$/, 'An OOM kill'],
  [/^hami\.bypassed$/, 'HAMi does not enforce the GPU memory quota'],
  [/^hami\.unknown$/, 'HAMi enforcement could not be confirmed'],
  [/^hami\./, 'A HAMi enforcement check failed'],
  [/^kernel\./, 'Kernel and driver'],
];

/** The docs page and anchor of a verdict id (with or without its `:<line>` suffix); undefined when unknown. */
export function verdictDocs(id: string): { readonly file: string; readonly anchor: string } | undefined {
  const base = docsIdOf(id);
  if (/^(memory|kernel|oom)\.[a-z0-9.-]+$/.test(base)) return { file: 'docs/probes.md', anchor: 'node-verdicts' };
  if (/^hami\.[a-z0-9.-]+$/.test(base)) return { file: 'docs/probes.md', anchor: 'container-verdicts-hami' };
  return undefined;
}

/** `oom.global-gtt:12` → `oom.global-gtt`. */
export function docsIdOf(id: string): string {
  const colon = id.indexOf(':');
  return colon < 0 ? id : id.slice(0, colon);
}

export function bytesCell(value: number | undefined | null, none = '—'): BytesCell {
  if (value === undefined || value === null || !Number.isFinite(value)) return { value: null, text: none, exact: none };
  return { value, text: formatBytes(value), exact: describeBytes(value) };
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

export function buildBanner(verdicts: readonly Verdict[]): Banner {
  const counts = { error: 0, warning: 0, info: 0 };
  for (const verdict of verdicts) counts[verdict.severity]++;
  const worst = verdicts[0];
  if (!worst) {
    return { tone: 'ok', headline: 'No problems found', sentence: 'Nothing in this capture calls for action: every check passed or is informational.', remedy: '', docsId: null, counts, more: 0 };
  }
  const docsId = docsIdOf(worst.id);
  const headline = HEADLINES.find(([pattern]) => pattern.test(docsId))?.[1] ?? (worst.severity === 'error' ? 'Error' : worst.severity === 'warning' ? 'Warning' : 'Note');
  return { tone: SEVERITY_TONE[worst.severity], headline, sentence: oneSentence(worst.title), remedy: worst.remedy, docsId, counts, more: verdicts.length - 1 };
}

/** Titles are one sentence already; make sure of the final stop and of one line. */
function oneSentence(text: string): string {
  const flat = oneLine(text);
  return /[.!?]$/.test(flat) ? flat : `${flat}.`;
}

function verdictRows(verdicts: readonly Verdict[]): VerdictRow[] {
  return verdicts.map((verdict) => ({
    id: verdict.id,
    docsId: docsIdOf(verdict.id),
    severity: verdict.severity,
    title: verdict.title,
    explanation: verdict.explanation,
    remedy: verdict.remedy,
    evidence: verdict.evidence.slice(0, MAX_EVIDENCE),
  }));
}

/** Whether the target already names the host as a whole word ("node/strix-node-1", "root@gpu-node-1:22"). */
function namesHost(target: string, host: string): boolean {
  const boundary = (c: string | undefined): boolean => c === undefined || !/[A-Za-z0-9.-]/.test(c);
  for (let at = target.indexOf(host); at >= 0; at = target.indexOf(host, at + 1)) {
    if (boundary(target[at - 1]) && boundary(target[at + host.length])) return true;
  }
  return false;
}

function header(inspection: Inspection): Header {
  const facts: Fact[] = [];
  const model = inspection.node?.model;
  if (model) {
    facts.push({ label: 'Host', value: model.hostname ?? '?' }, { label: 'Kernel', value: model.kernel ?? '?' }, { label: 'OS', value: model.os ?? '?' }, { label: 'cgroup', value: model.cgroupMode });
    facts.push({ label: 'GPUs', value: inspection.node?.accounting.gpuSummary ?? '?' });
  }
  const container = inspection.container;
  if (container) {
    if (container.meta.hostname !== undefined) facts.push({ label: 'Host', value: container.meta.hostname });
    if (container.kernel !== undefined) facts.push({ label: 'Kernel', value: container.kernel });
    const cgroup = container.cgroup;
    if (cgroup) facts.push({ label: 'cgroup memory', value: `${bytesCell(cgroup.currentBytes).text} of ${cgroup.maxBytes === null ? 'no limit' : bytesCell(cgroup.maxBytes).text} (${cgroup.version})` });
    if (container.processes !== undefined) facts.push({ label: 'Processes', value: String(container.processes.length) });
  }
  const scope = inspection.scope ?? 'unknown';
  const host = model?.hostname;
  return {
    title: `gpumem inspection: ${inspection.target}${host && !namesHost(inspection.target, host) ? ` (${host})` : ''}`,
    target: inspection.target,
    scope,
    facts,
    complete: inspection.capture.complete,
    problems: inspection.problems,
  };
}

// ---------------------------------------------------------------------------------------------------
// Memory accounting chart

function podLabel(uid: string, names: ReadonlyMap<string, string>): string {
  return names.get(uid) ?? `pod ${uid}`;
}

function podSegments(pod: PodAccounting): ChartSegments {
  const accounted = pod.accounted ?? 0;
  const free = pod.limit !== undefined ? Math.max(0, pod.limit - accounted - pod.gtt) : 0;
  return { accounted, gtt: pod.gtt, free, other: 0, vram: pod.vram };
}

function podDetails(pod: PodAccounting): string[] {
  return [
    `memory.current: ${bytesCell(pod.accounted).exact}`,
    `GTT (no cgroup): ${describeBytes(pod.gtt)}`,
    `true footprint: ${bytesCell(pod.trueFootprint).exact}`,
    `limit: ${pod.limit === undefined ? 'none' : describeBytes(pod.limit)}`,
    `headroom: ${pod.headroom === undefined ? '—' : describeBytes(pod.headroom)}`,
    `VRAM: ${describeBytes(pod.vram)}`,
  ];
}

function buildChart(inspection: Inspection, names: ReadonlyMap<string, string>, topPods: number): MemoryChart {
  const node = inspection.node;
  if (!node) return { available: false, series: SERIES, node: null, pods: [], totalPods: 0, shownPods: 0, summary: 'No node memory in this capture (a container capture).' };
  const a = node.accounting;
  const gtt = a.unaccounted ?? 0;
  const free = a.memAvailable ?? 0;
  const other = a.memTotal !== undefined && a.memAvailable !== undefined ? Math.max(0, a.memTotal - a.memAvailable - a.podsAccounted - gtt) : 0;
  const nodeRow: ChartRow = {
    key: 'node',
    kind: 'node',
    label: `node ${node.model.hostname ?? inspection.target}`,
    podUid: null,
    podCount: node.pods.length,
    segments: { accounted: a.podsAccounted, gtt, free, other, vram: a.vramUsed ?? 0 },
    limit: a.memTotal ?? null,
    details: [
      `MemTotal: ${bytesCell(a.memTotal).exact}`,
      `MemAvailable: ${bytesCell(a.memAvailable).exact}`,
      `pods' memory.current (sum): ${describeBytes(a.podsAccounted)}`,
      `GPU memory charged to no cgroup: ${bytesCell(a.unaccounted).exact}`,
      `GTT in use (sysfs): ${bytesCell(a.gttUsed).exact}`,
      `GPUActive (7.1+): ${bytesCell(a.gpuActive).exact}`,
      `VRAM in use: ${bytesCell(a.vramUsed).exact}`,
    ],
  };
  // PodAccounting comes sorted by true footprint already; sort again so the chart does not depend on it.
  const sorted = [...node.pods].sort((x, y) => (y.trueFootprint ?? y.gtt) - (x.trueFootprint ?? x.gtt) || x.podUid.localeCompare(y.podUid));
  const top = Math.max(1, topPods);
  const shown = sorted.length > top + 1 ? sorted.slice(0, top) : sorted;
  const rest = sorted.slice(shown.length);
  const rows: ChartRow[] = shown.map((pod) => ({
    key: pod.podUid,
    kind: 'pod',
    label: podLabel(pod.podUid, names),
    podUid: pod.podUid,
    podCount: 1,
    segments: podSegments(pod),
    limit: pod.limit ?? null,
    details: podDetails(pod),
  }));
  if (rest.length > 0) {
    const sum = (pick: (segments: ChartSegments) => number) => rest.reduce((total, pod) => total + pick(podSegments(pod)), 0);
    const segments: ChartSegments = { accounted: sum((s) => s.accounted), gtt: sum((s) => s.gtt), free: sum((s) => s.free), other: 0, vram: sum((s) => s.vram) };
    rows.push({
      key: 'others',
      kind: 'others',
      label: `${rest.length} other pods`,
      podUid: null,
      podCount: rest.length,
      segments,
      limit: null,
      details: [
        `${rest.length} pods with smaller true footprints, summed`,
        `memory.current: ${describeBytes(segments.accounted)}`,
        `GTT (no cgroup): ${describeBytes(segments.gtt)}`,
        `free to their limits: ${describeBytes(segments.free)}`,
        `VRAM: ${describeBytes(segments.vram)}`,
      ],
    });
  }
  const over = sorted.filter((pod) => pod.headroom !== undefined && pod.headroom < 0).length;
  const summary = [
    `Memory accounting of ${nodeRow.label}: ${formatBytes(a.podsAccounted)} accounted to pods' cgroups, ${formatBytes(gtt)} of GPU memory charged to no cgroup, ${formatBytes(free)} available${a.memTotal !== undefined ? ` of ${formatBytes(a.memTotal)}` : ''}.`,
    sorted.length === 0 ? 'No pods on this node.' : `${plural(sorted.length, 'pod')}${rest.length > 0 ? `, the ${shown.length} largest shown and ${rest.length} summed as others` : ''}; ${over === 0 ? 'none is' : `${plural(over, 'pod is', 'pods are')}`} over its limit once GTT is counted.`,
  ].join(' ');
  return { available: true, series: SERIES, node: nodeRow, pods: rows, totalPods: sorted.length, shownPods: shown.length, summary };
}

// ---------------------------------------------------------------------------------------------------
// Pods table

function shortId(id: string): string {
  return id.slice(0, 12);
}

function oomVerdictsOf(inspection: Inspection): readonly OomVerdict[] {
  return inspection.node?.oom?.verdicts ?? [];
}

function buildPods(inspection: Inspection, names: ReadonlyMap<string, string>): PodRow[] {
  const node = inspection.node;
  if (!node) return [];
  const kills = oomVerdictsOf(inspection);
  // Containers holding GPU memory, per pod: from the GPU processes' own cgroup lines (one pass).
  const gpuContainers = new Map<string, Set<string>>();
  for (const process of node.model.gpuProcesses) {
    const parsed = process.cgroup !== undefined ? parsePodCgroup(process.cgroup) : undefined;
    if (!parsed?.containerId) continue;
    const set = gpuContainers.get(parsed.podUid) ?? new Set<string>();
    set.add(shortId(parsed.containerId));
    gpuContainers.set(parsed.podUid, set);
  }
  const cgroups = new Map(node.model.pods.map((candidate) => [candidate.podUid, candidate]));
  return node.pods.map((pod) => {
    const cgroup = cgroups.get(pod.podUid);
    const held = gpuContainers.get(pod.podUid);
    const containers = held && held.size > 0 ? [...held] : (cgroup?.containers ?? []).flatMap((container) => (container.containerId ? [shortId(container.containerId)] : []));
    const podKills = kills.filter((kill) => kill.victim.podUid === pod.podUid);
    const last = podKills[podKills.length - 1];
    const oomKillEvents = pod.events.get('oom_kill') ?? 0;
    let lastOom: PodRow['lastOom'];
    if (last) {
      lastOom = { text: `${last.timestamp ?? 'time unknown'}: ${last.kind === 'global' ? 'global OOM' : last.kind === 'memcg' ? 'cgroup OOM' : 'OOM'} (${last.victim.comm ?? '?'})${podKills.length > 1 ? `, ${podKills.length} kills` : ''}`, sortKey: `2 ${last.timestamp ?? ''}`, tone: 'error' };
    } else if (oomKillEvents > 0) {
      lastOom = { text: `${plural(oomKillEvents, 'kill')} (memory.events oom_kill)`, sortKey: `1 ${String(oomKillEvents).padStart(10, '0')}`, tone: 'warning' };
    } else {
      lastOom = { text: 'none', sortKey: '0', tone: 'ok' };
    }
    const headroomTone: Tone = pod.headroom === undefined || pod.limit === undefined ? 'info' : pod.headroom < 0 ? 'error' : pod.headroom < pod.limit * MIN_HEADROOM_SHARE ? 'warning' : 'ok';
    return {
      podUid: pod.podUid,
      pod: names.get(pod.podUid) ?? pod.podUid,
      named: names.has(pod.podUid),
      qos: pod.qos,
      container: containers.join(', ') || '—',
      processes: pod.processes.map((process) => `${process.comm ?? '?'} (${process.pid})`),
      limit: bytesCell(pod.limit, 'none'),
      current: bytesCell(pod.accounted),
      gtt: bytesCell(pod.gtt),
      vram: bytesCell(pod.vram),
      footprint: bytesCell(pod.trueFootprint),
      headroom: bytesCell(pod.headroom),
      headroomTone,
      lastOom,
      cgroupPath: pod.cgroupPath,
    };
  });
}

// ---------------------------------------------------------------------------------------------------
// OOM timeline, HAMi checklist, kernel panel

function buildOom(inspection: Inspection, names: ReadonlyMap<string, string>): OomTimeline {
  const node = inspection.node;
  if (!node) return { available: false, summary: 'A container capture has no kernel log.', source: null, rows: [] };
  const oom = node.oom;
  if (!oom) return { available: false, summary: 'No kernel log was readable (dmesg needs CAP_SYSLOG; run the probe as root).', source: null, rows: [] };
  const rows = oom.verdicts.map((verdict): OomRow => {
    const victim = verdict.victim;
    const podUid = victim.podUid;
    return {
      id: verdict.id,
      severity: verdict.severity,
      when: verdict.timestamp ?? '—',
      kind: verdict.kind,
      kindLabel: verdict.kind === 'global'
        ? `global${verdict.gtt ? ` (GTT signature: ${verdict.gtt.strength})` : ''}`
        : verdict.kind === 'memcg'
          ? `memory cgroup${verdict.limitLevel !== 'unknown' ? ` (${verdict.limitLevel} limit)` : ''}`
          : 'unclassified',
      victim: `${victim.comm ?? '?'}${victim.pid !== undefined ? ` (pid ${victim.pid})` : ''}`,
      pod: victim.podName ?? (podUid !== undefined ? (names.get(podUid) ?? podUid) : '—'),
      podUid: podUid ?? null,
      title: verdict.title,
      remedy: verdict.remedy,
      evidence: verdict.evidenceLines.slice(0, MAX_EVIDENCE).map((line) => ({ line: line.line, text: line.text })),
    };
  });
  return { available: true, summary: oom.summary.text, source: node.model.kernelLog?.source ?? null, rows };
}

function buildHami(inspection: Inspection): HamiSection | null {
  const hami = inspection.hami;
  if (!hami) return null;
  return {
    verdict: hami.verdict,
    summary: summaryAfterVerdict(hami),
    provenance: evidenceSourceNote(hami.source) ?? null,
    rows: hami.checks.map((check) => ({
      id: check.id,
      status: check.status,
      check: check.title,
      summary: check.summary,
      command: check.command,
      evidence: check.evidence.slice(0, MAX_EVIDENCE),
      remedy: check.status === 'pass' ? null : check.remedy,
      impact: check.impact,
    })),
  };
}

function buildKernel(inspection: Inspection): InspectorViewModel['kernel'] {
  const node = inspection.node;
  if (!node) return { checks: [], facts: [] };
  const model = node.model;
  const facts: Fact[] = [
    { label: 'Kernel', value: model.kernel ?? '?' },
    { label: 'cgroup', value: model.cgroupMode },
    { label: 'GPUs', value: node.accounting.gpuSummary },
    { label: 'Unified memory', value: node.accounting.unifiedMemory ? 'yes: GPU memory is system RAM' : 'no' },
  ];
  if (model.dmemCapacity.size > 0) {
    facts.push({ label: 'dmem.capacity', value: [...model.dmemCapacity.entries()].map(([region, limit]) => `${region} ${limit.kind === 'bytes' ? formatBytes(limit.bytes) : 'max'}`).join(', ') });
  }
  for (const gpu of model.gpus) {
    const parts = [
      gpu.driver ? `driver ${gpu.driver}` : undefined,
      gpu.vramTotal !== undefined ? `VRAM ${formatBytes(gpu.vramUsed ?? 0)} / ${formatBytes(gpu.vramTotal)}` : undefined,
      gpu.gttTotal !== undefined ? `GTT ${formatBytes(gpu.gttUsed ?? 0)} / ${formatBytes(gpu.gttTotal)}` : undefined,
    ].filter((part): part is string => part !== undefined);
    if (parts.length > 0) facts.push({ label: gpu.card, value: parts.join(', ') });
  }
  for (const [module, params] of model.moduleParams) {
    for (const key of ['gttsize', 'pages_limit', 'page_pool_size', 'no_system_mem_limit']) {
      const value = params.get(key);
      if (value !== undefined) facts.push({ label: `${module}.${key}`, value: value.trim() });
    }
  }
  if (model.kubelet) {
    const k = model.kubelet;
    const parts = [
      k.systemReserved !== undefined ? `system-reserved memory ${formatBytes(k.systemReserved)}` : undefined,
      k.kubeReserved !== undefined ? `kube-reserved memory ${formatBytes(k.kubeReserved)}` : undefined,
      k.evictionHard !== undefined ? `evictionHard memory.available<${k.evictionHard}` : undefined,
    ].filter((part): part is string => part !== undefined);
    facts.push({ label: 'kubelet', value: parts.length > 0 ? `${parts.join(', ')} (${k.source})` : `no memory reservations (${k.source})` });
  }
  return {
    checks: node.kernelChecks.map((check) => ({ id: check.id, status: check.status, title: check.title, detail: check.detail, evidence: check.evidence.slice(0, MAX_EVIDENCE), remedy: check.remedy })),
    facts,
  };
}

// ---------------------------------------------------------------------------------------------------
// Raw sections

/** A capture section as readable text: command output as is, each file under a `==> path <==` line. */
export function sectionAsText(section: CaptureSection): string {
  const parts: string[] = [];
  for (const record of section.records) {
    if (record.path === undefined) {
      if (record.body !== '') parts.push(record.body.replace(/\n$/, ''));
    } else {
      parts.push(`==> ${record.path} <==`);
      if (record.body !== '') parts.push(record.body.replace(/\n$/, ''));
    }
  }
  for (const missing of section.missing) parts.push(`(missing: ${missing})`);
  if (section.rc !== undefined) parts.push(`(exit status ${section.rc})`);
  if (!section.complete) parts.push('(the section was cut off)');
  return parts.join('\n');
}

function buildRaw(capture: Capture, maxChars: number): RawSection[] {
  return [...capture.sections.values()].map((section) => {
    const full = sectionAsText(section);
    const truncated = full.length > maxChars;
    const text = truncated ? `${full.slice(0, maxChars)}\n… (${full.length - maxChars} more characters: save the probe capture to see them)` : full;
    return { name: section.name, text, lines: text === '' ? 0 : text.split('\n').length, truncated, complete: section.complete };
  });
}

// ---------------------------------------------------------------------------------------------------

export function buildInspectorViewModel(inspection: Inspection, options: ViewModelOptions = {}): InspectorViewModel {
  // Pod UID → `namespace/name`, as the Kubernetes layer gave them to the analysis.
  const names = inspection.podNames;
  const pods = inspection.node?.pods ?? [];
  return {
    v: VIEW_MODEL_VERSION,
    header: header(inspection),
    banner: buildBanner(inspection.verdicts),
    verdicts: verdictRows(inspection.verdicts),
    chart: buildChart(inspection, names, options.topPods ?? DEFAULT_TOP_PODS),
    pods: buildPods(inspection, names),
    oom: buildOom(inspection, names),
    hami: buildHami(inspection),
    kernel: buildKernel(inspection),
    raw: buildRaw(inspection.capture, options.maxRawSectionChars ?? DEFAULT_MAX_RAW_SECTION_CHARS),
    live: {
      possible: inspection.scope === 'node',
      pods: pods.map((pod) => ({ podUid: pod.podUid, label: podLabel(pod.podUid, names), limit: pod.limit ?? null })),
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// One pod as Markdown: what "open pod" shows when no Kubernetes view can reveal the pod.

export function podToMarkdown(model: InspectorViewModel, podUid: string): string | undefined {
  const row = model.pods.find((pod) => pod.podUid === podUid);
  if (!row) return undefined;
  const out = [`# Pod ${markdownText(row.pod)}`, '', `From ${markdownText(model.header.title)}`, ''];
  out.push('| | |', '| --- | --- |');
  out.push(`| UID | ${markdownText(row.podUid)} |`, `| QoS | ${markdownText(row.qos)} |`, `| cgroup | ${markdownText(row.cgroupPath)} |`, `| containers | ${markdownText(row.container)} |`);
  out.push(`| limit | ${row.limit.exact} |`, `| memory.current | ${row.current.exact} |`, `| GTT (no cgroup) | ${row.gtt.exact} |`, `| VRAM | ${row.vram.exact} |`);
  out.push(`| true footprint | ${row.footprint.exact} |`, `| headroom | ${row.headroom.exact} |`, `| last OOM | ${markdownText(row.lastOom.text)} |`, '');
  if (row.processes.length > 0) pushAll(out, ['## GPU processes', '', ...row.processes.map((process) => `- ${markdownText(process)}`), '']);
  const verdicts = model.verdicts.filter((verdict) => verdict.evidence.some((line) => line.includes(podUid)) || verdict.title.includes(row.pod) || verdict.title.includes(podUid));
  if (verdicts.length > 0) {
    out.push('## Findings', '');
    for (const verdict of verdicts) out.push(`### ${markdownText(verdict.title)}`, '', `**Remedy:** ${markdownText(verdict.remedy)}`, '', markdownCodeBlock(verdict.evidence.join('\n')), '');
  }
  const kills = model.oom.rows.filter((kill) => kill.podUid === podUid);
  if (kills.length > 0) {
    out.push('## OOM kills', '');
    for (const kill of kills) out.push(`- ${markdownText(kill.when)}: ${markdownText(kill.kindLabel)}, victim ${markdownText(kill.victim)}`);
    out.push('');
  }
  return `${out.join('\n')}\n`;
}
