// Object shapes, the resource table and pod defaulting, as the real API server produces them (its `Status` bodies:
// status.ts).
//
// Wire details copied from the API server:
// - List responses: `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":…,"continue"?,
//   "remainingItemCount"?},"items":[…]}`, and the items carry no `kind`/`apiVersion` (the server drops the
//   TypeMeta of list items); single objects and watch event objects carry both.
import { createHash, randomUUID } from 'node:crypto';

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: unknown[];
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export type Json = Record<string, unknown>;

export interface ResourceInfo {
  /** Plural, as in URLs and RBAC rules. */
  readonly resource: string;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly listKind: string;
  readonly namespaced: boolean;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly verbs: readonly string[];
  /** Field selectors the API server supports for this resource. */
  readonly fields: ReadonlySet<string>;
  /** A custom resource: served only when its CRD is installed (SimulatorOptions.crds). */
  readonly crd?: boolean;
}

const READ = ['get', 'list', 'watch'];

function info(
  resource: string,
  group: string,
  kind: string,
  namespaced: boolean,
  shortNames: string[],
  verbs: string[],
  fields: string[],
  version = 'v1',
): ResourceInfo {
  return {
    resource,
    group,
    version,
    kind,
    listKind: `${kind}List`,
    namespaced,
    singular: kind.toLowerCase(),
    shortNames,
    verbs,
    fields: new Set(['metadata.name', ...(namespaced ? ['metadata.namespace'] : []), ...fields]),
  };
}

export const RESOURCES: Readonly<Record<string, ResourceInfo>> = {
  namespaces: info('namespaces', '', 'Namespace', false, ['ns'], READ, ['status.phase']),
  nodes: info('nodes', '', 'Node', false, ['no'], READ, ['spec.unschedulable']),
  pods: info(
    'pods',
    '',
    'Pod',
    true,
    ['po'],
    ['create', 'delete', ...READ],
    [
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'spec.hostNetwork',
      'status.phase',
      'status.podIP',
      'status.nominatedNodeName',
    ],
  ),
  events: info(
    'events',
    '',
    'Event',
    true,
    ['ev'],
    ['create', 'patch', ...READ],
    [
      'involvedObject.kind',
      'involvedObject.namespace',
      'involvedObject.name',
      'involvedObject.uid',
      'involvedObject.apiVersion',
      'involvedObject.resourceVersion',
      'involvedObject.fieldPath',
      'reason',
      'reportingComponent',
      'source',
      'type',
    ],
  ),
  services: info('services', '', 'Service', true, ['svc'], READ, []),
  daemonsets: info('daemonsets', 'apps', 'DaemonSet', true, ['ds'], READ, []),
  deployments: info('deployments', 'apps', 'Deployment', true, ['deploy'], READ, []),
  replicasets: info('replicasets', 'apps', 'ReplicaSet', true, ['rs'], READ, []),
  statefulsets: info('statefulsets', 'apps', 'StatefulSet', true, ['sts'], READ, []),
  jobs: info('jobs', 'batch', 'Job', true, [], READ, ['status.successful']),
  cronjobs: info('cronjobs', 'batch', 'CronJob', true, ['cj'], READ, []),
  runtimeclasses: info('runtimeclasses', 'node.k8s.io', 'RuntimeClass', false, [], READ, []),
  // Custom resources of operators whose workloads have several pod templates (KubeRay, LeaderWorkerSet, JobSet).
  rayclusters: { ...info('rayclusters', 'ray.io', 'RayCluster', true, [], READ, []), crd: true },
  leaderworkersets: { ...info('leaderworkersets', 'leaderworkerset.x-k8s.io', 'LeaderWorkerSet', true, ['lws'], READ, []), crd: true },
  jobsets: { ...info('jobsets', 'jobset.x-k8s.io', 'JobSet', true, [], READ, [], 'v1alpha2'), crd: true },
};

export function resourceOfKind(kind: string): ResourceInfo | undefined {
  return Object.values(RESOURCES).find((r) => r.kind === kind);
}

export function apiVersionOf(r: ResourceInfo): string {
  return r.group === '' ? r.version : `${r.group}/${r.version}`;
}

export function keyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}

function rec(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

/** The value of a supported field selector key on an object ('' when absent, 'false' for an unset boolean). */
export function fieldValue(resource: ResourceInfo, obj: KubeObject, field: string): string {
  const spec = rec(obj['spec']);
  const status = rec(obj['status']);
  switch (field) {
    case 'metadata.name':
      return str(obj.metadata.name);
    case 'metadata.namespace':
      return str(obj.metadata.namespace);
    case 'spec.hostNetwork':
      return String(spec['hostNetwork'] === true);
    case 'spec.unschedulable':
      return String(spec['unschedulable'] === true);
    case 'source':
      return str(rec(obj['source'])['component']);
    default:
      break;
  }
  if (resource.resource === 'events') {
    if (field.startsWith('involvedObject.')) return str(rec(obj['involvedObject'])[field.slice('involvedObject.'.length)]);
    return str(obj[field]);
  }
  const [head, tail] = field.split('.', 2) as [string, string];
  if (head === 'spec') return str(spec[tail]);
  if (head === 'status') return str(status[tail]);
  return '';
}

// ---------------------------------------------------------------------------------------------------
// Time, names, uids

/** RFC 3339 in seconds, as metav1.Time marshals. */
export function timestamp(ms: number = Date.now()): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** `@now`, `@now-20m`, `@now-3d`: a time relative to when the fixtures load (events expire after 1 h in a real cluster). */
export function relativeTime(value: string, now: number): string | undefined {
  const m = /^@now(?:-(\d+)([smhd]))?$/.exec(value);
  if (!m) return undefined;
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 's') as 's' | 'm' | 'h' | 'd'];
  return timestamp(now - Number(m[1] ?? 0) * unit);
}

/** A stable uid for a fixture object that names none. */
export function stableUid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16] as string, 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function newUid(): string {
  return randomUUID();
}

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

/** generateName's random suffix: 5 characters from the API server's alphabet (no vowels, no 0/1/3). */
export function nameSuffix(length = 5): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (b) => NAME_CHARS[b % NAME_CHARS.length]).join('');
}

export function containerIdFor(seed: string): string {
  return `containerd://${createHash('sha256').update(seed).digest('hex')}`;
}

// ---------------------------------------------------------------------------------------------------
// Pods

export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts?: {
    name: string;
    mountPath: string;
    readOnly?: boolean;
    subPath?: string;
    recursiveReadOnly?: string;
    mountPropagation?: string;
  }[];
  [key: string]: unknown;
}

export interface Volume {
  name: string;
  hostPath?: { path: string; type?: string };
  [key: string]: unknown;
}

export interface PodSpec {
  nodeName?: string;
  containers: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
  hostPID?: boolean;
  restartPolicy?: string;
  schedulerName?: string;
  activeDeadlineSeconds?: number;
  terminationGracePeriodSeconds?: number;
  tolerations?: Json[];
  [key: string]: unknown;
}

export function podSpec(pod: KubeObject): PodSpec {
  return pod['spec'] as PodSpec;
}

export function podStatus(pod: KubeObject): Json {
  if (typeof pod['status'] !== 'object' || pod['status'] === null) pod['status'] = {};
  return pod['status'] as Json;
}

export function containersOf(pod: KubeObject): Container[] {
  const spec = rec(pod['spec']);
  return Array.isArray(spec['containers']) ? (spec['containers'] as Container[]) : [];
}

/** QoS class (pkg/apis/core/v1/helper/qos): only cpu and memory count; requests default to limits. */
export function qosClass(pod: KubeObject): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const spec = rec(pod['spec']);
  const all = [...(Array.isArray(spec['initContainers']) ? (spec['initContainers'] as Container[]) : []), ...containersOf(pod)];
  let any = false;
  let guaranteed = true;
  for (const c of all) {
    const limits = c.resources?.limits ?? {};
    const requests = { ...limits, ...(c.resources?.requests ?? {}) };
    for (const name of ['cpu', 'memory']) {
      if (requests[name] !== undefined || limits[name] !== undefined) any = true;
      if (limits[name] === undefined || requests[name] !== limits[name]) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** The defaults admission and the defaulting functions add to a created pod's spec. */
export function defaultPodSpec(pod: KubeObject): void {
  const spec = pod['spec'] as PodSpec;
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec['dnsPolicy'] ??= 'ClusterFirst';
  spec.schedulerName ??= 'default-scheduler';
  spec['serviceAccountName'] ??= 'default';
  spec['serviceAccount'] ??= spec['serviceAccountName'];
  spec['securityContext'] ??= {};
  spec['enableServiceLinks'] ??= true;
  spec['preemptionPolicy'] ??= 'PreemptLowerPriority';
  spec['priority'] ??= 0;
  const tolerations = (spec.tolerations ??= []);
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
    if (!tolerations.some((t) => t['key'] === key))
      tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
  }
  for (const c of spec.containers) {
    c['terminationMessagePath'] ??= '/dev/termination-log';
    c['terminationMessagePolicy'] ??= 'File';
    c['imagePullPolicy'] ??= /:latest$|^[^:]*$/.test(c.image ?? '') ? 'Always' : 'IfNotPresent';
    c.resources ??= {};
  }
}

function imageRef(image: string): string {
  if (/^[^/]+\.[^/]+\//.test(image) || image.startsWith('localhost/'))
    return image.includes(':') || image.includes('@') ? image : `${image}:latest`;
  const withRepo = image.includes('/') ? image : `library/${image}`;
  return `docker.io/${withRepo.includes(':') ? withRepo : `${withRepo}:latest`}`;
}

export function runningContainerStatus(pod: KubeObject, c: Container, startedAt: string): Json {
  const image = imageRef(c.image ?? 'busybox');
  return {
    name: c.name,
    state: { running: { startedAt } },
    lastState: {},
    ready: true,
    restartCount: 0,
    image,
    imageID: `${image.replace(/:[^:/]+$/, '')}@sha256:${createHash('sha256').update(image).digest('hex')}`,
    containerID: containerIdFor(`${pod.metadata.uid ?? ''}/${c.name}`),
    started: true,
  };
}

export function waitingContainerStatus(c: Container, reason: string, message?: string): Json {
  const waiting: Json = { reason };
  if (message) waiting['message'] = message;
  return {
    name: c.name,
    state: { waiting },
    lastState: {},
    ready: false,
    restartCount: 0,
    image: imageRef(c.image ?? 'busybox'),
    imageID: '',
    started: false,
  };
}

export function podConditions(ready: boolean, at: string, scheduled = true): Json[] {
  const s = (b: boolean) => (b ? 'True' : 'False');
  return [
    { type: 'PodReadyToStartContainers', status: s(ready), lastProbeTime: null, lastTransitionTime: at },
    { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: at },
    {
      type: 'Ready',
      status: s(ready),
      lastProbeTime: null,
      lastTransitionTime: at,
      ...(ready ? {} : { reason: 'ContainersNotReady', message: 'containers with unready status' }),
    },
    {
      type: 'ContainersReady',
      status: s(ready),
      lastProbeTime: null,
      lastTransitionTime: at,
      ...(ready ? {} : { reason: 'ContainersNotReady', message: 'containers with unready status' }),
    },
    { type: 'PodScheduled', status: s(scheduled), lastProbeTime: null, lastTransitionTime: at },
  ];
}

/**
 * Fills what a fixture pod leaves out, from its phase: qosClass, hostIP/podIP, startTime, conditions and a
 * running status per container (merged under what the fixture wrote, so `restartCount` or `lastState` stay).
 */
export function completeFixturePod(pod: KubeObject, hostIP: string | undefined, podIP: string): void {
  const status = podStatus(pod);
  const created = pod.metadata.creationTimestamp ?? timestamp();
  status['phase'] ??= podSpec(pod).nodeName ? 'Running' : 'Pending';
  status['qosClass'] ??= qosClass(pod);
  if (podSpec(pod).nodeName) {
    if (hostIP) {
      status['hostIP'] ??= hostIP;
      status['hostIPs'] ??= [{ ip: hostIP }];
    }
    status['startTime'] ??= created;
  }
  if (status['phase'] === 'Running') {
    status['podIP'] ??= podIP;
    status['podIPs'] ??= [{ ip: status['podIP'] }];
    const given = Array.isArray(status['containerStatuses']) ? (status['containerStatuses'] as Json[]) : [];
    const statuses = containersOf(pod).map((c) => {
      const mine = given.find((s) => s['name'] === c.name) ?? {};
      return { ...runningContainerStatus(pod, c, str(status['startTime'] ?? created)), ...mine };
    });
    status['containerStatuses'] = statuses;
    const allReady = statuses.every((s) => s['ready'] === true);
    status['conditions'] ??= podConditions(allReady, created);
  }
}
