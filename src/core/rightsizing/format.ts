// The rows as a person reads them (a table, Markdown) and as a program does (JSON). Every figure says its source
// once, in the header; rows without a number say why.
import { pushAll } from '../arrays.ts';
import { formatBytes } from '../sizing.ts';
import { markdownText } from '../text/escape.ts';
import { describeKills } from './kills.ts';
import type { EvidenceBasis } from './evidence.ts';
import type { RecommendationRow } from './rows.ts';

export interface RecommendHeader {
  readonly source: string;
  readonly window: string;
  readonly sources: readonly string[];
  readonly problems: readonly string[];
  /** `since-start`: the agents' values now and their high-water marks, no history (default `history`). */
  readonly basis?: EvidenceBasis;
}

/** The window of the agents' figures, in words: never the requested window, which they do not cover. */
export const SINCE_START_WINDOW = 'since each container started';

const bytes = (value: number | undefined): string => (value === undefined ? '–' : formatBytes(value));

export function recommendedText(row: RecommendationRow): string {
  const r = row.recommendation;
  if (r.kind !== 'sized') return `no change: ${r.reason}`;
  const lower = r.lowerSaves !== undefined ? ` (lower: saves ${formatBytes(r.lowerSaves)})` : '';
  return `request = limit = ${r.memory.text}${lower}${r.gpuMemory ? `; ${r.gpuMemory.key}: ${r.gpuMemory.value.text}` : ''}`;
}

function observedLine(row: RecommendationRow, basis: EvidenceBasis): string {
  const o = row.observed;
  const figures = `cgroup ${bytes(o.cgroupPeak?.bytes)}, GPU in RAM ${bytes(o.gpuInRamPeak?.bytes)}, VRAM ${bytes(o.vramPeak?.bytes)}, true footprint ${bytes(o.trueFootprintPeak?.bytes)}`;
  if (basis !== 'since-start') return `${figures} (peaks; ${o.samples} samples over ${o.hours.toFixed(1)} h)`;
  const kernel =
    row.kernelPeak !== undefined ? `; the kernel's memory.peak since the container started: ${formatBytes(row.kernelPeak)}` : '';
  return `${figures} (now, from the agents: no history${kernel})`;
}

function lines(row: RecommendationRow, basis: EvidenceBasis): string[] {
  const r = row.recommendation;
  const out = [
    `${row.workload.kind} ${row.workload.namespace}/${row.workload.name}, container ${row.container}${templateText(row)}`,
    `  today:        request ${row.current.request?.text ?? 'unset'}, limit ${row.current.limit?.text ?? 'unset'}`,
    `  observed:     ${observedLine(row, basis)}`,
    `  OOM kills:    ${describeKills(row.kills)}`,
    `  recommended:  ${recommendedText(row)}`,
  ];
  if (r.kind === 'sized') {
    out.push(`  why:          ${r.reason}`);
    pushAll(
      out,
      r.notes.map((note) => `  note:         ${note}`),
    );
  }
  if (r.kind === 'unchanged') {
    for (const node of r.pressure) {
      const pods = node.biggestPods.map((pod) => `${pod.pod} ${formatBytes(pod.bytes)}`).join(', ');
      out.push(
        `  node:         ${node.node}${node.at ? ` (last kill ${new Date(node.at * 1000).toISOString()})` : ''}${pods ? `; biggest pods ${node.biggestPodsWhen === 'kill' ? 'just before that kill' : 'over the window'}: ${pods}` : ''}`,
      );
    }
  }
  pushAll(
    out,
    row.notes.map((note) => `  data:         ${note}`),
  );
  return out;
}

export function recommendationsToText(rows: readonly RecommendationRow[], header: RecommendHeader): string {
  const head = [`Right-sizing from ${header.source}, window ${header.window}.`, `Figures from: ${header.sources.join('; ') || 'none'}.`];
  for (const problem of header.problems) head.push(`Problem: ${problem}`);
  if (rows.length === 0) head.push('No workloads found.');
  return `${[head.join('\n'), ...rows.map((row) => lines(row, header.basis ?? 'history').join('\n'))].join('\n\n')}\n`;
}

export function recommendationsToMarkdown(rows: readonly RecommendationRow[], header: RecommendHeader): string {
  const out = [
    `**Right-sizing** from ${markdownText(header.source)}, window ${markdownText(header.window)}. Figures from: ${markdownText(header.sources.join('; ') || 'none')}.`,
    '',
    '| Workload | Container | Today (request / limit) | True footprint peak | OOM kills | Recommended | Why |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const row of rows) {
    const r = row.recommendation;
    const cells = [
      `${row.workload.kind} ${row.workload.namespace}/${row.workload.name}`,
      `${row.container}${templateText(row)}`,
      `${row.current.request?.text ?? 'unset'} / ${row.current.limit?.text ?? 'unset'}`,
      bytes(row.observed.trueFootprintPeak?.bytes),
      describeKills(row.kills),
      recommendedText(row),
      r.reason,
    ];
    out.push(`| ${cells.map(markdownText).join(' | ')} |`);
  }
  return `${out.join('\n')}\n`;
}

export function recommendationsToJson(rows: readonly RecommendationRow[], header: RecommendHeader): unknown {
  return {
    source: header.source,
    window: header.window,
    basis: header.basis ?? 'history',
    sources: header.sources,
    problems: header.problems,
    rows: rows.map((row) => ({
      workload: row.workload,
      ...(row.template === undefined ? {} : { template: row.template }),
      container: row.container,
      current: { request: row.current.request?.text ?? null, limit: row.current.limit?.text ?? null },
      observed: {
        cgroupPeakBytes: row.observed.cgroupPeak?.bytes ?? null,
        gpuInRamPeakBytes: row.observed.gpuInRamPeak?.bytes ?? null,
        vramPeakBytes: row.observed.vramPeak?.bytes ?? null,
        trueFootprintPeakBytes: row.observed.trueFootprintPeak?.bytes ?? null,
        kernelPeakBytes: row.kernelPeak ?? null,
        samples: row.observed.samples,
        hours: row.observed.hours,
      },
      kills: row.kills,
      recommendation: row.recommendation,
      notes: row.notes,
    })),
  };
}

/** ` [workerGroupSpecs[gpu]]`: which template of a multi-template workload the row is of; nothing for a kind with one. */
function templateText(row: RecommendationRow): string {
  return row.template === undefined ? '' : ` [${row.template}]`;
}
