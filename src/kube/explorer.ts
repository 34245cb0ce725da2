// The Clusters view's reads, without VS Code: one context's nodes (after a short probe) with the nodes'
// recent memory events, a node's GPU pods, the HAMi cluster facts of a pod, the live pod YAML. The view and
// the commands call these; test/integration/clusterTree.test.ts runs them against the simulator.
//
// Costs, for large clusters: a context is one GET /version, one paged node list and ONE event list for the
// whole cluster (`involvedObject.kind=Node,reason=SystemOOM`, selected by the API server), whatever the number
// of nodes; a node's pods come from ClusterClient's server-side `spec.nodeName` selector (its watch).
import type { CoreV1Event, V1Node, V1Pod } from '@kubernetes/client-node';
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import { stringify } from 'yaml';
import type { NodeLabelRule } from '../core/config.ts';
import type { KubeFailure } from '../core/kube/kubeFailure.ts';
import type { ContextState } from '../core/kube/contextState.ts';
import { classifyKubeError } from '../core/kube/kubeFailure.ts';
import type { NodeMemoryEvent } from '../core/kube/events.ts';
import { nodeMemoryEvents, systemOomEvents } from '../core/kube/events.ts';
import { explainKubeFailure } from '../core/kube/failureMessages.ts';
import type { GpuNodeSummary } from '../core/kube/nodes.ts';
import { compareNodesGpuFirst, summarizeNode } from '../core/kube/nodes.ts';
import type { GpuPodSummary } from '../core/kube/pods.ts';
import { defaultExecContainer, hamiFactsFromPod, podHealth, summarizePod } from '../core/kube/pods.ts';
import { comparePods } from '../core/kube/podTreeItem.ts';
import type { HamiClusterSection } from '../core/report/clusterReport.ts';
import { imageTag } from '../core/report/clusterReport.ts';
import type { HamiClusterFacts } from '../core/verdicts/hami/hamiChecklist.ts';
import type { CallOptions, ClusterClient } from './clusterClient.ts';
import { KubeRequestError } from './clusterClient.ts';
import {
  findGpuOperatorVersion,
  findHamiScheduler,
  HAMI_DEVICE_PLUGIN_SELECTOR,
  lookupRuntimeClass,
  readHamiRegisteredDevices,
} from './hamiLookups.ts';

export interface ExplorerNode {
  readonly summary: GpuNodeSummary;
  readonly raw: V1Node;
}

export interface ContextNodes {
  /** Reachable when the nodes were listed; otherwise why not (nodes is then empty). */
  readonly state: ContextState;
  /** GPU nodes first (compareNodesGpuFirst). */
  readonly nodes: readonly ExplorerNode[];
  /** SystemOOM events by node name, most recent first. */
  readonly events: ReadonlyMap<string, readonly NodeMemoryEvent[]>;
  /** Why the events could not be read (they are optional: the nodes still show). */
  readonly eventsProblem: string | undefined;
}

export interface LoadOptions extends CallOptions {
  readonly unifiedMemoryLabels?: readonly NodeLabelRule[];
}

function failureOf(error: unknown): KubeFailure {
  return error instanceof KubeRequestError ? error.failure : classifyKubeError(error);
}

/** Probe, then list the nodes and the cluster's node memory events. Never throws. */
export async function loadContextNodes(client: ClusterClient, options: LoadOptions = {}): Promise<ContextNodes> {
  const empty = { nodes: [], events: new Map(), eventsProblem: undefined };
  const call: CallOptions = {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  };
  const state = await client.probe(options.signal ? { signal: options.signal } : {});
  if (state.kind !== 'Reachable') return { state, ...empty };
  let raw: V1Node[];
  try {
    raw = await client.listNodes(call);
  } catch (error) {
    if (error instanceof KubeRequestError) return { state: error.state, ...empty };
    throw error;
  }
  const summaryOptions = options.unifiedMemoryLabels ? { unifiedMemoryLabels: options.unifiedMemoryLabels } : {};
  const nodes = raw
    .map((node) => ({ summary: summarizeNode(node, summaryOptions), raw: node }))
    .sort((a, b) => compareNodesGpuFirst(a.summary, b.summary));
  let events: ReadonlyMap<string, readonly NodeMemoryEvent[]> = new Map();
  let eventsProblem: string | undefined;
  try {
    events = await listNodeMemoryEvents(client, call);
  } catch (error) {
    eventsProblem = explainKubeFailure(failureOf(error), { context: client.context, action: 'Node events' });
  }
  return { state, nodes, events, eventsProblem };
}

/**
 * The kubelet's SystemOOM events (global OOM kills), by node, most recent first: ONE list with a server-side
 * selector (`involvedObject.kind=Node,reason=SystemOOM`) across all namespaces, or in `default` (where the
 * kubelet writes node events) when listing events cluster-wide is forbidden.
 */
export async function listNodeMemoryEvents(client: ClusterClient, options: CallOptions = {}): Promise<Map<string, NodeMemoryEvent[]>> {
  const core = client.core;
  const fieldSelector = 'involvedObject.kind=Node,reason=SystemOOM';
  let items: CoreV1Event[];
  try {
    items = (
      await client.call(
        { verb: 'list', resource: 'events' },
        (o) => core.listEventForAllNamespaces({ fieldSelector, limit: 500 }, o),
        options,
      )
    ).items;
  } catch (error) {
    if (!(error instanceof KubeRequestError && error.failure.kind === 'forbidden')) throw error;
    items = (
      await client.call(
        { verb: 'list', resource: 'events' },
        (o) => core.listNamespacedEvent({ namespace: 'default', fieldSelector, limit: 500 }, o),
        options,
      )
    ).items;
  }
  const byNode = new Map<string, NodeMemoryEvent[]>();
  // SystemOOM only, even from a server that ignored the field selector: a kill is never an eviction's event.
  for (const event of systemOomEvents(items)) {
    const list = byNode.get(event.node) ?? [];
    list.push(event);
    byNode.set(event.node, list);
  }
  return byNode;
}

/** Every memory event about one node (SystemOOM, OOMKilling, eviction), for "Explain OOM Kills on Node". */
export async function nodeMemoryEventsOf(client: ClusterClient, node: string, options: CallOptions = {}): Promise<NodeMemoryEvent[]> {
  return nodeMemoryEvents(await client.listNodeEvents(node, options), node);
}

export interface ExplorerPod {
  readonly summary: GpuPodSummary;
  readonly raw: V1Pod;
}

export interface NodePods {
  /** Pods that request a GPU or carry a HAMi allocation, by name. */
  readonly gpuPods: readonly ExplorerPod[];
  /** The node's other pods (not listed in the tree). */
  readonly otherPods: number;
}

export function splitGpuPods(pods: readonly V1Pod[]): NodePods {
  const gpuPods: ExplorerPod[] = [];
  let otherPods = 0;
  for (const pod of pods) {
    const summary = summarizePod(pod);
    if (summary.isGpuPod) gpuPods.push({ summary, raw: pod });
    else otherPods++;
  }
  gpuPods.sort((a, b) => comparePods(a.summary, b.summary));
  return { gpuPods, otherPods };
}

/** The GPU pods of one node, listed once (the tree keeps them current with ClusterClient.watchPodsOnNode). */
export async function listNodeGpuPods(client: ClusterClient, node: string, options: CallOptions = {}): Promise<NodePods> {
  const { pods } = await client.listPodsOnNode(node, options);
  return splitGpuPods(pods);
}

/** Pod UID → `namespace/name`, for the probe reports. */
export function podNamesOf(pods: readonly V1Pod[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const pod of pods)
    if (pod.metadata?.uid) names.set(pod.metadata.uid, `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`);
  return names;
}

export interface PodHamiFacts {
  /** For the checklist (analyzeCapture's hamiCluster), whether HAMi manages the pod or not (managedByHami). */
  readonly facts: HamiClusterFacts;
  /** For the report's "HAMi cluster checks" section. */
  readonly section: HamiClusterSection;
}

/**
 * The cluster side of the HAMi checklist for one pod: the device-plugin pods on its node, the scheduler
 * pods, the HAMi version (the device plugin's image tag), the node's HAMi GPU registration (for a HAMi pod),
 * the pod's runtime class and the handler of its RuntimeClass, the GPU Operator's version, the privileged
 * flag, env and allocation. A lookup that fails (RBAC) is reported
 * in `section.problems`, never thrown.
 */
export async function podHamiFacts(
  client: ClusterClient,
  pod: V1Pod,
  container: string | undefined,
  options: CallOptions = {},
): Promise<PodHamiFacts> {
  const summary = summarizePod(pod);
  const chosen = defaultExecContainer(pod, container);
  const fromPod = hamiFactsFromPod(pod, chosen);
  const problems: string[] = [];
  const node = summary.nodeName;
  let devicePlugins: V1Pod[] | undefined;
  if (node !== undefined) {
    try {
      devicePlugins = (await client.listPodsOnNode(node, { ...options, labelSelector: HAMI_DEVICE_PLUGIN_SELECTOR })).pods;
    } catch (error) {
      problems.push(explainKubeFailure(failureOf(error), { context: client.context, action: 'HAMi device-plugin pods' }));
    }
  }
  let registeredDevices: { uuid: string; devmemMiB: number }[] | undefined;
  if (node !== undefined && fromPod.managedByHami) {
    try {
      registeredDevices = await readHamiRegisteredDevices(client, node, options);
    } catch (error) {
      problems.push(explainKubeFailure(failureOf(error), { context: client.context, action: `node ${node}'s HAMi registration` }));
    }
  }
  let schedulers: V1Pod[] | undefined;
  try {
    schedulers = await findHamiScheduler(client, options);
  } catch (error) {
    problems.push(explainKubeFailure(failureOf(error), { context: client.context, action: 'HAMi scheduler pods' }));
  }
  const runtimeClass = summary.runtimeClassName ? await lookupRuntimeClass(client, summary.runtimeClassName, options) : undefined;
  if (runtimeClass?.kind === 'unreadable') problems.push(runtimeClass.reason);
  let gpuOperatorVersion: string | undefined;
  try {
    gpuOperatorVersion = await findGpuOperatorVersion(client, options);
  } catch (error) {
    problems.push(explainKubeFailure(failureOf(error), { context: client.context, action: 'GPU Operator pods' }));
  }
  const pluginImage = devicePlugins?.flatMap((p) => p.spec?.containers ?? []).find((c) => /hami/i.test(c.image ?? ''))?.image;
  const hamiVersion = imageTag(pluginImage);
  const devicePluginPods = devicePlugins?.map((p) => {
    const health = podHealth(p);
    const hasReady = (p.status?.conditions ?? []).some((c) => c.type === 'Ready');
    return { name: health.name, phase: health.phase, ...(hasReady ? { ready: health.ready } : {}) };
  });
  return {
    facts: {
      ...fromPod,
      ...(devicePluginPods ? { devicePluginPods } : {}),
      ...(hamiVersion ? { hamiVersion } : {}),
      ...(registeredDevices ? { registeredDevices } : {}),
      ...(runtimeClass ? { runtimeClass } : {}),
      ...(gpuOperatorVersion ? { gpuOperatorVersion } : {}),
    },
    section: {
      node,
      devicePluginPods,
      schedulerPods: schedulers?.map((s) => ({
        namespace: s.metadata?.namespace ?? '',
        name: s.metadata?.name ?? '',
        phase: s.status?.phase ?? 'Unknown',
      })),
      pod: summary,
      container: chosen,
      env: fromPod.podEnv,
      hamiVersion,
      managed: fromPod.managedByHami,
      problems,
    },
  };
}

/** The pod as `kubectl get pod -o yaml` shows it: wire JSON (not client-node's model), managedFields dropped. */
export function podManifestYaml(pod: V1Pod): string {
  const wire = ObjectSerializer.serialize(pod, 'V1Pod', '') as Record<string, unknown>;
  const metadata = wire['metadata'] as Record<string, unknown> | undefined;
  if (metadata) delete metadata['managedFields'];
  const ordered = { apiVersion: wire['apiVersion'] ?? 'v1', kind: wire['kind'] ?? 'Pod', ...wire };
  return stringify(ordered, { lineWidth: 0 });
}

/** The app containers of a pod, GPU containers first, for a container pick. */
export function podContainers(pod: V1Pod): { name: string; gpu: boolean; image: string | undefined }[] {
  const summary = summarizePod(pod);
  const gpu = new Set(summary.gpuContainers.filter((c) => c.role === 'app').map((c) => c.container));
  return (pod.spec?.containers ?? [])
    .map((c) => ({ name: c.name, gpu: gpu.has(c.name), image: c.image }))
    .sort((a, b) => Number(b.gpu) - Number(a.gpu));
}
