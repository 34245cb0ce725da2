// The GTT signature of a global kill inside a pod: the pod was under its own limit, yet the node ran out. On
// unified-memory APUs the usual cause is GPU memory (GTT) that the pod allocated and no memory cgroup counts. It
// grows stronger when the pod's `memory.events` shows `oom_kill` > 0 while `max` and `oom` stay 0, when the
// report's per-node `gpu_active` (Linux 7.1+) is large, when DRM fdinfo gives the pod GTT, and when amdgpu tore
// down the victim's GPU VM with memory in it.
import type { AmdgpuMemoryLine } from '../../probe/parsers/amdgpuBoot.ts';
import type { OomEvent } from '../../probe/parsers/oomReportLines.ts';
import type { GpuTeardown } from './gpuTeardown.ts';
import { gpuTeardownText } from './gpuTeardown.ts';
import type { PodCgroupData } from './oomPodCgroups.ts';
import type { GttSignature, GttStrength, OomContext } from './oomVerdictTypes.ts';
import type { OomVictim } from './oomVictim.ts';
import { podLabel } from './oomVictim.ts';
import { formatBytes, formatKb, headroomFactorText, suggestedMemoryQuantity, withHeadroom } from '../../sizing.ts';

/** `gpu_active` above this (1 GiB) in a global OOM report is worth naming. */
const LARGE_GPU_ACTIVE_KB = 1024 * 1024;

/** Pod UID → its cgroup data, built once per explanation: a lookup per report must not walk every pod. */
export type PodIndex = ReadonlyMap<string, PodCgroupData>;

export function indexPods(context: OomContext | undefined): PodIndex {
  const index = new Map<string, PodCgroupData>();
  // The first record of a UID wins, as the linear search it replaces did.
  if (context?.pods) for (const pod of context.pods) if (!index.has(pod.podUid)) index.set(pod.podUid, pod);
  return index;
}

export function gttSizeMiB(amdgpu: readonly AmdgpuMemoryLine[] | undefined): number | undefined {
  if (!amdgpu) return undefined;
  let size: number | undefined;
  for (const line of amdgpu) if (line.kind === 'gtt-ready' || line.kind === 'gtt-cap') size = line.mib;
  return size;
}

export function gttSignature(
  event: OomEvent,
  victim: OomVictim,
  pod: PodCgroupData | undefined,
  context: OomContext | undefined,
  teardown: GpuTeardown | undefined,
): GttSignature {
  const factors: string[] = [
    'A global OOM killed a process inside a pod: no cgroup limit was reached, so the pod was under its own memory limit while the node ran out.',
  ];
  const against: string[] = [];
  let strong = 0;
  const events = pod?.memoryEvents;
  if (events) {
    const oomKill = events.oom_kill ?? 0;
    const max = events.max ?? 0;
    const oom = events.oom ?? 0;
    const file = pod?.cgroupVersion === 1 ? 'memory.oom_control / memory.failcnt' : 'memory.events';
    if (oomKill > 0 && max === 0 && oom === 0) {
      factors.push(
        `The pod's ${file} shows oom_kill ${oomKill} while max and oom are 0: its processes were killed without the pod ever reaching its limit.`,
      );
      strong++;
    } else {
      if (max > 0 || oom > 0)
        against.push(
          `The pod's ${file} shows max ${max} and oom ${oom}: the pod has reached its own limit at some point (the counters cover the pod's whole life).`,
        );
      if (oomKill === 0)
        against.push(`The pod's ${file} shows oom_kill 0: the capture may predate the kill, or the pod was recreated since.`);
    }
  }
  const limitBytes = pod?.memoryMax?.kind === 'bytes' ? pod.memoryMax.bytes : undefined;
  if (pod?.memoryCurrent !== undefined && limitBytes !== undefined && limitBytes > 0) {
    factors.push(
      `memory.current is ${formatBytes(pod.memoryCurrent)} of a ${formatBytes(limitBytes)} limit (${Math.round((pod.memoryCurrent / limitBytes) * 100)} %).`,
    );
  }
  if (event.gpuActiveKb !== undefined) {
    if (event.gpuActiveKb >= LARGE_GPU_ACTIVE_KB) {
      factors.push(
        `The report's Mem-Info shows gpu_active:${event.gpuActiveKb}kB (${formatKb(event.gpuActiveKb)}) of system memory held by GPU buffers, which no memory cgroup counts.`,
      );
      strong++;
    } else {
      against.push(`gpu_active is only ${formatKb(event.gpuActiveKb)}: GPU buffers did not hold much system memory at the time.`);
    }
  }
  const gttMiB = gttSizeMiB(context?.amdgpu);
  if (gttMiB !== undefined) factors.push(`The node has an amdgpu GPU with ${gttMiB} MiB of GTT (system memory the GPU can map).`);
  if (pod?.gttBytes !== undefined && pod.gttBytes > 0) {
    factors.push(`DRM fdinfo attributes ${formatBytes(pod.gttBytes)} of GTT to the pod's processes.`);
    strong++;
  }
  if (victim.anonRssKb !== undefined && event.gpuActiveKb !== undefined && event.gpuActiveKb > victim.anonRssKb * 4) {
    factors.push(
      `The victim's own anon-rss (${formatKb(victim.anonRssKb)}) is small next to gpu_active: killing it frees GPU memory the cgroup never saw.`,
    );
  }
  if (teardown) {
    factors.push(gpuTeardownText(teardown));
    strong++;
  }
  const strength: GttStrength = strong >= 2 ? 'strong' : strong === 1 ? 'likely' : 'possible';
  return {
    strength,
    factors,
    against,
    ...(event.gpuActiveKb !== undefined ? { gpuActiveKb: event.gpuActiveKb } : {}),
    ...(events ? { memoryEvents: events } : {}),
    ...(gttMiB !== undefined ? { gttMiB } : {}),
  };
}

export function gttRemedy(victim: OomVictim, pod: PodCgroupData | undefined, event: OomEvent, headroomPercent: number): string {
  const where = podLabel(victim) ?? 'the pod';
  const cgroupKb = pod?.memoryCurrent !== undefined ? pod.memoryCurrent / 1024 : victim.anonRssKb;
  const gttKb = pod?.gttBytes !== undefined ? pod.gttBytes / 1024 : event.gpuActiveKb;
  const withText = `Size the memory request and limit of ${where} to its cgroup memory plus its GTT use, with ${headroomPercent} % headroom`;
  let sizing = `${withText}: limit ≥ ${headroomFactorText(headroomPercent)} × (cgroup memory + GTT).`;
  const total =
    cgroupKb !== undefined && gttKb !== undefined
      ? suggestedMemoryQuantity(withHeadroom((cgroupKb + gttKb) * 1024, headroomPercent))
      : undefined;
  if (cgroupKb !== undefined && gttKb !== undefined && total !== undefined) {
    sizing = `${withText}: about ${formatKb(cgroupKb)} + ${formatKb(gttKb)}${pod?.gttBytes === undefined ? ' (gpu_active, node-wide: an upper bound for this pod)' : ''} → requests and limits of at least ${total}.`;
  }
  return [
    sizing,
    'Declare the GPU memory with the `gpumem.io/gpu-memory` annotation so the scheduler-side checks and gpumem account for memory the cgroup does not see.',
    'Make the pod Guaranteed (requests = limits for memory and CPU) so the kernel picks it last in a global OOM.',
    'Run GPU pods on dedicated (tainted) unified-memory nodes, so pods that do not know about GTT cannot be scheduled into the memory it takes.',
  ].join(' ');
}
