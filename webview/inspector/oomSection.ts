// The OOM timeline: each kill from the kernel log, its kind (global, cgroup), victim, pod, remedy and the
// report lines it rests on.
import type { OomTimeline } from '../../src/core/inspectorPanel/viewModelTypes.ts';
import type { Actions } from './actions.ts';
import { h } from '../shared/dom.ts';
import { badge, pre, section } from './widgets.ts';

export function renderOomSection(oom: OomTimeline, actions: Actions): HTMLElement {
  const intro = h('p', { class: 'muted', text: `${oom.summary}${oom.source ? ` (kernel log from ${oom.source})` : ''}` });
  if (oom.rows.length === 0) return section('oom', 'OOM timeline', intro);
  const list = h('ol', { class: 'timeline', attrs: { id: 'oom-timeline' } });
  for (const row of oom.rows) {
    const evidence = h('vscode-collapsible', { class: 'evidence-box' });
    const collapsible = evidence as HTMLElement & { heading: string };
    collapsible.heading = `Evidence (${row.evidence.length} lines)`;
    evidence.append(pre(row.evidence.map((line) => `${String(line.line).padStart(6)}  ${line.text}`).join('\n')));
    const pod = row.podUid
      ? h('button', { class: 'link', text: row.pod, attrs: { type: 'button' }, on: { click: () => actions.openPod(row.podUid ?? '') } })
      : h('span', { text: row.pod });
    list.append(
      h(
        'li',
        { class: `oom-kill tone-${row.severity}` },
        h(
          'div',
          { class: 'oom-head' },
          h('time', { text: row.when }),
          badge(
            row.kind === 'global' ? 'global' : row.kind === 'memcg' ? 'cgroup' : 'unclassified',
            row.kind === 'global' ? 'error' : 'warning',
          ),
          h('span', { text: row.kindLabel }),
        ),
        h(
          'div',
          {},
          h('strong', { text: 'Victim: ' }),
          h('span', { class: 'victim', text: row.victim }),
          ' · ',
          h('strong', { text: 'Pod: ' }),
          pod,
        ),
        h('p', { text: row.title }),
        h('p', { class: 'sub' }, h('strong', { text: 'Remedy: ' }), row.remedy),
        evidence,
      ),
    );
  }
  return section('oom', `OOM timeline (${oom.rows.length})`, intro, list);
}
