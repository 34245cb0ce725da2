// `gpumem.revealPod`: the inspector's "a click opens the pod". It selects the pod's row in the Clusters view
// (its context menu then offers Inspect Pod, the HAMi checklist and the live manifest) and returns true; it
// returns false when no context of the kubeconfig has the pod (a local or SSH inspection of a machine that
// is not in any of them), and the inspector shows the pod's numbers as a Markdown report instead.
// Internal: not in the command palette (package.json), called with OpenPodArgs.
import * as vscode from 'vscode';
import { parseOpenPodArgs, splitPodName } from '../../core/inspectorPanel/openPod.ts';
import type { ClusterModel, PodElement } from '../../clusters/clusterModel.ts';
import { CLUSTERS_VIEW } from './commandIds.ts';

/** Selects a pod's row (the Clusters view's reveal, which first hands VS Code the changes it still holds). */
export type RevealInView = (pod: PodElement) => Promise<void>;

export function revealPod(clusters: ClusterModel, reveal: RevealInView) {
  return async (arg?: unknown): Promise<boolean> => {
    const args = parseOpenPodArgs(arg);
    if (!args || !vscode.workspace.isTrusted) return false;
    const element = await vscode.window.withProgress(
      { location: { viewId: CLUSTERS_VIEW }, title: `Finding pod ${args.podName ?? args.podUid}` },
      () => clusters.locatePod({ uid: args.podUid, ...splitPodName(args.podName) }),
    );
    if (!element) return false;
    await reveal(element);
    return true;
  };
}
