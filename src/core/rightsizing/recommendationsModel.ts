// Builds the Recommendations section's view model (recommendationsView.ts) from the gathered rows, and each
// workload's strategic-merge patch (patch.ts), which stays with the host: the webview asks for one by workload and
// the host puts its own text on the clipboard. Pure.
import { kindKey } from '../manifest/workloads.ts';
import { formatBytes } from '../sizing.ts';
import { describeKills, totalKills } from './kills.ts';
import type { RecommendHeader } from './format.ts';
import type { PatchResult } from './patch.ts';
import { workloadPatch } from './patch.ts';
import type { WorkloadChange } from './changes.ts';
import { AGENT_CGROUP_NOTE, AGENT_WORKING_SET_NOTE, changesOf } from './rows.ts';
import type { RecommendationRow } from './rows.ts';
import type { Recommendation } from './recommend.ts';
import type { WorkloadRef } from './workloadPods.ts';
import { isLiveWorkloadKind } from './liveKinds.ts';
import { RECORDED } from './queries.ts';
import { RECOMMENDATIONS_VIEW_VERSION } from './recommendationsView.ts';
import type { FigureCell, RecommendationRowView, RecommendationsViewModel } from './recommendationsView.ts';

export interface RecommendationsInput {
  readonly context: string;
  readonly namespaces: readonly string[];
  readonly rows: readonly RecommendationRow[];
  readonly header: RecommendHeader;
  readonly notes: readonly string[];
  readonly headroomPercent: number;
  readonly readAtMs: number;
}

export function workloadKeyOf(ref: Pick<WorkloadRef, 'kind' | 'namespace' | 'name'> & { readonly apiVersion?: string }): string {
  return `${kindKey(ref.kind, ref.apiVersion)}/${ref.namespace}/${ref.name}`;
}

/** Each workload's strategic-merge patch (patch.ts), by workload key: what Copy patch copies. */
export function workloadPatches(rows: readonly RecommendationRow[]): Map<string, PatchResult> {
  const changes = new Map<string, WorkloadChange[]>();
  for (const change of changesOf(rows)) {
    const key = workloadKeyOf(change.ref);
    changes.set(key, [...(changes.get(key) ?? []), change]);
  }
  return new Map([...changes].map(([key, list]) => [key, workloadPatch(list)]));
}

const plural = (count: number, one: string, many = `${one}s`): string => `${count.toLocaleString('en')} ${count === 1 ? one : many}`;

function figure(bytes: number | undefined, source: string): FigureCell {
  return bytes === undefined || !Number.isFinite(bytes)
    ? { text: '–', bytes: null, source: 'no series' }
    : { text: formatBytes(bytes), bytes, source };
}

function cgroupSource(header: RecommendHeader, row: RecommendationRow, agentCgroup: boolean): string {
  if (agentCgroup) return 'gpumem agent: pod memory.current, with cache';
  if (header.basis === 'since-start') return 'gpumem agent: working set now';
  return row.notes.includes(AGENT_WORKING_SET_NOTE) ? 'gpumem agent: working set of the container' : 'cAdvisor: working set';
}

function footprintSource(header: RecommendHeader, agentCgroup: boolean): string {
  if (agentCgroup) return 'gpumem agent: pod true footprint';
  if (header.basis === 'since-start') return "gpumem agent: working set + the container's GPU memory in RAM, now";
  // figures.ts names the rule's series when it answered, and says "summed by a subquery" when it did not.
  if (header.sources.some((one) => one.includes(RECORDED.trueFootprint))) return 'recording rule: cgroup + GPU in RAM, same sample';
  return 'subquery: cgroup + GPU in RAM, same sample';
}

function recommendedCell(r: Recommendation): RecommendationRowView['recommended'] {
  if (r.kind !== 'sized')
    return { kind: r.kind, text: r.kind === 'unchanged' ? 'unchanged' : 'no number', bytes: null, gpuMemory: null, lower: null };
  return {
    kind: r.kind,
    text: r.memory.text,
    bytes: r.memory.bytes,
    gpuMemory: r.gpuMemory ? `${r.gpuMemory.key}: ${r.gpuMemory.value.text}` : null,
    lower: r.lowerSaves !== undefined ? `lower: saves ${formatBytes(r.lowerSaves)}` : null,
  };
}

function rowView(
  row: RecommendationRow,
  order: number,
  header: RecommendHeader,
  patches: ReadonlyMap<string, PatchResult>,
): RecommendationRowView {
  const { workload: ref, observed: o, recommendation: r } = row;
  const agentCgroup = row.notes.includes(AGENT_CGROUP_NOTE);
  const workloadKey = workloadKeyOf(ref);
  const patch = patches.get(workloadKey);
  const total = totalKills(row.kills);
  return {
    order,
    workload: { kind: ref.kind, apiVersion: ref.apiVersion, namespace: ref.namespace, name: ref.name },
    workloadKey,
    workloadText: `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`,
    // A multi-template workload's container names its template: a RayCluster's groups often share a container name.
    container: row.template === undefined ? row.container : `${row.container} [${row.template}]`,
    request: { text: row.current.request?.text ?? 'unset', bytes: row.current.request?.bytes ?? null },
    limit: { text: row.current.limit?.text ?? 'unset', bytes: row.current.limit?.bytes ?? null },
    recommended: recommendedCell(r),
    reason: r.reason,
    notes: [...(r.kind === 'sized' ? r.notes : []), ...row.notes],
    observed: {
      cgroup: figure(o.cgroupPeak?.bytes, cgroupSource(header, row, agentCgroup)),
      gpuInRam: figure(o.gpuInRamPeak?.bytes, 'gpumem agent: outside the cgroup'),
      vram: figure(o.vramPeak?.bytes, 'gpumem agent: VRAM'),
      trueFootprint: figure(o.trueFootprintPeak?.bytes, footprintSource(header, agentCgroup)),
      kernelPeak: figure(row.kernelPeak, 'gpumem agent: memory.peak, with cache'),
    },
    kills: { ...row.kills, total, text: describeKills(row.kills) },
    data: {
      samples: o.samples,
      hours: o.hours,
      text: o.samples > 0 ? `${plural(o.samples, 'sample')} over ${o.hours.toFixed(1)} h` : 'no samples',
    },
    patch:
      patch?.kind === 'patch'
        ? { kind: 'patch' }
        : { kind: 'none', reason: patch?.reason ?? (r.kind === 'sized' ? 'nothing to change' : `no number: ${r.reason}`) },
    // Open live manifest reads a kind by its name alone: a Volcano Job (kindKey Job.batch.volcano.sh) is not one.
    openable: isLiveWorkloadKind(kindKey(ref.kind, ref.apiVersion)) && ref.name !== '',
  };
}

function headerLine(rows: readonly RecommendationRow[]): string {
  const workloads = new Set(rows.map((row) => workloadKeyOf(row.workload))).size;
  const change = rows.filter(
    (row) => row.recommendation.kind === 'sized' && row.recommendation.memory.text !== row.current.limit?.text,
  ).length;
  const without = rows.filter((row) => row.recommendation.kind === 'no-figures' || row.recommendation.kind === 'too-little-data').length;
  if (rows.length === 0) return 'No workload with a pod template in these namespaces.';
  return `${plural(workloads, 'workload')}, ${plural(rows.length, 'container')}: ${change.toLocaleString('en')} to change, ${without.toLocaleString('en')} without a number`;
}

export function buildRecommendationsView(input: RecommendationsInput): RecommendationsViewModel {
  const patches = workloadPatches(input.rows);
  const iso = new Date(input.readAtMs).toISOString();
  return {
    version: RECOMMENDATIONS_VIEW_VERSION,
    header: {
      context: input.context,
      scope:
        input.namespaces.length === 0
          ? 'all namespaces'
          : `${input.namespaces.length === 1 ? 'namespace' : 'namespaces'} ${input.namespaces.join(', ')}`,
      source: input.header.source,
      window: input.header.window,
      sources: input.header.sources,
      problems: input.header.problems,
      headroomPercent: input.headroomPercent,
      readAtMs: input.readAtMs,
      readAtText: `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`,
      line: headerLine(input.rows),
    },
    notes: input.notes,
    rows: input.rows.map((row, index) => rowView(row, index, input.header, patches)),
  };
}
