// The nodes, ranked by risk: a virtualised table (only the rows in view are in the DOM, so 5,000 nodes scroll
// smoothly), sortable by every column (a header button; aria-sort says which), filtered by vendor, unified memory,
// a label (`key=value` or `key`) and a namespace. Each row has a small stacked bar of MemTotal: cgroup memory / GPU
// memory outside any cgroup / free, sized through the CSSOM (the CSP allows no style attributes). Keyboard: Up/Down,
// Page Up/Down, Home/End move between rows (the list scrolls along); Enter opens the node.
import type { FleetNodeRow, FleetViewModel, NodeFilter, NodeSortKey, SortDirection } from '../../src/core/fleet/fleetViewModel.ts';
import { filterNodes, NO_FILTER, nodeRowSummary, sortNodes, visibleRange } from '../../src/core/fleet/fleetViewModel.ts';
import { clear, h } from '../shared/dom.ts';
import { listKeyTarget } from '../../src/core/listNavigation.ts';

export const ROW_HEIGHT = 30;
const VIEWPORT_ROWS = 14;

interface Column {
  readonly key: NodeSortKey;
  readonly label: string;
  readonly numeric: boolean;
  readonly cell: (row: FleetNodeRow) => HTMLElement;
  /** The first direction a click sorts in. */
  readonly first: SortDirection;
}

const text = (value: string, className = ''): HTMLElement => h('div', { class: `cell ${className}`, attrs: { role: 'cell' }, text: value });

function barCell(row: FleetNodeRow): HTMLElement {
  const bar = h('div', { class: 'bar', attrs: { role: 'img', 'aria-label': nodeRowSummary(row) } });
  if (row.bar) {
    for (const [key, share] of [
      ['cgroup', row.bar.cgroup],
      ['outside', row.bar.unaccounted],
      ['free', row.bar.free],
    ] as const) {
      const segment = h('span', { class: `seg seg-${key}` });
      segment.style.width = `${(share * 100).toFixed(2)}%`;
      bar.appendChild(segment);
    }
  } else bar.classList.add('bar-unknown');
  return h('div', { class: 'cell cell-bar', attrs: { role: 'cell' } }, bar);
}

const COLUMNS: readonly Column[] = [
  { key: 'rank', label: '#', numeric: true, first: 'ascending', cell: (row) => text(String(row.rank), 'num muted') },
  {
    key: 'node',
    label: 'Node',
    numeric: false,
    first: 'ascending',
    cell: (row) =>
      h(
        'div',
        { class: 'cell cell-node', attrs: { role: 'rowheader' } },
        h('span', { class: `dot tone-${row.tone}`, attrs: { 'aria-hidden': 'true' } }),
        h('span', { class: 'node-name', text: row.node, attrs: { title: nodeRowSummary(row) } }),
        row.stale ? h('span', { class: 'tag', text: 'stale' }) : null,
      ),
  },
  { key: 'risk', label: 'Used', numeric: true, first: 'descending', cell: barCell },
  { key: 'risk', label: 'Risk', numeric: true, first: 'descending', cell: (row) => text(row.risk.text, `num tone-text-${row.tone}`) },
  { key: 'memTotal', label: 'MemTotal', numeric: true, first: 'descending', cell: (row) => text(row.memTotal.text, 'num') },
  { key: 'cgroup', label: 'cgroups', numeric: true, first: 'descending', cell: (row) => text(row.cgroup.text, 'num') },
  { key: 'unaccounted', label: 'Outside cgroups', numeric: true, first: 'descending', cell: (row) => text(row.unaccounted.text, 'num') },
  { key: 'free', label: 'Free', numeric: true, first: 'ascending', cell: (row) => text(row.free.text, 'num') },
  { key: 'vendor', label: 'Vendor', numeric: false, first: 'ascending', cell: (row) => text(row.vendorText) },
  {
    key: 'kills',
    label: 'Global kills',
    numeric: true,
    first: 'descending',
    cell: (row) => text(row.globalKills > 0 ? `${row.globalKills}${row.gpuKills > 0 ? ` (${row.gpuKills} GPU)` : ''}` : '0', 'num'),
  },
  { key: 'pods', label: 'Pods', numeric: true, first: 'descending', cell: (row) => text(String(row.pods), 'num') },
];

export class NodeTable {
  readonly element: HTMLElement;
  readonly #onOpen: (node: string) => void;
  readonly #count: HTMLElement;
  readonly #header: HTMLElement;
  readonly #scroller: HTMLElement;
  readonly #spacer: HTMLElement;
  readonly #vendor: HTMLSelectElement;
  readonly #unified: HTMLSelectElement;
  readonly #label: HTMLInputElement;
  readonly #labelKeys: HTMLDataListElement;
  readonly #namespace: HTMLSelectElement;
  #all: readonly FleetNodeRow[] = [];
  #rows: FleetNodeRow[] = [];
  #filter: NodeFilter = NO_FILTER;
  #sort: { key: NodeSortKey; column: number; direction: SortDirection } = { key: 'rank', column: 0, direction: 'ascending' };
  #focused = 0;
  #frame = 0;
  #labelTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(onOpen: (node: string) => void) {
    this.#onOpen = onOpen;
    const changed = (): void => this.#filterChanged();
    this.#vendor = h('select', { attrs: { id: 'filter-vendor', 'aria-label': 'Vendor' }, on: { change: changed } });
    this.#unified = h(
      'select',
      { attrs: { id: 'filter-unified', 'aria-label': 'Unified memory' }, on: { change: changed } },
      h('option', { attrs: { value: 'any' }, text: 'Any memory' }),
      h('option', { attrs: { value: 'yes' }, text: 'Unified memory' }),
      h('option', { attrs: { value: 'no' }, text: 'Discrete GPU memory' }),
    );
    this.#labelKeys = h('datalist', { attrs: { id: 'label-keys' } });
    this.#label = h('input', {
      attrs: {
        id: 'filter-label',
        type: 'search',
        placeholder: 'label: key=value',
        'aria-label': 'Label (key=value or key)',
        list: 'label-keys',
        spellcheck: 'false',
      },
      on: {
        input: () => {
          clearTimeout(this.#labelTimer);
          this.#labelTimer = setTimeout(changed, 150);
        },
      },
    });
    this.#namespace = h('select', { attrs: { id: 'filter-namespace', 'aria-label': 'Namespace' }, on: { change: changed } });
    this.#count = h('span', { class: 'muted', attrs: { id: 'node-count', role: 'status', 'aria-live': 'polite' } });
    this.#header = h('div', { class: 'grid-row head', attrs: { role: 'row', 'aria-rowindex': 1 } });
    this.#spacer = h('div', { class: 'spacer', attrs: { role: 'rowgroup' } });
    this.#scroller = h('div', { class: 'node-scroll', attrs: { id: 'node-scroll' }, on: { scroll: () => this.#schedule() } }, this.#spacer);
    this.#scroller.style.height = `${VIEWPORT_ROWS * ROW_HEIGHT}px`;
    this.element = h(
      'div',
      {},
      h(
        'div',
        { class: 'filters', attrs: { role: 'group', 'aria-label': 'Filter the nodes' } },
        this.#vendor,
        this.#unified,
        this.#label,
        this.#labelKeys,
        this.#namespace,
        this.#count,
      ),
      h(
        'div',
        { class: 'node-table', attrs: { id: 'node-table', role: 'table', 'aria-label': 'GPU nodes ranked by risk' } },
        h('div', { attrs: { role: 'rowgroup' } }, this.#header),
        this.#scroller,
      ),
      h(
        'div',
        { class: 'legend', attrs: { 'aria-hidden': 'true' } },
        h('span', { class: 'swatch seg-cgroup' }),
        'cgroup memory ',
        h('span', { class: 'swatch seg-outside' }),
        'GPU memory outside cgroups (GTT) ',
        h('span', { class: 'swatch seg-free' }),
        'free, of MemTotal',
      ),
    );
    this.#renderHeader();
  }

  show(model: FleetViewModel): void {
    this.#all = model.nodes;
    const keep = (select: HTMLSelectElement, options: readonly [string, string][]): void => {
      const value = select.value;
      select.replaceChildren(...options.map(([v, t]) => h('option', { attrs: { value: v }, text: t })));
      select.value = options.some(([v]) => v === value) ? value : (options[0]?.[0] ?? '');
    };
    keep(this.#vendor, [['', 'All vendors'], ...model.facets.vendors.map((v): [string, string] => [v.value, `${v.text} (${v.count})`])]);
    keep(this.#namespace, [['', 'All namespaces'], ...model.facets.namespaces.map((ns): [string, string] => [ns, ns])]);
    this.#labelKeys.replaceChildren(...model.facets.labelKeys.slice(0, 500).map((key) => h('option', { attrs: { value: `${key}=` } })));
    this.#filterChanged();
  }

  #filterChanged(): void {
    const unified = this.#unified.value;
    this.#filter = {
      vendor: this.#vendor.value,
      unified: unified === 'yes' || unified === 'no' ? unified : 'any',
      label: this.#label.value,
      namespace: this.#namespace.value,
    };
    this.#apply();
  }

  #apply(): void {
    const filtered = filterNodes(this.#all, this.#filter);
    this.#rows =
      this.#sort.key === 'rank' && this.#sort.direction === 'ascending'
        ? filtered
        : sortNodes(filtered, this.#sort.key, this.#sort.direction);
    this.#focused = Math.min(this.#focused, Math.max(0, this.#rows.length - 1));
    this.#count.textContent =
      this.#rows.length === this.#all.length
        ? `${this.#all.length.toLocaleString('en')} nodes`
        : `Showing ${this.#rows.length.toLocaleString('en')} of ${this.#all.length.toLocaleString('en')} nodes`;
    this.element.querySelector('.node-table')?.setAttribute('aria-rowcount', String(this.#rows.length + 1));
    this.#spacer.style.height = `${Math.max(1, this.#rows.length) * ROW_HEIGHT}px`;
    this.#renderHeader();
    this.#render();
  }

  #renderHeader(): void {
    clear(this.#header);
    COLUMNS.forEach((column, index) => {
      const active = this.#sort.column === index;
      const button = h('button', {
        class: 'sort',
        text: column.label,
        attrs: { type: 'button', 'data-column': column.label, title: `Sort by ${column.label}` },
        on: { click: () => this.sortBy(index) },
      });
      if (active)
        button.appendChild(
          h('span', { class: 'arrow', attrs: { 'aria-hidden': 'true' }, text: this.#sort.direction === 'ascending' ? ' ▲' : ' ▼' }),
        );
      this.#header.appendChild(
        h(
          'div',
          {
            class: `cell ${column.numeric ? 'num' : ''}`,
            attrs: { role: 'columnheader', 'aria-sort': active ? this.#sort.direction : 'none' },
          },
          button,
        ),
      );
    });
  }

  /** Sorts by the column at `index`; again reverses. */
  sortBy(index: number): void {
    const column = COLUMNS[index];
    if (!column) return;
    const direction = this.#sort.column === index ? (this.#sort.direction === 'ascending' ? 'descending' : 'ascending') : column.first;
    this.#sort = { key: column.key, column: index, direction };
    this.#apply();
  }

  #schedule(): void {
    if (this.#frame) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      this.#render();
    });
  }

  #render(): void {
    const { first, end } = visibleRange(
      this.#rows.length,
      this.#scroller.scrollTop,
      this.#scroller.clientHeight || VIEWPORT_ROWS * ROW_HEIGHT,
      ROW_HEIGHT,
    );
    const hadFocus = this.#spacer.contains(document.activeElement);
    clear(this.#spacer);
    if (this.#rows.length === 0) {
      this.#spacer.appendChild(
        h('div', { class: 'empty muted', text: this.#all.length === 0 ? 'No GPU node reported.' : 'No node matches the filters.' }),
      );
      return;
    }
    for (let index = first; index < end; index++) {
      const row = this.#rows[index];
      if (!row) continue;
      const element = h(
        'div',
        {
          class: `grid-row node-row${index % 2 ? ' odd' : ''}`,
          attrs: {
            role: 'row',
            'aria-rowindex': index + 2,
            tabindex: index === this.#focused ? 0 : -1,
            'data-node': row.node,
            'data-index': index,
          },
          on: {
            click: () => {
              this.#focused = index;
              this.#onOpen(row.node);
            },
            keydown: (event) => this.#onKey(event as KeyboardEvent, index),
          },
        },
        ...COLUMNS.map((column) => column.cell(row)),
      );
      element.style.transform = `translateY(${index * ROW_HEIGHT}px)`;
      this.#spacer.appendChild(element);
    }
    if (hadFocus) this.#focusRow(this.#focused, false);
  }

  #focusRow(index: number, scroll: boolean): void {
    if (scroll) {
      const top = index * ROW_HEIGHT;
      const view = this.#scroller;
      if (top < view.scrollTop) view.scrollTop = top;
      else if (top + ROW_HEIGHT > view.scrollTop + view.clientHeight) view.scrollTop = top + ROW_HEIGHT - view.clientHeight;
      this.#render();
    }
    const element = this.#spacer.querySelector<HTMLElement>(`[data-index="${index}"]`);
    for (const other of this.#spacer.querySelectorAll<HTMLElement>('[tabindex="0"]')) if (other !== element) other.tabIndex = -1;
    if (element) {
      element.tabIndex = 0;
      element.focus({ preventScroll: true });
    }
  }

  #onKey(event: KeyboardEvent, index: number): void {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      const row = this.#rows[index];
      if (row) this.#onOpen(row.node);
      return;
    }
    const page = Math.max(1, Math.floor(this.#scroller.clientHeight / ROW_HEIGHT) - 1);
    const next = listKeyTarget(event.key, index, this.#rows.length, { page });
    if (next === undefined) return;
    event.preventDefault();
    this.#focused = next;
    this.#focusRow(next, true);
  }
}
