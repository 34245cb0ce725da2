// Inspection → what the inspector webview renders. Pure: no VS Code, no DOM. Every string that comes from
// the target (host, pod, process and cgroup names, log lines, file contents) stays a plain string here: the
// webview puts it on the page as text (textContent), never as HTML, so nothing is escaped in this file.
//
// Sections, in the order the panel shows them, and the file that builds each (the types: viewModelTypes.ts):
//   header, banner, verdicts (banner.ts)
//   banner    the worst finding first, in one sentence, with its remedy and its documentation anchor;
//   chart     memory accounting, stacked per node and per pod (cgroup-accounted, GTT no cgroup is charged
//             for, VRAM, free), the limit as a line, exact bytes for tooltips; the top N pods by true
//             footprint plus one "others" row, so 50 pods stay readable (memoryChart.ts);
//   pods      (podsTable.ts) one row per pod with numbers for sorting and texts for display;
//   oom       each kill of the kernel log: global or memory cgroup, the victim, the evidence lines;
//   hami      the HAMi enforcement checklist, after the node-side quota of each HAMi pod (hamiQuotaSection.ts);
//   kernel    kernel, driver and dmem checks plus a few facts;
//   raw       every capture section as text (oom, hami, kernel, raw: detailSections.ts).
// A pod as Markdown, for the report view, is podMarkdown.ts.
import type { Inspection } from '../inspectionRun/analyze.ts';
import type { InspectorViewModel, ViewModelOptions } from './viewModelTypes.ts';
import { VIEW_MODEL_VERSION, DEFAULT_TOP_PODS, DEFAULT_MAX_RAW_SECTION_CHARS } from './viewModelTypes.ts';
import { podLabel } from './cells.ts';
import { buildBanner, verdictRows, buildHeader } from './banner.ts';
import { buildChart } from './memoryChart.ts';
import { buildPods } from './podsTable.ts';
import { buildOom, buildHami, buildKernel, buildRaw } from './detailSections.ts';
import { withHamiQuotas } from './hamiQuotaSection.ts';

export function buildInspectorViewModel(inspection: Inspection, options: ViewModelOptions = {}): InspectorViewModel {
  // Pod UID → `namespace/name`, as the Kubernetes layer gave them to the analysis.
  const names = inspection.podNames;
  const pods = inspection.node?.pods ?? [];
  return {
    v: VIEW_MODEL_VERSION,
    header: buildHeader(inspection),
    banner: buildBanner(inspection.verdicts, inspection.sight),
    verdicts: verdictRows(inspection.verdicts),
    chart: buildChart(inspection, names, options.topPods ?? DEFAULT_TOP_PODS),
    pods: buildPods(inspection, names),
    oom: buildOom(inspection, names),
    hami: withHamiQuotas(buildHami(inspection), inspection),
    kernel: buildKernel(inspection),
    raw: buildRaw(inspection.capture, options.maxRawSectionChars ?? DEFAULT_MAX_RAW_SECTION_CHARS),
    live: {
      possible: inspection.scope === 'node',
      pods: pods.map((pod) => ({ podUid: pod.podUid, label: podLabel(pod.podUid, names), limit: pod.limit ?? null })),
    },
  };
}
