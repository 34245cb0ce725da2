// The inspector's sections as DOM, from the view model. Every string from the target goes in as text
// (dom.ts); tables are native <table>s with scoped headers (sortable ones with aria-sort and a button per
// header), so screen readers and the keyboard get real table semantics.
import type { LiveState, RequestParams, RequestResult, SavedResult, WebviewRequestMethod } from '../../src/core/inspector/protocol.ts';
import type { RequestOutcome } from '../../src/core/inspector/requests.ts';
import type {
  Banner,
  ChartRow,
  HamiSection,
  InspectorViewModel,
  KernelRow,
  MemoryChart,
  OomTimeline,
  PodRow,
  Tone,
  VerdictRow,
} from '../../src/core/inspector/viewModelTypes.ts';
import { formatBytes } from '../../src/core/quantity.ts';
import { memoryChartHeight } from './charts.ts';
import type { Child } from './dom.ts';
import { clear, h } from './dom.ts';

export interface Actions {
  openPod(podUid: string): void;
  openDocs(docsId: string): void;
  setLive(live: boolean): void;
  /** Sends a request to the host; resolves with its result or why there is none (`onLate`: an answer after the timeout). */
  request<M extends WebviewRequestMethod>(
    method: M,
    params: RequestParams<M>,
    onLate: (outcome: RequestOutcome<RequestResult<M>>) => void,
  ): Promise<RequestOutcome<RequestResult<M>>>;
}

const TONE_LABEL: Record<Tone, string> = { error: 'Error', warning: 'Warning', info: 'Note', ok: 'OK' };
const STATUS_TONE: Record<string, Tone> = {
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

interface RequestButtonOptions<R> {
  readonly id?: string;
  readonly secondary?: boolean;
  readonly ariaLabel?: string;
  /** What the status next to the button says while the host works. */
  readonly busy: string;
  /** What it says once the host answered. */
  readonly done: (result: R) => string;
}

/**
 * A button that sends a request: busy (disabled, aria-busy, a status) until the host answers, then the result
 * or the failure next to it (`#<id>-status`, with data-state busy, done, cancelled, error or timeout).
 */
export function requestButton<M extends WebviewRequestMethod>(
  label: string,
  send: (onLate: (outcome: RequestOutcome<RequestResult<M>>) => void) => Promise<RequestOutcome<RequestResult<M>>>,
  options: RequestButtonOptions<RequestResult<M>>,
): HTMLElement {
  const element = h('vscode-button', {
    text: label,
    attrs: { id: options.id, secondary: options.secondary === true, 'aria-label': options.ariaLabel },
  }) as HTMLElement & { disabled: boolean };
  const status = h('span', {
    class: 'request-status',
    attrs: { id: options.id ? `${options.id}-status` : undefined, role: 'status', 'data-state': 'idle' },
  });
  let latest = 0;
  const show = (outcome: RequestOutcome<RequestResult<M>>): void => {
    element.disabled = false;
    element.removeAttribute('aria-busy');
    const cancelled = outcome.ok && outcome.result.kind === 'cancelled';
    status.setAttribute('data-state', outcome.ok ? (cancelled ? 'cancelled' : 'done') : outcome.reason === 'timeout' ? 'timeout' : 'error');
    status.className = `request-status ${outcome.ok ? (cancelled ? 'muted' : 'tone-text-ok') : 'tone-text-error'}`;
    status.textContent = outcome.ok ? options.done(outcome.result) : outcome.error;
  };
  element.addEventListener('click', () => {
    if (element.disabled) return;
    const mine = ++latest;
    element.disabled = true;
    element.setAttribute('aria-busy', 'true');
    status.setAttribute('data-state', 'busy');
    status.className = 'request-status muted';
    status.textContent = options.busy;
    // A late answer (after the timeout) still says what happened, unless the button was used again since.
    void send((late) => {
      if (mine === latest && !element.disabled) show(late);
    }).then((outcome) => {
      if (mine === latest) show(outcome);
    });
  });
  return h('span', { class: 'request' }, element, status);
}

function savedText(result: SavedResult): string {
  return result.kind === 'saved' ? `Saved ${result.path}.` : 'Not saved: the dialog was cancelled.';
}

function pre(text: string, className = 'evidence'): HTMLElement {
  return h('pre', { class: className, text });
}

// ---- header and banner ------------------------------------------------------------------------------------

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

export function renderBanner(banner: Banner, actions: Actions): HTMLElement {
  const counts = `${banner.counts.error} errors, ${banner.counts.warning} warnings, ${banner.counts.info} notes`;
  return h(
    'section',
    { class: `banner tone-${banner.tone}`, attrs: { id: 'banner', role: 'status', 'aria-label': 'Verdict' } },
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
        h('p', { text: verdict.explanation }),
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

// ---- memory accounting -------------------------------------------------------------------------------------

/** The chart's data as a table that only screen readers see (and the e2e test reads). */
function chartTable(caption: string, rows: readonly ChartRow[], chart: MemoryChart): HTMLElement {
  const series = chart.series.filter((info) => rows.some((row) => row.segments[info.key] > 0));
  return h(
    'table',
    { class: 'visually-hidden chart-data' },
    h('caption', { text: caption }),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { text: 'Row', attrs: { scope: 'col' } }),
        ...series.map((info) => h('th', { text: info.label, attrs: { scope: 'col' } })),
        h('th', { text: 'limit', attrs: { scope: 'col' } }),
      ),
    ),
    h(
      'tbody',
      {},
      ...rows.map((row) =>
        h(
          'tr',
          {},
          h('th', { text: row.label, attrs: { scope: 'row' } }),
          ...series.map((info) => h('td', { text: formatBytes(row.segments[info.key]) })),
          h('td', { text: row.limit === null ? 'none' : formatBytes(row.limit) }),
        ),
      ),
    ),
  );
}

export interface ChartSlots {
  readonly element: HTMLElement;
  readonly node: HTMLElement | null;
  readonly pods: HTMLElement | null;
  readonly announcer: HTMLElement;
}

export function renderMemorySection(chart: MemoryChart): ChartSlots {
  const announcer = h('div', { class: 'visually-hidden', attrs: { 'aria-live': 'polite', id: 'chart-announcer' } });
  if (!chart.available || !chart.node) {
    return {
      element: section('memory', 'Memory accounting', h('p', { class: 'muted', text: chart.summary }), announcer),
      node: null,
      pods: null,
      announcer,
    };
  }
  // The boxes get their final height now (the charts are drawn once this has painted).
  const node = h('div', { class: 'chart-box chart-node', attrs: { id: 'memory-chart-node' } });
  node.style.height = `${memoryChartHeight(1)}px`;
  const pods = chart.pods.length > 0 ? h('div', { class: 'chart-box chart-pods', attrs: { id: 'memory-chart-pods' } }) : null;
  if (pods) pods.style.height = `${memoryChartHeight(chart.pods.length)}px`;
  const present = chart.series.filter((info) => [chart.node, ...chart.pods].some((row) => row !== null && row.segments[info.key] > 0));
  const legend = h(
    'ul',
    { class: 'legend', attrs: { 'aria-label': 'Legend' } },
    ...present.map((info) => h('li', {}, h('span', { class: `swatch swatch-${info.key}`, attrs: { 'aria-hidden': 'true' } }), info.label)),
    h('li', {}, h('span', { class: 'swatch swatch-limit', attrs: { 'aria-hidden': 'true' } }), 'memory limit (node: MemTotal)'),
  );
  const element = section(
    'memory',
    'Memory accounting',
    h('p', { class: 'muted', attrs: { id: 'memory-summary' }, text: chart.summary }),
    legend,
    node,
    chartTable('Node memory accounting', [chart.node], chart),
    pods
      ? h('h3', {
          text:
            chart.totalPods > chart.shownPods
              ? `Pods: the ${chart.shownPods} largest true footprints, ${chart.totalPods - chart.shownPods} more summed`
              : 'Pods by true footprint',
        })
      : h('p', { class: 'muted', text: 'No pods on this node.' }),
    pods,
    pods ? chartTable('Pod memory accounting', chart.pods, chart) : null,
    pods ? h('p', { class: 'hint', text: 'Arrow keys move between bars in a focused chart; Enter or a click opens the pod.' }) : null,
    announcer,
  );
  return { element, node, pods, announcer };
}

// ---- pods table ----------------------------------------------------------------------------------------------

interface Column {
  readonly key: string;
  readonly label: string;
  readonly numeric: boolean;
  readonly sortValue: (row: PodRow) => number | string | null;
}

export const POD_COLUMNS: readonly Column[] = [
  { key: 'pod', label: 'Pod', numeric: false, sortValue: (row) => row.pod },
  { key: 'container', label: 'Container', numeric: false, sortValue: (row) => row.container },
  { key: 'limit', label: 'Limit', numeric: true, sortValue: (row) => row.limit.value },
  { key: 'current', label: 'memory.current', numeric: true, sortValue: (row) => row.current.value },
  { key: 'gtt', label: 'GTT', numeric: true, sortValue: (row) => row.gtt.value },
  { key: 'footprint', label: 'True footprint', numeric: true, sortValue: (row) => row.footprint.value },
  { key: 'headroom', label: 'Headroom', numeric: true, sortValue: (row) => row.headroom.value },
  { key: 'lastOom', label: 'Last OOM', numeric: false, sortValue: (row) => row.lastOom.sortKey },
];

export function sortPods(rows: readonly PodRow[], column: string, descending: boolean): PodRow[] {
  const spec = POD_COLUMNS.find((candidate) => candidate.key === column) ?? POD_COLUMNS[5];
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
  const head = h(
    'tr',
    {},
    ...POD_COLUMNS.map((column) => {
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
      h('td', {}, h('code', { text: row.container }), ...row.processes.map((process) => h('div', { class: 'sub', text: process }))),
      numberCell(row.limit),
      numberCell(row.current),
      numberCell(row.gtt),
      numberCell(row.footprint),
      numberCell(row.headroom, row.headroomTone),
      h('td', { class: `tone-text-${row.lastOom.tone}`, text: row.lastOom.text }),
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

// ---- OOM timeline ---------------------------------------------------------------------------------------------

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

// ---- HAMi checklist ------------------------------------------------------------------------------------------

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

// ---- kernel, driver, dmem -----------------------------------------------------------------------------------

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

// ---- live sampling -------------------------------------------------------------------------------------------

export interface LiveSlots {
  readonly element: HTMLElement;
  readonly chart: HTMLElement;
  readonly status: HTMLElement;
  readonly toggle: HTMLElement & { disabled: boolean };
  readonly select: HTMLSelectElement;
  readonly debug: HTMLElement;
}

export function renderLiveSection(
  model: InspectorViewModel,
  selected: string,
  actions: Actions,
  onSelect: (podUid: string) => void,
): LiveSlots | null {
  if (!model.live.possible) return null;
  const select = h('select', { attrs: { id: 'live-pod', 'aria-label': 'Pod the live chart follows' } });
  select.append(h('option', { text: 'All pods (sum)', attrs: { value: '' } }));
  for (const pod of model.live.pods)
    select.append(h('option', { text: pod.label, attrs: { value: pod.podUid, selected: pod.podUid === selected } }));
  select.addEventListener('change', () => onSelect(select.value));
  const status = h('span', {
    class: 'live-status',
    attrs: { id: 'live-status', role: 'status' },
    text: 'Live sampling: waiting for the host…',
  });
  const toggle = h('vscode-button', { text: 'Pause', attrs: { id: 'live-toggle', secondary: true, disabled: true } }) as HTMLElement & {
    disabled: boolean;
  };
  toggle.addEventListener('click', () => {
    if (toggle.disabled) return;
    actions.setLive(toggle.dataset.live !== 'true');
  });
  const chart = h('div', { class: 'chart-box chart-live', attrs: { id: 'live-chart', 'data-points': 0 } });
  const debug = h('output', {
    class: 'visually-hidden',
    attrs: { id: 'live-debug', 'data-samples': 0, 'data-status': 'off', 'aria-hidden': 'true' },
  });
  const element = section(
    'live',
    'Live sampling',
    h('div', { class: 'live-controls' }, toggle, h('label', { attrs: { for: 'live-pod' }, text: 'Pod: ' }), select, status),
    h('p', {
      class: 'hint',
      text: "memory.current (what the cgroup is charged) against GTT (charged to no cgroup) and the node's MemAvailable. The light probe re-runs on the open connection every few seconds (setting gpumem.inspector.sampleSeconds); it stops while the panel is hidden and when it closes.",
    }),
    chart,
    debug,
  );
  return { element, chart, status, toggle, select, debug };
}

export function showLiveState(slots: LiveSlots, state: LiveState): void {
  slots.status.textContent = state.detail;
  const running = state.status === 'running';
  slots.toggle.textContent = running ? 'Pause' : 'Resume';
  slots.toggle.dataset.live = running ? 'true' : 'false';
  slots.toggle.disabled = !(state.status === 'running' || state.status === 'paused');
  slots.debug.setAttribute('data-status', state.status);
  slots.debug.setAttribute('data-samples', String(state.samples));
}

export function renderNotice(target: HTMLElement, text: string, tone: 'info' | 'error'): void {
  clear(target);
  target.className = `notice tone-text-${tone === 'error' ? 'error' : 'info'}`;
  target.textContent = text;
}
