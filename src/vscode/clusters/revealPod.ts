// `gpumem.revealPod`: the inspector's "a click opens the pod". It selects the pod's row in the Clusters view
// (its context menu then offers Inspect Pod, the HAMi checklist and the live manifest) and returns true; it
// returns false when no context of the kubeconfig has the pod (a local or SSH inspection of a machine that
// is not in any of them), and the inspector shows the pod's numbers as a Markdown report instead.
// Internal: not in the command palette (package.json), called with OpenPodArgs.
import * as vscode from 'vscode';
import { parseOpenPodArgs, splitPodName } from '../../core/inspector/openPod.ts';
import { CLUSTERS_VIEW } from './clusterTree.ts';
import type { ClusterTreeProvider } from './clusterTree.ts';

export function revealPod(tree: ClusterTreeProvider) {
  return async (arg?: unknown): Promise<boolean> => {
    const args = parseOpenPodArgs(arg);
    if (!args || !vscode.workspace.isTrusted) return false;
    const element = await vscode.window.withProgress(
      { location: { viewId: CLUSTERS_VIEW }, title: `Finding pod ${args.podName ?? args.podUid}` },
      () => tree.locatePod({ uid: args.podUid, ...splitPodName(args.podName) }),
    );
    if (!element) return false;
    await tree.reveal(element, { select: true, focus: true, expand: false });
    return true;
  };
}
