// The inspector page's state and what changes it: the inspection shown, the UI choices saved with it, the live
// samples and sampling status, the charts and the slots they are drawn into. One InspectorApp is created at
// start-up (main.ts) and owns all of it, as GitLens' webview apps own theirs; nothing lives at module level.
import type { HostNotification, InspectionSource, InspectorState, InspectorUiState, LiveState } from '../../src/core/inspector/protocol.ts';
import { INSPECTOR_STATE_VERSION } from '../../src/core/inspector/protocol.ts';
import type { PendingRequests } from '../../src/core/inspector/requests.ts';
import type { SamplePoint } from '../../src/core/inspectorPanel/series.ts';
import { appendBounded, MAX_SAMPLES, timeSeries } from '../../src/core/inspectorPanel/series.ts';
import type { InspectorViewModel } from '../../src/core/inspectorPanel/viewModelTypes.ts';
import { formatBytes } from '../../src/core/sizing.ts';
import type { Actions } from './actions.ts';
import { LiveChart, MemoryBarChart, readPalette } from './charts.ts';
import { clear, h } from '../shared/dom.ts';
import { renderHamiSection } from './hamiSection.ts';
import { renderHeader } from './header.ts';
import { renderKernelSection } from './kernelSection.ts';
import type { LiveSlots } from './liveSection.ts';
import { renderLiveSection, showLiveState } from './liveSection.ts';
import type { ChartSlots } from './memorySection.ts';
import { renderMemorySection } from './memorySection.ts';
import { renderOomSection } from './oomSection.ts';
import { renderPodsSection } from './podsSection.ts';
import { renderRawSection } from './rawSection.ts';
import { renderBanner, renderVerdicts } from './verdicts.ts';
import { renderNotice } from './widgets.ts';

const DEFAULT_UI: InspectorUiState = { sort: { column: 'footprint', descending: true }, rawFilter: '', livePod: '' };

/** Nothing to show until the host's first update (or the saved state) arrives. */
type PageState =
  { readonly kind: 'waiting' } | { readonly kind: 'showing'; readonly model: InspectorViewModel; readonly source: InspectionSource };

/** What the page is drawn into and talks through, made once by main.ts. */
export interface InspectorPage {
  readonly app: HTMLElement;
  readonly notice: HTMLElement;
  readonly root: HTMLElement;
  readonly actions: Actions;
  readonly requests: PendingRequests;
  readonly saveState: (state: InspectorState) => void;
}

/** Runs `task` in a task queued from the next frame's animation callback, that is once that frame is painted. */
function afterNextPaint(task: () => void): void {
  requestAnimationFrame(() => setTimeout(task, 0));
}

export class InspectorApp {
  readonly #page: InspectorPage;
  #state: PageState = { kind: 'waiting' };
  #ui: InspectorUiState = DEFAULT_UI;
  #samples: SamplePoint[] = [];
  #liveState: LiveState | undefined;
  #memoryCharts: MemoryBarChart[] = [];
  #liveChart: LiveChart | undefined;
  #chartSlots: ChartSlots | undefined;
  #liveSlots: LiveSlots | null = null;
  #podsHolder: HTMLElement | undefined;
  /** Bumped by each render: a deferred step of an older render does nothing. */
  #renderGeneration = 0;

  constructor(page: InspectorPage) {
    this.#page = page;
  }

  /** Shows the state saved with setState (after a hide/show or a window reload), at once. */
  restore(saved: InspectorState): void {
    this.#state = { kind: 'showing', model: saved.model, source: saved.source };
    this.#ui = saved.ui;
    this.#render();
  }

  receive(message: HostNotification): void {
    switch (message.method) {
      case 'update': {
        performance.mark('inspector:update');
        const { model, source } = message.params;
        const same = this.#state.kind === 'showing' && this.#state.source.id === source.id;
        this.#state = { kind: 'showing', model, source };
        if (!same) {
          this.#samples = [];
          this.#render();
        }
        // setState copies the whole state to the workbench: after the first paint, not before it.
        setTimeout(() => this.#persist(), 50);
        break;
      }
      case 'samples':
        this.#samples = message.params.points.slice(-MAX_SAMPLES);
        this.#updateLive();
        break;
      case 'sample':
        appendBounded(this.#samples, message.params.point, MAX_SAMPLES);
        this.#updateLive();
        break;
      case 'liveState':
        this.#liveState = message.params.state;
        if (this.#liveSlots) showLiveState(this.#liveSlots, this.#liveState);
        break;
      case 'notice':
        renderNotice(this.#page.notice, message.params.text, message.params.tone);
        break;
      case 'response':
        // An answer to no request of this page (already answered, or meant for an earlier page) is dropped.
        this.#page.requests.settle(message.params);
        break;
    }
  }

  /** Draws the charts again: their colours come from the theme's variables. */
  themeChanged(): void {
    this.#renderCharts();
  }

  #persist(): void {
    if (this.#state.kind !== 'showing') return;
    const { model, source } = this.#state;
    this.#page.saveState({ v: INSPECTOR_STATE_VERSION, model, source, ui: this.#ui });
  }

  #destroyCharts(): void {
    for (const chart of this.#memoryCharts) chart.destroy();
    this.#memoryCharts = [];
    this.#liveChart?.destroy();
    this.#liveChart = undefined;
  }

  #renderCharts(): void {
    if (this.#state.kind !== 'showing') return;
    this.#destroyCharts();
    const palette = readPalette();
    const chart = this.#state.model.chart;
    const slots = this.#chartSlots;
    const { actions } = this.#page;
    if (slots?.node && chart.node) {
      this.#memoryCharts.push(
        new MemoryBarChart(slots.node, {
          rows: [chart.node],
          series: chart.series,
          palette,
          label: chart.summary,
          onOpenPod: actions.openPod,
          announce: (text) => (slots.announcer.textContent = text),
        }),
      );
    }
    if (slots?.pods && chart.pods.length > 0) {
      const label = `Per-pod memory accounting, ${chart.pods.length} bars: ${chart.pods.map((row) => `${row.label} ${formatBytes(row.segments.accounted)} accounted, ${formatBytes(row.segments.gtt)} GTT${row.limit !== null ? `, limit ${formatBytes(row.limit)}` : ''}`).join('; ')}.`;
      this.#memoryCharts.push(
        new MemoryBarChart(slots.pods, {
          rows: chart.pods,
          series: chart.series,
          palette,
          label,
          onOpenPod: actions.openPod,
          announce: (text) => (slots.announcer.textContent = text),
        }),
      );
    }
    if (this.#liveSlots) {
      this.#liveChart = new LiveChart(this.#liveSlots.chart, { palette, label: 'Live memory chart' });
      this.#updateLive();
    }
  }

  #livePodLabel(): string {
    const pods = this.#state.kind === 'showing' ? this.#state.model.live.pods : [];
    const pod = pods.find((candidate) => candidate.podUid === this.#ui.livePod);
    return pod ? pod.label : 'all pods (sum)';
  }

  #updateLive(): void {
    if (!this.#liveSlots) return;
    const samples = this.#samples;
    this.#liveSlots.chart.setAttribute('data-points', String(samples.length));
    if (!this.#liveChart) return;
    const series = timeSeries(samples, this.#ui.livePod === '' ? undefined : this.#ui.livePod);
    const last = samples[samples.length - 1];
    const lastCurrent = series.current[series.current.length - 1]?.y;
    const lastGtt = series.gtt[series.gtt.length - 1]?.y;
    const label =
      samples.length === 0
        ? `Live memory of ${this.#livePodLabel()}: no samples yet.`
        : `Live memory of ${this.#livePodLabel()}, ${samples.length} samples over ${Math.round(((last?.t ?? 0) - (samples[0]?.t ?? 0)) / 1000)} s; latest memory.current ${lastCurrent === null || lastCurrent === undefined ? 'unknown' : formatBytes(lastCurrent)}, GTT ${lastGtt === null || lastGtt === undefined ? 'unknown' : formatBytes(lastGtt)}, MemAvailable ${last?.memAvailable === null || last?.memAvailable === undefined ? 'unknown' : formatBytes(last.memAvailable)}.`;
    this.#liveChart.update(series, label);
  }

  #renderPods(): void {
    const holder = this.#podsHolder;
    if (this.#state.kind !== 'showing' || !holder) return;
    clear(holder);
    holder.append(
      renderPodsSection(this.#state.model.pods, this.#ui.sort, this.#page.actions, (column) => {
        // A new column starts with what matters most: the largest figures first, but the least headroom first.
        const sort = this.#ui.sort;
        this.#ui = {
          ...this.#ui,
          sort: { column, descending: sort.column === column ? !sort.descending : !['pod', 'container', 'headroom'].includes(column) },
        };
        this.#persist();
        this.#renderPods();
        this.#podsHolder?.querySelector<HTMLButtonElement>(`button.sort[data-column="${column}"]`)?.focus();
      }),
    );
  }

  /**
   * Renders in three steps, each painted before the next starts:
   *   1. the first screen as DOM: header and toolbar, verdict banner, the memory section (summary, legend, the
   *      chart boxes already at their final height, the screen-reader tables);
   *   2. the two memory charts (Chart.js: its first chart of a page costs more than the whole DOM of step 1);
   *   3. the sections below (pods table, live chart, OOM timeline, HAMi, kernel, findings, raw capture).
   * The page records each step as a `performance` mark (inspector:*) and on <html> (data-painted-at,
   * data-charted-at, data-complete), which the bench and the end-to-end tests read.
   */
  #render(): void {
    if (this.#state.kind !== 'showing') return;
    performance.mark('inspector:render');
    const started = performance.now();
    const generation = ++this.#renderGeneration;
    const { model } = this.#state;
    const { app, notice, root, actions } = this.#page;
    root.removeAttribute('data-complete');
    root.removeAttribute('data-charted-at');
    this.#destroyCharts();
    clear(app);
    document.title = model.header.title;
    this.#chartSlots = renderMemorySection(model.chart);
    this.#podsHolder = h('div', { attrs: { id: 'pods-holder' } });
    this.#liveSlots = null;
    app.append(renderHeader(model, actions), notice, renderBanner(model.banner, actions), this.#chartSlots.element, this.#podsHolder);
    performance.mark('inspector:first-screen');
    afterNextPaint(() => {
      if (generation !== this.#renderGeneration) return;
      performance.mark('inspector:painted');
      root.setAttribute('data-rendered-ms', (performance.now() - started).toFixed(1));
      root.setAttribute('data-painted-at', performance.now().toFixed(1));
      // What that painted frame held (the bench checks it was the content, not an empty page).
      root.setAttribute('data-painted-sections', [...app.children].map((element) => element.id || element.tagName.toLowerCase()).join(' '));
      this.#renderCharts();
      performance.mark('inspector:charts');
      afterNextPaint(() => {
        if (generation !== this.#renderGeneration) return;
        performance.mark('inspector:charts-painted');
        root.setAttribute('data-charted-at', performance.now().toFixed(1));
        this.#renderRest(model);
      });
    });
  }

  #renderRest(model: InspectorViewModel): void {
    const palette = readPalette();
    const { app, root, actions } = this.#page;
    this.#renderPods();
    const liveSlots = renderLiveSection(model, this.#ui.livePod, actions, (podUid) => {
      this.#ui = { ...this.#ui, livePod: podUid };
      this.#persist();
      this.#updateLive();
    });
    this.#liveSlots = liveSlots;
    const raw = renderRawSection(model.raw, this.#ui.rawFilter, actions, (filter) => {
      this.#ui = { ...this.#ui, rawFilter: filter };
      this.#persist();
    });
    app.append(
      liveSlots?.element ?? '',
      renderOomSection(model.oom, actions),
      renderHamiSection(model.hami) ?? '',
      renderKernelSection(model.kernel) ?? '',
      renderVerdicts(model.verdicts, actions) ?? '',
      raw.element,
    );
    if (liveSlots) {
      this.#liveChart = new LiveChart(liveSlots.chart, { palette, label: 'Live memory chart' });
      this.#updateLive();
      if (this.#liveState) showLiveState(liveSlots, this.#liveState);
    }
    performance.mark('inspector:complete');
    root.setAttribute('data-complete', 'true');
  }
}
