// The one-line picture of a GPU container that the CodeLens shows: GPU resources, declared GPU memory,
// memory limit, headroom and verdict.
import type { Finding, ObjectRef, Severity, Span } from '../findings.ts';
import { severityRank } from '../findings.ts';
import { describeClaimSource } from '../manifest/gpuSource.ts';
import type { GpuSource } from '../manifest/gpuSource.ts';
import type { EnvVar } from '../manifest/containerModel.ts';
import { isHamiEnvName } from '../manifest/hamiEnv.ts';
import type { ContainerModel, ResourceEntry } from '../manifest/podModel.ts';
import { isTemplated } from '../manifest/source.ts';
import { formatBytes } from '../sizing.ts';
import type { AnnotatedGpu } from '../manifest/schedulerAnnotations.ts';
import type { AnnotationSuppression } from '../suppression.ts';
import type { MemoryBudget } from './memoryBudget.ts';

function annotatedShareKey(gpu: AnnotatedGpu): string {
  return gpu.share.kind === 'fraction' ? 'gpu-fraction' : gpu.share.kind === 'memory' ? 'gpu-memory' : gpu.share.key;
}

function annotatedShareValue(gpu: AnnotatedGpu): string {
  const value = gpu.share.kind === 'fraction' ? String(gpu.share.fraction) : gpu.share.kind === 'memory' ? `${gpu.share.mib} MiB` : '{{…}}';
  return `${value}${gpu.devices > 1 ? ` × ${gpu.devices} devices` : ''}`;
}

export interface ContainerSummary {
  readonly span: Span;
  readonly object: ObjectRef;
  readonly container: string;
  /** Which template of a multi-template kind (`workerGroupSpecs[gpu]`, `leaderTemplate`); absent for a kind with one. */
  readonly role?: string;
  readonly unifiedMemory: boolean;
  readonly gpuResources: readonly { readonly name: string; readonly value: string }[];
  /** Each DRA claim the GPU comes through: "claim gpu-claim → class gpu.nvidia.com, 40 GiB". */
  readonly gpuClaims: readonly string[];
  readonly gpuMemoryBytes: number | undefined;
  readonly gpuMemorySource: string | undefined;
  readonly limit: string | undefined;
  /** The container's own memory request as written (`{{…}}` when templated). */
  readonly memoryRequest: string | undefined;
  /** HAMi's variables the file sets in this container's env (hamiEnvName), by name: `{{…}}` for a template, `(valueFrom)`. */
  readonly hamiEnv: ReadonlyMap<string, string>;
  /** Whether the limit is the container's own or the pod-level one (spec.resources). */
  readonly limitScope: 'container' | 'pod';
  readonly nominalBytes: number | undefined;
  readonly requiredBytes: number | undefined;
  readonly headroomPercent: number | undefined;
  readonly worst: Severity | undefined;
  readonly findingCount: number;
  /** The CodeLens text. */
  readonly title: string;
  /** What the pod template's annotations suppress: the live findings of this container honour it as the rules do. */
  readonly suppression: AnnotationSuppression;
}

/** The file's HAMi variables, as the drift check compares them with the live template's. */
function hamiEnvOf(env: readonly EnvVar[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const one of env) {
    if (!isHamiEnvName(one.name)) continue;
    out.set(one.name, one.fromValueFrom ? '(valueFrom)' : one.value === undefined ? '' : isTemplated(one.value) ? '{{…}}' : one.value);
  }
  return out;
}

export function summarizeContainer(
  object: ObjectRef,
  container: ContainerModel,
  budget: MemoryBudget,
  unified: boolean,
  headroomTarget: number,
  findings: readonly Finding[],
  sources: readonly GpuSource[],
  suppression: AnnotationSuppression,
): ContainerSummary {
  // A value from an unrendered Helm action holds masking sentinels, not text a person can read.
  const shown = (entry: ResourceEntry | undefined) => (entry?.templated ? '{{…}}' : entry?.text);
  const gpuResources = container.gpu.map((use) => ({ name: use.name, value: shown(use.entry) ?? '?' }));
  // Extended resources that are GPUs because a DeviceClass of the linted files serves them (gpuSource.ts).
  for (const source of sources)
    if (source.kind === 'resource' && !container.gpu.includes(source.use))
      gpuResources.push({ name: source.use.name, value: shown(source.use.entry) ?? '?' });
  const annotated = container.annotatedGpu;
  if (annotated) gpuResources.push({ name: `annotation ${annotatedShareKey(annotated)}`, value: annotatedShareValue(annotated) });
  const gpuMemoryBytes = budget.gpuMemory.kind === 'declared' ? budget.gpuMemory.bytes : undefined;
  const mine = findings.filter((finding) => finding.container === container.name);
  let worst: Severity | undefined;
  for (const finding of mine) if (!worst || severityRank[finding.severity] > severityRank[worst]) worst = finding.severity;

  // Requests of one claim that read the same are shown once, with how many there are.
  const claimCounts = new Map<string, number>();
  for (const source of sources)
    if (source.kind === 'claim') claimCounts.set(describeClaimSource(source), (claimCounts.get(describeClaimSource(source)) ?? 0) + 1);
  const gpuClaims = [...claimCounts].map(([text, count]) => (count > 1 ? `${text} (× ${count} requests)` : text));
  const ways: string[] = [];
  // A resource that is a GPU through a DeviceClass of the linted files says which (the CodeLens names its source).
  const viaClass = new Map<string, string>();
  for (const source of sources)
    if (source.kind === 'resource' && source.deviceClass) viaClass.set(source.use.name, source.deviceClass.name);
  const resourceText = (r: { name: string; value: string }) => {
    const deviceClass = viaClass.get(r.name);
    return `${r.name} ${r.value}${deviceClass !== undefined ? ` (DeviceClass ${deviceClass})` : ''}`;
  };
  if (gpuResources.length > 0) ways.push(`GPU: ${gpuResources.map(resourceText).join(', ')}`);
  if (gpuClaims.length > 0) ways.push(`${ways.length > 0 ? '' : 'GPU '}via ${gpuClaims.join('; ')}`);
  const parts = [`${ways.join(' + ')}${unified ? ' (unified memory)' : ''}`];
  parts.push(`GPU memory: ${gpuMemoryBytes !== undefined ? formatBytes(gpuMemoryBytes) : 'undeclared'}`);
  parts.push(`memory limit: ${shown(budget.limit) ?? 'none'}${budget.limit && budget.limitScope === 'pod' ? ' (pod-level)' : ''}`);
  if (budget.headroomPercent !== undefined) parts.push(`headroom: ${budget.headroomPercent.toFixed(0)} % (target ${headroomTarget} %)`);
  else if (budget.required !== undefined) parts.push(`needs: ${formatBytes(budget.required)}`);
  const verdict = !worst
    ? '✓ no findings'
    : `${worst === 'error' ? '✖' : worst === 'warning' ? '⚠' : 'ℹ'} ${mine.length} finding${mine.length === 1 ? '' : 's'}`;
  parts.push(verdict);

  return {
    span: container.nameSpan,
    object,
    container: container.name,
    unifiedMemory: unified,
    gpuResources,
    gpuClaims,
    gpuMemoryBytes,
    gpuMemorySource: budget.gpuMemory.kind === 'declared' ? budget.gpuMemory.source : undefined,
    limit: shown(budget.limit),
    memoryRequest: shown(container.requests.entries.get('memory')),
    hamiEnv: hamiEnvOf(container.env),
    limitScope: budget.limitScope,
    nominalBytes: budget.nominal,
    requiredBytes: budget.required,
    headroomPercent: budget.headroomPercent,
    worst,
    findingCount: mine.length,
    title: parts.join(' · '),
    suppression,
  };
}
