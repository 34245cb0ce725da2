// The page header: the target's title and facts, the report actions (copy, save JSON, save capture) and the
// capture's problems.
import type { SavedResult } from '../../src/core/inspector/protocol.ts';
import type { InspectorViewModel } from '../../src/core/inspectorPanel/viewModelTypes.ts';
import type { Actions } from './actions.ts';
import { h } from '../shared/dom.ts';
import { requestButton } from './requestButton.ts';

function savedText(result: SavedResult): string {
  return result.kind === 'saved' ? `Saved ${result.path}.` : 'Not saved: the dialog was cancelled.';
}

export function renderHeader(model: InspectorViewModel, actions: Actions): HTMLElement {
  const facts = h('dl', { class: 'facts' });
  for (const fact of model.header.facts) facts.append(h('div', {}, h('dt', { text: fact.label }), h('dd', { text: fact.value })));
  const toolbar = h(
    'div',
    { class: 'toolbar', attrs: { role: 'toolbar', 'aria-label': 'Report actions' } },
    requestButton<'copyMarkdown'>('Copy report as Markdown', (late) => actions.request('copyMarkdown', {}, late), {
      id: 'action-copy-markdown',
      busy: 'Copying…',
      done: () => 'The report is on the clipboard as Markdown.',
    }),
    requestButton<'saveJson'>('Save JSON report', (late) => actions.request('saveJson', {}, late), {
      id: 'action-save-json',
      secondary: true,
      busy: 'Waiting for the save dialog…',
      done: savedText,
    }),
    requestButton<'saveCapture'>('Save probe capture', (late) => actions.request('saveCapture', {}, late), {
      id: 'action-save-capture',
      secondary: true,
      busy: 'Waiting for the save dialog…',
      done: savedText,
    }),
  );
  const problems =
    model.header.problems.length > 0
      ? h(
          'details',
          { class: 'problems' },
          h('summary', { text: `Capture problems (${model.header.problems.length})` }),
          h('ul', {}, ...model.header.problems.map((problem) => h('li', { text: problem }))),
        )
      : null;
  return h('header', { class: 'page-header' }, h('h1', { attrs: { id: 'title' }, text: model.header.title }), facts, toolbar, problems);
}
