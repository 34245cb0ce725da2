// How "Inspect Node" and "Explain OOM Kills on Node" reach a node, and what the cluster adds to the analysis,
// without VS Code (the commands only add the prompts and the progress):
// - `debug-pod` (the default): a DebugPodTransport pinned to the node, the probe run with hostRoot /host;
// - `ssh`: the node's first InternalIP, ExternalIP or Hostname (src/core/kube/nodeAddress.ts) as an SSH
//   destination through the user's ssh config (sshFromConfig.ts: Port, User, IdentityFile, ProxyJump,
//   known_hosts), the probe run on the node itself with hostRoot ''. A node without an address, or one whose
//   address is no SSH destination, is `unreachable` with the reason, before anything is dialled.
// Either way the analysis gets the names of the pods the API server lists on the node (their UIDs are what
// the probe finds in the cgroup paths) and, on a HAMi node, the health of its device-plugin pod.
import type { AnalyzeOptions } from '../core/inspection/analyze.ts';
import { nodeSshAddress } from '../core/kube/nodeAddress.ts';
import type { SshAddressType } from '../core/kube/nodeAddress.ts';
import type { GpuNodeSummary } from '../core/kube/nodes.ts';
import { podHealth } from '../core/kube/pods.ts';
import type { SshTransport } from '../transports/ssh.ts';
import { sshTransportFromConfig } from '../transports/sshFromConfig.ts';
import type { SshFromConfigOptions } from '../transports/sshFromConfig.ts';
import type { CallOptions, ClusterClient } from './clusterClient.ts';
import { HAMI_DEVICE_PLUGIN_SELECTOR } from './clusterClient.ts';
import { DebugPodTransport } from './debugPodTransport.ts';
import type { DebugPodTransportOptions } from './debugPodTransport.ts';
import { podNamesOf } from './explorer.ts';

export type NodeProbeMode = 'debug-pod' | 'ssh';

export interface NodeProbeSettings {
  readonly nodeProbe: NodeProbeMode;
  readonly debugNamespace: string;
  readonly debugImage: string;
}

export type NodeProbeRoute =
  | { readonly kind: 'debug-pod'; readonly transport: DebugPodTransport; readonly hostRoot: string; readonly namespace: string }
  | { readonly kind: 'ssh'; readonly transport: SshTransport; readonly hostRoot: ''; readonly addressType: SshAddressType; readonly address: string }
  | { readonly kind: 'unreachable'; readonly reason: string };

export interface NodeProbeRouteOptions {
  /** For the SSH route: the ssh config, the host-key policy and the prompts. */
  readonly ssh?: SshFromConfigOptions;
  /** For the debug-pod route: more options of the DebugPodTransport (its exec, its log…). */
  readonly debugPod?: Omit<DebugPodTransportOptions, 'client' | 'node' | 'namespace' | 'image'>;
}

/** The transport to probe `node` with, and the host root the probe must be given. Opens no connection yet. */
export function nodeProbeRoute(client: ClusterClient, node: Pick<GpuNodeSummary, 'name' | 'addresses'>, settings: NodeProbeSettings, options: NodeProbeRouteOptions = {}): NodeProbeRoute {
  if (settings.nodeProbe === 'ssh') {
    const address = nodeSshAddress(node);
    if (address.kind === 'none') return { kind: 'unreachable', reason: address.reason };
    let transport: SshTransport;
    try {
      transport = sshTransportFromConfig(address.destination, options.ssh);
    } catch (error) {
      return { kind: 'unreachable', reason: `${address.type} ${address.address}: ${error instanceof Error ? error.message : String(error)}` };
    }
    return { kind: 'ssh', transport, hostRoot: '', addressType: address.type, address: address.address };
  }
  const transport = new DebugPodTransport({ ...options.debugPod, client, node: node.name, namespace: settings.debugNamespace, image: settings.debugImage });
  return { kind: 'debug-pod', transport, hostRoot: transport.hostRoot, namespace: settings.debugNamespace };
}

/** What the cluster knows that the node probe cannot: pod UID → namespace/name and, on a HAMi node, its device-plugin pod's health. */
export async function nodeAnalysisInputs(client: ClusterClient, node: Pick<GpuNodeSummary, 'name' | 'hami'>, options: CallOptions = {}): Promise<Omit<AnalyzeOptions, 'target'>> {
  const { pods } = await client.listPodsOnNode(node.name, options);
  if (!node.hami) return { podNames: podNamesOf(pods) };
  const [key, value] = HAMI_DEVICE_PLUGIN_SELECTOR.split('=') as [string, string];
  const plugins = pods.filter((pod) => pod.metadata?.labels?.[key] === value);
  return { podNames: podNamesOf(pods), hamiCluster: { devicePluginPods: plugins.map((pod) => podHealth(pod)) } };
}
