// The raw capture section: every capture section as text in a collapsible, one filter over all of them, and
// a Copy per section (the lines the filter shows).
import type { RawSection } from '../../src/core/inspectorPanel/viewModelTypes.ts';
import { h } from '../shared/dom.ts';
import type { Actions } from './actions.ts';
import { requestButton } from './requestButton.ts';
import { section } from './widgets.ts';

export interface RawSlots {
  readonly element: HTMLElement;
  applyFilter(filter: string): void;
}

export function renderRawSection(
  raw: readonly RawSection[],
  filter: string,
  actions: Actions,
  onFilter: (filter: string) => void,
): RawSlots {
  const count = h('span', { class: 'muted', attrs: { id: 'raw-count', role: 'status' } });
  const search = h('vscode-textfield', {
    attrs: {
      id: 'raw-filter',
      placeholder: 'Filter lines in every section',
      'aria-label': 'Filter lines in every raw section',
      type: 'search',
    },
  }) as HTMLElement & { value: string };
  search.value = filter;
  let timer: ReturnType<typeof setTimeout> | undefined;
  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      onFilter(search.value);
      apply(search.value);
    }, 120);
  });
  const boxes: { section: RawSection; collapsible: HTMLElement & { description: string }; body: HTMLElement; shown: string }[] = [];
  const list = h('div', { class: 'raw-list' });
  for (const rawSection of raw) {
    const collapsible = h('vscode-collapsible', { class: 'raw', attrs: { 'data-section': rawSection.name } }) as HTMLElement & {
      heading: string;
      description: string;
    };
    collapsible.heading = rawSection.name;
    const body = h('pre', { class: 'raw-text' });
    const box = { section: rawSection, collapsible, body, shown: rawSection.text };
    const copy = requestButton<'copyText'>(
      'Copy',
      (late) => actions.request('copyText', { what: rawSection.name, text: box.shown }, late),
      { secondary: true, ariaLabel: `Copy the section ${rawSection.name}`, busy: 'Copying…', done: () => 'Copied.' },
    );
    collapsible.append(
      h(
        'div',
        { class: 'raw-actions' },
        copy,
        rawSection.truncated ? h('span', { class: 'muted', text: 'Cut for display; "Save probe capture" keeps everything.' }) : null,
      ),
      body,
    );
    boxes.push(box);
    list.append(collapsible);
  }
  const apply = (value: string) => {
    const needle = value.trim().toLowerCase();
    let matches = 0;
    for (const box of boxes) {
      if (needle === '') {
        box.shown = box.section.text;
        box.collapsible.description = `${box.section.lines} lines${box.section.complete ? '' : ', cut off'}`;
        box.collapsible.hidden = false;
      } else {
        const lines = box.section.text.split('\n').filter((line) => line.toLowerCase().includes(needle));
        matches += lines.length;
        box.shown = lines.join('\n');
        box.collapsible.description = `${lines.length} of ${box.section.lines} lines match`;
        box.collapsible.hidden = lines.length === 0;
      }
      box.body.textContent = box.shown;
    }
    count.textContent = needle === '' ? `${raw.length} sections` : `${matches} matching lines`;
  };
  apply(filter);
  const element = section('raw', 'Raw capture', h('div', { class: 'raw-controls' }, search, count), list);
  return { element, applyFilter: apply };
}
