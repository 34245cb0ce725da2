// The verdict: the banner under the header (the worst finding, its remedy, the counts) and the list of every
// finding with its evidence and documentation link.
import type { Banner, VerdictRow } from '../../src/core/inspectorPanel/viewModelTypes.ts';
import type { Actions } from './actions.ts';
import { h } from '../shared/dom.ts';
import { badge, pre, section, TONE_LABEL } from './widgets.ts';

export function renderBanner(banner: Banner, actions: Actions): HTMLElement {
  const counts = `${banner.counts.error} errors, ${banner.counts.warning} warnings, ${banner.counts.info} notes`;
  return h(
    'section',
    { class: `banner tone-${banner.tone}`, attrs: { id: 'banner', role: 'status', 'aria-label': 'Verdict' } },
    renderUnread(banner),
    h(
      'div',
      { class: 'banner-top' },
      badge(TONE_LABEL[banner.tone], banner.tone),
      h('strong', { class: 'banner-headline', text: banner.headline }),
      h('span', { class: 'banner-counts', text: counts }),
    ),
    h('p', { class: 'banner-sentence', attrs: { id: 'banner-sentence', elementtiming: 'banner' }, text: banner.sentence }),
    banner.remedy ? h('p', { class: 'banner-remedy' }, h('strong', { text: 'Remedy: ' }), banner.remedy) : null,
    h(
      'p',
      { class: 'banner-links' },
      banner.docsId
        ? h('a', {
            class: 'link',
            text: `About ${banner.docsId}`,
            attrs: { href: '#', role: 'button' },
            on: {
              click: (event) => {
                event.preventDefault();
                actions.openDocs(banner.docsId ?? '');
              },
            },
          })
        : null,
      banner.more > 0 ? h('a', { class: 'link', text: `All ${banner.more + 1} findings`, attrs: { href: '#findings' } }) : null,
    ),
  );
}

/** What the probe could not read comes first: the finding below it is judged without it. */
function renderUnread(banner: Banner): HTMLElement | null {
  // A view model saved by an older version has no list.
  const unread = Array.isArray(banner.unread) ? banner.unread : [];
  if (unread.length === 0) return null;
  return h(
    'ul',
    { class: 'banner-unread', attrs: { id: 'banner-unread', 'aria-label': 'Not read' } },
    ...unread.map((row) =>
      h('li', {}, h('strong', { text: `Not read: ${row.input}. ` }), `${row.why}. Unknown: ${row.unknown}. ${row.remedy}`),
    ),
  );
}

export function renderVerdicts(verdicts: readonly VerdictRow[], actions: Actions): HTMLElement | null {
  if (verdicts.length === 0) return null;
  const list = h('div', { class: 'verdicts' });
  for (const verdict of verdicts) {
    const item = h('vscode-collapsible', { class: `verdict tone-${verdict.severity}` });
    const element = item as HTMLElement & { heading: string; description: string };
    element.heading = verdict.title;
    element.description = verdict.severity;
    item.append(
      h(
        'div',
        { class: 'verdict-body' },
        // Empty when the title already says it (the view model leaves out what would repeat).
        verdict.explanation !== '' ? h('p', { text: verdict.explanation }) : null,
        h('p', {}, h('strong', { text: 'Remedy: ' }), verdict.remedy),
        verdict.evidence.length > 0 ? pre(verdict.evidence.join('\n')) : null,
        h(
          'p',
          { class: 'verdict-id' },
          h('code', { text: verdict.id }),
          ' ',
          h('a', {
            class: 'link',
            text: 'documentation',
            attrs: { href: '#', role: 'button' },
            on: {
              click: (event) => {
                event.preventDefault();
                actions.openDocs(verdict.docsId);
              },
            },
          }),
        ),
      ),
    );
    list.append(item);
  }
  return section('findings', `Findings (${verdicts.length})`, list);
}
