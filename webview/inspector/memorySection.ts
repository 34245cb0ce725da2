// The memory accounting section: the summary, the legend and the boxes the node and pod charts are drawn into
// (charts.ts), each with the same data as a table for screen readers.
import type { ChartRow, MemoryChart } from '../../src/core/inspectorPanel/viewModelTypes.ts';
import { formatBytes } from '../../src/core/sizing.ts';
import { memoryChartHeight } from './charts.ts';
import { h } from '../shared/dom.ts';
import { section } from './widgets.ts';

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
