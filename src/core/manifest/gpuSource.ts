// How a container gets a GPU: one small union (extended resources, scheduler annotations, DRA claims), so a new
// way is one more variant, and one predicate the rules use instead of looking at extended resources only.
import type { Span } from '../findings.ts';
import { formatBytes } from '../sizing.ts';
import type { ClaimKind, ClaimLookup, DeviceAlternative, DeviceClassObject, DraMemory } from './draClaims.ts';
import type { ContainerClaimRef, ContainerModel, GpuUse, PodModel } from './podModel.ts';
import type { AnnotatedGpu } from './schedulerAnnotations.ts';
import { isTemplated } from './source.ts';
import { DEFAULT_GPU_DEVICE_CLASSES, GPU_DRIVERS, isGpuDriver, judgeDeviceClass } from '../gpuDeviceClasses.ts';
import type { DeviceClassVerdict } from '../gpuDeviceClasses.ts';

export type GpuSource =
  /**
   * An extended resource in limits/requests (`nvidia.com/gpu`, HAMi's `nvidia.com/gpumem`…); `deviceClass` when a
   * DeviceClass of the linted files serves it (its `extendedResourceName`, or `deviceclass.resource.kubernetes.io/<class>`).
   */
  | { readonly kind: 'resource'; readonly use: GpuUse; readonly deviceClass?: DeviceClassEvidence }
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

/** The DeviceClass object that makes an extended resource a GPU request, for the findings to name. */
export interface DeviceClassEvidence {
  readonly name: string;
  /** The file it is defined in; undefined for the linted file itself. */
  readonly origin: string | undefined;
  readonly verdict: Extract<DeviceClassVerdict, { gpu: true }>;
}

export interface ContainerGpu {
  readonly sources: readonly GpuSource[];
  readonly unresolved: readonly UnresolvedClaim[];
}

export { DEFAULT_GPU_DEVICE_CLASSES } from '../gpuDeviceClasses.ts';

export { GPU_DRIVERS } from '../gpuDeviceClasses.ts';

export function gpuClassSet(extra: readonly string[]): ReadonlySet<string> {
  return new Set([...DEFAULT_GPU_DEVICE_CLASSES, ...extra]);
}

/** A device class judged by its DeviceClass object when the linted files hold one, else by its name (gpuDeviceClasses.ts). */
export function judgeClassIn(name: string, gpuClasses: ReadonlySet<string>, classes?: ClaimLookup): DeviceClassVerdict {
  return judgeDeviceClass(name, classes?.deviceClass?.(name)?.drivers, gpuClasses);
}

export function isGpuAlternative(alternative: DeviceAlternative, gpuClasses: ReadonlySet<string>, classes?: ClaimLookup): boolean {
  if (alternative.deviceClassName !== undefined && judgeClassIn(alternative.deviceClassName, gpuClasses, classes).gpu) return true;
  return alternative.drivers.some(isGpuDriver);
}

const DRA_EXTENDED_PREFIX = 'deviceclass.resource.kubernetes.io/';

/** The DeviceClass of the linted files that serves an extended resource name, if any. */
export function deviceClassOf(resource: string, classes: ClaimLookup): DeviceClassObject | undefined {
  if (resource.startsWith(DRA_EXTENDED_PREFIX)) return classes.deviceClass?.(resource.slice(DRA_EXTENDED_PREFIX.length));
  return classes.deviceClassFor?.(resource);
}

/**
 * The container's extended resources that are GPUs: those gpuResources.ts knows by name, and those a DeviceClass of
 * the linted files serves (its `extendedResourceName`, or `deviceclass.resource.kubernetes.io/<class>`) when the class
 * is a GPU class. A name known only generically (`<domain>/gpu`, or a class whose name says GPU) is no GPU when the
 * DeviceClass that serves it selects other devices only.
 */
function resourceSources(container: ContainerModel, classes: ClaimLookup, gpuClasses: ReadonlySet<string>): GpuSource[] {
  const sources: GpuSource[] = [];
  const seen = new Set<string>();
  for (const use of container.gpu) {
    seen.add(use.name);
    const generic = use.info.vendor === 'DRA' || use.info.vendor === 'other';
    const object = generic ? deviceClassOf(use.name, classes) : undefined;
    if (!object) {
      sources.push({ kind: 'resource', use });
      continue;
    }
    const verdict = judgeDeviceClass(object.name, object.drivers, gpuClasses);
    if (verdict.gpu) sources.push({ kind: 'resource', use, deviceClass: { name: object.name, origin: object.origin, verdict } });
  }
  for (const block of [container.limits, container.requests]) {
    for (const entry of block.entries.values()) {
      if (seen.has(entry.name) || !entry.name.includes('/')) continue;
      seen.add(entry.name);
      // A zero count asks for no device, as for nvidia.com/gpu: 0.
      if (entry.quantity !== undefined && entry.quantity.value === 0) continue;
      const object = deviceClassOf(entry.name, classes);
      const className =
        object?.name ?? (entry.name.startsWith(DRA_EXTENDED_PREFIX) ? entry.name.slice(DRA_EXTENDED_PREFIX.length) : undefined);
      if (className === undefined) continue;
      const verdict = judgeDeviceClass(className, object?.drivers, gpuClasses);
      if (!verdict.gpu) continue;
      const use: GpuUse = {
        name: entry.name,
        info: {
          vendor: 'DRA',
          role: 'count',
          hamiOnly: false,
          meaning: `GPUs of the DRA device class ${className}, requested as an extended resource`,
        },
        entry,
      };
      sources.push({ kind: 'resource', use, ...(object ? { deviceClass: { name: object.name, origin: object.origin, verdict } } : {}) });
    }
  }
  return sources;
}

/** `example.com/accel is the extended resource of the DeviceClass "accel" in classes.yaml, which selects gpu.nvidia.com devices`. */
export function describeDeviceClassEvidence(resource: string, evidence: DeviceClassEvidence): string {
  const where = evidence.origin === undefined ? 'in this file' : `in ${evidence.origin}`;
  const how = resource.startsWith(DRA_EXTENDED_PREFIX) ? 'requests devices of' : 'is the extended resource of';
  const why =
    evidence.verdict.by === 'driver'
      ? `, which selects ${evidence.verdict.driver} devices`
      : evidence.verdict.by === 'setting'
        ? ', a GPU class in gpumem.lint.gpuDeviceClasses'
        : ', a GPU class by its name';
  return `${resource} ${how} the DeviceClass "${evidence.name}" ${where}${why}`;
}

/** Why the container is a GPU container when a DeviceClass of the linted files says so, for its findings; else ''. */
export function deviceClassSuffix(gpu: ContainerGpu): string {
  for (const source of gpu.sources)
    if (source.kind === 'resource' && source.deviceClass)
      return ` (a GPU container: ${describeDeviceClassEvidence(source.use.name, source.deviceClass)})`;
  return '';
}

/** The one predicate: does this container get a GPU by any known way? */
export function hasGpu(gpu: ContainerGpu): boolean {
  return gpu.sources.length > 0;
}

export function containerGpu(pod: PodModel, container: ContainerModel, claims: ClaimLookup, gpuClasses: ReadonlySet<string>): ContainerGpu {
  const sources: GpuSource[] = resourceSources(container, claims, gpuClasses);
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
      const alternatives = request.alternatives.filter((alternative) => isGpuAlternative(alternative, gpuClasses, claims));
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
        deviceClass: first.deviceClassName ?? first.drivers.find(isGpuDriver),
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
