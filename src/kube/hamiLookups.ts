// Where HAMi runs in a cluster, found by the labels its Helm chart puts on its pods
// (https://github.com/Project-HAMi/HAMi/tree/master/charts/hami): the device plugin on a node, the scheduler
// anywhere.
import type { V1Pod } from '@kubernetes/client-node';
import { summarizeNode } from '../core/kube/nodes.ts';
import type { CallOptions, ClusterClient } from './clusterClient.ts';

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
