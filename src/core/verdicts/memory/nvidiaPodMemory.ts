// Per-pod, per-GPU memory on NVIDIA nodes, from the node's nvidia-smi: each compute process is joined to
// its pod through /proc/<pid>/cgroup; processes in no pod are the node's own. On a discrete GPU the bytes
// are VRAM. On a unified-memory GPU (GB10, whose memory.total nvidia-smi prints as [N/A]) they are system
// RAM, so they are counted like GTT on an AMD APU: on top of the pod's memory.current, which is what the
// headroom verdicts of unaccountedMemory.ts then judge.
import { formatBytes } from '../../sizing.ts';
import type { NvidiaGpu, NvidiaNode, NvidiaProcess } from '../../probe/nvidiaNode.ts';
import type { PodGpuMemory, PodNvidiaMemory } from './podNvidiaMemory.ts';
import type { NodeAccounting, PodAccounting } from './unaccountedMemory.ts';

export type { PodGpuMemory, PodNvidiaMemory };

const MiB = 1024 * 1024;

export interface NvidiaAccounting {
  readonly node: NvidiaNode;
  readonly pods: ReadonlyMap<string, PodNvidiaMemory>;
  /** Compute processes in no pod (host services, or a cgroup the probe could not read). */
  readonly nodeProcesses: readonly NvidiaProcess[];
  readonly unifiedGpus: readonly NvidiaGpu[];
}

export function gpuLabel(process: Pick<NvidiaProcess, 'gpuIndex' | 'gpuUuid' | 'gi' | 'ci'>): string {
  const gpu = process.gpuIndex !== undefined ? `GPU ${process.gpuIndex}` : `GPU ${process.gpuUuid ?? '?'}`;
  return process.gi !== undefined ? `${gpu} GI ${process.gi}${process.ci !== undefined ? ` CI ${process.ci}` : ''}` : gpu;
}

export function bytesOfMiB(mib: number | undefined): number | undefined {
  return mib === undefined ? undefined : mib * MiB;
}

export function nvidiaAccounting(node: NvidiaNode): NvidiaAccounting {
  if (node.kind !== 'read') return { node, pods: new Map(), nodeProcesses: [], unifiedGpus: [] };
  const unifiedGpus = node.gpus.filter((gpu) => gpu.unifiedMemory);
  const byPod = new Map<string, Map<string, NvidiaProcess[]>>();
  const nodeProcesses: NvidiaProcess[] = [];
  for (const process of node.processes) {
    if (process.podUid === undefined) {
      nodeProcesses.push(process);
      continue;
    }
    const gpus = byPod.get(process.podUid) ?? new Map<string, NvidiaProcess[]>();
    const label = gpuLabel(process);
    gpus.set(label, [...(gpus.get(label) ?? []), process]);
    byPod.set(process.podUid, gpus);
  }
  const pods = new Map<string, PodNvidiaMemory>();
  for (const [podUid, gpus] of byPod) {
    const rows: PodGpuMemory[] = [...gpus].map(([label, processes]) => ({
      gpu: label,
      gpuIndex: processes[0]?.gpuIndex,
      gpuUuid: processes[0]?.gpuUuid,
      usedBytes: sumKnown(processes.map((process) => bytesOfMiB(process.usedMiB))),
      processes,
    }));
    const unified = rows.some((row) => row.processes.some((process) => isOnUnified(process, unifiedGpus)));
    pods.set(podUid, { gpus: rows, usedBytes: sumKnown(rows.map((row) => row.usedBytes)), unified });
  }
  return { node, pods, nodeProcesses, unifiedGpus };
}

/** The pods' accounting with their NVIDIA memory: VRAM on a discrete GPU, GTT-like RAM on a unified one. */
export function withNvidiaPods(pods: readonly PodAccounting[], nvidia: NvidiaAccounting): PodAccounting[] {
  return pods.map((pod) => {
    const memory = nvidia.pods.get(pod.podUid);
    if (!memory) return pod;
    const used = memory.usedBytes ?? 0;
    const gtt = memory.unified ? pod.gtt + used : pod.gtt;
    const vram = memory.unified ? pod.vram : pod.vram + used;
    const trueFootprint = pod.accounted === undefined ? undefined : pod.accounted + gtt;
    const processes = memory.gpus.flatMap((row) =>
      row.processes.map((process) => {
        const bytes = bytesOfMiB(process.usedMiB) ?? 0;
        return {
          pid: process.pid,
          comm: process.comm ?? process.processName,
          gtt: memory.unified ? bytes : 0,
          vram: memory.unified ? 0 : bytes,
          sharedWith: [],
          evidence: processEvidence(process, memory.unified),
        };
      }),
    );
    return {
      ...pod,
      gtt,
      vram,
      trueFootprint,
      headroom: pod.limit !== undefined && trueFootprint !== undefined ? pod.limit - trueFootprint : undefined,
      processes: [...pod.processes, ...processes],
      nvidia: memory,
    };
  });
}

/**
 * The node's accounting with its NVIDIA GPUs: their VRAM in use when no DRM sysfs gave it and, with a
 * unified-memory GPU, the node marked unified and its compute memory counted as charged to no cgroup.
 */
export function withNvidiaNode(node: NodeAccounting, nvidia: NvidiaAccounting): NodeAccounting {
  if (nvidia.node.kind !== 'read') return node;
  const discrete = nvidia.node.gpus.filter((gpu) => !gpu.unifiedMemory);
  const vramUsed = node.vramUsed ?? sumKnown(discrete.map((gpu) => bytesOfMiB(gpu.memoryUsedMiB)));
  const withVram = vramUsed !== undefined && discrete.length > 0 ? { ...node, vramUsed } : node;
  if (nvidia.unifiedGpus.length === 0) return withVram;
  const onUnified = nvidia.node.processes.filter((process) => isOnUnified(process, nvidia.unifiedGpus));
  const used = sumKnown(onUnified.map((process) => bytesOfMiB(process.usedMiB)));
  const names = nvidia.unifiedGpus.map(
    (gpu) => `NVIDIA ${gpu.index ?? '?'}: ${gpu.name ?? '?'} (unified memory: nvidia-smi memory.total [N/A])`,
  );
  const gpuSummary = node.gpuSummary === 'no DRM GPU found' ? names.join(', ') : `${node.gpuSummary}, ${names.join(', ')}`;
  return {
    ...withVram,
    unifiedMemory: true,
    gpuSummary,
    ...(used !== undefined ? { nvidiaUnifiedUsed: used, unaccounted: Math.max(node.unaccounted ?? 0, used) } : {}),
  };
}

export function processEvidence(process: NvidiaProcess, unified: boolean): string {
  const used =
    process.usedMiB === undefined
      ? 'unknown (nvidia-smi printed a placeholder)'
      : `${process.usedMiB} MiB (${formatBytes(process.usedMiB * MiB)})`;
  const where = unified ? ' of unified memory (system RAM)' : '';
  return `pid ${process.pid} (${process.comm ?? process.processName ?? '?'}) on ${gpuLabel(process)}: ${used}${where}; ${process.evidence}`;
}

function isOnUnified(process: NvidiaProcess, unifiedGpus: readonly NvidiaGpu[]): boolean {
  return unifiedGpus.some(
    (gpu) => (gpu.uuid !== undefined && gpu.uuid === process.gpuUuid) || (gpu.index !== undefined && gpu.index === process.gpuIndex),
  );
}

function sumKnown(values: readonly (number | undefined)[]): number | undefined {
  let total = 0;
  for (const value of values) {
    if (value === undefined) return undefined;
    total += value;
  }
  return total;
}
