// The inspector webview: renders the view model the host sends (or the one saved with setState, at once,
// after a hide/show or a window reload), and talks to the host only through the typed protocol
// (src/core/inspector/protocol.ts). Text from the target is set with textContent everywhere (dom.ts).
// First: marks when the bundle starts to run, before its modules (lit, the elements, Chart.js) are evaluated.
import './perfStart.ts';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import './inspector.css';
import type { InspectionSource, InspectorState, InspectorUiState, LiveState } from '../../src/core/inspector/protocol.ts';
import { command, INSPECTOR_STATE_VERSION, parseHostNotification, parseInspectorState } from '../../src/core/inspector/protocol.ts';
import { PendingRequests } from '../../src/core/inspector/requests.ts';
import type { SamplePoint } from '../../src/core/inspector/series.ts';
import { appendBounded, MAX_SAMPLES, timeSeries } from '../../src/core/inspector/series.ts';
import type { InspectorViewModel } from '../../src/core/inspector/viewModelTypes.ts';
import { formatBytes } from '../../src/core/quantity.ts';
import { LiveChart, MemoryBarChart, readPalette } from './charts.ts';
import { clear, h, themeKind } from './dom.ts';
import type { Actions } from './actions.ts';
import { loadState, post, saveState } from './host.ts';
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

let current: { model: InspectorViewModel; source: InspectionSource } | undefined;
let ui: InspectorUiState = DEFAULT_UI;
let samples: SamplePoint[] = [];
let liveState: LiveState | undefined;
let memoryCharts: MemoryBarChart[] = [];
let liveChart: LiveChart | undefined;
let chartSlots: ChartSlots | undefined;
let liveSlots: LiveSlots | null = null;
let podsHolder: HTMLElement | undefined;

const app = document.getElementById('app') ?? document.body.appendChild(h('main', { attrs: { id: 'app' } }));
const notice = h('div', { class: 'notice', attrs: { id: 'notice', role: 'status', 'aria-live': 'polite' } });

// Counts CSP violations (the e2e test and the bench read it): there must be none.
const csp = h('output', { class: 'visually-hidden', attrs: { id: 'csp-violations', 'data-count': 0, 'aria-hidden': 'true' } });
document.body.appendChild(csp);
let violations = 0;
document.addEventListener('securitypolicyviolation', (event) => {
  violations++;
  csp.setAttribute('data-count', String(violations));
  csp.textContent = `${event.violatedDirective} ${event.blockedURI}`;
});

// Requests (the exports, the raw sections' Copy) wait for the host's answer, with a timeout. The ids start
// with a random prefix of this page: a webview re-created on show never takes an answer meant for the old one.
const requests = new PendingRequests({
  send: post,
  idPrefix: [...crypto.getRandomValues(new Uint8Array(6))].map((byte) => byte.toString(16).padStart(2, '0')).join(''),
});

const actions: Actions = {
  openPod: (podUid) => post(command('openPod', { podUid })),
  openDocs: (docsId) => post(command('openDocs', { docsId })),
  setLive: (live) => post(command('setLive', { live })),
  request: (method, params, onLate) => requests.request(method, params, { onLate }),
};

function persist(): void {
  if (!current) return;
  const state: InspectorState = { v: INSPECTOR_STATE_VERSION, model: current.model, source: current.source, ui };
  saveState(state);
}

function destroyCharts(): void {
  for (const chart of memoryCharts) chart.destroy();
  memoryCharts = [];
  liveChart?.destroy();
  liveChart = undefined;
}

function renderCharts(): void {
  if (!current) return;
  destroyCharts();
  const palette = readPalette();
  const chart = current.model.chart;
  const slots = chartSlots;
  if (slots?.node && chart.node) {
    memoryCharts.push(
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
    memoryCharts.push(
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
  if (liveSlots) {
    liveChart = new LiveChart(liveSlots.chart, { palette, label: 'Live memory chart' });
    updateLive();
  }
}

function livePodLabel(): string {
  const pod = current?.model.live.pods.find((candidate) => candidate.podUid === ui.livePod);
  return pod ? pod.label : 'all pods (sum)';
}

function updateLive(): void {
  if (!liveSlots) return;
  liveSlots.chart.setAttribute('data-points', String(samples.length));
  if (!liveChart) return;
  const series = timeSeries(samples, ui.livePod === '' ? undefined : ui.livePod);
  const last = samples[samples.length - 1];
  const lastCurrent = series.current[series.current.length - 1]?.y;
  const lastGtt = series.gtt[series.gtt.length - 1]?.y;
  const label =
    samples.length === 0
      ? `Live memory of ${livePodLabel()}: no samples yet.`
      : `Live memory of ${livePodLabel()}, ${samples.length} samples over ${Math.round(((last?.t ?? 0) - (samples[0]?.t ?? 0)) / 1000)} s; latest memory.current ${lastCurrent === null || lastCurrent === undefined ? 'unknown' : formatBytes(lastCurrent)}, GTT ${lastGtt === null || lastGtt === undefined ? 'unknown' : formatBytes(lastGtt)}, MemAvailable ${last?.memAvailable === null || last?.memAvailable === undefined ? 'unknown' : formatBytes(last.memAvailable)}.`;
  liveChart.update(series, label);
}

function renderPods(): void {
  if (!current || !podsHolder) return;
  clear(podsHolder);
  podsHolder.append(
    renderPodsSection(current.model.pods, ui.sort, actions, (column) => {
      // A new column starts with what matters most: the largest figures first, but the least headroom first.
      ui = {
        ...ui,
        sort: { column, descending: ui.sort.column === column ? !ui.sort.descending : !['pod', 'container', 'headroom'].includes(column) },
      };
      persist();
      renderPods();
      podsHolder?.querySelector<HTMLButtonElement>(`button.sort[data-column="${column}"]`)?.focus();
    }),
  );
}

let renderGeneration = 0;
const root = document.documentElement;

/** Runs `task` in a task queued from the next frame's animation callback, that is once that frame is painted. */
function afterNextPaint(task: () => void): void {
  requestAnimationFrame(() => setTimeout(task, 0));
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
function render(): void {
  if (!current) return;
  performance.mark('inspector:render');
  const started = performance.now();
  const generation = ++renderGeneration;
  const { model } = current;
  root.removeAttribute('data-complete');
  root.removeAttribute('data-charted-at');
  destroyCharts();
  clear(app);
  document.title = model.header.title;
  chartSlots = renderMemorySection(model.chart);
  podsHolder = h('div', { attrs: { id: 'pods-holder' } });
  liveSlots = null;
  app.append(renderHeader(model, actions), notice, renderBanner(model.banner, actions), chartSlots.element, podsHolder);
  performance.mark('inspector:first-screen');
  afterNextPaint(() => {
    if (generation !== renderGeneration) return;
    performance.mark('inspector:painted');
    root.setAttribute('data-rendered-ms', (performance.now() - started).toFixed(1));
    root.setAttribute('data-painted-at', performance.now().toFixed(1));
    // What that painted frame held (the bench checks it was the content, not an empty page).
    root.setAttribute('data-painted-sections', [...app.children].map((element) => element.id || element.tagName.toLowerCase()).join(' '));
    renderCharts();
    performance.mark('inspector:charts');
    afterNextPaint(() => {
      if (generation !== renderGeneration) return;
      performance.mark('inspector:charts-painted');
      root.setAttribute('data-charted-at', performance.now().toFixed(1));
      renderRest(model);
    });
  });
}

function renderRest(model: InspectorViewModel): void {
  const palette = readPalette();
  renderPods();
  liveSlots = renderLiveSection(model, ui.livePod, actions, (podUid) => {
    ui = { ...ui, livePod: podUid };
    persist();
    updateLive();
  });
  const raw = renderRawSection(model.raw, ui.rawFilter, actions, (filter) => {
    ui = { ...ui, rawFilter: filter };
    persist();
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
    liveChart = new LiveChart(liveSlots.chart, { palette, label: 'Live memory chart' });
    updateLive();
    if (liveState) showLiveState(liveSlots, liveState);
  }
  performance.mark('inspector:complete');
  root.setAttribute('data-complete', 'true');
}

window.addEventListener('message', (event: MessageEvent) => {
  const message = parseHostNotification(event.data);
  if (!message) return;
  switch (message.method) {
    case 'update': {
      performance.mark('inspector:update');
      const { model, source } = message.params;
      const same = current?.source.id === source.id;
      current = { model, source };
      if (!same) {
        samples = [];
        render();
      }
      // setState copies the whole state to the workbench: after the first paint, not before it.
      setTimeout(persist, 50);
      break;
    }
    case 'samples':
      samples = message.params.points.slice(-MAX_SAMPLES);
      updateLive();
      break;
    case 'sample':
      appendBounded(samples, message.params.point, MAX_SAMPLES);
      updateLive();
      break;
    case 'liveState':
      liveState = message.params.state;
      if (liveSlots) showLiveState(liveSlots, liveState);
      break;
    case 'notice':
      renderNotice(notice, message.params.text, message.params.tone);
      break;
    case 'response':
      // An answer to no request of this page (already answered, or meant for an earlier page) is dropped.
      requests.settle(message.params);
      break;
  }
});

// The theme changes the body's class (vscode-dark, vscode-light, vscode-high-contrast…) and the variables:
// charts read their colours from the variables, so they are drawn again.
let theme = `${themeKind()} ${document.body.className}`;
new MutationObserver(() => {
  const next = `${themeKind()} ${document.body.className}`;
  if (next === theme) return;
  theme = next;
  root.setAttribute('data-theme', themeKind());
  renderCharts();
}).observe(document.body, { attributes: true, attributeFilter: ['class'] });
root.setAttribute('data-theme', themeKind());

const saved = parseInspectorState(loadState());
if (saved) {
  current = { model: saved.model, source: saved.source };
  ui = saved.ui;
  render();
} else {
  app.append(h('p', { class: 'muted', attrs: { id: 'loading' }, text: 'Loading the inspection…' }));
}
performance.mark('inspector:ready');
post(command('ready', { restored: saved !== undefined }));
