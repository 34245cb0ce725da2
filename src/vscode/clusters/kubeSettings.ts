// The Kubernetes settings of the Clusters view and its commands, as one typed snapshot.
// `gpumem.kubeconfig`, the debug-pod settings and `gpumem.kubernetes.kubectlPath` are `restricted` in
// package.json: a workspace that is not trusted cannot point gpumem at a kubeconfig of its own (whose exec
// plugin would run), at an image, or at a binary to run as kubectl.
import * as vscode from 'vscode';
import { isDnsLabel } from '../../core/kube/names.ts';
import { DEBUG_POD_IMAGE } from '../../kube/debugPodSpec.ts';
import { RETAINED_DEBUG_POD_DEADLINE_SECONDS, RETAINED_DEBUG_POD_IDLE_MS } from '../../kube/debugPodTransport.ts';

export type NodeProbeMode = 'debug-pod' | 'ssh';

/**
 * How probes exec into pods (Inspect Pod, the HAMi checklist, the node debug pod): `api`, client-node's
 * WebSocket exec; `kubectl`, the user's kubectl binary (reads always stay on client-node).
 */
export type ExecMode = { readonly kind: 'api' } | { readonly kind: 'kubectl'; readonly kubectlPath: string };

export interface KubeSettings {
  /** An explicit kubeconfig file; undefined: KUBECONFIG, then ~/.kube/config. */
  readonly kubeconfig: string | undefined;
  readonly debugImage: string;
  readonly debugNamespace: string;
  readonly nodeProbe: NodeProbeMode;
  /** nodeProbe "ssh": dial the node's address (default) or its name as an ~/.ssh/config alias. */
  readonly sshHostFrom: 'address' | 'node-name';
  readonly execMode: ExecMode;
  /** activeDeadlineSeconds of the debug pod Inspect Node keeps for live sampling. */
  readonly liveDebugPodDeadlineSeconds: number;
  /** That pod is deleted after this long without a sample (panel hidden, paused, sampling off); re-created on demand. */
  readonly liveDebugPodIdleMs: number;
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
    debugNamespace: isDnsLabel(namespace) ? namespace : 'default',
    nodeProbe: kube.get<string>('nodeProbe') === 'ssh' ? 'ssh' : 'debug-pod',
    sshHostFrom: kube.get<string>('sshHostFrom') === 'nodeName' ? 'node-name' : 'address',
    execMode: kube.get<string>('execMode') === 'kubectl' ? { kind: 'kubectl', kubectlPath: kube.get<string>('kubectlPath', 'kubectl').trim() || 'kubectl' } : { kind: 'api' },
    liveDebugPodDeadlineSeconds: Math.round(clamp(kube.get<number>('liveSamplingPodDeadlineSeconds', RETAINED_DEBUG_POD_DEADLINE_SECONDS), 300, 86_400, RETAINED_DEBUG_POD_DEADLINE_SECONDS)),
    liveDebugPodIdleMs: Math.round(clamp(kube.get<number>('liveSamplingPodIdleSeconds', RETAINED_DEBUG_POD_IDLE_MS / 1000), 10, 3600, RETAINED_DEBUG_POD_IDLE_MS / 1000) * 1000),
    requestTimeoutMs: timeoutSeconds * 1000,
    probeTimeoutMs: Math.min(5, timeoutSeconds) * 1000,
  };
}

function clamp(value: unknown, min: number, max: number, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : fallback;
}

export function affectsKubeSettings(event: vscode.ConfigurationChangeEvent): boolean {
  return KUBE_SETTING_SECTIONS.some((section) => event.affectsConfiguration(section));
}
