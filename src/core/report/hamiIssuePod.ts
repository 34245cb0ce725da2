// The pod as the HAMi issue bundle shows it: "The Pod manifest, or at least its accelerator resource requests
// and limits" (HAMi's bug template), trimmed to what a HAMi maintainer reads and safe to post:
// - per container: name, image, resources, and env NAMES; a value is kept only for the HAMi, CUDA and NVIDIA
//   variables that decide enforcement (the ones the container probe reads: CUDA_*, NVIDIA_*, HAMI_*,
//   LIBCUDA_LOG_LEVEL, GPU_CORE_UTILIZATION_POLICY, HIP_DEVICE_MEMORY_LIMIT*, LD_PRELOAD, LD_AUDIT), and even
//   then not when its name looks secret. Every other value is an application's (database URLs, API keys) and
//   is shown as NOT_SHOWN; valueFrom names only its source kind (the Secret's name is private too);
// - annotations: only `hami.io/*` and `nvidia.com/*` values (others, e.g. kubectl's last-applied-configuration,
//   can hold the whole manifest with its env values): the other keys are only counted;
// - no command, args, volumes or labels.
import { stringify } from 'yaml';
import { asArray, asNumber, asRecord, asString, path, stringMap } from '../kube/json.ts';
import { isSecretName } from '../text/redact.ts';

export const NOT_SHOWN = '<value not shown>';

const KEPT_ENV_PREFIXES = ['CUDA_', 'NVIDIA_', 'HAMI_', 'HIP_DEVICE_MEMORY_LIMIT'];
const KEPT_ENV_NAMES = new Set(['LIBCUDA_LOG_LEVEL', 'GPU_CORE_UTILIZATION_POLICY', 'LD_PRELOAD', 'LD_AUDIT']);
const KEPT_ANNOTATION_PREFIXES = ['hami.io/', 'nvidia.com/'];

/** Whether an env variable's value goes into the bundle (HAMi/CUDA/NVIDIA variables whose names do not look secret). */
export function keepsEnvValue(name: string): boolean {
  if (isSecretName(name)) return false;
  return KEPT_ENV_NAMES.has(name) || KEPT_ENV_PREFIXES.some((prefix) => name.startsWith(prefix));
}

export interface PodSection {
  /** YAML of the trimmed pod (values still to be passed through the redactor). */
  readonly yaml: string;
  /** Env values replaced by NOT_SHOWN. */
  readonly envValuesHidden: number;
  /** Annotations left out (not hami.io/ or nvidia.com/). */
  readonly annotationsLeftOut: number;
}

function envOf(container: unknown, hidden: { count: number }): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const entry of asArray(path(container, 'env'))) {
    const name = asString(path(entry, 'name')) ?? '';
    const value = asString(path(entry, 'value'));
    const from = asRecord(path(entry, 'valueFrom'));
    if (from) {
      const kinds = Object.keys(from).filter((key) => from[key] !== undefined && from[key] !== null);
      out.push({ name, valueFrom: kinds.join(', ') || 'unknown' });
    } else if (value === undefined || value === '') out.push({ name, value: value ?? '' });
    else if (keepsEnvValue(name)) out.push({ name, value });
    else {
      hidden.count++;
      out.push({ name, value: NOT_SHOWN });
    }
  }
  return out;
}

function resourcesOf(container: unknown): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const key of ['requests', 'limits', 'claims'] as const) {
    const value = path(container, 'resources', key);
    if (key === 'claims') {
      const claims = asArray(value)
        .map((claim) => asString(path(claim, 'name')))
        .filter((name): name is string => name !== undefined);
      if (claims.length > 0) out[key] = claims;
      continue;
    }
    const map = stringMap(value);
    if (map.size > 0) out[key] = Object.fromEntries(map);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function containerSection(container: unknown, hidden: { count: number }): Record<string, unknown> {
  const env = envOf(container, hidden);
  const resources = resourcesOf(container);
  return {
    name: asString(path(container, 'name')) ?? '',
    image: asString(path(container, 'image')) ?? '',
    ...(resources ? { resources } : {}),
    ...(env.length > 0 ? { env } : {}),
  };
}

function statusSection(pod: unknown): Record<string, unknown> {
  const statuses = asArray(path(pod, 'status', 'containerStatuses')).map((status) => {
    const state = asRecord(path(status, 'state')) ?? {};
    const current = Object.keys(state).find((key) => state[key] !== undefined && state[key] !== null);
    const reason = current ? asString(path(state, current, 'reason')) : undefined;
    const last = asRecord(path(status, 'lastState', 'terminated'));
    return {
      name: asString(path(status, 'name')) ?? '',
      ready: path(status, 'ready') === true,
      restartCount: asNumber(path(status, 'restartCount')) ?? 0,
      ...(current ? { state: reason ? `${current} (${reason})` : current } : {}),
      ...(last
        ? { lastTerminated: `${asString(last['reason']) ?? 'terminated'}, exit code ${asNumber(last['exitCode']) ?? 'unknown'}` }
        : {}),
    };
  });
  return {
    phase: asString(path(pod, 'status', 'phase')) ?? 'Unknown',
    ...(asString(path(pod, 'status', 'qosClass')) ? { qosClass: asString(path(pod, 'status', 'qosClass')) } : {}),
    ...(statuses.length > 0 ? { containerStatuses: statuses } : {}),
  };
}

/** The trimmed pod (see the header), as YAML. Never throws. */
export function podSection(pod: unknown): PodSection {
  const hidden = { count: 0 };
  const annotations = stringMap(path(pod, 'metadata', 'annotations'));
  const kept: Record<string, string> = {};
  let leftOut = 0;
  for (const [key, value] of annotations) {
    if (KEPT_ANNOTATION_PREFIXES.some((prefix) => key.startsWith(prefix))) kept[key] = value;
    else leftOut++;
  }
  const spec = {
    ...(asString(path(pod, 'spec', 'nodeName')) ? { nodeName: asString(path(pod, 'spec', 'nodeName')) } : {}),
    ...(asString(path(pod, 'spec', 'schedulerName')) ? { schedulerName: asString(path(pod, 'spec', 'schedulerName')) } : {}),
    ...(asString(path(pod, 'spec', 'runtimeClassName')) ? { runtimeClassName: asString(path(pod, 'spec', 'runtimeClassName')) } : {}),
    ...(asArray(path(pod, 'spec', 'initContainers')).length > 0
      ? { initContainers: asArray(path(pod, 'spec', 'initContainers')).map((c) => containerSection(c, hidden)) }
      : {}),
    containers: asArray(path(pod, 'spec', 'containers')).map((c) => containerSection(c, hidden)),
  };
  const trimmed = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: asString(path(pod, 'metadata', 'name')) ?? '',
      namespace: asString(path(pod, 'metadata', 'namespace')) ?? '',
      ...(Object.keys(kept).length > 0 ? { annotations: kept } : {}),
    },
    spec,
    status: statusSection(pod),
  };
  return { yaml: stringify(trimmed, { lineWidth: 0 }), envValuesHidden: hidden.count, annotationsLeftOut: leftOut };
}

/** The images of the pod's containers (init containers included), in order, without duplicates. */
export function podImages(pod: unknown): string[] {
  const images = [...asArray(path(pod, 'spec', 'initContainers')), ...asArray(path(pod, 'spec', 'containers'))]
    .map((c) => asString(path(c, 'image')))
    .filter((image): image is string => image !== undefined && image !== '');
  return [...new Set(images)];
}

/** The extended resources the pod's containers ask for (nvidia.com/gpu, nvidia.com/gpumem, …), sorted. */
export function requestedResourceNames(pod: unknown): string[] {
  const names = new Set<string>();
  for (const container of [...asArray(path(pod, 'spec', 'initContainers')), ...asArray(path(pod, 'spec', 'containers'))]) {
    for (const key of ['requests', 'limits']) {
      for (const name of stringMap(path(container, 'resources', key)).keys()) if (name.includes('/')) names.add(name);
    }
  }
  return [...names].sort();
}
