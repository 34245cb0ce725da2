// How a container gets a GPU: one small union (extended resources, scheduler annotations, DRA claims), so a new
// way is one more variant, and one predicate the rules use instead of looking at extended resources only.
import type { Span } from '../findings.ts';
import { formatBytes } from '../sizing.ts';
import type { ClaimKind, ClaimLookup, DeviceAlternative, DraMemory } from './draClaims.ts';
import type { ContainerClaimRef, ContainerModel, GpuUse, PodModel } from './podModel.ts';
import type { AnnotatedGpu } from './schedulerAnnotations.ts';
import { isTemplated } from './source.ts';
import { DEFAULT_GPU_DEVICE_CLASSES, isGpuDeviceClass, nameSaysGpu } from '../gpuDeviceClasses.ts';

export type GpuSource =
  /** An extended resource in limits/requests (`nvidia.com/gpu`, HAMi's `nvidia.com/gpumem`…). */
  | { readonly kind: 'resource'; readonly use: GpuUse }
  /** A GPU share a scheduler gives the container through pod annotations (KAI Scheduler / Run:ai gpu-fraction, gpu-memory). */
  | { readonly kind: 'annotation'; readonly share: AnnotatedGpu }
  /** A DRA claim whose request asks for devices of a GPU class or driver. */
  | {
      readonly kind: 'claim';
      /** The pod's name for the claim (`spec.resourceClaims[].name`). */
      readonly claim: string;
      readonly object: { readonly kind: ClaimKind; readonly name: string };
      readonly request: string;
      /** The GPU alternatives of the request (one, or several `firstAvailable` subrequests). */
      readonly alternatives: readonly DeviceAlternative[];
      readonly deviceClass: string | undefined;
      /** Devices, when every alternative says how many; undefined for `allocationMode: All`. */
      readonly count: number | undefined;
      /** GPU memory per device, the largest of the alternatives that declare it. */
      readonly memory: DraMemory | undefined;
      /** The container's `resources.claims[].name`. */
      readonly span: Span;
    };

/** A claim the container uses whose GPU-ness gpumem cannot tell: it is not in the linted files, or not declared. */
export interface UnresolvedClaim {
  readonly ref: ContainerClaimRef;
  readonly reason:
    | { readonly kind: 'not-found'; readonly object: ClaimKind; readonly name: string }
    | { readonly kind: 'undeclared' }
    | { readonly kind: 'no-reference' }
    | { readonly kind: 'templated' }
    | { readonly kind: 'no-such-request'; readonly object: ClaimKind; readonly name: string };
}

export interface ContainerGpu {
  readonly sources: readonly GpuSource[];
  readonly unresolved: readonly UnresolvedClaim[];
}

export { DEFAULT_GPU_DEVICE_CLASSES } from '../gpuDeviceClasses.ts';

/** DRA driver names of GPUs, as CEL selectors name them (`device.driver == "gpu.nvidia.com"`). */
export const GPU_DRIVERS: readonly string[] = [
  'gpu.nvidia.com',
  'gpu.amd.com',
  'gpu.intel.com',
  'gaudi.intel.com',
  'hami-core-gpu.project-hami.io',
];

export function gpuClassSet(extra: readonly string[]): ReadonlySet<string> {
  return new Set([...DEFAULT_GPU_DEVICE_CLASSES, ...extra]);
}

export function isGpuAlternative(alternative: DeviceAlternative, gpuClasses: ReadonlySet<string>): boolean {
  if (alternative.deviceClassName !== undefined && isGpuDeviceClass(alternative.deviceClassName, gpuClasses)) return true;
  return alternative.drivers.some((driver) => GPU_DRIVERS.includes(driver) || nameSaysGpu(driver));
}

/** The one predicate: does this container get a GPU by any known way? */
export function hasGpu(gpu: ContainerGpu): boolean {
  return gpu.sources.length > 0;
}

export function containerGpu(pod: PodModel, container: ContainerModel, claims: ClaimLookup, gpuClasses: ReadonlySet<string>): ContainerGpu {
  const sources: GpuSource[] = container.gpu.map((use) => ({ kind: 'resource', use }));
  if (container.annotatedGpu) sources.push({ kind: 'annotation', share: container.annotatedGpu });
  const unresolved: UnresolvedClaim[] = [];
  for (const ref of container.claims) {
    const podRef = pod.resourceClaims.get(ref.name);
    if (!podRef) {
      unresolved.push({ ref, reason: { kind: isTemplated(ref.name) ? 'templated' : 'undeclared' } });
      continue;
    }
    if (podRef.kind === 'none') {
      unresolved.push({ ref, reason: { kind: 'no-reference' } });
      continue;
    }
    if (isTemplated(podRef.target)) {
      unresolved.push({ ref, reason: { kind: 'templated' } });
      continue;
    }
    const objectKind: ClaimKind = podRef.kind === 'template' ? 'ResourceClaimTemplate' : 'ResourceClaim';
    const object = claims.find(objectKind, podRef.target, pod.object.namespace);
    if (!object) {
      unresolved.push({ ref, reason: { kind: 'not-found', object: objectKind, name: podRef.target } });
      continue;
    }
    const requests = ref.request === undefined ? object.requests : object.requests.filter((request) => request.name === ref.request);
    if (requests.length === 0 && ref.request !== undefined) {
      unresolved.push({ ref, reason: { kind: 'no-such-request', object: objectKind, name: podRef.target } });
      continue;
    }
    for (const request of requests) {
      const alternatives = request.alternatives.filter((alternative) => isGpuAlternative(alternative, gpuClasses));
      const first = alternatives[0];
      if (!first) continue;
      let memory: DraMemory | undefined;
      for (const alternative of alternatives)
        if (alternative.memory && (!memory || alternative.memory.bytes > memory.bytes)) memory = alternative.memory;
      let count: number | undefined = 1;
      for (const alternative of alternatives)
        count = count === undefined || alternative.count === undefined ? undefined : Math.max(count, alternative.count);
      sources.push({
        kind: 'claim',
        claim: ref.name,
        object: { kind: objectKind, name: object.name },
        request: request.name,
        alternatives,
        deviceClass: first.deviceClassName ?? first.drivers.find((driver) => GPU_DRIVERS.includes(driver) || nameSaysGpu(driver)),
        count,
        memory,
        span: ref.span,
      });
    }
  }
  return { sources, unresolved };
}

/** "claim gpu-claim → class gpu.nvidia.com, 40 GiB" (the CodeLens wording). */
export function describeClaimSource(source: Extract<GpuSource, { kind: 'claim' }>): string {
  const classes: string[] = [];
  for (const alternative of source.alternatives.slice(0, 4)) {
    const name = alternative.deviceClassName ?? alternative.drivers.find((driver) => GPU_DRIVERS.includes(driver)) ?? '?';
    if (!classes.includes(name)) classes.push(name);
  }
  const more = source.alternatives.length > 4 ? ' or …' : '';
  const parts = [`claim ${source.claim} → class ${classes.join(' or ')}${more}`];
  if (source.count !== undefined && source.count > 1) parts.push(`${source.count} devices`);
  else if (source.count === undefined) parts.push('all matching devices');
  if (source.memory) {
    // With firstAvailable the alternatives may differ: the largest is what the memory limits must cover.
    const varies = source.alternatives.some((alternative) => alternative.memory?.bytes !== source.memory?.bytes);
    parts.push(
      `${varies ? 'up to ' : ''}${formatBytes(source.memory.bytes)}${source.count !== undefined && source.count > 1 ? ' each' : ''}`,
    );
  }
  return parts.join(', ');
}
