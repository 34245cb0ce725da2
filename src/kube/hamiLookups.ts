// Where HAMi runs in a cluster, found by the labels its Helm chart puts on its pods
// (https://github.com/Project-HAMi/HAMi/tree/master/charts/hami): the device plugin on a node, the scheduler
// anywhere; and what step 6 of its checklist needs from the API: the pod's RuntimeClass and the NVIDIA GPU
// Operator's version.
import type { V1Pod } from '@kubernetes/client-node';
import { explainKubeFailure } from '../core/kube/failureMessages.ts';
import { classifyKubeError } from '../core/kube/kubeFailure.ts';
import { summarizeNode } from '../core/kube/nodes.ts';
import { imageTag } from '../core/report/clusterReport.ts';
import type { RuntimeClassLookup } from '../core/verdicts/hami/hamiCheck.ts';
import type { CallOptions, ClusterClient } from './clusterClient.ts';
import { KubeRequestError } from './kubeRequestError.ts';

export const HAMI_DEVICE_PLUGIN_SELECTOR = 'app.kubernetes.io/component=hami-device-plugin';
export const HAMI_SCHEDULER_SELECTOR = 'app.kubernetes.io/component=hami-scheduler';

/** The HAMi scheduler pods (label app.kubernetes.io/component=hami-scheduler) in any namespace; [] when HAMi is not installed. */
export function findHamiScheduler(client: ClusterClient, options: CallOptions = {}): Promise<V1Pod[]> {
  return client.listPodsInAllNamespaces({ ...options, labelSelector: HAMI_SCHEDULER_SELECTOR });
}

/**
 * The node's NVIDIA GPUs as HAMi's device plugin registered them (`hami.io/node-nvidia-register`, both formats:
 * core/kube/hamiNodeAnnotations.ts): each UUID's physical memory, for comparing with what NVML reports inside
 * a container. [] when the node carries no registration.
 */
export async function readHamiRegisteredDevices(
  client: ClusterClient,
  node: string,
  options: CallOptions = {},
): Promise<{ uuid: string; devmemMiB: number }[]> {
  const summary = summarizeNode(await client.readNode(node, options));
  return (summary.hami?.registrations ?? [])
    .filter((registration) => registration.vendor === 'NVIDIA')
    .flatMap((registration) => registration.devices.map((device) => ({ uuid: device.id, devmemMiB: device.devmemMiB })));
}

/** The label NVIDIA's GPU Operator chart puts on its operator pod (deployments/gpu-operator/templates/operator.yaml). */
export const GPU_OPERATOR_SELECTOR = 'app.kubernetes.io/component=gpu-operator';

/** The GPU Operator's version: its operator pod's image tag (e.g. "v25.10.0"); undefined when it does not run here. */
export async function findGpuOperatorVersion(client: ClusterClient, options: CallOptions = {}): Promise<string | undefined> {
  const pods = await client.listPodsInAllNamespaces({ ...options, labelSelector: GPU_OPERATOR_SELECTOR });
  const image = pods.flatMap((pod) => pod.spec?.containers ?? []).find((container) => /gpu-operator/.test(container.image ?? ''))?.image;
  return imageTag(image);
}

/** The RuntimeClass a pod names, as the API server answers: its handler, none (404), or why it could not be read. */
export async function lookupRuntimeClass(client: ClusterClient, name: string, options: CallOptions = {}): Promise<RuntimeClassLookup> {
  try {
    const runtimeClass = await client.readRuntimeClass(name, options);
    return { kind: 'found', name, handler: runtimeClass.handler };
  } catch (error) {
    const failure = error instanceof KubeRequestError ? error.failure : classifyKubeError(error);
    if (failure.kind === 'not-found') return { kind: 'missing', name };
    return { kind: 'unreadable', name, reason: explainKubeFailure(failure, { context: client.context, action: `RuntimeClass ${name}` }) };
  }
}
