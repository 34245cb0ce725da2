// What one look at a node says of GPU memory, per pod and per container: the figures the agent's maxima follow
// between scrapes (gpuPeaks.ts). Built from the pods' accounting of a full cycle or of a light sweep alike, so both
// count GPU memory the same way the verdicts do (unaccountedMemory.ts, nvidiaPodMemory.ts). Pure.
import type { ProcessGpuMemory } from '../probe/parsers/fdinfo.ts';
import { gpuProcessesOfPod } from '../probe/parsers/fdinfo.ts';
import type { DrmCard } from '../probe/parsers/drm.ts';
import { parsePodCgroup } from '../probe/podCgroup.ts';
import type { PodAccounting } from '../verdicts/memory/unaccountedMemory.ts';

const MiB = 1024 * 1024;

export interface PodGpuLevel {
  /** memory.current of the pod cgroup at the same look (undefined when unread). */
  readonly accounted: number | undefined;
  /** GPU memory in system RAM that no cgroup counts: GTT, and a unified-memory NVIDIA GPU's used memory. */
  readonly unaccounted: number;
  /** accounted + unaccounted at the same look: what the node spends on the pod. */
  readonly trueFootprint: number | undefined;
  /** VRAM per GPU (gpu label as gpumem_pod_vram_bytes writes it). */
  readonly vram: ReadonlyMap<string, number>;
  /** Per container ID: the unaccounted GPU memory its processes hold (each DRM client once). */
  readonly containers: ReadonlyMap<string, number>;
}

export interface GpuLevels {
  /** uid → the pod's figures. */
  readonly pods: ReadonlyMap<string, PodGpuLevel>;
}

/** A pod's unaccounted GPU memory, as gpumem_pod_unaccounted_bytes reports it. */
export function unaccountedOf(pod: PodAccounting): number {
  const unaccounted = pod.trueFootprint !== undefined && pod.accounted !== undefined ? pod.trueFootprint - pod.accounted : pod.gtt;
  return Math.max(0, unaccounted);
}

export function gpuLevels(pods: readonly PodAccounting[], processes: readonly ProcessGpuMemory[]): GpuLevels {
  const out = new Map<string, PodGpuLevel>();
  for (const pod of pods) {
    const own = gpuProcessesOfPod(processes, pod.podUid);
    const unaccounted = unaccountedOf(pod);
    out.set(pod.podUid, {
      accounted: pod.accounted,
      unaccounted,
      trueFootprint: pod.accounted === undefined ? undefined : pod.accounted + unaccounted,
      vram: podVram(pod, own),
      containers: containerUnaccounted(pod, own),
    });
  }
  return { pods: out };
}

/**
 * The level the agent's watch compares between looks: every card's GTT and VRAM in use. It moves whenever a pod's GPU
 * memory does, for the price of a few sysfs reads; undefined when no card reports either.
 */
export function nodeGpuLevel(cards: readonly DrmCard[], nvidiaUsedMiB: readonly (number | undefined)[] = []): number | undefined {
  let sum = 0;
  let known = false;
  for (const card of cards) {
    for (const value of [card.gttUsed, card.vramUsed]) {
      if (value === undefined) continue;
      sum += value;
      known = true;
    }
  }
  for (const mib of nvidiaUsedMiB) {
    if (mib === undefined) continue;
    sum += mib * MiB;
    known = true;
  }
  return known ? sum : undefined;
}

/**
 * Per container: the GTT of its processes' DRM clients, each client once (a forked child shares its parent's), and on
 * a unified-memory NVIDIA GPU the used memory of its compute processes. Processes whose cgroup names no container
 * (the pod's own level) are left out: their bytes stay in the pod's figure.
 */
function containerUnaccounted(pod: PodAccounting, processes: readonly ProcessGpuMemory[]): Map<string, number> {
  const out = new Map<string, number>();
  const add = (containerId: string | undefined, bytes: number) => {
    if (containerId === undefined || !(bytes > 0)) return;
    out.set(containerId, (out.get(containerId) ?? 0) + bytes);
  };
  // debugfs-sourced GTT has no per-process split: it stays at the pod level.
  if (pod.gttSource !== 'debugfs') {
    const seen = new Set<string>();
    for (const process of processes) {
      const containerId = process.cgroup === undefined ? undefined : parsePodCgroup(process.cgroup)?.containerId;
      for (const client of process.clients) {
        const gtt = client.resident.get('gtt') ?? 0;
        const key = `${client.pdev ?? ''}\u0000${client.clientId ?? `pid ${process.pid}`}`;
        if (gtt <= 0 || seen.has(key)) continue;
        seen.add(key);
        add(containerId, gtt);
      }
    }
  }
  if (pod.nvidia?.unified)
    for (const gpu of pod.nvidia.gpus)
      for (const process of gpu.processes) add(process.containerId, process.usedMiB === undefined ? 0 : process.usedMiB * MiB);
  return out;
}

/**
 * A pod's VRAM per GPU: NVIDIA's by GPU index (MIG: `0 GI 1 CI 0`), discrete; amdgpu's by the PCI address of each
 * DRM client (drm-pdev), each client once, as the pod's total counts it. When the clients do not add up to that
 * total (debugfs, or clients without drm-pdev), the rest is under gpu="".
 */
export function podVram(pod: PodAccounting, processes: readonly ProcessGpuMemory[]): Map<string, number> {
  const out = new Map<string, number>();
  if (pod.nvidia && !pod.nvidia.unified) {
    for (const gpu of pod.nvidia.gpus) {
      const label = gpu.gpu.replace(/^GPU /, '');
      if (gpu.usedBytes !== undefined) out.set(label, (out.get(label) ?? 0) + gpu.usedBytes);
    }
    return out;
  }
  if (pod.vram <= 0) return out;
  const seen = new Set<string>();
  let sum = 0;
  for (const process of processes) {
    for (const client of process.clients) {
      const vram = client.resident.get('vram') ?? 0;
      const key = `${client.pdev ?? ''}\u0000${client.clientId ?? `pid ${process.pid}`}`;
      if (vram <= 0 || seen.has(key)) continue;
      seen.add(key);
      const gpu = client.pdev ?? '';
      out.set(gpu, (out.get(gpu) ?? 0) + vram);
      sum += vram;
    }
  }
  if (sum !== pod.vram) {
    const rest = pod.vram - sum;
    if (rest > 0) out.set('', (out.get('') ?? 0) + rest);
    else return new Map([['', pod.vram]]);
  }
  return out;
}
