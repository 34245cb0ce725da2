// The inspector's two charts, drawn with Chart.js 4 on <canvas> (no DOM labels, no inline styles: it runs
// under the panel's strict CSP):
//   MemoryBarChart  horizontal stacked bars (one per row of the view model's chart: the node, or the top
//                   pods plus "others"), the limit as a tick line over each bar, exact bytes in tooltips;
//                   keyboard: arrows move between bars (the tooltip follows and a live region reads the row),
//                   Enter opens the pod;
//   LiveChart       memory.current, GTT and MemAvailable over time for one pod or all pods.
// Colours come from the --vscode-* theme variables (readPalette), re-read when the theme changes.
import { maxOf } from '../../src/core/arrays.ts';
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';
import type { ActiveElement, ChartDataset, TooltipItem } from 'chart.js';
import type { TimeSeries } from '../../src/core/inspectorPanel/series.ts';
import type { ChartRow, SegmentKey } from '../../src/core/inspectorPanel/viewModelTypes.ts';
import { describeBytes, formatBytes } from '../../src/core/sizing.ts';
import { h, themeKind, themeReader } from '../shared/dom.ts';
import { listKeyTarget } from '../../src/core/listNavigation.ts';

Chart.register(BarController, BarElement, LineController, LineElement, PointElement, LinearScale, CategoryScale, Tooltip, Legend);

export interface Palette {
  readonly text: string;
  readonly grid: string;
  readonly border: string | undefined;
  readonly segments: Readonly<Record<SegmentKey, string>>;
  readonly limit: string;
  readonly memAvailable: string;
  readonly font: string;
  readonly fontSize: number;
}

/** The chart colours; keep them in step with the legend swatches in inspector.css. */
export function readPalette(): Palette {
  const themeVar = themeReader();
  const foreground = themeVar('--vscode-charts-foreground', themeVar('--vscode-foreground', '#cccccc'));
  const highContrast = themeKind().startsWith('high-contrast');
  const contrastBorder = themeVar('--vscode-contrastBorder', '');
  return {
    text: foreground,
    grid: themeVar('--vscode-charts-lines', 'rgba(128, 128, 128, 0.35)'),
    border: highContrast ? contrastBorder || foreground : undefined,
    segments: {
      accounted: themeVar('--vscode-charts-blue', '#3794ff'),
      gtt: themeVar('--vscode-charts-red', '#f14c4c'),
      free: themeVar('--vscode-charts-green', '#89d185'),
      kernel: themeVar('--vscode-charts-orange', '#d18616'),
      other: themeVar('--vscode-disabledForeground', '#8b8b8b'),
      vram: themeVar('--vscode-charts-purple', '#b180d7'),
    },
    limit: themeVar('--vscode-editor-foreground', foreground),
    memAvailable: themeVar('--vscode-charts-green', '#89d185'),
    font: themeVar('--vscode-font-family', 'sans-serif'),
    fontSize: Number.parseFloat(themeVar('--vscode-font-size', '13')) || 13,
  };
}

function applyDefaults(palette: Palette): void {
  Chart.defaults.color = palette.text;
  Chart.defaults.borderColor = palette.grid;
  Chart.defaults.font.family = palette.font;
  Chart.defaults.font.size = Math.max(11, palette.fontSize - 1);
}

const ROW_HEIGHT = 30;

/** The height of a memory chart's box for `rows` bars: set before the chart exists, so nothing moves when it is drawn. */
export function memoryChartHeight(rows: number): number {
  return rows * ROW_HEIGHT + 70;
}

/**
 * A tick step in bytes that gives at most `maxTicks` ticks up to `max`: a power of two times KiB, MiB, GiB
 * or TiB (so ticks read 16 GiB, 32 GiB… instead of 18.6 GiB, 37.3 GiB).
 */
export function byteStep(max: number, maxTicks = 8): number | undefined {
  if (!(max > 0) || !Number.isFinite(max)) return undefined;
  let step = 1024;
  while (max / step > maxTicks) step *= 2;
  return step;
}
const MAX_LABEL = 42;

function shortLabel(label: string): string {
  return label.length > MAX_LABEL ? `${label.slice(0, MAX_LABEL - 1)}…` : label;
}

export interface SeriesInfo {
  readonly key: SegmentKey;
  readonly label: string;
}

export interface MemoryBarChartOptions {
  readonly rows: readonly ChartRow[];
  readonly series: readonly SeriesInfo[];
  readonly palette: Palette;
  /** The canvas's accessible name: a summary of the data (the table next to it has every figure). */
  readonly label: string;
  readonly onOpenPod: (podUid: string) => void;
  /** Where keyboard focus moves are announced (aria-live). */
  readonly announce: (text: string) => void;
}

export class MemoryBarChart {
  readonly canvas: HTMLCanvasElement;
  readonly #chart: Chart;
  readonly #rows: readonly ChartRow[];
  readonly #options: MemoryBarChartOptions;
  #active = -1;

  constructor(container: HTMLElement, options: MemoryBarChartOptions) {
    this.#options = options;
    this.#rows = options.rows;
    const { palette, rows } = options;
    applyDefaults(palette);
    // Series that are zero on every row (VRAM on most APUs, "other" for pods) stay out of the legend.
    const series = options.series.filter((info) => rows.some((row) => row.segments[info.key] > 0));
    this.canvas = h('canvas', { attrs: { role: 'img', tabindex: 0, 'aria-label': options.label, 'data-rows': rows.length } });
    container.appendChild(this.canvas);
    container.style.height = `${memoryChartHeight(rows.length)}px`;
    const bars: ChartDataset<'bar', number[]>[] = series.map((info) => ({
      type: 'bar',
      label: info.label,
      data: rows.map((row) => row.segments[info.key]),
      backgroundColor: palette.segments[info.key],
      borderColor: palette.border ?? palette.segments[info.key],
      borderWidth: palette.border ? 1 : 0,
      stack: 'memory',
      barPercentage: 0.8,
      categoryPercentage: 0.9,
    }));
    const limit: ChartDataset<'line', (number | null)[]> = {
      type: 'line',
      label: 'limit',
      data: rows.map((row) => row.limit),
      indexAxis: 'y',
      showLine: false,
      stack: 'limit',
      pointStyle: 'line',
      pointRotation: 90,
      pointRadius: ROW_HEIGHT * 0.45,
      pointHoverRadius: ROW_HEIGHT * 0.45,
      pointBorderWidth: 3,
      pointHoverBorderWidth: 3,
      borderColor: palette.limit,
      backgroundColor: palette.limit,
      pointBorderColor: palette.limit,
      // Datasets with a lower order are drawn on top: the limit over the bars.
      order: -1,
    };
    const datasets = [...bars, ...(rows.some((row) => row.limit !== null) ? [limit] : [])] as ChartDataset<'bar', number[]>[];
    const max = maxOf(
      rows.map((row) =>
        Math.max(
          series.reduce((total, info) => total + row.segments[info.key], 0),
          row.limit ?? 0,
        ),
      ),
      0,
    );
    const step = byteStep(max);
    this.#chart = new Chart(this.canvas, {
      type: 'bar',
      data: { labels: rows.map((row) => row.label), datasets },
      options: {
        indexAxis: 'y',
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        interaction: { mode: 'index', axis: 'y', intersect: false },
        scales: {
          // Fixed bounds, steps and no label rotation: Chart.js then skips the work of finding them.
          x: {
            stacked: true,
            min: 0,
            ...(step ? { max: Math.ceil(max / step) * step } : {}),
            grid: { color: palette.grid },
            ticks: {
              color: palette.text,
              minRotation: 0,
              maxRotation: 0,
              ...(step ? { stepSize: step } : {}),
              callback: (value) => formatBytes(Number(value)),
            },
          },
          y: {
            stacked: true,
            grid: { display: false },
            ticks: {
              color: palette.text,
              autoSkip: false,
              minRotation: 0,
              maxRotation: 0,
              callback: (_value, index) => shortLabel(rows[index]?.label ?? ''),
            },
          },
        },
        plugins: {
          // The legend is HTML next to the charts (one for both, readable by screen readers): `false` keeps
          // Chart.js's legend plugin out of this chart altogether (with `display: false` it still builds labels;
          // its types do not allow `false`, its plugin service does).
          legend: false as unknown as { display: false },
          tooltip: {
            callbacks: {
              title: (items: TooltipItem<'bar'>[]) => rows[items[0]?.dataIndex ?? -1]?.label ?? '',
              label: (item: TooltipItem<'bar'>) =>
                item.raw === null || item.raw === undefined ? '' : `${item.dataset.label ?? ''}: ${describeBytes(Number(item.raw))}`,
              footer: (items: TooltipItem<'bar'>[]) => {
                const row = rows[items[0]?.dataIndex ?? -1];
                return row ? row.details.filter((line) => /^(true footprint|headroom|MemTotal|GPU memory charged)/.test(line)) : [];
              },
            },
          },
        },
        onClick: (_event, elements: ActiveElement[]) => {
          const row = rows[elements[0]?.index ?? -1];
          if (row?.podUid) options.onOpenPod(row.podUid);
        },
        onHover: (_event, elements: ActiveElement[]) => {
          this.canvas.style.cursor = rows[elements[0]?.index ?? -1]?.podUid ? 'pointer' : 'default';
        },
      },
    });
    this.canvas.addEventListener('keydown', (event) => this.#onKey(event));
    this.canvas.addEventListener('blur', () => this.#highlight(-1));
  }

  #onKey(event: KeyboardEvent): void {
    if (event.key === 'Enter' || event.key === ' ') {
      const row = this.#rows[this.#active];
      if (row?.podUid) this.#options.onOpenPod(row.podUid);
      event.preventDefault();
      return;
    }
    if (event.key === 'Escape') {
      this.#highlight(-1);
      return;
    }
    const next = listKeyTarget(event.key, this.#active, this.#rows.length, { horizontal: true });
    if (next === undefined) return;
    event.preventDefault();
    this.#highlight(next);
  }

  #highlight(index: number): void {
    this.#active = index;
    const chart = this.#chart;
    if (index < 0) {
      chart.setActiveElements([]);
      chart.tooltip?.setActiveElements([], { x: 0, y: 0 });
      chart.update('none');
      return;
    }
    const active = chart.data.datasets
      .map((_dataset, datasetIndex) => ({ datasetIndex, index }))
      .filter(({ datasetIndex }) => chart.getDatasetMeta(datasetIndex).data[index] !== undefined);
    const element = chart.getDatasetMeta(0).data[index];
    chart.setActiveElements(active);
    chart.tooltip?.setActiveElements(active, { x: element?.x ?? 0, y: element?.y ?? 0 });
    chart.update('none');
    const row = this.#rows[index];
    if (row) this.#options.announce(`${row.label}. ${row.details.join('. ')}.${row.podUid ? ' Press Enter to open the pod.' : ''}`);
  }

  destroy(): void {
    this.#chart.destroy();
    this.canvas.remove();
  }
}

export interface LiveChartOptions {
  readonly palette: Palette;
  readonly label: string;
}

const LIVE_SERIES = [
  { key: 'current', label: 'memory.current' },
  { key: 'gtt', label: 'GTT (no cgroup)' },
  { key: 'vram', label: 'VRAM (GPU)' },
  { key: 'memAvailable', label: 'MemAvailable (node)' },
] as const;
/** The KFD eviction rate: a duration per second, on its own axis at the right, shown only once a rate is known. */
const EVICTED_SERIES = { key: 'evicted', label: 'evicted (ms/s, KFD)' } as const;

export class LiveChart {
  readonly canvas: HTMLCanvasElement;
  readonly #chart: Chart<'line', { x: number; y: number | null }[]>;
  /** Whether the series holds an eviction rate yet. */
  #hasRate = false;

  constructor(container: HTMLElement, options: LiveChartOptions) {
    const { palette } = options;
    applyDefaults(palette);
    this.canvas = h('canvas', { attrs: { role: 'img', tabindex: 0, 'aria-label': options.label } });
    container.appendChild(this.canvas);
    const colour = {
      current: palette.segments.accounted,
      gtt: palette.segments.gtt,
      vram: palette.segments.vram,
      memAvailable: palette.memAvailable,
    };
    const bytesDatasets = LIVE_SERIES.map((series) => ({
      label: series.label,
      data: [] as { x: number; y: number | null }[],
      borderColor: colour[series.key],
      backgroundColor: colour[series.key],
      borderWidth: 2,
      pointRadius: 0,
      pointHitRadius: 6,
      spanGaps: true,
      yAxisID: 'y',
      ...(series.key === 'memAvailable' ? { borderDash: [6, 4] } : {}),
    }));
    this.#chart = new Chart(this.canvas, {
      type: 'line',
      data: {
        datasets: [
          ...bytesDatasets,
          {
            label: EVICTED_SERIES.label,
            data: [],
            borderColor: palette.segments.kernel,
            backgroundColor: palette.segments.kernel,
            borderWidth: 2,
            borderDash: [2, 3],
            pointRadius: 0,
            pointHitRadius: 6,
            spanGaps: false,
            yAxisID: 'y1',
            hidden: true,
          },
        ],
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        normalized: true,
        interaction: { mode: 'index', intersect: false },
        scales: {
          x: {
            type: 'linear',
            grid: { color: palette.grid },
            ticks: { color: palette.text, callback: (value) => `${Number(value).toFixed(0)} s` },
          },
          y: {
            beginAtZero: true,
            grid: { color: palette.grid },
            ticks: { color: palette.text, callback: (value) => formatBytes(Number(value)) },
          },
          y1: {
            display: false,
            position: 'right',
            beginAtZero: true,
            grid: { drawOnChartArea: false },
            ticks: { color: palette.text, callback: (value) => `${Number(value).toFixed(0)} ms/s` },
          },
        },
        plugins: {
          legend: {
            position: 'top',
            // No legend entry for the eviction rate until a sample has one (a node without KFD never shows it).
            labels: { color: palette.text, boxWidth: 14, filter: (item) => item.datasetIndex !== LIVE_SERIES.length || this.#hasRate },
          },
          tooltip: {
            callbacks: {
              title: (items) => `${Number(items[0]?.parsed.x ?? 0).toFixed(1)} s`,
              label: (item) =>
                `${item.dataset.label ?? ''}: ${item.parsed.y === null ? '—' : item.dataset.yAxisID === 'y1' ? `${item.parsed.y.toFixed(1)} ms/s` : describeBytes(item.parsed.y)}`,
            },
          },
        },
      },
    });
  }

  update(series: TimeSeries, label: string): void {
    const chart = this.#chart;
    LIVE_SERIES.forEach((info, index) => {
      const dataset = chart.data.datasets[index];
      if (dataset) dataset.data = series[info.key].map((point) => ({ x: point.x, y: point.y }));
    });
    // The eviction rate appears (with its axis) once a sample has one: most nodes have no KFD processes.
    const evicted = chart.data.datasets[LIVE_SERIES.length];
    const hasRate = series.evicted.some((point) => point.y !== null);
    if (evicted) {
      evicted.data = series.evicted.map((point) => ({ x: point.x, y: point.y }));
      // Shown when the first rate arrives; after that, the legend's toggle is the user's.
      if (hasRate !== this.#hasRate) evicted.hidden = !hasRate;
    }
    this.#hasRate = hasRate;
    const y1 = chart.options.scales?.y1;
    if (y1) y1.display = hasRate;
    let max = 0;
    for (const info of LIVE_SERIES) for (const point of series[info.key]) if (point.y !== null && point.y > max) max = point.y;
    const y = chart.options.scales?.y;
    if (y?.ticks) (y.ticks as { stepSize?: number }).stepSize = byteStep(max, 6);
    this.canvas.setAttribute('aria-label', label);
    chart.update('none');
  }

  destroy(): void {
    this.#chart.destroy();
    this.canvas.remove();
  }
}
