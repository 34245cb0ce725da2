// GPUs that a scheduler hands out through pod annotations rather than resources: KAI Scheduler and Run:ai GPU
// sharing. Keys, validation and the container they apply to follow NVIDIA/KAI-Scheduler at 72de64fc:
// pkg/common/constants/constants.go (the keys), pkg/binder/plugins/gpusharing/gpu-request/gpu_request_validator.go
// (what the binder rejects), pkg/binder/common/gpu_access.go GetFractionContainerRef (init containers are searched
// first, then containers; without a name the first container gets the share) and docs/gpu-sharing/README.md.
// Run:ai's dynamic fractions add gpu-fraction-limit / gpu-memory-limit (Run:ai docs, "Dynamic GPU Fractions").
import type { Span } from '../findings.ts';
import type { ContainerRole } from './podShape.ts';
import type { Located } from './nodeValues.ts';
import { isTemplated } from './source.ts';

export const SHARING_ANNOTATIONS = {
  fraction: 'gpu-fraction',
  memory: 'gpu-memory',
  containerName: 'gpu-fraction-container-name',
  numDevices: 'gpu-fraction-num-devices',
  fractionLimit: 'gpu-fraction-limit',
  memoryLimit: 'gpu-memory-limit',
} as const;

export const SHARING_SCHEDULER = 'KAI Scheduler / Run:ai';

/** What share of a GPU the annotations ask for. */
export type GpuShare =
  | { readonly kind: 'fraction'; readonly fraction: number; readonly annotation: Located<string> }
  | { readonly kind: 'memory'; readonly mib: number; readonly annotation: Located<string> }
  /** The value comes from an unrendered template: a share is asked for, its size is unknown. */
  | { readonly kind: 'unresolved'; readonly key: string; readonly annotation: Located<string> };

/** A container's GPU from scheduler annotations. */
export interface AnnotatedGpu {
  readonly scheduler: typeof SHARING_SCHEDULER;
  readonly share: GpuShare;
  /** gpu-fraction-num-devices: how many devices each get the share (1 when absent or invalid). */
  readonly devices: number;
  /** How the container was chosen, for messages: named by gpu-fraction-container-name, or the first container. */
  readonly chosenBy: 'name' | 'first-container';
}

export interface AnnotationProblem {
  readonly key: string;
  readonly span: Span;
  readonly message: string;
  /** 'error' when the scheduler refuses the pod, 'info' when it only ignores the annotation. */
  readonly severity: 'error' | 'info';
}

export interface SchedulerAnnotations {
  /** Index into the containers given to the parser of the container the share goes to. */
  readonly targetIndex: number | undefined;
  readonly gpu: AnnotatedGpu | undefined;
  readonly problems: readonly AnnotationProblem[];
}

interface ContainerRef {
  readonly name: string;
  readonly role: ContainerRole;
}

const NONE: SchedulerAnnotations = { targetIndex: undefined, gpu: undefined, problems: [] };
// Go's strconv.ParseFloat in decimal (hex floats and Inf/NaN are not worth accepting: nobody writes them here).
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const UNSIGNED = /^\d+$/;
const MAX_UINT64 = 18446744073709551615n;

/**
 * Reads the sharing annotations of one pod. `annotations` are the pod's own (a workload's metadata does not reach
 * its pods); `containers` are the pod's containers in model order, with their roles.
 */
export function parseSchedulerAnnotations(
  annotations: ReadonlyMap<string, Located<string>>,
  containers: readonly ContainerRef[],
): SchedulerAnnotations {
  const fraction = annotations.get(SHARING_ANNOTATIONS.fraction);
  const memory = annotations.get(SHARING_ANNOTATIONS.memory);
  const containerName = annotations.get(SHARING_ANNOTATIONS.containerName);
  const numDevices = annotations.get(SHARING_ANNOTATIONS.numDevices);
  const fractionLimit = annotations.get(SHARING_ANNOTATIONS.fractionLimit);
  if (!fraction && !memory && !containerName && !numDevices && !fractionLimit) return NONE;

  const problems: AnnotationProblem[] = [];
  const problem = (key: string, annotation: Located<string>, message: string, severity: 'error' | 'info' = 'error') =>
    problems.push({ key, span: annotation.span, message, severity });

  if (!fraction && !memory) {
    for (const [key, annotation] of [
      [SHARING_ANNOTATIONS.containerName, containerName],
      [SHARING_ANNOTATIONS.numDevices, numDevices],
      [SHARING_ANNOTATIONS.fractionLimit, fractionLimit],
    ] as const) {
      if (!annotation) continue;
      problem(
        key,
        annotation,
        `Annotation ${key} has no effect without ${SHARING_ANNOTATIONS.fraction} or ${SHARING_ANNOTATIONS.memory}${key === SHARING_ANNOTATIONS.numDevices ? '; KAI Scheduler refuses the pod ("cannot request multiple fractional devices without specifying fraction portion or gpu-memory")' : ''}.`,
        key === SHARING_ANNOTATIONS.numDevices ? 'error' : 'info',
      );
    }
    return { targetIndex: undefined, gpu: undefined, problems };
  }

  let share: GpuShare | undefined;
  if (fraction && memory) {
    problem(
      SHARING_ANNOTATIONS.memory,
      memory,
      `Annotations ${SHARING_ANNOTATIONS.fraction} and ${SHARING_ANNOTATIONS.memory} are both set; KAI Scheduler refuses the pod ("cannot request both GPU and GPU memory"). Keep one of them.`,
    );
  }
  if (fraction) share = parseFraction(fraction, problem);
  else if (memory) share = parseMemory(memory, problem);

  let devices = 1;
  if (numDevices && !isTemplated(numDevices.value)) {
    const value = numDevices.value.trim();
    if (!UNSIGNED.test(value) || BigInt(value) === 0n || BigInt(value) > MAX_UINT64) {
      problem(
        SHARING_ANNOTATIONS.numDevices,
        numDevices,
        `Annotation ${SHARING_ANNOTATIONS.numDevices} is "${shown(numDevices.value)}"; KAI Scheduler needs a whole number of devices above 0 and refuses the pod otherwise.`,
      );
    } else devices = Number(value);
  }

  if (fractionLimit && !isTemplated(fractionLimit.value)) {
    const limit = DECIMAL.test(fractionLimit.value.trim()) ? Number(fractionLimit.value.trim()) : Number.NaN;
    if (!(limit > 0 && limit <= 1)) {
      problem(
        SHARING_ANNOTATIONS.fractionLimit,
        fractionLimit,
        `Annotation ${SHARING_ANNOTATIONS.fractionLimit} is "${shown(fractionLimit.value)}"; a GPU fraction limit is a number above 0 and at most 1.`,
      );
    } else if (share?.kind === 'fraction' && limit < share.fraction) {
      problem(
        SHARING_ANNOTATIONS.fractionLimit,
        fractionLimit,
        `Annotation ${SHARING_ANNOTATIONS.fractionLimit} (${fractionLimit.value.trim()}) is below ${SHARING_ANNOTATIONS.fraction} (${share.fraction}); Run:ai requires the limit to be at least the request.`,
      );
    }
  }

  const target = resolveTarget(containerName, containers, problem);
  if (target === undefined || !share) return { targetIndex: target?.index, gpu: undefined, problems };
  return { targetIndex: target.index, gpu: { scheduler: SHARING_SCHEDULER, share, devices, chosenBy: target.chosenBy }, problems };
}

type Problem = (key: string, annotation: Located<string>, message: string, severity?: 'error' | 'info') => void;

function parseFraction(annotation: Located<string>, problem: Problem): GpuShare | undefined {
  if (isTemplated(annotation.value)) return { kind: 'unresolved', key: SHARING_ANNOTATIONS.fraction, annotation };
  const text = annotation.value.trim();
  const value = DECIMAL.test(text) ? Number(text) : Number.NaN;
  // KAI's validator: "gpu-fraction annotation value must be a positive number smaller than 1.0".
  if (value > 0 && value < 1) return { kind: 'fraction', fraction: value, annotation };
  const why = value === 1 ? "; for a whole GPU request nvidia.com/gpu: 1 in the container's limits instead" : '';
  problem(
    SHARING_ANNOTATIONS.fraction,
    annotation,
    `Annotation ${SHARING_ANNOTATIONS.fraction} is "${shown(annotation.value)}"; KAI Scheduler needs a number above 0 and below 1 and refuses the pod otherwise${why}.`,
  );
  return undefined;
}

function parseMemory(annotation: Located<string>, problem: Problem): GpuShare | undefined {
  if (isTemplated(annotation.value)) return { kind: 'unresolved', key: SHARING_ANNOTATIONS.memory, annotation };
  // Go's strconv.ParseUint(value, 10, 64): digits only, no unit, no sign, no surrounding spaces.
  const text = annotation.value;
  if (UNSIGNED.test(text) && BigInt(text) > 0n && BigInt(text) <= MAX_UINT64) return { kind: 'memory', mib: Number(text), annotation };
  const unit = /^\s*\d+(\.\d+)?\s*[A-Za-z]+\s*$/.test(text) ? ' (it counts MiB and takes no unit: write "2000", not "2000Mi" or "2G")' : '';
  problem(
    SHARING_ANNOTATIONS.memory,
    annotation,
    `Annotation ${SHARING_ANNOTATIONS.memory} is "${shown(text)}"; KAI Scheduler needs a whole number of MiB above 0${unit} and refuses the pod otherwise.`,
  );
  return undefined;
}

function resolveTarget(
  containerName: Located<string> | undefined,
  containers: readonly ContainerRef[],
  problem: Problem,
): { index: number; chosenBy: AnnotatedGpu['chosenBy'] } | undefined {
  if (containerName) {
    if (isTemplated(containerName.value)) return undefined;
    const name = containerName.value;
    const isInit = (ref: ContainerRef) => ref.role === 'init' || ref.role === 'sidecar';
    let index = containers.findIndex((ref) => isInit(ref) && ref.name === name);
    if (index < 0) index = containers.findIndex((ref) => ref.role === 'container' && ref.name === name);
    if (index >= 0) return { index, chosenBy: 'name' };
    const known = containers
      .filter((ref) => ref.role !== 'ephemeral')
      .slice(0, 5)
      .map((ref) => `"${ref.name}"`);
    problem(
      SHARING_ANNOTATIONS.containerName,
      containerName,
      `Annotation ${SHARING_ANNOTATIONS.containerName} names container "${shown(name)}", which the pod does not have${known.length > 0 ? ` (it has ${known.join(', ')})` : ''}; KAI Scheduler cannot bind the pod ("container with name … not found for fraction request").`,
    );
    return undefined;
  }
  const first = containers.findIndex((ref) => ref.role === 'container');
  return first >= 0 ? { index: first, chosenBy: 'first-container' } : undefined;
}

function shown(value: string): string {
  if (isTemplated(value)) return '{{…}}';
  return value.length <= 60 ? value : `${value.slice(0, 59)}…`;
}
