// The fleet page's Recommendations section (gpumem: Right-Size Workloads…): where the figures came from and their
// age, then one row per container of each workload: today's request and limit, the recommendation or why there is
// none, the observed peaks each with its source, the kills by cause and the data behind it; under it, the actions
// and why. Sortable by every column (a button in each header: Enter or Space, aria-sort says which); each row has
// Open live manifest and Copy patch (the host copies its own patch text; the section's status line says the
// result). Every text from the cluster is set as text.
import './recommendations.css';
import type { RecommendationSortDirection, RecommendationSortKey } from '../../src/core/rightsizing/recommendationsView.ts';
import type { FigureCell, RecommendationRowView, RecommendationsViewModel } from '../../src/core/rightsizing/recommendationsView.ts';
import { ageText, sortRecommendationRows } from '../../src/core/rightsizing/recommendationsView.ts';
import type { WorkloadTarget } from '../../src/core/rightsizing/liveKinds.ts';
import { isLiveWorkloadKind } from '../../src/core/rightsizing/liveKinds.ts';
import type { RequestOutcome } from '../../src/core/webviewIpc/requests.ts';
import type { CopiedResult } from '../../src/core/webviewIpc/results.ts';
import { clear, h } from '../shared/dom.ts';

export interface RecommendationActions {
  openWorkload(target: WorkloadTarget): void;
  copyPatch(target: WorkloadTarget, onLate: (outcome: RequestOutcome<CopiedResult>) => void): Promise<RequestOutcome<CopiedResult>>;
}

interface Column {
  readonly key: RecommendationSortKey;
  readonly label: string;
  readonly numeric: boolean;
  /** The first direction a click sorts in: names A→Z, figures largest first. */
  readonly first: RecommendationSortDirection;
  readonly cell: (row: RecommendationRowView) => HTMLElement;
}

function figureCell(figure: FigureCell): HTMLElement {
  return h(
    'td',
    { class: 'num', attrs: { title: figure.source } },
    h('span', { class: 'figure', text: figure.text }),
    figure.bytes === null ? null : h('span', { class: 'figure-source', text: figure.source }),
  );
}

function recommendedCell(row: RecommendationRowView): HTMLElement {
  const r = row.recommended;
  const tone = r.kind === 'sized' ? (r.lower ? 'tone-text-ok' : '') : 'muted';
  return h(
    'td',
    { class: `num recommended ${tone}`, attrs: { 'data-kind': r.kind } },
    h('strong', { text: r.text }),
    r.lower ? h('span', { class: 'figure-source', text: r.lower }) : null,
    r.gpuMemory ? h('span', { class: 'figure-source', text: r.gpuMemory }) : null,
  );
}

const COLUMNS: readonly Column[] = [
  {
    key: 'workload',
    label: 'Workload',
    numeric: false,
    first: 'ascending',
    cell: (row) =>
      h(
        'th',
        { attrs: { scope: 'row', title: row.workloadText } },
        h('span', { class: 'figure-source', text: row.workload.kind }),
        row.workload.namespace ? `${row.workload.namespace}/${row.workload.name}` : row.workload.name,
      ),
  },
  {
    key: 'container',
    label: 'Container',
    numeric: false,
    first: 'ascending',
    cell: (row) => h('td', {}, h('code', { text: row.container })),
  },
  {
    key: 'request',
    label: 'Request',
    numeric: true,
    first: 'descending',
    cell: (row) => h('td', { class: 'num', text: row.request.text }),
  },
  { key: 'limit', label: 'Limit', numeric: true, first: 'descending', cell: (row) => h('td', { class: 'num', text: row.limit.text }) },
  { key: 'recommended', label: 'Recommended', numeric: true, first: 'descending', cell: recommendedCell },
  {
    key: 'trueFootprint',
    label: 'True footprint (peak)',
    numeric: true,
    first: 'descending',
    cell: (row) => figureCell(row.observed.trueFootprint),
  },
  { key: 'cgroup', label: 'cgroup (peak)', numeric: true, first: 'descending', cell: (row) => figureCell(row.observed.cgroup) },
  { key: 'gpuInRam', label: 'GPU in RAM (peak)', numeric: true, first: 'descending', cell: (row) => figureCell(row.observed.gpuInRam) },
  { key: 'vram', label: 'VRAM (peak)', numeric: true, first: 'descending', cell: (row) => figureCell(row.observed.vram) },
  {
    key: 'kills',
    label: 'OOM kills',
    numeric: false,
    first: 'descending',
    cell: (row) =>
      h(
        'td',
        { class: row.kills.globalGpu + row.kills.memcg > 0 ? 'tone-text-error' : '', attrs: { 'data-kills': row.kills.total } },
        row.kills.text,
      ),
  },
  { key: 'data', label: 'Data', numeric: false, first: 'descending', cell: (row) => h('td', { class: 'data', text: row.data.text }) },
];

export class RecommendationsSection {
  readonly element: HTMLElement;
  readonly #actions: RecommendationActions;
  readonly #source: HTMLElement;
  readonly #line: HTMLElement;
  readonly #notes: HTMLElement;
  readonly #status: HTMLElement;
  readonly #table: HTMLTableElement;
  #model: RecommendationsViewModel | undefined;
  #sort: { key: RecommendationSortKey; direction: RecommendationSortDirection } | undefined;
  #ageTimer: ReturnType<typeof setInterval> | undefined;

  constructor(actions: RecommendationActions) {
    this.#actions = actions;
    this.#source = h('p', { class: 'muted', attrs: { id: 'recommendations-source' } });
    this.#line = h('p', { attrs: { id: 'recommendations-line' } });
    this.#notes = h('div', { attrs: { id: 'recommendations-notes' } });
    this.#status = h('p', { class: 'muted', attrs: { id: 'recommendations-status', role: 'status', 'aria-live': 'polite' } });
    this.#table = h('table', { class: 'table recommendations', attrs: { id: 'recommendations-table' } });
    this.element = h(
      'section',
      { attrs: { id: 'recommendations', 'aria-labelledby': 'recommendations-heading' } },
      h('h2', { attrs: { id: 'recommendations-heading' }, text: 'Recommendations' }),
      this.#source,
      this.#line,
      this.#notes,
      this.#status,
      h('div', { class: 'table-scroll' }, this.#table),
    );
    this.element.hidden = true;
  }

  show(model: RecommendationsViewModel): void {
    this.#model = model;
    this.element.hidden = false;
    this.#status.textContent = '';
    this.#line.textContent = model.header.line;
    clear(this.#notes);
    const lines = [
      `Figures from: ${model.header.sources.join('; ') || 'none'}.`,
      ...model.header.problems.map((problem) => `Problem: ${problem}`),
      ...model.notes,
    ];
    this.#notes.appendChild(h('ul', { class: 'muted recommendation-notes' }, ...lines.map((text) => h('li', { text }))));
    this.#showSource();
    clearInterval(this.#ageTimer);
    // The age beside the source stays true while the panel is open.
    this.#ageTimer = setInterval(() => this.#showSource(), 60_000);
    this.#render();
  }

  #showSource(): void {
    const header = this.#model?.header;
    if (!header) return;
    this.#source.textContent =
      `${header.context} · ${header.scope} · from ${header.source} · window ${header.window} · ` +
      `read ${header.readAtText} (${ageText(header.readAtMs, Date.now())}) · headroom ${header.headroomPercent} %`;
  }

  sortBy(key: RecommendationSortKey): void {
    const column = COLUMNS.find((one) => one.key === key);
    if (!column) return;
    const direction = this.#sort?.key === key ? (this.#sort.direction === 'ascending' ? 'descending' : 'ascending') : column.first;
    this.#sort = { key, direction };
    this.#render();
    this.#table.querySelector<HTMLElement>(`button[data-sort="${key}"]`)?.focus();
  }

  #render(): void {
    const model = this.#model;
    if (!model) return;
    clear(this.#table);
    if (model.rows.length === 0) {
      this.#table.appendChild(h('caption', { text: 'No workload to right-size.' }));
      return;
    }
    const rows = this.#sort ? sortRecommendationRows(model.rows, this.#sort.key, this.#sort.direction) : model.rows;
    const head = h(
      'tr',
      {},
      ...COLUMNS.map((column) => {
        const active = this.#sort?.key === column.key;
        const button = h(
          'button',
          {
            class: 'sort',
            attrs: { type: 'button', 'data-sort': column.key, title: `Sort by ${column.label}` },
            on: { click: () => this.sortBy(column.key) },
          },
          column.label,
          active
            ? h('span', { class: 'arrow', attrs: { 'aria-hidden': 'true' }, text: this.#sort?.direction === 'ascending' ? ' ▲' : ' ▼' })
            : null,
        );
        return h(
          'th',
          { class: column.numeric ? 'num' : '', attrs: { scope: 'col', 'aria-sort': active ? (this.#sort?.direction ?? 'none') : 'none' } },
          button,
        );
      }),
    );
    this.#table.append(
      h('caption', { text: `${model.rows.length.toLocaleString('en')} containers` }),
      h('thead', {}, head),
      h('tbody', {}, ...rows.flatMap((row) => this.#row(row))),
    );
  }

  /** The row, and under it the reason and notes across the table (a column of sentences would make it too wide). */
  #row(row: RecommendationRowView): HTMLElement[] {
    const target = isLiveWorkloadKind(row.workload.kind)
      ? { kind: row.workload.kind, namespace: row.workload.namespace, name: row.workload.name }
      : undefined;
    const open = h('button', {
      class: 'button secondary',
      text: 'Open live manifest',
      attrs: {
        type: 'button',
        'data-action': 'open',
        disabled: !row.openable || !target,
        title: `The live ${row.workloadText}, read-only`,
      },
      on: { click: () => target && this.#actions.openWorkload(target) },
    });
    const copy = h('button', {
      class: 'button secondary',
      text: 'Copy patch',
      attrs: {
        type: 'button',
        'data-action': 'copy-patch',
        disabled: row.patch.kind !== 'patch' || !target,
        title: row.patch.kind === 'patch' ? `The strategic-merge patch of ${row.workloadText}` : row.patch.reason,
      },
      on: { click: () => target && this.#copy(target, row.workloadText) },
    });
    return [
      h(
        'tr',
        {
          class: 'figures-row',
          attrs: { 'data-workload': row.workloadKey, 'data-container': row.container, 'data-kind': row.recommended.kind },
        },
        ...COLUMNS.map((column) => column.cell(row)),
      ),
      h(
        'tr',
        { class: 'reason-row' },
        h(
          'td',
          { class: 'reason', attrs: { colspan: COLUMNS.length } },
          h('span', { class: 'actions' }, open, copy),
          h('span', { class: 'why', text: 'Why: ' }),
          row.reason,
          row.notes.length > 0 ? h('ul', { class: 'muted row-notes' }, ...row.notes.map((note) => h('li', { text: note }))) : null,
        ),
      ),
    ];
  }

  #copy(target: WorkloadTarget, label: string): void {
    this.#status.setAttribute('data-state', 'busy');
    this.#status.textContent = `Copying the patch of ${label}…`;
    const show = (outcome: RequestOutcome<CopiedResult>): void => {
      this.#status.setAttribute('data-state', outcome.ok ? 'copied' : 'failed');
      this.#status.textContent = outcome.ok ? `The patch of ${label} is on the clipboard.` : `Not copied: ${outcome.error}`;
    };
    void this.#actions.copyPatch(target, show).then(show);
  }
}
