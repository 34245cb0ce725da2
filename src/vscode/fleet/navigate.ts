// A click in the fleet view: a node opens in the Clusters view (its row selected) and in the inspector (Inspect
// Node); a pod likewise (Inspect Pod). Both run probes, so both need workspace trust.
import * as vscode from 'vscode';
import { plainLabel } from '../../core/text/escape.ts';
import { COMMANDS } from '../commandIds.ts';
import { showFailure } from '../messages.ts';
import { requireTrust } from '../trust.ts';
import type { ClusterModel, NodeElement, PodElement } from '../../clusters/clusterModel.ts';

export type RevealElement = (element: NodeElement | PodElement) => Promise<void>;

export function openFleetNode(clusters: ClusterModel, reveal: RevealElement, output: vscode.LogOutputChannel) {
  return async (contextName: string, nodeName: string): Promise<void> => {
    if (!requireTrust('Inspect Node')) return;
    const context = (await clusters.ensureLoaded()).find((candidate) => candidate.info.name === contextName);
    if (context) await clusters.loadContext(context);
    const node = context?.nodes?.find((candidate) => candidate.summary.name === nodeName);
    if (!node) {
      void showFailure(
        output,
        `node ${plainLabel(nodeName)} is not among the nodes of context ${plainLabel(contextName)} (refresh the Clusters view).`,
        'warning',
      );
      return;
    }
    await reveal(node);
    await vscode.commands.executeCommand(COMMANDS.inspectNode, node);
  };
}

export function openFleetPod(clusters: ClusterModel, reveal: RevealElement, output: vscode.LogOutputChannel) {
  return async (contextName: string, pod: { namespace: string; pod: string; uid: string; node: string }): Promise<void> => {
    if (!requireTrust('Inspect Pod')) return;
    const name = pod.namespace && pod.pod ? `${pod.namespace}/${pod.pod}` : `pod ${pod.uid}`;
    const element = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `gpumem: finding ${name}` }, () =>
      clusters.locatePod({
        uid: pod.uid,
        ...(pod.namespace && pod.pod ? { namespace: pod.namespace, name: pod.pod } : {}),
      }),
    );
    if (!element || element.node.context.info.name !== contextName) {
      void showFailure(
        output,
        `${plainLabel(name)} was not found in context ${plainLabel(contextName)}: it may have been deleted since the fleet was read.`,
        'warning',
      );
      return;
    }
    await reveal(element);
    await vscode.commands.executeCommand(COMMANDS.inspectPod, element);
  };
}
