// The memory a GPU container is expected to need, and how its limit and request compare to it.
// Nominal need = declared GPU memory (on unified-memory nodes it is system RAM) + declared host memory.
import { ANNOTATIONS } from '../config.ts';
import type { Span } from '../findings.ts';
import type { GpuSource } from '../manifest/gpuSource.ts';
import type { ContainerModel, PodModel, ResourceEntry } from '../manifest/podModel.ts';
import { SHARING_ANNOTATIONS } from '../manifest/schedulerAnnotations.ts';
import { memoryUnitBytes } from '../gpuResources.ts';
import { isQuantityInRange, parseQuantity } from '../quantity.ts';
import { formatBytes, withHeadroom } from '../sizing.ts';

const MIB = 1024 * 1024;

export type Declared =
  | { readonly kind: 'declared'; readonly bytes: number; readonly source: string; readonly span: Span }
  | { readonly kind: 'invalid'; readonly text: string; readonly reason: string; readonly span: Span; readonly source: string }
  | { readonly kind: 'none' };

export interface MemoryBudget {
  readonly gpuMemory: Declared;
  readonly hostMemory: Declared;
  /** Declared GPU memory (when on unified memory) plus declared host memory, in bytes; undefined when nothing is declared. */
  readonly nominal: number | undefined;
  /** nominal × (1 + headroom), rounded up to a byte. */
  readonly required: number | undefined;
  /** The container's memory limit, else the pod-level one (`spec.resources`), which bounds all containers together. */
  readonly limit: ResourceEntry | undefined;
  readonly limitScope: 'container' | 'pod';
  /** The explicit memory request (the container's, else the pod-level one); when absent Kubernetes uses the limit. */
  readonly request: ResourceEntry | undefined;
  readonly requestScope: 'container' | 'pod';
  readonly limitBytes: number | undefined;
  /** The effective request: the explicit one, else the limit (Kubernetes' defaulting). */
  readonly requestBytes: number | undefined;
  /** (limit / nominal − 1) × 100, when both are known. */
  readonly headroomPercent: number | undefined;
}

export function declaredAnnotation(pod: PodModel, container: ContainerModel, base: string): Declared {
  const specific = `${base}.${container.name}`;
  const key = pod.annotations.has(specific) ? specific : base;
  const annotation = pod.annotations.get(key);
  if (!annotation) return { kind: 'none' };
  const source = `annotation ${key}`;
  const parsed = parseQuantity(annotation.value.trim());
  if (!parsed.ok) return { kind: 'invalid', text: annotation.value, reason: parsed.reason, span: annotation.span, source };
  if (parsed.quantity.negative) return { kind: 'invalid', text: annotation.value, reason: 'it is negative', span: annotation.span, source };
  return { kind: 'declared', bytes: parsed.quantity.value, source, span: annotation.span };
}

/** GPU memory from a HAMi-style memory resource (MiB per GPU) times the GPU count. */
function declaredFromResources(container: ContainerModel): Declared {
  for (const use of container.gpu) {
    if (use.info.role !== 'memory' || !use.entry.quantity || use.entry.quantity.negative) continue;
    const perDevice = use.entry.quantity.value * memoryUnitBytes(use.info.memoryUnit);
    const count =
      container.gpu.find((other) => other.info.role === 'count' && other.info.vendor === use.info.vendor)?.entry.quantity?.value ?? 1;
    const devices = Number.isFinite(count) && count >= 1 ? Math.floor(count) : 1;
    const unit =
      use.info.memoryUnit === undefined || use.info.memoryUnit === 'quantity'
        ? ''
        : use.info.memoryUnit === '256MiB'
          ? ' × 256 MiB'
          : ` ${use.info.memoryUnit}`;
    const source = `${use.name} ${use.entry.text ?? ''}${unit}${devices > 1 ? ` × ${devices} GPUs` : ''}`;
    if (!isQuantityInRange(perDevice * devices)) {
      return {
        kind: 'invalid',
        text: use.entry.text ?? '',
        reason: 'it is beyond 2^63 bytes (8 EiB), more memory than any quantity can hold',
        span: use.entry.valueSpan,
        source,
      };
    }
    return {
      kind: 'declared',
      bytes: perDevice * devices,
      source,
      span: use.entry.valueSpan,
    };
  }
  return { kind: 'none' };
}

/** GPU memory a scheduler shares out by annotation (KAI Scheduler / Run:ai gpu-memory, MiB per device). */
function declaredFromSchedulerAnnotations(container: ContainerModel): Declared {
  const gpu = container.annotatedGpu;
  if (gpu?.share.kind !== 'memory') return { kind: 'none' };
  const { mib, annotation } = gpu.share;
  return {
    kind: 'declared',
    bytes: mib * MIB * gpu.devices,
    source: `annotation ${SHARING_ANNOTATIONS.memory} ${mib} MiB${gpu.devices > 1 ? ` × ${gpu.devices} devices` : ''}`,
    span: annotation.span,
  };
}

/** GPU memory that DRA claims ask for (consumable capacity, or a CEL lower bound), times their device counts. */
function declaredFromClaims(sources: readonly GpuSource[]): Declared {
  let bytes = 0;
  let span: Span | undefined;
  const parts: string[] = [];
  for (const source of sources) {
    if (source.kind !== 'claim' || !source.memory) continue;
    const devices = source.count ?? 1;
    bytes += source.memory.bytes * devices;
    span ??= source.span;
    const what =
      source.memory.via === 'capacity' ? `capacity.requests.memory ${source.memory.text}` : `selector memory ≥ ${source.memory.text}`;
    parts.push(`claim ${source.claim} ${what}${devices > 1 ? ` × ${devices} devices` : ''}`);
  }
  return span ? { kind: 'declared', bytes, source: parts.join(' + '), span } : { kind: 'none' };
}

export function memoryBudget(
  pod: PodModel,
  container: ContainerModel,
  unified: boolean,
  headroomPercent: number,
  sources: readonly GpuSource[] = [],
): MemoryBudget {
  const annotated = declaredAnnotation(pod, container, ANNOTATIONS.gpuMemory);
  const fromResources = annotated.kind === 'none' ? declaredFromResources(container) : annotated;
  const fromScheduler = fromResources.kind === 'none' ? declaredFromSchedulerAnnotations(container) : fromResources;
  const gpuMemory = fromScheduler.kind === 'none' ? declaredFromClaims(sources) : fromScheduler;
  const hostMemory = declaredAnnotation(pod, container, ANNOTATIONS.hostMemory);
  let nominal: number | undefined;
  if (unified && gpuMemory.kind === 'declared') nominal = gpuMemory.bytes;
  if (hostMemory.kind === 'declared') nominal = (nominal ?? 0) + hostMemory.bytes;
  const required = nominal === undefined ? undefined : withHeadroom(nominal, headroomPercent);
  const ownLimit = container.limits.entries.get('memory');
  const ownRequest = container.requests.entries.get('memory');
  const limit = ownLimit ?? pod.podLimits.entries.get('memory');
  // A container with its own limit defaults its request to that limit, not to the pod-level request.
  const request = ownRequest ?? (ownLimit ? undefined : pod.podRequests.entries.get('memory'));
  const limitBytes = validBytes(limit);
  const requestBytes = request ? validBytes(request) : limitBytes;
  const headroom = nominal !== undefined && nominal > 0 && limitBytes !== undefined ? (limitBytes / nominal - 1) * 100 : undefined;
  return {
    gpuMemory,
    hostMemory,
    nominal,
    required,
    limit,
    limitScope: ownLimit || !limit ? 'container' : 'pod',
    request,
    requestScope: ownRequest || !request ? 'container' : 'pod',
    limitBytes,
    requestBytes,
    headroomPercent: headroom,
  };
}

function validBytes(entry: ResourceEntry | undefined): number | undefined {
  const quantity = entry?.quantity;
  return quantity && !quantity.negative ? quantity.value : undefined;
}

/** "GPU 24 GiB + host 4 GiB" */
export function describeNominal(budget: MemoryBudget, unified: boolean): string {
  const parts: string[] = [];
  if (unified && budget.gpuMemory.kind === 'declared') parts.push(`GPU ${formatBytes(budget.gpuMemory.bytes)}`);
  if (budget.hostMemory.kind === 'declared') parts.push(`host ${formatBytes(budget.hostMemory.bytes)}`);
  return parts.join(' + ');
}
