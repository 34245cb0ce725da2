// One pod as Markdown: what "open pod" shows when no Kubernetes view can reveal the pod (the report view).
import { pushAll } from '../arrays.ts';
import { markdownCodeBlock, markdownText } from '../text/escape.ts';
import type { InspectorViewModel } from './viewModelTypes.ts';

export function podToMarkdown(model: InspectorViewModel, podUid: string): string | undefined {
  const row = model.pods.find((pod) => pod.podUid === podUid);
  if (!row) return undefined;
  const out = [`# Pod ${markdownText(row.pod)}`, '', `From ${markdownText(model.header.title)}`, ''];
  out.push('| | |', '| --- | --- |');
  out.push(
    `| UID | ${markdownText(row.podUid)} |`,
    `| QoS | ${markdownText(row.qos)} |`,
    `| cgroup | ${markdownText(row.cgroupPath)} |`,
    `| containers | ${markdownText(row.container)} |`,
  );
  out.push(
    `| limit | ${row.limit.exact} |`,
    `| memory.current | ${row.current.exact} |`,
    `| GTT (no cgroup) | ${row.gtt.exact} |`,
    `| VRAM | ${row.vram.exact} |`,
  );
  out.push(
    `| true footprint | ${row.footprint.exact} |`,
    `| headroom | ${row.headroom.exact} |`,
    `| last OOM | ${markdownText(row.lastOom.text)} |`,
    '',
  );
  if (row.processes.length > 0) pushAll(out, ['## GPU processes', '', ...row.processes.map((process) => `- ${markdownText(process)}`), '']);
  const verdicts = model.verdicts.filter(
    (verdict) =>
      verdict.evidence.some((line) => line.includes(podUid)) || verdict.title.includes(row.pod) || verdict.title.includes(podUid),
  );
  if (verdicts.length > 0) {
    out.push('## Findings', '');
    for (const verdict of verdicts)
      out.push(
        `### ${markdownText(verdict.title)}`,
        '',
        `**Remedy:** ${markdownText(verdict.remedy)}`,
        '',
        markdownCodeBlock(verdict.evidence.join('\n')),
        '',
      );
  }
  const kills = model.oom.rows.filter((kill) => kill.podUid === podUid);
  if (kills.length > 0) {
    out.push('## OOM kills', '');
    for (const kill of kills)
      out.push(`- ${markdownText(kill.when)}: ${markdownText(kill.kindLabel)}, victim ${markdownText(kill.victim)}`);
    out.push('');
  }
  return `${out.join('\n')}\n`;
}
