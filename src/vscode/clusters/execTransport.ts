// Which exec transport the Clusters commands use, from `gpumem.kubernetes.execMode`:
// - `api` (default): client-node's WebSocket exec (PodExecTransport; the debug pod's default);
// - `kubectl`: the user's kubectl binary (`gpumem.kubernetes.kubectlPath`), with the same kubeconfig files the
//   Clusters view loaded (resolved from the same setting and KUBECONFIG, by the same function) and the
//   context of the tree item, always explicit. Only the exec changes: every read stays on client-node.
import type { Transport } from '../../core/probe/transport.ts';
import type { ClusterClient } from '../../kube/clusterClient.ts';
import type { DebugPodExecFactory } from '../../kube/debugPodTransport.ts';
import { resolveKubeconfigFiles } from '../../kube/kubeconfig.ts';
import { KubectlExecTransport } from '../../kube/kubectlExecTransport.ts';
import { PodExecTransport } from '../../kube/podExecTransport.ts';
import type { KubeSettings } from './kubeSettings.ts';

export interface PodExecTarget {
  readonly namespace: string;
  readonly pod: string;
  readonly container?: string | undefined;
  /** The command in the container, a constant argv; default `sh -s` (the probe). */
  readonly command?: readonly string[] | undefined;
}

function kubectlTransport(settings: KubeSettings, kubectlPath: string, client: ClusterClient, target: PodExecTarget): KubectlExecTransport {
  return new KubectlExecTransport({
    kubectlPath,
    kubeconfigFiles: resolveKubeconfigFiles({ explicitPath: settings.kubeconfig }).files,
    context: client.context,
    namespace: target.namespace,
    pod: target.pod,
    ...(target.container !== undefined ? { container: target.container } : {}),
    ...(target.command !== undefined ? { remoteCommand: target.command } : {}),
  });
}

/** The transport of "Inspect Pod", the HAMi checklist and the HAMi over-quota test. */
export function podExecTransport(settings: KubeSettings, client: ClusterClient, target: PodExecTarget): Transport {
  if (settings.execMode.kind === 'kubectl') return kubectlTransport(settings, settings.execMode.kubectlPath, client, target);
  return new PodExecTransport({
    kubeConfig: client.kubeConfig,
    namespace: target.namespace,
    pod: target.pod,
    client,
    ...(target.container !== undefined ? { container: target.container } : {}),
    ...(target.command !== undefined ? { command: target.command } : {}),
  });
}

/** The node debug pod's `exec` option: undefined keeps client-node's WebSocket exec. */
export function debugPodExec(settings: KubeSettings, client: ClusterClient): DebugPodExecFactory | undefined {
  const mode = settings.execMode;
  if (mode.kind !== 'kubectl') return undefined;
  return (target) => kubectlTransport(settings, mode.kubectlPath, client, target);
}
