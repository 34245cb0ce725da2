// The Kubernetes settings of the Clusters view and its commands, as one typed snapshot.
// `gpumem.kubeconfig` and the debug-pod settings are `restricted` in package.json: a workspace that is not
// trusted cannot point gpumem at a kubeconfig of its own (whose exec plugin would run) or at an image.
import * as vscode from 'vscode';
import { DEBUG_POD_IMAGE } from '../../kube/debugPodTransport.ts';

export type NodeProbeMode = 'debug-pod' | 'ssh';

export interface KubeSettings {
  /** An explicit kubeconfig file; undefined: KUBECONFIG, then ~/.kube/config. */
  readonly kubeconfig: string | undefined;
  readonly debugImage: string;
  readonly debugNamespace: string;
  readonly nodeProbe: NodeProbeMode;
  readonly requestTimeoutMs: number;
  /** GET /version when a context is expanded: short, so an unreachable cluster never holds the tree. */
  readonly probeTimeoutMs: number;
}

export const KUBE_SETTING_SECTIONS = ['gpumem.kubeconfig', 'gpumem.kubernetes'] as const;

export function readKubeSettings(): KubeSettings {
  const root = vscode.workspace.getConfiguration('gpumem');
  const kube = vscode.workspace.getConfiguration('gpumem.kubernetes');
  const kubeconfig = root.get<string>('kubeconfig', '').trim();
  const image = kube.get<string>('debugImage', DEBUG_POD_IMAGE).trim();
  const namespace = kube.get<string>('debugNamespace', 'default').trim();
  const timeoutSeconds = Math.min(300, Math.max(1, kube.get<number>('requestTimeoutSeconds', 15)));
  return {
    kubeconfig: kubeconfig === '' ? undefined : kubeconfig,
    debugImage: image === '' ? DEBUG_POD_IMAGE : image,
    debugNamespace: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(namespace) ? namespace : 'default',
    nodeProbe: kube.get<string>('nodeProbe') === 'ssh' ? 'ssh' : 'debug-pod',
    requestTimeoutMs: timeoutSeconds * 1000,
    probeTimeoutMs: Math.min(5, timeoutSeconds) * 1000,
  };
}

export function affectsKubeSettings(event: vscode.ConfigurationChangeEvent): boolean {
  return KUBE_SETTING_SECTIONS.some((section) => event.affectsConfiguration(section));
}
