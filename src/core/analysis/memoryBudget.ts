// The memory a GPU container is expected to need, and how its limit and request compare to it.
// Nominal need = declared GPU memory (on unified-memory nodes it is system RAM) + declared host memory.
import { ANNOTATIONS } from '../config.ts';
import type { Span } from '../findings.ts';
import type { ContainerModel, PodModel, ResourceEntry } from '../manifest/podModel.ts';
import { formatBytes, isQuantityInRange, parseQuantity } from '../quantity.ts';

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
  readonly limit: ResourceEntry | undefined;
  /** The explicit memory request; when absent Kubernetes uses the limit. */
  readonly request: ResourceEntry | undefined;
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
    const perDevice = use.info.memoryUnit === 'MiB' ? use.entry.quantity.value * MIB : use.entry.quantity.value;
    const count = container.gpu.find((other) => other.info.role === 'count' && other.info.vendor === use.info.vendor)?.entry.quantity?.value ?? 1;
    const devices = Number.isFinite(count) && count >= 1 ? Math.floor(count) : 1;
    const unit = use.info.memoryUnit === 'MiB' ? ' MiB' : '';
    const source = `${use.name} ${use.entry.text ?? ''}${unit}${devices > 1 ? ` × ${devices} GPUs` : ''}`;
    if (!isQuantityInRange(perDevice * devices)) {
      return { kind: 'invalid', text: use.entry.text ?? '', reason: 'it is beyond 2^63 bytes (8 EiB), more memory than any quantity can hold', span: use.entry.valueSpan, source };
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

export function memoryBudget(pod: PodModel, container: ContainerModel, unified: boolean, headroomPercent: number): MemoryBudget {
  const annotated = declaredAnnotation(pod, container, ANNOTATIONS.gpuMemory);
  const gpuMemory = annotated.kind === 'none' ? declaredFromResources(container) : annotated;
  const hostMemory = declaredAnnotation(pod, container, ANNOTATIONS.hostMemory);
  let nominal: number | undefined;
  if (unified && gpuMemory.kind === 'declared') nominal = gpuMemory.bytes;
  if (hostMemory.kind === 'declared') nominal = (nominal ?? 0) + hostMemory.bytes;
  const required = nominal === undefined ? undefined : Math.ceil(nominal * (1 + headroomPercent / 100));
  const limit = container.limits.entries.get('memory');
  const request = container.requests.entries.get('memory');
  const limitBytes = validBytes(limit);
  const requestBytes = request ? validBytes(request) : limitBytes;
  const headroom = nominal !== undefined && nominal > 0 && limitBytes !== undefined ? (limitBytes / nominal - 1) * 100 : undefined;
  return { gpuMemory, hostMemory, nominal, required, limit, request, limitBytes, requestBytes, headroomPercent: headroom };
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
