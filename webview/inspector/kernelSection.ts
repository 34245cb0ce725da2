// The kernel, driver and dmem section: facts about the node's kernel and the checks of what it supports.
import type { KernelRow } from '../../src/core/inspectorPanel/viewModelTypes.ts';
import { h } from '../shared/dom.ts';
import { badge, pre, section, STATUS_TONE } from './widgets.ts';

export function renderKernelSection(kernel: {
  readonly checks: readonly KernelRow[];
  readonly facts: readonly { label: string; value: string }[];
}): HTMLElement | null {
  if (kernel.checks.length === 0 && kernel.facts.length === 0) return null;
  const facts = h('dl', { class: 'facts' });
  for (const fact of kernel.facts) facts.append(h('div', {}, h('dt', { text: fact.label }), h('dd', { text: fact.value })));
  const body = h('tbody');
  for (const check of kernel.checks) {
    body.append(
      h(
        'tr',
        {},
        h('td', {}, badge(check.status, STATUS_TONE[check.status] ?? 'info')),
        h(
          'th',
          { attrs: { scope: 'row' } },
          h('div', { text: check.title }),
          h('div', { class: 'sub', text: check.detail }),
          check.status === 'fail' || check.status === 'warn'
            ? h('div', { class: 'sub' }, h('strong', { text: 'Remedy: ' }), check.remedy)
            : null,
        ),
        h('td', {}, check.evidence.length > 0 ? pre(check.evidence.join('\n')) : h('span', { class: 'muted', text: '—' })),
      ),
    );
  }
  const table = h(
    'table',
    { class: 'data kernel', attrs: { id: 'kernel-table' } },
    h('thead', {}, h('tr', {}, ...['Status', 'Check', 'Evidence'].map((label) => h('th', { text: label, attrs: { scope: 'col' } })))),
    body,
  );
  return section('kernel', 'Kernel, driver and dmem', facts, h('div', { class: 'table-scroll' }, table));
}
