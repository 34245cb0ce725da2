// The Kubernetes settings of the Clusters view and its commands, as one typed snapshot (parsed, with its
// clamps, by src/core/settings.ts; read through src/vscode/config.ts).
// `gpumem.kubeconfig`, the debug-pod settings and `gpumem.kubernetes.kubectlPath` are `restricted` in
// package.json: a workspace that is not trusted cannot point gpumem at a kubeconfig of its own (whose exec
// plugin would run), at an image, or at a binary to run as kubectl.
import type * as vscode from 'vscode';
import { parseKubeSettings } from '../../core/settings.ts';
import type { KubeSettings } from '../../core/settings.ts';
import { DEBUG_POD_IMAGE } from '../../kube/debugPodSpec.ts';
import { RETAINED_DEBUG_POD_DEADLINE_SECONDS, RETAINED_DEBUG_POD_IDLE_MS } from '../../kube/debugPodTransport.ts';
import { readSetting } from '../config.ts';

export type { ExecMode, KubeSettings, NodeProbeMode } from '../../core/settings.ts';

export const KUBE_SETTING_SECTIONS = ['gpumem.kubeconfig', 'gpumem.kubernetes'] as const;

export function readKubeSettings(): KubeSettings {
  return parseKubeSettings(readSetting, {
    debugImage: DEBUG_POD_IMAGE,
    liveDebugPodDeadlineSeconds: RETAINED_DEBUG_POD_DEADLINE_SECONDS,
    liveDebugPodIdleMs: RETAINED_DEBUG_POD_IDLE_MS,
  });
}

export function affectsKubeSettings(event: vscode.ConfigurationChangeEvent): boolean {
  return KUBE_SETTING_SECTIONS.some((section) => event.affectsConfiguration(section));
}
