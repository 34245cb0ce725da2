// The HAMi enforcement checklist: each check's status, the command it corresponds to and its evidence.
import type { HamiSection } from '../../src/core/inspectorPanel/viewModelTypes.ts';
import { h } from '../shared/dom.ts';
import { badge, pre, section, STATUS_TONE } from './widgets.ts';

export function renderHamiSection(hami: HamiSection | null): HTMLElement | null {
  if (!hami) return null;
  const body = h('tbody');
  for (const row of hami.rows) {
    body.append(
      h(
        'tr',
        {},
        h('td', {}, badge(row.status, STATUS_TONE[row.status] ?? 'info')),
        h(
          'th',
          { attrs: { scope: 'row' } },
          h('div', { text: row.check }),
          h('div', { class: 'sub', text: row.summary }),
          row.remedy ? h('div', { class: 'sub' }, h('strong', { text: 'Remedy: ' }), row.remedy) : null,
        ),
        h('td', {}, h('code', { class: 'command', text: row.command })),
        h('td', {}, row.evidence.length > 0 ? pre(row.evidence.join('\n')) : h('span', { class: 'muted', text: '—' })),
      ),
    );
  }
  const table = h(
    'table',
    { class: 'data hami', attrs: { id: 'hami-table' } },
    h('caption', {
      text: 'Each check: what it found (pass, fail, unknown, or covered: the same cause as another check), with the command it corresponds to and the capture lines it rests on.',
    }),
    h(
      'thead',
      {},
      h('tr', {}, ...['Status', 'Finding', 'Command', 'Evidence'].map((label) => h('th', { text: label, attrs: { scope: 'col' } }))),
    ),
    body,
  );
  const provenance = hami.provenance ? h('p', { class: 'provenance', text: hami.provenance }) : '';
  return section(
    'hami',
    'HAMi enforcement checklist',
    h('p', {}, badge(hami.verdict, hami.verdict === 'enforced' ? 'ok' : hami.verdict === 'bypassed' ? 'error' : 'info'), ' ', hami.summary),
    provenance,
    h('div', { class: 'table-scroll' }, table),
  );
}
