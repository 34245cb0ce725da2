// The recommendation for one container, by the cause of its kills:
// - memcg kills: the limit was too small; raise limit and request above the observed peak, at least by VPA's OOM
//   bump, max(used + 100 MiB, used × 1.2) with used = max(limit, peak) (kubernetes/autoscaler
//   vertical-pod-autoscaler/pkg/recommender/model/container.go RecordOOM);
// - global kills with the GPU signature: a bigger limit would not have prevented them; request = limit = peak true
//   footprint × (1 + headroom), so the scheduler reserves what the node spends, plus the gpumem.io/gpu-memory
//   declaration of the GPU peak;
// - global kills without it: the node ran short because of others; this container is left as it is;
// - no kills: request = limit = peak true footprint + a buffer (KRR `simple`'s 15 % without GPU memory in RAM, the
//   headroom with it), so a container with no GPU matches KRR's number on the same series.
import { ANNOTATIONS } from '../config.ts';
import type { ContainerEvidence, NodePressure, Observed } from './evidence.ts';
import { roundUpForPeople } from './rounding.ts';
import { withHeadroom } from '../sizing.ts';
import type { RoundedQuantity } from './rounding.ts';
import { coverageOf, peakOf, trueFootprintPeak } from './series.ts';
import { sufficiencyOf } from './sufficiency.ts';

export const KRR_BUFFER_PERCENT = 15;
export const VPA_OOM_BUMP_RATIO = 1.2;
export const VPA_OOM_MIN_BUMP_BYTES = 100 * 1024 * 1024;

export interface SizingPolicy {
  /** The linter's headroom (gpumem.lint.headroomPercent), 30 by default. */
  readonly headroomPercent: number;
  /** How many containers of the pod use a GPU: the declaration is per container when more than one does. */
  readonly gpuContainers: number;
}

export type SizedCase = 'memcg-kills' | 'global-gpu-kills' | 'no-kills';

export interface GpuMemoryDeclaration {
  readonly key: string;
  readonly value: RoundedQuantity;
}

export type Recommendation =
  | { readonly kind: 'no-figures'; readonly reason: string }
  | { readonly kind: 'too-little-data'; readonly reason: string }
  | { readonly kind: 'unchanged'; readonly case: 'global-other-kills'; readonly pressure: readonly NodePressure[]; readonly reason: string }
  | {
      readonly kind: 'sized';
      readonly case: SizedCase;
      /** The unrounded target in bytes, before a person's rounding. */
      readonly targetBytes: number;
      /** request = limit: the scheduler reserves what the limit allows. */
      readonly memory: RoundedQuantity;
      readonly gpuMemory: GpuMemoryDeclaration | undefined;
      /** Set when the recommendation is below today's request. */
      readonly lowerSaves: number | undefined;
      readonly reason: string;
      /** Further sentences: node-level advice, the kernel's high-water mark, kills of unknown cause. */
      readonly notes: readonly string[];
    };

export interface RecommendationResult {
  readonly observed: Observed;
  readonly recommendation: Recommendation;
}

export function observe(evidence: ContainerEvidence): Observed {
  const coverage = coverageOf(evidence.pods);
  return {
    cgroupPeak: peakOf(evidence.pods, (pod) => pod.cgroup),
    gpuInRamPeak: peakOf(evidence.pods, (pod) => pod.gpuInRam),
    vramPeak: peakOf(evidence.pods, (pod) => pod.vram),
    trueFootprintPeak: trueFootprintPeak(evidence.pods),
    samples: coverage.samples,
    hours: coverage.hours,
    dropped: coverage.dropped,
  };
}

export function recommend(evidence: ContainerEvidence, policy: SizingPolicy): RecommendationResult {
  const observed = observe(evidence);
  return { observed, recommendation: decide(evidence, observed, policy) };
}

/** The recommendation from figures already reduced (by PromQL) to peaks and counts; `evidence.pods` is not read. */
export function recommendObserved(evidence: ContainerEvidence, observed: Observed, policy: SizingPolicy): Recommendation {
  return decide(evidence, observed, policy);
}

function decide(evidence: ContainerEvidence, observed: Observed, policy: SizingPolicy): Recommendation {
  const { kills } = evidence;
  if (evidence.basis === 'api-only') {
    return {
      kind: 'no-figures',
      reason: `no agent and no Prometheus: only the API's last termination reasons are known, no usage figures`,
    };
  }
  if (kills.globalOther > 0 && kills.memcg === 0 && kills.globalGpu === 0) {
    return {
      kind: 'unchanged',
      case: 'global-other-kills',
      pressure: evidence.pressure,
      reason: `killed by the node's global OOM killer without the GPU signature: memory pressure came from elsewhere on ${nodesOf(evidence.pressure)}; this container is not the cause, so its resources stay as they are`,
    };
  }
  if (evidence.basis === 'since-start') {
    return {
      kind: 'too-little-data',
      reason: 'no history (no Prometheus): the figures are since the container started, not over the window',
    };
  }
  const sufficiency = sufficiencyOf({ samples: observed.samples, hours: observed.hours, dropped: observed.dropped });
  if (sufficiency.kind === 'too-little') return { kind: 'too-little-data', reason: sufficiency.reason };
  const footprint = observed.trueFootprintPeak?.bytes ?? 0;
  const cgroupPeak = observed.cgroupPeak?.bytes ?? 0;
  const notes: string[] = [];
  let sizedCase: SizedCase;
  let target: number;
  let reason: string;
  if (kills.globalGpu > 0) {
    sizedCase = 'global-gpu-kills';
    target = withHeadroom(footprint, policy.headroomPercent);
    reason = `${kills.globalGpu} global OOM kill(s) with the GPU signature: the node ran out of RAM while GPU buffers no cgroup counts held it, so a bigger limit would not have prevented them; request = limit = peak true footprint + ${policy.headroomPercent} % so the scheduler reserves what the node really spends`;
    notes.push(
      `On the node: keep GPU pods on dedicated, tainted nodes, and reserve memory for the GPU driver and the system (kubelet --system-reserved, --kube-reserved) so pods are not packed past the node's RAM.`,
    );
    if (kills.memcg > 0) {
      const memcgTarget = memcgBump(evidence, cgroupPeak);
      if (memcgTarget > target) target = memcgTarget;
      notes.push(`${kills.memcg} memcg kill(s) too: the number is at least VPA's OOM bump of the limit.`);
    }
  } else if (kills.memcg > 0) {
    sizedCase = 'memcg-kills';
    const buffer = evidence.unifiedMemory ? policy.headroomPercent : KRR_BUFFER_PERCENT;
    target = Math.max(memcgBump(evidence, cgroupPeak), withHeadroom(footprint, buffer));
    reason = `${kills.memcg} memcg OOM kill(s): the container hit its limit, which was too small; raised above the observed peak, at least by VPA's OOM bump (max(used + 100 MiB, used × 1.2))`;
    if (kills.globalOther > 0)
      notes.push(`${kills.globalOther} global kill(s) without the GPU signature as well: see the node (${nodesOf(evidence.pressure)}).`);
  } else {
    sizedCase = 'no-kills';
    const bufferPercent = evidence.unifiedMemory ? policy.headroomPercent : KRR_BUFFER_PERCENT;
    target = withHeadroom(footprint, bufferPercent);
    reason = evidence.unifiedMemory
      ? `no OOM kills: request = limit = peak true footprint (cgroup + GPU memory in RAM at the same sample) + ${bufferPercent} % headroom`
      : `no OOM kills: request = limit = peak working set + ${bufferPercent} % (as KRR's simple strategy)`;
  }
  if (kills.kubeletUnknown > 0) {
    const floor = evidence.current.limit ?? 0;
    notes.push(
      `${kills.kubeletUnknown} OOMKilled reported by the kubelet with no agent record, cause unknown: the number is not bumped for them${floor > target ? `, and is kept at today's limit rather than lowered` : ''}.`,
    );
    if (floor > target) target = floor;
  }
  const memory = roundUpForPeople(target);
  const gpuPeak = Math.max(observed.gpuInRamPeak?.bytes ?? 0, evidence.gpuMaxBetweenScrapes ?? 0);
  const gpuMemory = gpuPeak > 0 ? { key: declarationKey(evidence.container, policy), value: roundUpForPeople(gpuPeak) } : undefined;
  const request = evidence.current.request;
  const lowerSaves = request !== undefined && memory.bytes < request ? request - memory.bytes : undefined;
  if (evidence.kernelPeak !== undefined && evidence.kernelPeak > memory.bytes) {
    notes.push(kernelPeakNote(evidence.kernelPeak));
  }
  return { kind: 'sized', case: sizedCase, targetBytes: target, memory, gpuMemory, lowerSaves, reason, notes };
}

/** VPA's OOM sample: max(used + 100 MiB, used × 1.2), used = max(what the container had, what it was seen using). */
export function memcgBump(evidence: ContainerEvidence, cgroupPeak: number): number {
  const used = Math.max(evidence.current.limit ?? 0, evidence.current.request ?? 0, cgroupPeak);
  return Math.max(used + VPA_OOM_MIN_BUMP_BYTES, used * VPA_OOM_BUMP_RATIO);
}

function declarationKey(container: string, policy: SizingPolicy): string {
  return policy.gpuContainers > 1 ? `${ANNOTATIONS.gpuMemory}.${container}` : ANNOTATIONS.gpuMemory;
}

function kernelPeakNote(bytes: number): string {
  return `the kernel saw ${roundUpForPeople(bytes).text} (memory.peak, including page cache it reclaims before any OOM kill): an upper bound, not the basis`;
}

function nodesOf(pressure: readonly NodePressure[]): string {
  const nodes = [...new Set(pressure.map((one) => one.node))];
  return nodes.length > 0 ? `node ${nodes.join(', ')}` : 'its node';
}
