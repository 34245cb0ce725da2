// The pieces every inspector section is built from: a titled section, a tone badge, an evidence block, the notice
// line. Every string from the target goes in as text (dom.ts); tables are native <table>s with scoped headers
// (sortable ones with aria-sort and a button per header), so screen readers and the keyboard get real table
// semantics.
import type { Tone } from '../../src/core/inspectorPanel/viewModelTypes.ts';
import type { Child } from '../shared/dom.ts';
import { clear, h } from '../shared/dom.ts';

export const TONE_LABEL: Record<Tone, string> = { error: 'Error', warning: 'Warning', info: 'Note', ok: 'OK' };
export const STATUS_TONE: Record<string, Tone> = {
  pass: 'ok',
  fail: 'error',
  warn: 'warning',
  unknown: 'info',
  info: 'info',
  error: 'error',
  warning: 'warning',
};

export function badge(text: string, tone: Tone): HTMLElement {
  return h('vscode-badge', { class: `badge tone-${tone}`, text });
}

export function section(id: string, title: string, ...children: Child[]): HTMLElement {
  const headingId = `${id}-heading`;
  return h(
    'section',
    { class: 'section', attrs: { id, 'aria-labelledby': headingId } },
    h('h2', { text: title, attrs: { id: headingId } }),
    ...children,
  );
}

export function pre(text: string, className = 'evidence'): HTMLElement {
  return h('pre', { class: className, text });
}

export function renderNotice(target: HTMLElement, text: string, tone: 'info' | 'error'): void {
  clear(target);
  target.className = `notice tone-text-${tone === 'error' ? 'error' : 'info'}`;
  target.textContent = text;
}
