// The memory accounting chart: stacked per node and per pod (cgroup-accounted, GTT no cgroup is charged
// for, VRAM, free), the limit as a line, exact bytes for tooltips; the top N pods by true footprint plus
// one "others" row, so 50 pods stay readable.
import type { Inspection } from '../inspectionRun/analyze.ts';
import { describeBytes, formatBytes } from '../sizing.ts';
import type { KernelMemory } from '../verdicts/memory/kernelMemory.ts';
import type { PodAccounting } from '../verdicts/memory/unaccountedMemory.ts';
import type { ChartSegments, ChartRow, MemoryChart } from './viewModelTypes.ts';
import { SERIES } from './viewModelTypes.ts';
import { bytesCell, plural, podLabel } from './cells.ts';

function podSegments(pod: PodAccounting): ChartSegments {
  const accounted = pod.accounted ?? 0;
  const free = pod.limit !== undefined ? Math.max(0, pod.limit - accounted - pod.gtt) : 0;
  return { accounted, gtt: pod.gtt, free, kernel: 0, other: 0, vram: pod.vram };
}

function podDetails(pod: PodAccounting): string[] {
  return [
    `memory.current: ${bytesCell(pod.accounted).exact}`,
    `GTT (no cgroup): ${describeBytes(pod.gtt)}`,
    `true footprint: ${bytesCell(pod.trueFootprint).exact}`,
    `limit: ${pod.limit === undefined ? 'none' : describeBytes(pod.limit)}`,
    `headroom: ${pod.headroom === undefined ? '—' : describeBytes(pod.headroom)}`,
    `VRAM: ${describeBytes(pod.vram)}`,
    ...(pod.nvidia
      ? pod.nvidia.gpus.map(
          (row) => `${row.gpu} (nvidia-smi${pod.nvidia?.unified ? ', unified memory' : ''}): ${bytesCell(row.usedBytes, 'unknown').exact}`,
        )
      : []),
  ];
}

/** The kernel's parts outside pods that are not GTT (which has its own segment): their sum, at most `used`. */
function kernelOutsidePods(kernel: KernelMemory | undefined, used: number): number {
  if (!kernel) return 0;
  const named = kernel.parts.filter((part) => part.key !== 'gpu').reduce((total, part) => total + part.outsidePods, 0);
  return Math.min(Math.max(0, used), named);
}

/** The node's RAM in use outside pods and GTT, split into the kernel's parts and the rest. */
function otherBreakdown(kernel: KernelMemory | undefined, kernelBytes: number, other: number): string[] {
  if (!kernel || kernelBytes + other <= 0) return [];
  const parts = kernel.parts.filter((part) => part.key !== 'gpu' && part.outsidePods > 0);
  return [
    `kernel memory outside pods: ${describeBytes(kernelBytes)}, of which`,
    ...parts.map((part) => `  ${part.label}: ${describeBytes(part.outsidePods)}`),
    `other RAM in use (system services, page cache): ${describeBytes(other)}`,
  ];
}

export function buildChart(inspection: Inspection, names: ReadonlyMap<string, string>, topPods: number): MemoryChart {
  const node = inspection.node;
  if (!node)
    return {
      available: false,
      series: SERIES,
      node: null,
      pods: [],
      totalPods: 0,
      shownPods: 0,
      summary: 'No node memory in this capture (a container capture).',
    };
  const a = node.accounting;
  const gtt = a.unaccounted ?? 0;
  const free = a.memAvailable ?? 0;
  const used =
    a.memTotal !== undefined && a.memAvailable !== undefined ? Math.max(0, a.memTotal - a.memAvailable - a.podsAccounted - gtt) : 0;
  const kernel = kernelOutsidePods(node.kernel, used);
  const other = used - kernel;
  const nodeRow: ChartRow = {
    key: 'node',
    kind: 'node',
    label: `node ${node.model.hostname ?? inspection.target}`,
    podUid: null,
    podCount: node.pods.length,
    segments: { accounted: a.podsAccounted, gtt, free, kernel, other, vram: a.vramUsed ?? 0 },
    limit: a.memTotal ?? null,
    details: [
      `MemTotal: ${bytesCell(a.memTotal).exact}`,
      `MemAvailable: ${bytesCell(a.memAvailable).exact}`,
      `pods' memory.current (sum): ${describeBytes(a.podsAccounted)}`,
      `GPU memory charged to no cgroup: ${bytesCell(a.unaccounted).exact}`,
      `GTT in use (sysfs): ${bytesCell(a.gttUsed).exact}`,
      `GPUActive (7.1+): ${bytesCell(a.gpuActive).exact}`,
      `VRAM in use: ${bytesCell(a.vramUsed).exact}`,
      ...otherBreakdown(node.kernel, kernel, other),
    ],
  };
  // PodAccounting comes sorted by true footprint already; sort again so the chart does not depend on it.
  const sorted = [...node.pods].sort((x, y) => (y.trueFootprint ?? y.gtt) - (x.trueFootprint ?? x.gtt) || x.podUid.localeCompare(y.podUid));
  const top = Math.max(1, topPods);
  const shown = sorted.length > top + 1 ? sorted.slice(0, top) : sorted;
  const rest = sorted.slice(shown.length);
  const rows: ChartRow[] = shown.map((pod) => ({
    key: pod.podUid,
    kind: 'pod',
    label: podLabel(pod.podUid, names),
    podUid: pod.podUid,
    podCount: 1,
    segments: podSegments(pod),
    limit: pod.limit ?? null,
    details: podDetails(pod),
  }));
  if (rest.length > 0) {
    const sum = (pick: (segments: ChartSegments) => number) => rest.reduce((total, pod) => total + pick(podSegments(pod)), 0);
    const segments: ChartSegments = {
      accounted: sum((s) => s.accounted),
      gtt: sum((s) => s.gtt),
      free: sum((s) => s.free),
      kernel: 0,
      other: 0,
      vram: sum((s) => s.vram),
    };
    rows.push({
      key: 'others',
      kind: 'others',
      label: `${rest.length} other pods`,
      podUid: null,
      podCount: rest.length,
      segments,
      limit: null,
      details: [
        `${rest.length} pods with smaller true footprints, summed`,
        `memory.current: ${describeBytes(segments.accounted)}`,
        `GTT (no cgroup): ${describeBytes(segments.gtt)}`,
        `free to their limits: ${describeBytes(segments.free)}`,
        `VRAM: ${describeBytes(segments.vram)}`,
      ],
    });
  }
  const over = sorted.filter((pod) => pod.headroom !== undefined && pod.headroom < 0).length;
  const summary = [
    `Memory accounting of ${nodeRow.label}: ${formatBytes(a.podsAccounted)} accounted to pods' cgroups, ${formatBytes(gtt)} of GPU memory charged to no cgroup, ${formatBytes(free)} available${a.memTotal !== undefined ? ` of ${formatBytes(a.memTotal)}` : ''}.`,
    sorted.length === 0
      ? 'No pods on this node.'
      : `${plural(sorted.length, 'pod')}${rest.length > 0 ? `, the ${shown.length} largest shown and ${rest.length} summed as others` : ''}; ${over === 0 ? 'none is' : `${plural(over, 'pod is', 'pods are')}`} over its limit once GTT is counted.`,
  ].join(' ');
  return { available: true, series: SERIES, node: nodeRow, pods: rows, totalPods: sorted.length, shownPods: shown.length, summary };
}
