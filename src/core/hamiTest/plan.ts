// What the over-quota test will do on one container, or why it refuses, decided from the Pod object alone
// (before anything runs), and the confirmation text that names it all (issue #11: the pod, the container,
// the GPU, the quota and the amount, and that it runs code inside the container).
//
// The quota of the container's GPU 0, in this order:
// - `hami.io/vgpu-devices-allocated`, the container's first device `<UUID>,<Type>,<usedMemMiB>,<usedCores>`
//   (parsed once in core/kube/pods.ts; HAMi docs/develop/protocol.md). The device plugin derives the
//   container's CUDA_DEVICE_MEMORY_LIMIT_0 from it (`<usedMemMiB>m`).
// - else CUDA_DEVICE_MEMORY_LIMIT_0, then CUDA_DEVICE_MEMORY_LIMIT, when the pod spec sets them literally,
//   read as HAMi-core reads them (parseHamiLimit: `4000m`, `4g`, bytes).
// A quota of 0 is no limit for HAMi-core, so there is nothing to test.
import type { GpuPodSummary, HamiDeviceAllocation } from '../kube/pods.ts';
import { containerAllocation, defaultExecContainer, hamiFactsFromPod, isHamiManaged, summarizePod } from '../kube/pods.ts';
import { asArray, asString, path } from '../kube/json.ts';
import { parseHamiLimit } from '../verdicts/hami/hamiFacts.ts';
import { attemptBytesFor, HAMI_TEST_MARGIN_MIB, HAMI_TEST_TIMEOUT_MS } from './script.ts';

const MiB = 1024 * 1024;
/** Above this a quota is no real one (16 TiB, more than any GPU holds): refused rather than tried. */
const MAX_QUOTA_MIB = 16 * 1024 * 1024;

export type HamiQuotaSource =
  | { readonly kind: 'annotation'; readonly annotation: 'hami.io/vgpu-devices-allocated' }
  | { readonly kind: 'env'; readonly variable: string; readonly value: string };

export interface HamiTestPlan {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  /** The container's GPU 0 as HAMi allocated it; undefined when the quota comes from the env. */
  readonly gpu: HamiDeviceAllocation | undefined;
  /** How many GPUs HAMi gave the container (only GPU 0 is tested). */
  readonly gpuCount: number;
  readonly quotaMiB: number;
  readonly quotaSource: HamiQuotaSource;
  readonly attemptBytes: number;
  readonly attemptMiB: number;
}

export type HamiTestRefusal =
  | { readonly kind: 'not-hami' }
  | { readonly kind: 'no-container'; readonly wanted: string | undefined; readonly containers: readonly string[] }
  | { readonly kind: 'not-running'; readonly phase: string | undefined; readonly deleting: boolean }
  | { readonly kind: 'no-quota'; readonly container: string }
  | { readonly kind: 'unlimited'; readonly container: string; readonly source: HamiQuotaSource }
  | { readonly kind: 'implausible-quota'; readonly container: string; readonly quotaMiB: number };

export type HamiTestPlanResult =
  | { readonly kind: 'ready'; readonly plan: HamiTestPlan }
  | { readonly kind: 'refused'; readonly target: string; readonly refusal: HamiTestRefusal };

/** Plans the test on `container` (default: the one `kubectl exec` would pick) of a Pod object. Never throws. */
export function planHamiTest(pod: unknown, container?: string): HamiTestPlanResult {
  const summary = summarizePod(pod);
  const target = `${summary.namespace}/${summary.name}`;
  const refused = (refusal: HamiTestRefusal): HamiTestPlanResult => ({ kind: 'refused', target, refusal });
  if (!isHamiManaged(summary)) return refused({ kind: 'not-hami' });
  const containers = asArray(path(pod, 'spec', 'containers')).flatMap((c) => asString(path(c, 'name')) ?? []);
  const name = container ?? defaultExecContainer(pod);
  if (name === undefined || !containers.includes(name)) return refused({ kind: 'no-container', wanted: container, containers });
  if (summary.phase !== 'Running' || summary.deleting)
    return refused({ kind: 'not-running', phase: summary.phase, deleting: summary.deleting });
  const quota = quotaOf(pod, summary, name);
  if (quota === undefined) return refused({ kind: 'no-quota', container: name });
  if (quota.quotaMiB <= 0) return refused({ kind: 'unlimited', container: name, source: quota.source });
  if (!Number.isSafeInteger(quota.quotaMiB) || quota.quotaMiB > MAX_QUOTA_MIB)
    return refused({ kind: 'implausible-quota', container: name, quotaMiB: quota.quotaMiB });
  return {
    kind: 'ready',
    plan: {
      namespace: summary.namespace,
      pod: summary.name,
      container: name,
      gpu: quota.gpu,
      gpuCount: quota.gpuCount,
      quotaMiB: quota.quotaMiB,
      quotaSource: quota.source,
      attemptBytes: attemptBytesFor(quota.quotaMiB),
      attemptMiB: quota.quotaMiB + HAMI_TEST_MARGIN_MIB,
    },
  };
}

interface Quota {
  readonly quotaMiB: number;
  readonly source: HamiQuotaSource;
  readonly gpu: HamiDeviceAllocation | undefined;
  readonly gpuCount: number;
}

function quotaOf(pod: unknown, summary: GpuPodSummary, container: string): Quota | undefined {
  const entry = containerAllocation(summary, container);
  const first = entry?.devices[0];
  if (entry && first)
    return {
      quotaMiB: first.usedMemMiB,
      source: { kind: 'annotation', annotation: 'hami.io/vgpu-devices-allocated' },
      gpu: first,
      gpuCount: entry.devices.length,
    };
  const env = hamiFactsFromPod(pod, container).podEnv;
  for (const variable of ['CUDA_DEVICE_MEMORY_LIMIT_0', 'CUDA_DEVICE_MEMORY_LIMIT']) {
    const value = env[variable];
    if (value === undefined) continue;
    // HAMi-core limits in bytes; the test works in whole MiB, rounded up so that quota + 64 MiB stays above it.
    const quotaMiB = Math.ceil(parseHamiLimit(value) / MiB);
    return { quotaMiB, source: { kind: 'env', variable, value: value.slice(0, 64) }, gpu: undefined, gpuCount: 1 };
  }
  return undefined;
}

export function describeQuotaSource(source: HamiQuotaSource): string {
  return source.kind === 'annotation' ? `the ${source.annotation} annotation` : `${source.variable}=${source.value} in the pod spec`;
}

/** One line per refusal, saying what to do where there is something to do. */
export function describeRefusal(target: string, refusal: HamiTestRefusal): string {
  switch (refusal.kind) {
    case 'not-hami':
      return `pod ${target} is not managed by HAMi (no hami.io annotations, no HAMi scheduler, no HAMi-only resource): there is no HAMi quota to test.`;
    case 'no-container':
      return refusal.wanted === undefined
        ? `pod ${target} has no container to test.`
        : `pod ${target} has no container "${refusal.wanted}" (containers: ${refusal.containers.join(', ') || 'none'}).`;
    case 'not-running':
      return `pod ${target} is ${refusal.deleting ? 'being deleted' : `not running (phase ${refusal.phase ?? 'unknown'})`}: the test runs inside a running container.`;
    case 'no-quota':
      return `container "${refusal.container}" of pod ${target} has no HAMi memory quota: no device in hami.io/vgpu-devices-allocated and no CUDA_DEVICE_MEMORY_LIMIT in its spec.`;
    case 'unlimited':
      return `container "${refusal.container}" of pod ${target} has a quota of 0 (${describeQuotaSource(refusal.source)}), which HAMi-core reads as no limit: there is nothing to test.`;
    case 'implausible-quota':
      return `container "${refusal.container}" of pod ${target} has a quota of ${refusal.quotaMiB} MiB, more than any GPU holds: refusing to allocate past it.`;
  }
}

function grouped(n: number): string {
  return n.toLocaleString('en-US');
}

/** The GPU as the confirmation names it. */
export function describePlanGpu(plan: HamiTestPlan): string {
  const more = plan.gpuCount > 1 ? ` (the first of its ${plan.gpuCount} GPUs; the others are not tested)` : '';
  if (!plan.gpu) return `CUDA device 0${more}`;
  return `CUDA device 0, ${plan.gpu.uuid || 'no UUID'}${plan.gpu.type ? ` (${plan.gpu.type})` : ''}${more}`;
}

/** The confirmation: a title line and the details, plain text (each host escapes it for its surface). */
export function confirmationText(plan: HamiTestPlan): { readonly title: string; readonly detail: string } {
  return {
    title: `Test HAMi enforcement in pod ${plan.namespace}/${plan.pod}, container "${plan.container}"?`,
    detail: [
      `This runs code inside the container: python3 with a short ctypes program on its standard input (nothing is installed or copied).`,
      `Through the container's own libcuda.so.1 it allocates ${grouped(plan.attemptMiB)} MiB in one cuMemAlloc_v2 call on ${describePlanGpu(plan)}, whose HAMi quota is ${grouped(plan.quotaMiB)} MiB (${describeQuotaSource(plan.quotaSource)}): the quota + ${HAMI_TEST_MARGIN_MIB} MiB.`,
      `If HAMi does not enforce the quota, the allocation succeeds and holds that memory on the GPU, which other pods may share, until it is freed at once. The test ends within ${HAMI_TEST_TIMEOUT_MS / 1000} s and can be cancelled.`,
    ].join('\n'),
  };
}
