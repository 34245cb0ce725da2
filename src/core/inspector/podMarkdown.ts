// One pod as Markdown: what "open pod" shows when no Kubernetes view can reveal the pod (the report view).
import { longestRun, pushAll } from '../arrays.ts';
import type { InspectorViewModel } from './viewModelTypes.ts';

/** Untrusted text for Markdown: HTML-significant characters as entities, Markdown syntax escaped, one line. */
function mdText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/[\\`*_[\]|~#]/g, (c) => `\\${c}`).replace(/\r?\n/g, ' ');
}

function fence(text: string): string {
  const longest = longestRun(text, '`');
  const marks = '`'.repeat(Math.max(3, longest + 1));
  return `${marks}\n${text.replace(/\r/g, '')}\n${marks}`;
}

export function podToMarkdown(model: InspectorViewModel, podUid: string): string | undefined {
  const row = model.pods.find((pod) => pod.podUid === podUid);
  if (!row) return undefined;
  const out = [`# Pod ${mdText(row.pod)}`, '', `From ${mdText(model.header.title)}`, ''];
  out.push('| | |', '| --- | --- |');
  out.push(`| UID | ${mdText(row.podUid)} |`, `| QoS | ${mdText(row.qos)} |`, `| cgroup | ${mdText(row.cgroupPath)} |`, `| containers | ${mdText(row.container)} |`);
  out.push(`| limit | ${row.limit.exact} |`, `| memory.current | ${row.current.exact} |`, `| GTT (no cgroup) | ${row.gtt.exact} |`, `| VRAM | ${row.vram.exact} |`);
  out.push(`| true footprint | ${row.footprint.exact} |`, `| headroom | ${row.headroom.exact} |`, `| last OOM | ${mdText(row.lastOom.text)} |`, '');
  if (row.processes.length > 0) pushAll(out, ['## GPU processes', '', ...row.processes.map((process) => `- ${mdText(process)}`), '']);
  const verdicts = model.verdicts.filter((verdict) => verdict.evidence.some((line) => line.includes(podUid)) || verdict.title.includes(row.pod) || verdict.title.includes(podUid));
  if (verdicts.length > 0) {
    out.push('## Findings', '');
    for (const verdict of verdicts) out.push(`### ${mdText(verdict.title)}`, '', `**Remedy:** ${mdText(verdict.remedy)}`, '', fence(verdict.evidence.join('\n')), '');
  }
  const kills = model.oom.rows.filter((kill) => kill.podUid === podUid);
  if (kills.length > 0) {
    out.push('## OOM kills', '');
    for (const kill of kills) out.push(`- ${mdText(kill.when)}: ${mdText(kill.kindLabel)}, victim ${mdText(kill.victim)}`);
    out.push('');
  }
  return `${out.join('\n')}\n`;
}
