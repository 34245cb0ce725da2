// The fleet page: the verdict line first (a severity badge and the sentence), the verdicts with their remedies and
// docs, the nodes ranked by risk (nodeTable.ts), the top pods (over their limit; by GPU memory outside cgroups), the
// OOM kills by scope (killChart.ts) with the kills table, the HAMi enforcement table, and the problems of reading.
// The header has the window selector, Refresh and the exports. Right-Size Workloads' Recommendations section
// (recommendationsSection.ts) comes first when there is one. Every text from the cluster is set as text.
import type {
  FleetCommand,
  FleetCommandParams,
  FleetExportFormat,
  FleetExportResult,
  FleetNotification,
  FleetWindowChoice,
} from '../../src/core/fleet/fleetProtocol.ts';
import { FLEET_WINDOWS } from '../../src/core/fleet/fleetProtocol.ts';
import type { RequestOutcome } from '../../src/core/webviewIpc/requests.ts';
import type { FleetPodRowView, FleetViewModel } from '../../src/core/fleet/fleetViewModel.ts';
import type { Child } from '../shared/dom.ts';
import { append, clear, h } from '../shared/dom.ts';
import { KillChartView } from './killChart.ts';
import { NodeTable } from './nodeTable.ts';
import type { RecommendationActions } from './recommendationsSection.ts';
import { RecommendationsSection } from './recommendationsSection.ts';

/** What the page asks of the host: a command, an export (a request answered with where the file went), a patch copied. */
export interface FleetActions extends Pick<RecommendationActions, 'copyPatch'> {
  command<M extends FleetCommand['method']>(method: M, params: FleetCommandParams<M>): void;
  exportAs(
    format: FleetExportFormat,
    onLate: (outcome: RequestOutcome<FleetExportResult>) => void,
  ): Promise<RequestOutcome<FleetExportResult>>;
}

function section(id: string, title: string, ...children: Child[]): HTMLElement {
  const heading = `${id}-heading`;
  return h('section', { attrs: { id, 'aria-labelledby': heading } }, h('h2', { attrs: { id: heading }, text: title }), ...children);
}

interface PodColumn {
  readonly label: string;
  readonly value: (row: FleetPodRowView) => string;
  readonly numeric?: boolean;
}

/** HAMi rows rendered with the page; the rest on "Show … more". */
const HAMI_FIRST_ROWS = 100;

const EXPORT_LABELS: Readonly<Record<FleetExportFormat, string>> = { markdown: 'Markdown', json: 'JSON', csv: 'CSV (pods)' };

export class FleetApp {
  readonly #app: HTMLElement;
  readonly #actions: FleetActions;
  readonly #status: HTMLElement;
  readonly #error: HTMLElement;
  readonly #content: HTMLElement;
  readonly #window: HTMLSelectElement;
  readonly #exportStatus: HTMLElement;
  readonly #title: HTMLElement;
  readonly #sourceLine: HTMLElement;
  readonly #nodes: NodeTable;
  readonly #killsBox: HTMLElement;
  readonly #chart: KillChartView;
  readonly #recommendations: RecommendationsSection;
  #model: FleetViewModel | undefined;
  #painted = false;

  constructor(app: HTMLElement, actions: FleetActions) {
    this.#app = app;
    this.#actions = actions;
    this.#title = h('h1', { attrs: { id: 'title' }, text: 'gpumem fleet' });
    this.#sourceLine = h('p', { class: 'muted', attrs: { id: 'source-line' } });
    this.#window = h(
      'select',
      {
        attrs: { id: 'window', 'aria-label': 'Window of the peaks and OOM kills' },
        on: { change: () => this.#setWindow(this.#window.value) },
      },
      ...FLEET_WINDOWS.map((w) => h('option', { attrs: { value: w }, text: `Last ${w}` })),
    );
    this.#window.value = '24h';
    this.#exportStatus = h('span', { class: 'muted', attrs: { id: 'export-status', role: 'status', 'aria-live': 'polite' } });
    const exportButton = (format: FleetExportFormat): HTMLElement =>
      h('button', {
        class: 'button secondary',
        text: EXPORT_LABELS[format],
        attrs: { id: `export-${format}`, type: 'button', title: `Export the fleet summary as ${EXPORT_LABELS[format]}` },
        on: {
          click: () => {
            this.#exportStatus.textContent = 'Waiting for the save dialog…';
            this.#exportStatus.setAttribute('data-state', 'busy');
            const show = (outcome: RequestOutcome<FleetExportResult>): void => this.#showExport(outcome);
            void actions.exportAs(format, show).then(show);
          },
        },
      });
    const toolbar = h(
      'div',
      { class: 'toolbar', attrs: { role: 'toolbar', 'aria-label': 'Fleet actions' } },
      h('label', { attrs: { for: 'window' }, text: 'Window ' }),
      this.#window,
      h('button', {
        class: 'button',
        text: 'Refresh',
        attrs: { id: 'refresh', type: 'button' },
        on: { click: () => actions.command('refresh', {}) },
      }),
      h('span', { class: 'sep', attrs: { 'aria-hidden': 'true' } }),
      'Export ',
      exportButton('markdown'),
      exportButton('json'),
      exportButton('csv'),
      this.#exportStatus,
    );
    this.#status = h('p', {
      class: 'status muted',
      attrs: { id: 'status', role: 'status', 'aria-live': 'polite' },
      text: 'Reading the fleet…',
    });
    this.#error = h('div', { class: 'error', attrs: { id: 'error', role: 'alert' } });
    this.#error.hidden = true;
    this.#content = h('div', { attrs: { id: 'content' } });
    this.#nodes = new NodeTable((node) => actions.command('openNode', { node }));
    this.#killsBox = h('div', { class: 'chart-box', attrs: { id: 'kills-chart-box' } });
    this.#chart = new KillChartView(this.#killsBox);
    this.#recommendations = new RecommendationsSection({
      openWorkload: (target) => actions.command('openWorkload', target),
      copyPatch: (target, onLate) => actions.copyPatch(target, onLate),
    });
    app.append(
      h('header', {}, this.#title, this.#sourceLine, toolbar),
      this.#status,
      this.#error,
      this.#recommendations.element,
      this.#content,
    );
  }

  receive(message: FleetNotification): void {
    switch (message.method) {
      case 'progress':
        this.#status.textContent = message.params.text;
        this.#status.setAttribute('data-state', 'reading');
        return;
      case 'error':
        this.#error.hidden = false;
        this.#error.textContent = message.params.message;
        // No agent in the cluster: the scan is offered, never started from here (the host asks first).
        if (message.params.offerScan)
          this.#error.append(
            ' ',
            h('button', {
              attrs: { id: 'scan', type: 'button', title: 'Creates a debug pod on every ready GPU node; asks first' },
              text: 'Scan GPU nodes with debug pods…',
              on: { click: () => this.#actions.command('scan', {}) },
            }),
          );
        this.#status.textContent = '';
        this.#status.setAttribute('data-state', 'error');
        return;
      case 'state':
        this.#show(message.params.viewModel);
        return;
      case 'recommendations':
        this.#recommendations.show(message.params.viewModel);
        this.#recommendations.element.scrollIntoView({ block: 'start' });
        return;
      case 'panel':
        // Which fleet this is, before any of it is read (and while a restored panel reads it again).
        if (!this.#model) this.#title.textContent = `Fleet of ${message.params.state.context}`;
        this.#window.value = message.params.state.window;
        return;
    }
  }

  /** Where an export went: saved (the path), cancelled, or failed (the host's reason, or no answer in time). */
  #showExport(outcome: RequestOutcome<FleetExportResult>): void {
    const state = outcome.ok ? outcome.result.kind : 'failed';
    this.#exportStatus.setAttribute('data-state', state);
    this.#exportStatus.textContent = outcome.ok
      ? outcome.result.kind === 'saved'
        ? `Saved ${outcome.result.path}`
        : 'Cancelled'
      : `Failed: ${outcome.error}`;
  }

  themeChanged(): void {
    this.#chart.themeChanged();
  }

  #setWindow(value: string): void {
    const window = FLEET_WINDOWS.find((w) => w === value) as FleetWindowChoice | undefined;
    if (!window) return;
    this.#status.textContent = `Reading the fleet over ${window}…`;
    this.#actions.command('setWindow', { window });
  }

  #show(model: FleetViewModel): void {
    performance.mark('fleet:state');
    this.#model = model;
    this.#error.hidden = true;
    this.#status.textContent = '';
    this.#status.setAttribute('data-state', 'done');
    this.#title.textContent = `Fleet of ${model.header.context}`;
    this.#sourceLine.textContent = model.header.sourceLine;
    if ((FLEET_WINDOWS as readonly string[]).includes(model.header.window)) this.#window.value = model.header.window;
    clear(this.#content);
    append(
      this.#content,
      this.#verdictLine(model),
      this.#verdicts(model),
      section('nodes', `Nodes ranked by risk (${model.nodes.length.toLocaleString('en')})`, this.#nodes.element),
      this.#pods(model),
      this.#kills(model),
      this.#hami(model),
      model.problems.length > 0
        ? section('problems', 'Problems reading the fleet', h('ul', {}, ...model.problems.map((p) => h('li', { text: p }))))
        : null,
    );
    this.#nodes.show(model);
    if (!this.#painted) {
      this.#painted = true;
      // The second frame's callback runs once the first frame (the first paint) has been produced. The kills chart,
      // below the first screen, is drawn after it: Chart.js's set-up is not worth delaying the verdict and the nodes.
      requestAnimationFrame(() =>
        requestAnimationFrame(() => {
          performance.mark('fleet:painted');
          if (this.#model === model) this.#chart.show(model.kills.chart);
        }),
      );
    } else this.#chart.show(model.kills.chart);
    document.body.setAttribute('data-loaded', 'true');
  }

  #verdictLine(model: FleetViewModel): HTMLElement {
    return h(
      'p',
      { class: `verdict-line sev-${model.header.worst}`, attrs: { id: 'verdict-line', 'data-severity': model.header.worst } },
      h('span', { class: `badge badge-${model.header.worst}`, attrs: { id: 'verdict-badge' }, text: model.header.badge }),
      ' ',
      h('span', { attrs: { id: 'verdict-text' }, text: model.header.line }),
    );
  }

  #verdicts(model: FleetViewModel): HTMLElement | null {
    if (model.verdicts.length === 0) return null;
    return h(
      'ul',
      { class: 'verdicts', attrs: { id: 'verdicts', 'aria-label': 'Verdicts' } },
      ...model.verdicts.map((verdict) =>
        h(
          'li',
          { class: `verdict sev-${verdict.severity}`, attrs: { 'data-id': verdict.id } },
          h('span', { class: `badge badge-${verdict.severity}`, text: verdict.severity.toUpperCase() }),
          ' ',
          h('strong', { text: verdict.title }),
          h('p', { class: 'remedy', text: verdict.remedy }),
          h('a', { class: 'link', attrs: { href: verdict.docs, title: verdict.docs }, text: `Docs: ${verdict.id}` }),
        ),
      ),
    );
  }

  #podTable(id: string, caption: string, rows: readonly FleetPodRowView[], columns: readonly PodColumn[]): HTMLElement {
    if (rows.length === 0) return h('p', { class: 'muted', attrs: { id }, text: `${caption}: none.` });
    const open = (row: FleetPodRowView): void =>
      this.#actions.command('openPod', { namespace: row.namespace, pod: row.pod, uid: row.uid, node: row.node });
    return h(
      'table',
      { class: 'table', attrs: { id } },
      h('caption', { text: caption }),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { attrs: { scope: 'col' }, text: 'Pod' }),
          ...columns.map((c) => h('th', { class: c.numeric ? 'num' : '', attrs: { scope: 'col' }, text: c.label })),
        ),
      ),
      h(
        'tbody',
        {},
        ...rows.map((row) =>
          h(
            'tr',
            {
              class: 'clickable',
              attrs: {
                tabindex: 0,
                'data-uid': row.uid,
                'data-pod': row.name,
                'aria-label': `${row.name} on ${row.node}: open in the Clusters view and inspect`,
              },
              on: {
                click: () => open(row),
                keydown: (event) => {
                  const key = (event as KeyboardEvent).key;
                  if (key === 'Enter' || key === ' ') {
                    event.preventDefault();
                    open(row);
                  } else if (key === 'ArrowDown' || key === 'ArrowUp') {
                    event.preventDefault();
                    const target =
                      key === 'ArrowDown'
                        ? (event.currentTarget as HTMLElement).nextElementSibling
                        : (event.currentTarget as HTMLElement).previousElementSibling;
                    (target as HTMLElement | null)?.focus();
                  }
                },
              },
            },
            h('th', { attrs: { scope: 'row' } }, h('span', { class: 'pod-name', text: row.name })),
            ...columns.map((c) => h('td', { class: c.numeric ? 'num' : '', text: c.value(row) })),
          ),
        ),
      ),
    );
  }

  #pods(model: FleetViewModel): HTMLElement {
    const node: PodColumn = { label: 'Node', value: (row) => row.node };
    return section(
      'pods',
      'Top pods',
      this.#podTable('pods-over-limit', 'Over their limit once GPU memory is counted', model.overLimit, [
        { label: 'Over by', value: (row) => row.overBy.text, numeric: true },
        { label: 'True footprint (peak)', value: (row) => row.footprint.text, numeric: true },
        { label: 'Limit', value: (row) => row.limit.text, numeric: true },
        { label: 'Outside cgroups', value: (row) => row.unaccounted.text, numeric: true },
        node,
      ]),
      this.#podTable('pods-unaccounted', 'By GPU memory outside any cgroup', model.unaccounted, [
        { label: 'Outside cgroups', value: (row) => row.unaccounted.text, numeric: true },
        { label: 'cgroup', value: (row) => row.cgroup.text, numeric: true },
        { label: 'Limit', value: (row) => row.limit.text, numeric: true },
        node,
      ]),
    );
  }

  #kills(model: FleetViewModel): HTMLElement {
    const { totals, rows, when } = model.kills;
    return section(
      'kills',
      `OOM kills ${when}`,
      h('p', {
        attrs: { id: 'kills-totals' },
        text: `${totals.global} global (${totals.globalGpu} with the GPU signature), ${totals.memcg} cgroup, ${totals.unknown} of unknown scope.`,
      }),
      this.#killsBox,
      rows.length === 0
        ? null
        : h(
            'table',
            { class: 'table', attrs: { id: 'kills-table' } },
            h('caption', { text: 'Kills by pod' }),
            h(
              'thead',
              {},
              h('tr', {}, ...['Kills', 'Scope', 'GPU signature', 'Pod', 'Node'].map((t) => h('th', { attrs: { scope: 'col' }, text: t }))),
            ),
            h(
              'tbody',
              {},
              ...rows.map((row) =>
                h(
                  'tr',
                  { class: row.scope === 'global' ? 'tone-row-error' : '' },
                  h('td', { class: 'num', text: String(Math.round(row.count * 100) / 100) }),
                  h('td', { text: row.scope }),
                  h('td', { text: row.gpuSignature ? 'yes' : 'no' }),
                  h('td', { text: row.name }),
                  h('td', { text: row.node }),
                ),
              ),
            ),
          ),
    );
  }

  #hami(model: FleetViewModel): HTMLElement {
    if (model.hami.length === 0)
      return section('hami', 'HAMi enforcement', h('p', { class: 'muted', text: 'No HAMi container reported.' }));
    const row = (hami: FleetViewModel['hami'][number]): HTMLElement =>
      h(
        'tr',
        { attrs: { 'data-state': hami.state } },
        h('th', { attrs: { scope: 'row' }, text: hami.name }),
        h('td', {}, h('code', { text: hami.container })),
        h('td', { text: hami.node }),
        h('td', {
          class: hami.state === 'bypassed' ? 'tone-text-error' : hami.state === 'unknown' ? 'tone-text-warning' : 'tone-text-ok',
          text: hami.state,
        }),
        h('td', { class: 'num', text: hami.quota.text }),
      );
    // Every bypassing container is in the model, which on a large fleet is thousands of rows: the first ones are
    // rendered with the page (bypassed first), the rest when asked for, so they do not delay the first paint.
    const body = h('tbody', {}, ...model.hami.slice(0, HAMI_FIRST_ROWS).map(row));
    const rest = model.hami.length - HAMI_FIRST_ROWS;
    const more =
      rest > 0
        ? h('button', {
            attrs: { id: 'hami-more', type: 'button' },
            text: `Show ${rest.toLocaleString('en')} more HAMi containers`,
            on: {
              click: (event) => {
                append(body, ...model.hami.slice(HAMI_FIRST_ROWS).map(row));
                (event.currentTarget as HTMLElement).remove();
              },
            },
          })
        : null;
    return section(
      'hami',
      'HAMi enforcement',
      h(
        'table',
        { class: 'table', attrs: { id: 'hami-table' } },
        h(
          'thead',
          {},
          h('tr', {}, ...['Pod', 'Container', 'Node', 'Enforcement', 'Quota'].map((t) => h('th', { attrs: { scope: 'col' }, text: t }))),
        ),
        body,
      ),
      more,
    );
  }

  get model(): FleetViewModel | undefined {
    return this.#model;
  }

  get app(): HTMLElement {
    return this.#app;
  }
}
