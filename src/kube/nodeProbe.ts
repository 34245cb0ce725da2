// How "Inspect Node" and "Explain OOM Kills on Node" reach a node, and what the cluster adds to the analysis,
// without VS Code (the commands only add the prompts and the progress):
// - `debug-pod` (the default): a DebugPodTransport pinned to the node, the probe run with hostRoot /host;
// - `ssh`: the node's first InternalIP, ExternalIP or Hostname (src/core/kube/nodeAddress.ts) as an SSH
//   destination through the user's ssh config (sshFromConfig.ts: Port, User, IdentityFile, ProxyJump,
//   known_hosts, matched on the address), the probe run on the node itself with hostRoot ''. The address is
//   dialled as given: a `HostName` of a matching `Host` block is not followed, so a node whose name or
//   address equals an alias in ~/.ssh/config never sends the probe (and the user's keys) to that alias's
//   host. Aliases apply only when the user asks (`sshHostFrom: 'node-name'`, gpumem.kubernetes.sshHostFrom
//   nodeName, --ssh-host-from node-name): then the node name is the destination, resolved as ssh would.
//   A node without an address, or one whose address is no SSH destination, is `unreachable` with the
//   reason, before anything is dialled.
// Either way the analysis gets the names of the pods the API server lists on the node (their UIDs are what
// the probe finds in the cgroup paths) and, on a HAMi node, the health of its device-plugin pod.
import type { AnalyzeOptions } from '../core/inspectionRun/analyze.ts';
import { nodeSshAddress } from '../core/kube/nodeAddress.ts';
import { parseImageReference } from '../core/kube/imageReference.ts';
import { isDnsSubdomain } from '../core/kube/names.ts';
import type { SshAddressType } from '../core/kube/nodeAddress.ts';
import type { GpuNodeSummary } from '../core/kube/nodes.ts';
import { podHealth } from '../core/kube/pods.ts';
import type { Transport } from '../core/probe/transport.ts';
import type { SshTransport } from '../transports/ssh.ts';
import { AGENT_HOST_ROOT, findAgentPod } from './agentPod.ts';
import { PodExecTransport } from './podExecTransport.ts';
import { sshTransportFromConfig } from '../transports/sshFromConfig.ts';
import type { SshFromConfigOptions } from '../transports/sshFromConfig.ts';
import type { CallOptions, ClusterClient } from './clusterClient.ts';
import { HAMI_DEVICE_PLUGIN_SELECTOR } from './hamiLookups.ts';
import { DebugPodTransport } from './debugPodTransport.ts';
import type { DebugPodTransportOptions } from './debugPodTransport.ts';
import { podNamesOf } from './explorer.ts';
import { hamiPodQuotas } from '../core/kube/hamiPodQuotas.ts';
import { errorMessage } from '../core/errorMessage.ts';

export type NodeProbeMode = 'debug-pod' | 'ssh';

/** What the SSH route dials: the node's address from its status, or its name as an ~/.ssh/config alias. */
export type SshHostFrom = 'address' | 'node-name';

export interface NodeProbeSettings {
  readonly nodeProbe: NodeProbeMode;
  /** Default 'address'. */
  readonly sshHostFrom?: SshHostFrom;
  readonly debugNamespace: string;
  readonly debugImage: string;
}

export type NodeProbeRoute =
  | {
      readonly kind: 'debug-pod';
      readonly transport: DebugPodTransport;
      readonly hostRoot: string;
      readonly namespace: string;
      /** Why the node's gpumem agent pod was not used, when one was looked for. */
      readonly agentSkipped?: string;
    }
  | { readonly kind: 'agent'; readonly transport: Transport; readonly hostRoot: string; readonly namespace: string; readonly pod: string }
  | {
      readonly kind: 'ssh';
      readonly transport: SshTransport;
      readonly hostRoot: '';
      readonly addressType: SshAddressType | 'NodeName';
      readonly address: string;
    }
  | { readonly kind: 'unreachable'; readonly reason: string };

export interface NodeProbeRouteOptions {
  /** For the SSH route: the ssh config, the host-key policy and the prompts. */
  readonly ssh?: SshFromConfigOptions;
  /** For the debug-pod route: more options of the DebugPodTransport (its exec, its log…). */
  readonly debugPod?: Omit<DebugPodTransportOptions, 'client' | 'node' | 'namespace' | 'image'>;
}

/** The transport to probe `node` with, and the host root the probe must be given. Opens no connection yet. */
export function nodeProbeRoute(
  client: ClusterClient,
  node: Pick<GpuNodeSummary, 'name' | 'addresses'>,
  settings: NodeProbeSettings,
  options: NodeProbeRouteOptions = {},
): NodeProbeRoute {
  if (settings.nodeProbe === 'ssh' && settings.sshHostFrom === 'node-name') {
    if (!isDnsSubdomain(node.name))
      return { kind: 'unreachable', reason: `node name ${JSON.stringify(node.name.slice(0, 80))} is no SSH host name` };
    try {
      return {
        kind: 'ssh',
        transport: sshTransportFromConfig(node.name, { ...options.ssh, hostName: 'config' }),
        hostRoot: '',
        addressType: 'NodeName',
        address: node.name,
      };
    } catch (error) {
      return { kind: 'unreachable', reason: `node name ${node.name}: ${errorMessage(error)}` };
    }
  }
  if (settings.nodeProbe === 'ssh') {
    const address = nodeSshAddress(node);
    if (address.kind === 'none') return { kind: 'unreachable', reason: address.reason };
    let transport: SshTransport;
    try {
      transport = sshTransportFromConfig(address.destination, { ...options.ssh, hostName: 'destination' });
    } catch (error) {
      return {
        kind: 'unreachable',
        reason: `${address.type} ${address.address}: ${errorMessage(error)}`,
      };
    }
    return { kind: 'ssh', transport, hostRoot: '', addressType: address.type, address: address.address };
  }
  const image = parseImageReference(settings.debugImage);
  if (image.kind === 'invalid')
    return { kind: 'unreachable', reason: `debug image "${settings.debugImage.slice(0, 120)}": ${image.reason}` };
  const transport = new DebugPodTransport({
    ...options.debugPod,
    client,
    node: node.name,
    namespace: settings.debugNamespace,
    image: image.reference,
  });
  return { kind: 'debug-pod', transport, hostRoot: transport.hostRoot, namespace: settings.debugNamespace };
}

/** What the cluster knows that the node probe cannot: pod UID → namespace/name and, on a HAMi node, its device-plugin pod's health. */
export async function nodeAnalysisInputs(
  client: ClusterClient,
  node: Pick<GpuNodeSummary, 'name' | 'hami'>,
  options: CallOptions = {},
): Promise<Omit<AnalyzeOptions, 'target'>> {
  const { pods } = await client.listPodsOnNode(node.name, options);
  const hamiQuotas = hamiPodQuotas(pods);
  if (!node.hami) return { podNames: podNamesOf(pods), hamiQuotas };
  const [key, value] = HAMI_DEVICE_PLUGIN_SELECTOR.split('=') as [string, string];
  const plugins = pods.filter((pod) => pod.metadata?.labels?.[key] === value);
  return { podNames: podNamesOf(pods), hamiQuotas, hamiCluster: { devicePluginPods: plugins.map((pod) => podHealth(pod)) } };
}

export interface AgentRouteOptions extends NodeProbeRouteOptions {
  /** Whether to look for the node's gpumem agent pod first (default true; gpumem.kubernetes.useAgentPod, --no-agent). */
  readonly useAgent?: boolean;
  /** The exec into the agent pod (kubectl in VS Code's execMode kubectl); default client-node's WebSocket exec. */
  readonly agentExec?: (target: { namespace: string; pod: string; container: string; label: string }) => Transport;
  readonly signal?: AbortSignal;
}

/**
 * The route of Inspect Node: with the debug-pod mode, the node's gpumem agent pod when it runs there and the user may
 * exec into it (src/kube/agentPod.ts), else the debug pod with the reason the agent was not used; the SSH mode as
 * nodeProbeRoute. Reads the API (a list and a SelfSubjectAccessReview); opens no exec yet.
 */
export async function resolveNodeProbeRoute(
  client: ClusterClient,
  node: Pick<GpuNodeSummary, 'name' | 'addresses'>,
  settings: NodeProbeSettings,
  options: AgentRouteOptions = {},
): Promise<NodeProbeRoute> {
  if (settings.nodeProbe !== 'debug-pod' || options.useAgent === false) return nodeProbeRoute(client, node, settings, options);
  const agent = await findAgentPod(client, node.name, options.signal ? { signal: options.signal } : {});
  if (agent.kind === 'found') {
    const label = `gpumem agent pod ${agent.namespace}/${agent.pod} on node/${node.name} (context ${client.context})`;
    const transport =
      options.agentExec?.({ namespace: agent.namespace, pod: agent.pod, container: agent.container, label }) ??
      new PodExecTransport({
        kubeConfig: client.kubeConfig,
        client,
        namespace: agent.namespace,
        pod: agent.pod,
        container: agent.container,
        target: label,
      });
    return { kind: 'agent', transport, hostRoot: AGENT_HOST_ROOT, namespace: agent.namespace, pod: agent.pod };
  }
  const route = nodeProbeRoute(client, node, settings, options);
  return route.kind === 'debug-pod' ? { ...route, agentSkipped: agent.reason } : route;
}
