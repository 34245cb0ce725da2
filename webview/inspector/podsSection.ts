// The pods table: one row per container, sortable by any column (unknown values last), a click or Enter opens
// the pod, Up/Down move between rows.
import type { PodRow, Tone } from '../../src/core/inspectorPanel/viewModelTypes.ts';
import type { Actions } from './actions.ts';
import { h } from '../shared/dom.ts';
import { section } from './widgets.ts';

interface Column {
  readonly key: string;
  readonly label: string;
  readonly numeric: boolean;
  readonly sortValue: (row: PodRow) => number | string | null;
  /** The column's cell; the first column (the pod) is a row header and is drawn by the table itself. */
  readonly cell?: (row: PodRow) => HTMLElement;
  /** A column that only some captures fill: shown when a row has a value (e.g. debugfs GTT, when it was read). */
  readonly shownFor?: (rows: readonly PodRow[]) => boolean;
}

export const POD_COLUMNS: readonly Column[] = [
  { key: 'pod', label: 'Pod', numeric: false, sortValue: (row) => row.pod },
  {
    key: 'container',
    label: 'Container',
    numeric: false,
    sortValue: (row) => row.container,
    cell: (row) =>
      h('td', {}, h('code', { text: row.container }), ...row.processes.map((process) => h('div', { class: 'sub', text: process }))),
  },
  { key: 'limit', label: 'Limit', numeric: true, sortValue: (row) => row.limit.value, cell: (row) => numberCell(row.limit) },
  { key: 'current', label: 'memory.current', numeric: true, sortValue: (row) => row.current.value, cell: (row) => numberCell(row.current) },
  { key: 'gtt', label: 'GTT', numeric: true, sortValue: (row) => row.gtt.value, cell: (row) => numberCell(row.gtt) },
  {
    // VRAM: DRM fdinfo's drm-memory-vram, nvidia-smi's used_memory; shown when some pod holds any (or it is unknown).
    key: 'vram',
    label: 'VRAM',
    numeric: true,
    sortValue: (row) => row.vram.value,
    cell: (row) => numberCell(row.vram),
    shownFor: (rows) => rows.some((row) => row.vram.value === null || row.vram.value > 0),
  },
  {
    key: 'footprint',
    label: 'True footprint',
    numeric: true,
    sortValue: (row) => row.footprint.value,
    cell: (row) => numberCell(row.footprint),
  },
  {
    key: 'headroom',
    label: 'Headroom',
    numeric: true,
    sortValue: (row) => row.headroom.value,
    cell: (row) => numberCell(row.headroom, row.headroomTone),
  },
  {
    key: 'debugfsGtt',
    label: 'debugfs GTT',
    numeric: true,
    sortValue: (row) => row.debugfsGtt?.value ?? null,
    cell: (row) => numberCell(row.debugfsGtt ?? { text: '—', exact: 'not read' }),
    shownFor: (rows) => rows.some((row) => row.debugfsGtt !== undefined),
  },
  {
    key: 'evicted',
    label: 'Evicted (KFD)',
    numeric: true,
    sortValue: (row) => row.evicted?.value ?? null,
    cell: (row) => numberCell(row.evicted ?? { text: '—', exact: 'no KFD process' }),
    shownFor: (rows) => rows.some((row) => row.evicted !== undefined),
  },
  {
    key: 'lastOom',
    label: 'Last OOM',
    numeric: false,
    sortValue: (row) => row.lastOom.sortKey,
    cell: (row) => h('td', { class: `tone-text-${row.lastOom.tone}`, text: row.lastOom.text }),
  },
];

/** The columns this capture fills, in order. */
export function visibleColumns(rows: readonly PodRow[]): Column[] {
  return POD_COLUMNS.filter((column) => !column.shownFor || column.shownFor(rows));
}

export function sortPods(rows: readonly PodRow[], column: string, descending: boolean): PodRow[] {
  const spec = POD_COLUMNS.find((candidate) => candidate.key === column) ?? POD_COLUMNS.find((candidate) => candidate.key === 'footprint');
  if (!spec) return [...rows];
  return [...rows].sort((a, b) => {
    const x = spec.sortValue(a);
    const y = spec.sortValue(b);
    if (x === null && y === null) return 0;
    if (x === null) return 1; // unknown values last, whatever the direction
    if (y === null) return -1;
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return descending ? -order : order;
  });
}

function numberCell(cell: { text: string; exact: string }, tone?: Tone): HTMLElement {
  return h('td', { class: `num${tone ? ` tone-text-${tone}` : ''}`, text: cell.text, attrs: { title: cell.exact } });
}

export function renderPodsSection(
  rows: readonly PodRow[],
  sort: { column: string; descending: boolean },
  actions: Actions,
  onSort: (column: string) => void,
): HTMLElement {
  if (rows.length === 0) return section('pods', 'Pods', h('p', { class: 'muted', text: 'No pod cgroups in this capture.' }));
  const sorted = sortPods(rows, sort.column, sort.descending);
  const columns = visibleColumns(rows);
  const head = h(
    'tr',
    {},
    ...columns.map((column) => {
      const active = column.key === sort.column;
      const ariaSort = active ? (sort.descending ? 'descending' : 'ascending') : 'none';
      return h(
        'th',
        { class: column.numeric ? 'num' : '', attrs: { scope: 'col', 'aria-sort': ariaSort } },
        h(
          'button',
          { class: 'sort', attrs: { type: 'button', 'data-column': column.key }, on: { click: () => onSort(column.key) } },
          column.label,
          h('span', { class: 'sort-mark', attrs: { 'aria-hidden': 'true' }, text: active ? (sort.descending ? ' ▼' : ' ▲') : '' }),
        ),
      );
    }),
  );
  const body = h('tbody');
  for (const row of sorted) {
    const open = h('button', {
      class: 'link pod-link',
      text: row.pod,
      attrs: { type: 'button', title: `Open pod ${row.pod}`, 'data-pod-uid': row.podUid },
    });
    open.addEventListener('click', (event) => {
      event.stopPropagation();
      actions.openPod(row.podUid);
    });
    const tr = h(
      'tr',
      { class: 'pod-row', attrs: { 'data-pod-uid': row.podUid } },
      h('th', { attrs: { scope: 'row' } }, open, h('div', { class: 'sub', text: `${row.qos}${row.named ? ` · ${row.podUid}` : ''}` })),
      ...columns.flatMap((column) => (column.cell ? [column.cell(row)] : [])),
    );
    tr.addEventListener('click', () => actions.openPod(row.podUid));
    body.append(tr);
  }
  // Up/Down move between the pod buttons: the table is one tab stop per row otherwise.
  body.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const buttons = [...body.querySelectorAll<HTMLButtonElement>('button.pod-link')];
    const index = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (index < 0) return;
    const next = buttons[event.key === 'ArrowDown' ? Math.min(buttons.length - 1, index + 1) : Math.max(0, index - 1)];
    next?.focus();
    event.preventDefault();
  });
  const table = h(
    'table',
    { class: 'data pods', attrs: { id: 'pods-table', 'aria-describedby': 'pods-caption' } },
    h('caption', {
      attrs: { id: 'pods-caption' },
      text: `${rows.length} pods. Headroom = limit − (memory.current + GTT). Sort with the column headers; a click on a row opens the pod.`,
    }),
    h('thead', {}, head),
    body,
  );
  return section('pods', `Pods (${rows.length})`, h('div', { class: 'table-scroll' }, table));
}
