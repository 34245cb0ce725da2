// The Clusters view's commands, each a small function of the shared Ctx and the cluster model (rust-analyzer's
// commands-as-functions): run from a tree item's context menu they act on that item; from the command palette
// they ask for the context, the node and the pod with quick picks (targets.ts). All of them need workspace
// trust. The probes are nodeCommands.ts and podCommands.ts, the HAMi over-quota test hamiTestCommand.ts; here
// are the rest (src/remote.ts's table maps each id to its function):
// - Copy Probe Command: the kubectl line to run the same probe by hand;
// - Open Manifest: the live pod YAML, read-only, linted.
import * as vscode from 'vscode';
import { nodeProbeCommand, podProbeCommand } from '../../core/kube/probeCommand.ts';
import type { ProbeCommand } from '../../core/kube/probeCommand.ts';
import { plainLabel } from '../../core/text/escape.ts';
import { buildProbeScript, newNonce } from '../../core/probe/script.ts';
import type { Ctx } from '../ctx.ts';
import { requireTrust } from '../trust.ts';
import type { ClusterModel, ContextElement, NodeElement, PodElement } from '../../clusters/clusterModel.ts';
import type { PodManifestProvider } from './manifestProvider.ts';
import { showLiveManifest } from './showManifest.ts';
import { isElement, pickContainer, pickContext, pickNode, pickPod, podTarget } from './targets.ts';

export function copyProbeCommand(ctx: Ctx, clusters: ClusterModel) {
  return async (arg?: unknown): Promise<void> => {
    if (!requireTrust('Copy Probe Command')) return;
    let command: ProbeCommand | undefined;
    if (isElement(arg, 'pod') || isElement(arg, 'node')) {
      command = isElement(arg, 'pod')
        ? podCommand(arg as PodElement, (arg as PodElement).node.context)
        : nodeCommand(clusters, arg as NodeElement);
    } else {
      const context = await pickContext(clusters);
      const node = context ? await pickNode(ctx, clusters, context) : undefined;
      if (!node) return;
      const which = await vscode.window.showQuickPick(
        [
          { label: `Node ${plainLabel(node.summary.name)}`, description: 'kubectl debug node/… (node probe from a debug pod)', pod: false },
          { label: 'A GPU pod on this node…', description: 'kubectl exec … (container probe)', pod: true },
        ],
        { placeHolder: 'Probe the node or one of its pods?' },
      );
      if (!which) return;
      if (!which.pod) command = nodeCommand(clusters, node);
      else {
        const pod = await pickPod(ctx, clusters, node);
        if (!pod) return;
        command = podProbeCommand({
          context: pod.context.info.name,
          namespace: pod.summary.namespace,
          pod: pod.summary.name,
          container: (await pickContainer(pod.pod))?.container,
        });
      }
    }
    if (!command) return;
    await vscode.env.clipboard.writeText(command.command);
    ctx.output.info(`Probe command: ${command.command}\n  ${command.notes.join('\n  ')}`);
    const save = 'Save probe.sh…';
    const answer = await vscode.window.showInformationMessage(`gpumem: probe command copied. ${command.notes[0] ?? ''}`, save);
    if (answer !== save) return;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const uri = await vscode.window.showSaveDialog({
      saveLabel: 'Save probe script',
      ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, 'probe.sh') } : {}),
      filters: { 'Shell script': ['sh'] },
    });
    if (!uri) return;
    const script = buildProbeScript({ scope: command.script.scope, nonce: newNonce(), hostRoot: command.script.hostRoot });
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(script));
  };
}

function nodeCommand(clusters: ClusterModel, node: NodeElement): ProbeCommand {
  const settings = clusters.kubeSettings;
  return nodeProbeCommand({
    context: node.context.info.name,
    node: node.summary.name,
    namespace: settings.debugNamespace,
    image: settings.debugImage,
  });
}

function podCommand(pod: PodElement, context: ContextElement): ProbeCommand {
  const gpu = pod.summary.gpuContainers.find((c) => c.role === 'app')?.container;
  const container = gpu ?? pod.raw.spec?.containers?.[0]?.name;
  return podProbeCommand({ context: context.info.name, namespace: pod.summary.namespace, pod: pod.summary.name, container });
}

export function openPodManifest(ctx: Ctx, clusters: ClusterModel, manifests: PodManifestProvider) {
  return async (arg?: unknown): Promise<void> => {
    if (!requireTrust('Open Manifest')) return;
    const target = await podTarget(ctx, clusters, arg);
    if (!target) return;
    await showLiveManifest(ctx.output, manifests, {
      context: target.context.info.name,
      kind: 'Pod',
      namespace: target.summary.namespace,
      name: target.summary.name,
    });
  };
}

/** Refresh: one context or node from its item, else every context. */
export function refreshClusters(clusters: ClusterModel) {
  return (arg?: unknown): void =>
    clusters.refresh(isElement(arg, 'context') || isElement(arg, 'node') ? (arg as ContextElement | NodeElement) : undefined);
}
