// The hover on a container's live CodeLens line and `resources:` block: what the cluster runs, the container's peak
// true footprint against its limit, the kills of the window, the recommendation, then one row per pod (node, true
// footprint, GTT, VRAM, last kill and its cause, HAMi enforcement) with a link that opens the pod's inspector. Every
// figure carries a numbered note saying its source; the header says when the snapshot was read. Untrusted text
// (names, reasons) is escaped; the only link target is the inspect-pod command with JSON arguments. Pure.
import { pushAll } from '../arrays.ts';
import { describeKills, totalKills } from '../rightsizing/kills.ts';
import type { RecommendationRow } from '../rightsizing/rows.ts';
import { formatBytes } from '../sizing.ts';
import { markdownText } from '../text/escape.ts';
import type { LivePod, Sourced } from './livePods.ts';
import { causeText } from './livePods.ts';
import type { LiveSnapshot, LiveWorkload } from './liveSnapshot.ts';
import { ageText } from './liveSnapshot.ts';

export interface LiveHoverView {
  readonly snapshot: LiveSnapshot;
  readonly workload: LiveWorkload | undefined;
  readonly container: string;
  /** The container's template in a multi-template workload (ContainerSummary.role); its pods only are shown. */
  readonly template?: string;
  readonly nowMs: number;
  readonly staleAfterMs: number;
  readonly inspectPodCommand: string;
}

/** The arguments of a pod link: the inspect-pod command finds the pod by them in the context. */
export interface LivePodLink {
  readonly livePod: { readonly context: string; readonly namespace: string; readonly name: string };
}

/** Numbers each distinct source once, in the order first cited. */
class Notes {
  readonly #sources: string[] = [];

  cite(source: string): string {
    let index = this.#sources.indexOf(source);
    if (index < 0) index = this.#sources.push(source) - 1;
    return `[${index + 1}]`;
  }

  lines(): string[] {
    return this.#sources.map((source, index) => `[${index + 1}] ${markdownText(source)}`);
  }
}

function readWhen(view: LiveHoverView): string {
  const age = view.nowMs - view.snapshot.fetchedAtMs;
  return `read ${ageText(age)} ago${age > view.staleAfterMs ? ', **stale**' : ''}`;
}

export function liveHoverMarkdown(view: LiveHoverView): string {
  const { snapshot, workload } = view;
  const notes = new Notes();
  const out: string[] = [];
  const what = workload ? `${workload.ref.kind} ${workload.ref.namespace}/${workload.ref.name}` : 'this workload';
  out.push(
    `**Live in ${markdownText(snapshot.context)}**: ${markdownText(what)}, container ${markdownText(view.container)} (${readWhen(view)})`,
  );
  out.push('');
  const row = workload?.rows.find((one) => one.container === view.container && one.template === view.template);
  if (row) pushAll(out, [...rowLines(row, snapshot, notes), '']);
  const pods = podsOf(view);
  if (pods.length === 0) out.push(`No pod of it runs in ${markdownText(snapshot.context)} now.`);
  else {
    out.push('| pod | node | true footprint | GTT | VRAM | last OOM kill | HAMi |', '| --- | --- | --- | --- | --- | --- | --- |');
    for (const pod of pods) out.push(podRow(pod, view, workload?.ref.namespace ?? snapshot.defaultNamespace, notes));
  }
  out.push('', `Sources (${markdownText(snapshot.window)} window, ${readWhen(view)}):`, '');
  for (const line of notes.lines()) out.push(`- ${line}`);
  if (notes.lines().length === 0) out.push(`- ${markdownText(snapshot.source)}`);
  return out.join('\n');
}

function rowLines(row: RecommendationRow, snapshot: LiveSnapshot, notes: Notes): string[] {
  const lines: string[] = [];
  const via = notes.cite(snapshot.source);
  const footprint = row.observed.trueFootprintPeak?.bytes;
  const cgroup = row.observed.cgroupPeak?.bytes;
  const gpu = row.observed.gpuInRamPeak?.bytes;
  lines.push(
    footprint === undefined
      ? `- Peak true footprint: no figures ${via}`
      : `- Peak true footprint ${formatBytes(footprint)} ${via} (cgroup ${cgroup === undefined ? '?' : formatBytes(cgroup)} + GPU memory in RAM ${gpu === undefined ? '0' : formatBytes(gpu)})`,
  );
  const api = notes.cite(`the live ${row.workload.kind}'s pod template (the Kubernetes API)`);
  lines.push(`- The cluster runs memory request ${row.current.request?.text ?? 'none'}, limit ${row.current.limit?.text ?? 'none'} ${api}`);
  const kills = totalKills(row.kills);
  lines.push(`- OOM kills in ${markdownText(snapshot.window)}: ${kills === 0 ? 'none' : markdownText(describeKills(row.kills))} ${via}`);
  const recommendation = row.recommendation;
  lines.push(
    recommendation.kind === 'sized'
      ? `- Recommended: memory ${markdownText(recommendation.memory.text)} (request = limit): ${markdownText(recommendation.reason)}`
      : `- No recommendation: ${markdownText(recommendation.reason)}`,
  );
  return lines;
}

function figure(value: Sourced<number> | undefined, notes: Notes): string {
  return value ? `${formatBytes(value.value)} ${notes.cite(value.source)}` : '—';
}

function podRow(pod: LivePod, view: LiveHoverView, namespace: string, notes: Notes): string {
  const link: LivePodLink = { livePod: { context: view.snapshot.context, namespace, name: pod.name } };
  const target = `command:${view.inspectPodCommand}?${encodeURIComponent(JSON.stringify([link]))}`;
  const name = `[${markdownText(pod.name)}](${target} "Inspect this pod")${pod.oldTemplate ? ' (old template)' : ''}`;
  // Cited in column order, so the notes read left to right.
  const cells = [name, markdownText(pod.node ?? 'not scheduled')];
  cells.push(figure(pod.trueFootprintPeak, notes), figure(pod.gttPeak, notes), figure(pod.vramPeak, notes));
  cells.push(
    pod.lastKill
      ? `${markdownText(pod.lastKill.at ?? 'time unknown')}, ${markdownText(pod.lastKill.container)}: ${markdownText(causeText(pod.lastKill.cause.value))} ${notes.cite(pod.lastKill.source)}${notes.cite(pod.lastKill.cause.source)}`
      : 'none',
  );
  cells.push(pod.hami ? `${pod.hami.value} ${notes.cite(pod.hami.source)}` : '—');
  return `| ${cells.join(' | ')} |`;
}

/** The live CodeLens's tooltip (plain text): one line per pod, then the source and age. */
export function liveLensTooltip(view: LiveHoverView): string {
  const lines: string[] = [];
  for (const pod of podsOf(view)) {
    const parts = [`${pod.name} on ${pod.node ?? 'no node'}`];
    if (pod.trueFootprintPeak) parts.push(`true footprint ${formatBytes(pod.trueFootprintPeak.value)}`);
    if (pod.gttPeak) parts.push(`GTT ${formatBytes(pod.gttPeak.value)}`);
    if (pod.vramPeak) parts.push(`VRAM ${formatBytes(pod.vramPeak.value)}`);
    if (pod.lastKill) parts.push(`last OOM kill ${pod.lastKill.at ?? '(time unknown)'}: ${causeText(pod.lastKill.cause.value)}`);
    if (pod.hami) parts.push(`HAMi ${pod.hami.value}`);
    lines.push(parts.join(', '));
  }
  if (lines.length === 0) lines.push('No pod runs now.');
  lines.push(
    `${view.snapshot.source}, ${view.snapshot.window}, ${readWhen(view).replace('**stale**', 'stale')}. Hover the resources block for the sources of each figure.`,
  );
  return lines.join('\n');
}

/** The pods of the view's template (all of them for a kind with one template). */
function podsOf(view: LiveHoverView): readonly LivePod[] {
  return (view.workload?.podLines ?? []).filter((pod) => pod.template === view.template);
}
