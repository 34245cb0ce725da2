// The OOM kills chart: Chart.js stacked bars by scope (global, cgroup, unknown), at most 48 points (the view model
// merges steps), colours from the theme's variables, redrawn when the theme changes. The canvas has an accessible
// name that says what it shows; the table under it lists every kill.
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import type { KillChart, KillScope } from '../../src/core/fleet/fleetViewModel.ts';
import { h, themeKind, themeReader } from '../shared/dom.ts';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);

function colours(): {
  readonly text: string;
  readonly grid: string;
  readonly border: string | undefined;
  readonly scope: Record<KillScope, string>;
} {
  const theme = themeReader();
  const text = theme('--vscode-charts-foreground', theme('--vscode-foreground', '#cccccc'));
  return {
    text,
    grid: theme('--vscode-charts-lines', 'rgba(128, 128, 128, 0.35)'),
    border: themeKind().startsWith('high-contrast') ? theme('--vscode-contrastBorder', text) : undefined,
    scope: {
      global: theme('--vscode-charts-red', '#f14c4c'),
      memcg: theme('--vscode-charts-orange', '#d18616'),
      unknown: theme('--vscode-disabledForeground', '#8b8b8b'),
    },
  };
}

export class KillChartView {
  readonly #box: HTMLElement;
  #chart: Chart | undefined;
  #data: KillChart | undefined;

  constructor(box: HTMLElement) {
    this.#box = box;
  }

  show(data: KillChart): void {
    this.#data = data;
    this.#draw();
  }

  themeChanged(): void {
    if (this.#data) this.#draw();
  }

  #draw(): void {
    const data = this.#data;
    if (!data) return;
    this.#chart?.destroy();
    this.#box.replaceChildren();
    const points = data.labels.length;
    const canvas = h('canvas', {
      attrs: { id: 'kills-chart', role: 'img', 'aria-label': data.description, 'data-points': points, 'data-mode': data.mode },
    });
    this.#box.appendChild(canvas);
    const palette = colours();
    Chart.defaults.color = palette.text;
    Chart.defaults.borderColor = palette.grid;
    Chart.defaults.font.family = themeReader()('--vscode-font-family', 'sans-serif');
    this.#chart = new Chart(canvas, {
      type: 'bar',
      data: {
        labels: [...data.labels],
        datasets: data.series.map((series) => ({
          label: series.label,
          data: [...series.data],
          backgroundColor: palette.scope[series.scope],
          borderColor: palette.border ?? palette.scope[series.scope],
          borderWidth: palette.border ? 1 : 0,
          stack: 'kills',
        })),
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: { stacked: true, grid: { display: false }, ticks: { color: palette.text, maxRotation: 0, autoSkip: true } },
          y: { stacked: true, beginAtZero: true, grid: { color: palette.grid }, ticks: { color: palette.text, precision: 0 } },
        },
        plugins: { legend: { display: data.series.length > 0, labels: { color: palette.text } } },
      },
    });
  }
}
