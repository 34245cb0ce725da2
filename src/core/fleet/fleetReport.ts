// The fleet summary as text (the terminal), Markdown (a ticket, the view's export), JSON (a CI gate) and CSV (the pod
// table). Every name from the cluster is escaped for its target; numbers are bytes with exact values in JSON.
import { csvCell, markdownText, plainLabel } from '../text/escape.ts';
import type { FleetSummary, PodRow, RankedNode } from './summary.ts';
import { bytesOrDash, killsWhen, podName } from './summary.ts';

function percent(share: number | undefined): string {
  return share === undefined ? '—' : `${Math.round(share * 100)} %`;
}

function nodeLine(node: RankedNode): string {
  const kills =
    node.globalKills > 0
      ? `, ${node.globalKills} global OOM kill${node.globalKills === 1 ? '' : 's'}${node.gpuKills > 0 ? ` (${node.gpuKills} GPU)` : ''}`
      : '';
  return `${plainLabel(node.node)}: ${percent(node.risk)} of ${bytesOrDash(node.memTotal)} (cgroups ${bytesOrDash(node.cgroup)}, GPU memory outside cgroups ${bytesOrDash(node.unaccounted)}), ${node.pods} pod${node.pods === 1 ? '' : 's'}${kills}${node.stale ? ', agent not reporting' : ''}`;
}

function podLine(row: PodRow): string {
  return `${plainLabel(podName(row))} on ${plainLabel(row.node)}: footprint ${bytesOrDash(row.peakFootprint ?? row.footprint)} against limit ${bytesOrDash(row.limit)}, GPU memory outside cgroups ${bytesOrDash(row.unaccounted)}`;
}

export function fleetToText(summary: FleetSummary, top = 10): string {
  const facts = summary.facts;
  const lines = [
    `gpumem fleet: ${facts.nodes.length} GPU node${facts.nodes.length === 1 ? '' : 's'} from ${plainLabel(facts.source.description)}, window ${facts.window.label}`,
    summary.line,
    '',
  ];
  for (const verdict of summary.verdicts) lines.push(`  ${verdict.severity.padEnd(7)} ${verdict.id}: ${plainLabel(verdict.title, 400)}`);
  if (summary.verdicts.length > 0) lines.push('');
  lines.push('Nodes by risk:');
  for (const node of summary.nodes.slice(0, top)) lines.push(`  ${nodeLine(node)}`);
  if (summary.nodes.length > top) lines.push(`  … ${summary.nodes.length - top} more`);
  if (summary.topOverLimit.length > 0) {
    lines.push('', 'Pods over their limit once GPU memory is counted:');
    for (const row of summary.topOverLimit.slice(0, top)) lines.push(`  ${podLine(row)}`);
  }
  if (summary.topUnaccounted.length > 0) {
    lines.push('', 'Pods by GPU memory outside cgroups:');
    for (const row of summary.topUnaccounted.slice(0, top)) lines.push(`  ${podLine(row)}`);
  }
  if (summary.kills.byPod.length > 0) {
    lines.push('', `OOM kills (${killsWhen(facts)}):`);
    for (const kill of summary.kills.byPod.slice(0, top))
      lines.push(
        `  ${kill.count} × ${kill.scope}${kill.gpuSignature ? ' (GPU signature)' : ''}: ${plainLabel(podName(kill))} on ${plainLabel(kill.node)}`,
      );
  }
  if (summary.hami.length > 0) {
    lines.push('', 'HAMi enforcement:');
    for (const row of summary.hami.slice(0, top))
      lines.push(
        `  ${row.state.padEnd(8)} ${plainLabel(podName(row))} ${plainLabel(row.container || '—')} on ${plainLabel(row.node)}, quota ${bytesOrDash(row.quotaBytes)}`,
      );
  }
  if (facts.problems.length > 0) {
    lines.push('', 'Not read:');
    for (const problem of facts.problems.slice(0, 20)) lines.push(`  ${plainLabel(problem, 400)}`);
  }
  return `${lines.join('\n')}\n`;
}

export function fleetToMarkdown(summary: FleetSummary, top = 20): string {
  const facts = summary.facts;
  const md = markdownText;
  const out = [
    `# gpumem fleet: ${facts.nodes.length} GPU nodes`,
    '',
    `Source: ${md(facts.source.description)}; window ${md(facts.window.label)}; at ${new Date(facts.at * 1000).toISOString()}.`,
    '',
    `**${md(summary.line)}**`,
    '',
  ];
  if (summary.verdicts.length > 0) {
    out.push('| Severity | Finding | Remedy |', '| --- | --- | --- |');
    for (const v of summary.verdicts) out.push(`| ${v.severity} | [${md(v.id)}](${v.docs}): ${md(v.title)} | ${md(v.remedy)} |`);
    out.push('');
  }
  out.push(
    '## Nodes by risk',
    '',
    '| Node | Used / MemTotal | MemTotal | cgroups | GPU memory outside cgroups | Pods | Global OOM kills |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const node of summary.nodes.slice(0, top))
    out.push(
      `| ${md(node.node)}${node.stale ? ' (agent not reporting)' : ''} | ${percent(node.risk)} | ${bytesOrDash(node.memTotal)} | ${bytesOrDash(node.cgroup)} | ${bytesOrDash(node.unaccounted)} | ${node.pods} | ${node.globalKills}${node.gpuKills > 0 ? ` (${node.gpuKills} GPU)` : ''} |`,
    );
  const podTable = (title: string, rows: readonly PodRow[]) => {
    if (rows.length === 0) return;
    out.push(
      '',
      `## ${title}`,
      '',
      '| Pod | Node | Peak footprint | Limit | Over by | GPU memory outside cgroups |',
      '| --- | --- | --- | --- | --- | --- |',
    );
    for (const row of rows)
      out.push(
        `| ${md(podName(row))} | ${md(row.node)} | ${bytesOrDash(row.peakFootprint ?? row.footprint)} | ${bytesOrDash(row.limit)} | ${row.overBy !== undefined && row.overBy > 0 ? bytesOrDash(row.overBy) : '—'} | ${bytesOrDash(row.unaccounted)} |`,
      );
  };
  podTable('Pods over their limit once GPU memory is counted', summary.topOverLimit);
  podTable('Pods by GPU memory outside cgroups', summary.topUnaccounted);
  if (summary.kills.byPod.length > 0) {
    out.push(
      '',
      `## OOM kills (${md(killsWhen(facts))})`,
      '',
      '| Kills | Scope | GPU signature | Pod | Node |',
      '| --- | --- | --- | --- | --- |',
    );
    for (const kill of summary.kills.byPod)
      out.push(`| ${kill.count} | ${kill.scope} | ${kill.gpuSignature ? 'yes' : 'no'} | ${md(podName(kill))} | ${md(kill.node)} |`);
  }
  if (summary.hami.length > 0) {
    out.push('', '## HAMi enforcement', '', '| State | Pod | Container | Node | Quota |', '| --- | --- | --- | --- | --- |');
    for (const row of summary.hami)
      out.push(`| ${row.state} | ${md(podName(row))} | ${md(row.container || '—')} | ${md(row.node)} | ${bytesOrDash(row.quotaBytes)} |`);
  }
  if (facts.problems.length > 0) {
    out.push('', '## Not read', '');
    for (const problem of facts.problems.slice(0, 50)) out.push(`- ${md(problem)}`);
  }
  return `${out.join('\n')}\n`;
}

export function fleetToJson(summary: FleetSummary): unknown {
  const facts = summary.facts;
  return {
    source: facts.source,
    window: facts.window,
    at: facts.at,
    line: summary.line,
    worst: summary.worst,
    verdicts: summary.verdicts,
    nodes: summary.nodes,
    topOverLimit: summary.topOverLimit,
    topUnaccounted: summary.topUnaccounted,
    podCounts: facts.podCounts,
    kills: { ...summary.kills, meaning: facts.killsMeaning, overTime: facts.killsOverTime },
    hami: summary.hami,
    hamiBypassed: summary.hamiBypassed,
    silentNodes: facts.silentNodes,
    problems: facts.problems,
  };
}

const CSV_HEADER = [
  'list',
  'namespace',
  'pod',
  'uid',
  'node',
  'cgroup_bytes',
  'limit_bytes',
  'unaccounted_bytes',
  'footprint_bytes',
  'peak_footprint_bytes',
  'over_by_bytes',
];

/** The pod tables (over limit, then by unaccounted memory) as CSV, RFC 4180, cells that start a formula defused. */
export function fleetPodsCsv(summary: FleetSummary): string {
  const number = (value: number | undefined) => (value === undefined ? '' : String(value));
  const rows = [CSV_HEADER.join(',')];
  for (const [list, pods] of [
    ['over-limit', summary.topOverLimit],
    ['unaccounted', summary.topUnaccounted],
  ] as const)
    for (const pod of pods)
      rows.push(
        [
          list,
          csvCell(pod.namespace ?? ''),
          csvCell(pod.pod ?? ''),
          csvCell(pod.uid),
          csvCell(pod.node),
          number(pod.cgroup),
          number(pod.limit),
          number(pod.unaccounted),
          number(pod.footprint),
          number(pod.peakFootprint),
          number(pod.overBy),
        ].join(','),
      );
  return `${rows.join('\r\n')}\r\n`;
}
