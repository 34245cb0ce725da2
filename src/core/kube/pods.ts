// From a Pod object (JSON as the API returns it, or a client-node V1Pod) to what the Clusters view shows
// about it: the GPU requests of each container, the QoS class, restarts and OOM kills, HAMi's scheduling
// annotations parsed, the scheduler, the runtime class, privileged containers, and whether it is a GPU pod.
//
// QoS: `status.qosClass` wins when present, else the kubelet's computation (core/kube/qos.ts).
//
// HAMi pod annotations: the allocation slots are read in hamiSlots.ts; `hami.io/bind-phase` is allocating,
// failed or success; `hami.io/vgpu-node` the node chosen.
import { pushAll } from '../arrays.ts';
import type { GpuResourceRole } from '../gpuResources.ts';
import { classifyGpuResource } from '../gpuResources.ts';
import { parseQuantity } from '../quantity.ts';
import type { JsonRecord } from './json.ts';
import type { QosClass, QosQuantity, QosResource, QosResources } from './qos.ts';
import { computeQos } from './qos.ts';
import type { HamiContainerAllocation } from './hamiSlots.ts';
import { parseHamiPodDevices } from './hamiSlots.ts';
import { asArray, asBoolean, asNumber, asRecord, asString, asTime, identity, path, stringMap } from './json.ts';

export type { HamiContainerAllocation, HamiDeviceAllocation, HamiSlotContainers } from './hamiSlots.ts';
export { parseHamiPodDevices } from './hamiSlots.ts';

export type ContainerRole = 'init' | 'sidecar' | 'app';

export interface GpuResourceRequest {
  readonly name: string;
  readonly vendor: string;
  readonly role: GpuResourceRole;
  readonly hamiOnly: boolean;
  readonly request: string | undefined;
  readonly limit: string | undefined;
  /** The effective amount (request, else limit), parsed; undefined when unparsable. */
  readonly amount: number | undefined;
}

export interface ContainerGpuRequests {
  readonly container: string;
  readonly role: ContainerRole;
  readonly resources: readonly GpuResourceRequest[];
}

export interface TerminationInfo {
  readonly reason: string | undefined;
  readonly exitCode: number | undefined;
  readonly signal: number | undefined;
  readonly finishedAt: string | undefined;
  readonly message: string | undefined;
}

export interface ContainerRestarts {
  readonly container: string;
  readonly role: ContainerRole;
  readonly restartCount: number;
  readonly ready: boolean;
  /** running, waiting or terminated, with the reason where Kubernetes gives one. */
  readonly state: 'running' | 'waiting' | 'terminated' | 'unknown';
  readonly stateReason: string | undefined;
  readonly current: TerminationInfo | undefined;
  readonly lastTermination: TerminationInfo | undefined;
  /** The current or the last termination was `OOMKilled`. */
  readonly oomKilled: boolean;
}

export interface HamiPodAnnotations {
  readonly node: string | undefined;
  /** allocating, failed or success. */
  readonly bindPhase: string | undefined;
  readonly bindTime: string | undefined;
  readonly scheduleTime: string | undefined;
  /** undefined when the annotation is absent; [] when present but empty (allocation complete for to-allocate). */
  readonly allocated: readonly HamiContainerAllocation[] | undefined;
  readonly toAllocate: readonly HamiContainerAllocation[] | undefined;
  readonly amdAllocated: readonly HamiContainerAllocation[] | undefined;
  readonly amdToAllocate: readonly HamiContainerAllocation[] | undefined;
  /** Every `hami.io/*` annotation and HAMi's NVIDIA selectors, as written. */
  readonly raw: ReadonlyMap<string, string>;
  readonly problems: readonly string[];
}

export interface GpuPodSummary {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string | undefined;
  readonly nodeName: string | undefined;
  readonly phase: string | undefined;
  readonly deleting: boolean;
  readonly qosClass: QosClass;
  readonly qosSource: 'status' | 'computed';
  /** Containers that request a GPU resource (with a non-zero amount). */
  readonly gpuContainers: readonly ContainerGpuRequests[];
  readonly restarts: readonly ContainerRestarts[];
  readonly totalRestarts: number;
  /** Any container's current or last termination was OOMKilled. */
  readonly oomKilled: boolean;
  readonly hami: HamiPodAnnotations | undefined;
  readonly schedulerName: string | undefined;
  readonly runtimeClassName: string | undefined;
  readonly privilegedContainers: readonly string[];
  readonly isGpuPod: boolean;
  /** The controlling owner, e.g. `ReplicaSet/trainer-7d9c`. */
  readonly owner: string | undefined;
}

export const HAMI_POD_ANNOTATIONS = {
  allocated: 'hami.io/vgpu-devices-allocated',
  toAllocate: 'hami.io/vgpu-devices-to-allocate',
  amdAllocated: 'hami.io/amd-devices-allocated',
  amdToAllocate: 'hami.io/amd-devices-to-allocate',
  bindPhase: 'hami.io/bind-phase',
  bindTime: 'hami.io/bind-time',
  node: 'hami.io/vgpu-node',
  scheduleTime: 'hami.io/vgpu-time',
} as const;

const HAMI_SELECTORS = new Set([
  'nvidia.com/use-gputype',
  'nvidia.com/nouse-gputype',
  'nvidia.com/use-gpuuuid',
  'nvidia.com/nouse-gpuuuid',
  'nvidia.com/vgpu-mode',
  'nvidia.com/numa-bind',
]);

interface ContainerEntry {
  readonly spec: JsonRecord;
  readonly name: string;
  readonly role: ContainerRole;
}

function containersOf(pod: unknown): ContainerEntry[] {
  const entries: ContainerEntry[] = [];
  for (const spec of asArray(path(pod, 'spec', 'initContainers'))) {
    const record = asRecord(spec);
    if (!record) continue;
    entries.push({
      spec: record,
      name: asString(record['name']) ?? '',
      role: asString(record['restartPolicy']) === 'Always' ? 'sidecar' : 'init',
    });
  }
  for (const spec of asArray(path(pod, 'spec', 'containers'))) {
    const record = asRecord(spec);
    if (!record) continue;
    entries.push({ spec: record, name: asString(record['name']) ?? '', role: 'app' });
  }
  return entries;
}

function quantity(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const parsed = parseQuantity(text);
  return parsed.ok ? parsed.quantity.value : undefined;
}

function gpuRequestsOf(entry: ContainerEntry): ContainerGpuRequests {
  const requests = stringMap(path(entry.spec, 'resources', 'requests'));
  const limits = stringMap(path(entry.spec, 'resources', 'limits'));
  const resources: GpuResourceRequest[] = [];
  for (const name of new Set([...requests.keys(), ...limits.keys()])) {
    const info = classifyGpuResource(name);
    if (!info) continue;
    const request = requests.get(name);
    const limit = limits.get(name);
    resources.push({
      name,
      vendor: info.vendor,
      role: info.role,
      hamiOnly: info.hamiOnly,
      request,
      limit,
      amount: quantity(request ?? limit),
    });
  }
  return { container: entry.name, role: entry.role, resources: resources.sort((a, b) => a.name.localeCompare(b.name)) };
}

/** The QoS class as the kubelet computes it (core/kube/qos.ts); ignores status.qosClass. */
export function computeQosClass(pod: unknown): QosClass {
  const podLevel = asRecord(path(pod, 'spec', 'resources'));
  const containers = containersOf(pod).map((entry) => ({ name: entry.name, ...qosResources(asRecord(path(entry.spec, 'resources'))) }));
  const setsPodLevel =
    podLevel !== undefined && (asRecord(podLevel['requests']) !== undefined || asRecord(podLevel['limits']) !== undefined);
  return computeQos(setsPodLevel ? { pod: qosResources(podLevel), containers } : { containers }).qos;
}

function qosResources(resources: JsonRecord | undefined): QosResources {
  const pick = (values: ReadonlyMap<string, string>) => {
    const picked: Partial<Record<QosResource, QosQuantity>> = {};
    for (const resource of ['cpu', 'memory'] as const) {
      const text = values.get(resource);
      // A value the API server would have rejected counts as unset, as zero does.
      if (text !== undefined) picked[resource] = { value: quantity(text) ?? 0, text };
    }
    return picked;
  };
  return { requests: pick(stringMap(resources?.['requests'])), limits: pick(stringMap(resources?.['limits'])) };
}

function terminationOf(value: unknown): TerminationInfo | undefined {
  const record = asRecord(value);
  if (!record) return undefined;
  return {
    reason: asString(record['reason']),
    exitCode: asNumber(record['exitCode']),
    signal: asNumber(record['signal']),
    finishedAt: asTime(record['finishedAt']),
    message: asString(record['message']),
  };
}

function restartsOf(pod: unknown, entries: readonly ContainerEntry[]): ContainerRestarts[] {
  const statuses = [...asArray(path(pod, 'status', 'initContainerStatuses')), ...asArray(path(pod, 'status', 'containerStatuses'))];
  const out: ContainerRestarts[] = [];
  for (const status of statuses) {
    const name = asString(path(status, 'name')) ?? '';
    const role = entries.find((entry) => entry.name === name)?.role ?? 'app';
    const stateRecord = asRecord(path(status, 'state'));
    const running = asRecord(stateRecord?.['running']);
    const waiting = asRecord(stateRecord?.['waiting']);
    const terminated = asRecord(stateRecord?.['terminated']);
    const current = terminationOf(terminated);
    const lastTermination = terminationOf(path(status, 'lastState', 'terminated'));
    out.push({
      container: name,
      role,
      restartCount: asNumber(path(status, 'restartCount')) ?? 0,
      ready: asBoolean(path(status, 'ready')) ?? false,
      state: running ? 'running' : waiting ? 'waiting' : terminated ? 'terminated' : 'unknown',
      stateReason: waiting ? asString(waiting['reason']) : current?.reason,
      current,
      lastTermination,
      oomKilled: current?.reason === 'OOMKilled' || lastTermination?.reason === 'OOMKilled',
    });
  }
  return out;
}

function hamiAnnotations(
  annotations: ReadonlyMap<string, string>,
  entries: readonly ContainerEntry[],
  requesting: readonly string[],
): HamiPodAnnotations | undefined {
  const raw = new Map<string, string>();
  for (const [key, value] of annotations) if (key.startsWith('hami.io/') || HAMI_SELECTORS.has(key)) raw.set(key, value);
  if (raw.size === 0) return undefined;
  // containersOf lists init containers (and sidecars) first, then app containers: HAMi's order.
  const containers = {
    all: entries.map((entry) => entry.name),
    app: entries.filter((entry) => entry.role === 'app').map((entry) => entry.name),
    requesting,
  };
  const problems: string[] = [];
  const parse = (key: string): HamiContainerAllocation[] | undefined => {
    const value = annotations.get(key);
    if (value === undefined) return undefined;
    const parsed = parseHamiPodDevices(value, containers);
    pushAll(
      problems,
      parsed.problems.map((problem) => `${key}: ${problem}`),
    );
    return parsed.entries;
  };
  return {
    node: annotations.get(HAMI_POD_ANNOTATIONS.node),
    bindPhase: annotations.get(HAMI_POD_ANNOTATIONS.bindPhase),
    bindTime: annotations.get(HAMI_POD_ANNOTATIONS.bindTime),
    scheduleTime: annotations.get(HAMI_POD_ANNOTATIONS.scheduleTime),
    allocated: parse(HAMI_POD_ANNOTATIONS.allocated),
    toAllocate: parse(HAMI_POD_ANNOTATIONS.toAllocate),
    amdAllocated: parse(HAMI_POD_ANNOTATIONS.amdAllocated),
    amdToAllocate: parse(HAMI_POD_ANNOTATIONS.amdToAllocate),
    raw,
    problems,
  };
}

function hasAllocation(entries: readonly HamiContainerAllocation[] | undefined): boolean {
  return (entries ?? []).some((entry) => entry.devices.length > 0);
}

export function summarizePod(pod: unknown): GpuPodSummary {
  const meta = identity(pod);
  const entries = containersOf(pod);
  const gpuContainers = entries.map(gpuRequestsOf).filter((c) => c.resources.some((r) => r.amount !== undefined && r.amount > 0));
  const restarts = restartsOf(pod, entries);
  const hami = hamiAnnotations(
    meta.annotations,
    entries,
    gpuContainers.map((container) => container.container),
  );
  const statusQos = asString(path(pod, 'status', 'qosClass'));
  const validStatusQos = statusQos === 'Guaranteed' || statusQos === 'Burstable' || statusQos === 'BestEffort' ? statusQos : undefined;
  const owner =
    asArray(path(pod, 'metadata', 'ownerReferences')).find((ref) => asBoolean(path(ref, 'controller')) === true) ??
    asArray(path(pod, 'metadata', 'ownerReferences'))[0];
  const ownerKind = asString(path(owner, 'kind'));
  const ownerName = asString(path(owner, 'name'));
  const isGpuPod =
    gpuContainers.length > 0 ||
    hasAllocation(hami?.allocated) ||
    hasAllocation(hami?.toAllocate) ||
    hasAllocation(hami?.amdAllocated) ||
    hasAllocation(hami?.amdToAllocate) ||
    hami?.node !== undefined;
  return {
    namespace: meta.namespace ?? 'default',
    name: meta.name,
    uid: meta.uid,
    nodeName: asString(path(pod, 'spec', 'nodeName')),
    phase: asString(path(pod, 'status', 'phase')),
    deleting: asTime(path(pod, 'metadata', 'deletionTimestamp')) !== undefined,
    qosClass: validStatusQos ?? computeQosClass(pod),
    qosSource: validStatusQos ? 'status' : 'computed',
    gpuContainers,
    restarts,
    totalRestarts: restarts.reduce((sum, r) => sum + r.restartCount, 0),
    oomKilled: restarts.some((r) => r.oomKilled),
    hami,
    schedulerName: asString(path(pod, 'spec', 'schedulerName')),
    runtimeClassName: asString(path(pod, 'spec', 'runtimeClassName')),
    privilegedContainers: entries
      .filter((entry) => asBoolean(path(entry.spec, 'securityContext', 'privileged')) === true)
      .map((entry) => entry.name),
    isGpuPod,
    owner: ownerKind && ownerName ? `${ownerKind}/${ownerName}` : undefined,
  };
}

export function isGpuPod(pod: unknown): boolean {
  return summarizePod(pod).isGpuPod;
}

/**
 * Which container `kubectl exec` would pick, for probes: the preferred one if the pod has it, else the
 * `kubectl.kubernetes.io/default-container` annotation, else the first app container that requests a GPU,
 * else the first app container. undefined for a pod without containers.
 */
export function defaultExecContainer(pod: unknown, preferred?: string): string | undefined {
  const apps = containersOf(pod).filter((entry) => entry.role === 'app');
  if (preferred !== undefined && apps.some((entry) => entry.name === preferred)) return preferred;
  const annotated = identity(pod).annotations.get('kubectl.kubernetes.io/default-container');
  if (annotated !== undefined && apps.some((entry) => entry.name === annotated)) return annotated;
  const gpu = apps.find((entry) => gpuRequestsOf(entry).resources.some((r) => r.amount !== undefined && r.amount > 0));
  return (gpu ?? apps[0])?.name;
}

/** A pod's health as the HAMi checklist wants it for device-plugin pods. */
export function podHealth(pod: unknown): { name: string; phase: string; ready: boolean } {
  const conditions = asArray(path(pod, 'status', 'conditions'));
  const ready = conditions.some((c) => asString(path(c, 'type')) === 'Ready' && asString(path(c, 'status')) === 'True');
  return { name: identity(pod).name, phase: asString(path(pod, 'status', 'phase')) ?? 'Unknown', ready };
}

/** HAMi manages the pod: its annotations, its scheduler, or a resource only HAMi defines. */
export function isHamiManaged(pod: GpuPodSummary): boolean {
  return (
    pod.hami !== undefined || /hami/i.test(pod.schedulerName ?? '') || pod.gpuContainers.some((c) => c.resources.some((r) => r.hamiOnly))
  );
}

/** The container's entry in hami.io/vgpu-devices-allocated, when HAMi gave it at least one device. */
export function containerAllocation(summary: GpuPodSummary, container: string): HamiContainerAllocation | undefined {
  return summary.hami?.allocated?.find((candidate) => candidate.container === container && candidate.devices.length > 0);
}

/**
 * The cluster-side facts of one pod for the HAMi checklist (HamiClusterFacts): its runtime class, whether any
 * container is privileged, the literal env of the container (valueFrom entries are not resolved), whether
 * HAMi manages the pod (isHamiManaged), and the container's devices in hami.io/vgpu-devices-allocated.
 */
export function hamiFactsFromPod(
  pod: unknown,
  container?: string,
): {
  runtimeClassName: string | null;
  privileged: boolean;
  podEnv: Record<string, string>;
  managedByHami: boolean;
  allocatedDevices?: { uuid: string; memMiB: number }[];
} {
  const summary = summarizePod(pod);
  const name = defaultExecContainer(pod, container);
  const entry = containersOf(pod).find((candidate) => candidate.name === name);
  const podEnv: Record<string, string> = {};
  for (const env of asArray(entry?.spec['env'])) {
    const key = asString(path(env, 'name'));
    const value = asString(path(env, 'value'));
    if (key !== undefined && value !== undefined) podEnv[key] = value;
  }
  const allocated = name === undefined ? undefined : containerAllocation(summary, name);
  return {
    runtimeClassName: summary.runtimeClassName ?? null,
    privileged: summary.privilegedContainers.length > 0,
    podEnv,
    managedByHami: isHamiManaged(summary),
    ...(allocated ? { allocatedDevices: allocated.devices.map((device) => ({ uuid: device.uuid, memMiB: device.usedMemMiB })) } : {}),
  };
}
