// Inspect Node through the node's gpumem agent pod (deploy/agent), when it runs there: an exec of the probe into the
// agent's container, which already has what the probe needs (the host's / at /host read-only, hostPID,
// SYS_PTRACE and SYSLOG), instead of a debug pod created and deleted for each look. Faster, and no pod churn.
// The lookup says why it cannot be used (no agent pod on the node, not ready, no `create pods/exec` in
// gpumem-system), and the caller falls back to the debug pod and says which path it took.
import type { V1Pod } from '@kubernetes/client-node';
import { describeKubeFailure } from '../core/kube/kubeFailure.ts';
import type { CallOptions, ClusterClient } from './clusterClient.ts';
import { KubeRequestError, nodeFieldSelector } from './clusterClient.ts';

export const AGENT_NAMESPACE = 'gpumem-system';
export const AGENT_SELECTOR = 'app.kubernetes.io/name=gpumem-agent';
export const AGENT_CONTAINER = 'agent';
/** Where the DaemonSet mounts the host's / (deploy/agent/base/daemonset.yaml). */
export const AGENT_HOST_ROOT = '/host';

export type AgentPodLookup =
  | { readonly kind: 'found'; readonly namespace: string; readonly pod: string; readonly container: string }
  | { readonly kind: 'none'; readonly reason: string };

function ready(pod: V1Pod): boolean {
  if (pod.status?.phase !== 'Running' || pod.metadata?.deletionTimestamp) return false;
  const container = pod.status.containerStatuses?.find((status) => status.name === AGENT_CONTAINER);
  return container?.ready === true && container.state?.running !== undefined;
}

/** The running, ready agent pod on `node` that this user may exec into; never throws. */
export async function findAgentPod(client: ClusterClient, node: string, options: CallOptions = {}): Promise<AgentPodLookup> {
  let pods: V1Pod[];
  try {
    pods = await client.listPods(AGENT_NAMESPACE, { ...options, labelSelector: AGENT_SELECTOR, fieldSelector: nodeFieldSelector(node) });
  } catch (error) {
    const why = error instanceof KubeRequestError ? describeKubeFailure(error.failure) : String(error);
    return { kind: 'none', reason: `the gpumem agent pods in ${AGENT_NAMESPACE} could not be listed: ${why}` };
  }
  const onNode = pods.filter((pod) => pod.spec?.nodeName === node);
  if (onNode.length === 0) return { kind: 'none', reason: `no gpumem agent pod runs on node ${node}` };
  const pod = onNode.find(ready);
  if (!pod?.metadata?.name) return { kind: 'none', reason: `the gpumem agent pod on node ${node} is not ready` };
  try {
    const review = await client.canI('create', 'pods', { ...options, namespace: AGENT_NAMESPACE, subresource: 'exec' });
    if (!review.allowed)
      return {
        kind: 'none',
        reason: `your credentials may not create pods/exec in ${AGENT_NAMESPACE} (kubectl auth can-i create pods/exec -n ${AGENT_NAMESPACE})`,
      };
  } catch (error) {
    const why = error instanceof KubeRequestError ? describeKubeFailure(error.failure) : String(error);
    return { kind: 'none', reason: `whether you may exec into the agent pod could not be checked: ${why}` };
  }
  return { kind: 'found', namespace: AGENT_NAMESPACE, pod: pod.metadata.name, container: AGENT_CONTAINER };
}
