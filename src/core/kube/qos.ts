// Kubernetes' pod QoS class, computed once for live pods (core/kube/pods.ts) and manifests
// (core/rules/memoryRules.ts), each of which maps its own objects into the small shape below.
//
// The rules are the kubelet's ComputePodQOS (pkg/apis/core/helper/qos/qos.go in kubernetes/kubernetes) and
// https://kubernetes.io/docs/concepts/workloads/pods/pod-qos/:
// - only cpu and memory count; zero values count as unset;
// - a container (or the pod) that sets a limit but no request gets the limit as its request (API defaulting,
//   https://kubernetes.io/docs/tasks/configure-pod-container/quality-service-pod/);
// - app and init containers (sidecars included) count; ephemeral containers cannot set resources;
// - pod-level `spec.resources`, when it sets requests or limits, decides alone (KEP-2837,
//   https://kubernetes.io/docs/tasks/configure-pod-container/assign-pod-level-resources/);
// - BestEffort: nothing sets cpu or memory; Guaranteed: every source limits both cpu and memory and
//   requests what it limits (a memory-only pod without a cpu limit is Burstable); Burstable otherwise.
// The kubelet compares the sums over containers; since the API rejects a request above its limit, that is
// the same as every container requesting what it limits, which also names the container that breaks it.

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

export type QosResource = 'cpu' | 'memory';
const QOS_RESOURCES: readonly QosResource[] = ['cpu', 'memory'];

/** A cpu or memory value as written; `value` is undefined when it cannot be known (a template, a placeholder). */
export interface QosQuantity {
  readonly value: number | undefined;
  readonly text: string;
}

export interface QosResources {
  readonly requests: Readonly<Partial<Record<QosResource, QosQuantity>>>;
  readonly limits: Readonly<Partial<Record<QosResource, QosQuantity>>>;
}

export interface QosInput {
  /** `spec.resources` when it sets any request or limit. */
  readonly pod?: QosResources;
  /** App and init containers, in any order; no ephemeral containers. */
  readonly containers: readonly (QosResources & { readonly name: string })[];
}

/** Where the reason lies: the pod-level resources, or the container at `index` of the input. */
export type QosSource = { readonly scope: 'pod' } | { readonly scope: 'container'; readonly index: number; readonly name: string };

export type QosReason =
  | { readonly kind: 'nothing-set' }
  | { readonly kind: 'no-limit'; readonly source: QosSource; readonly resource: QosResource }
  | {
      readonly kind: 'request-below-limit';
      readonly source: QosSource;
      readonly resource: QosResource;
      readonly request: QosQuantity;
      readonly limit: QosQuantity;
    };

export type QosOutcome = { readonly qos: 'Guaranteed' } | { readonly qos: 'Burstable' | 'BestEffort'; readonly reason: QosReason };

const isSet = (quantity: QosQuantity | undefined): quantity is QosQuantity =>
  quantity !== undefined && (quantity.value === undefined || quantity.value > 0);

function sameValue(a: number, b: number): boolean {
  return Math.abs(a - b) <= Math.max(1e-9, Math.abs(a) * 1e-12);
}

function reasonIn(resources: QosResources, source: QosSource): QosReason | undefined {
  for (const resource of QOS_RESOURCES) {
    const limit = resources.limits[resource];
    if (!isSet(limit)) return { kind: 'no-limit', source, resource };
    const written = resources.requests[resource];
    const request = isSet(written) ? written : limit;
    if (request.value !== undefined && limit.value !== undefined && !sameValue(request.value, limit.value)) {
      return { kind: 'request-below-limit', source, resource, request, limit };
    }
  }
  return undefined;
}

function setsAnything(resources: QosResources): boolean {
  return QOS_RESOURCES.some((resource) => isSet(resources.requests[resource]) || isSet(resources.limits[resource]));
}

/** The pod's QoS class and, unless Guaranteed, the first reason it is not. */
export function computeQos(input: QosInput): QosOutcome {
  const sources: { resources: QosResources; source: QosSource }[] = input.pod
    ? [{ resources: input.pod, source: { scope: 'pod' } }]
    : input.containers.map((resources, index) => ({ resources, source: { scope: 'container', index, name: resources.name } }));
  if (!sources.some(({ resources }) => setsAnything(resources))) return { qos: 'BestEffort', reason: { kind: 'nothing-set' } };
  for (const { resources, source } of sources) {
    const reason = reasonIn(resources, source);
    if (reason) return { qos: 'Burstable', reason };
  }
  return { qos: 'Guaranteed' };
}
