// What a Clusters command acts on: the tree item it was run from, or, from the command palette, the context,
// node, pod and container the user picks (GPU nodes first; a container pick only when the pod has several).
// Failures become messages in src/kube/errorText.ts (shared with the CLI); showError shows them.
import * as vscode from 'vscode';
import type { V1Pod } from '@kubernetes/client-node';
import { describeContextState } from '../../core/kube/contextState.ts';
import { explainKubeFailure } from '../../core/kube/failureMessages.ts';
import type { GpuNodeSummary } from '../../core/kube/nodes.ts';
import type { GpuPodSummary } from '../../core/kube/pods.ts';
import { summarizePod } from '../../core/kube/pods.ts';
import { contextTreeItem } from '../../core/kube/contextTreeItem.ts';
import { nodeTreeItem } from '../../core/kube/nodeTreeItem.ts';
import { podTreeItem } from '../../core/kube/podTreeItem.ts';
import { isDnsLabel, isDnsSubdomain } from '../../core/kube/names.ts';
import { plainLabel } from '../../core/text/escape.ts';
import type { ClusterClient } from '../../kube/clusterClient.ts';
import { errorText } from '../../kube/errorText.ts';
import { listNodeGpuPods, podContainers } from '../../kube/explorer.ts';
import { reportError, showFailure } from '../messages.ts';
import type { Ctx } from '../ctx.ts';
import type { ClusterModel, ContextElement, ModelElement, NodeElement, PodElement } from '../../clusters/clusterModel.ts';

export interface NodeTarget {
  readonly context: ContextElement;
  readonly client: ClusterClient;
  readonly node: GpuNodeSummary;
}

export interface PodTarget {
  readonly context: ContextElement;
  readonly client: ClusterClient;
  readonly pod: V1Pod;
  readonly summary: GpuPodSummary;
}

export const isElement = (value: unknown, kind: ModelElement['kind']): boolean =>
  typeof value === 'object' &&
  value !== null &&
  (value as { kind?: unknown }).kind === kind &&
  typeof (value as { id?: unknown }).id === 'string';

/** A failure of a Clusters command in gpumem's own words: logged, and shown with Show Log (messages.ts). */
export function showError(ctx: Ctx, text: string): void {
  void showFailure(ctx.output, text);
}

export async function pickContext(clusters: ClusterModel): Promise<ContextElement | undefined> {
  const contexts = await clusters.ensureLoaded();
  if (contexts.length === 0) {
    void vscode.window.showInformationMessage(
      'gpumem: no Kubernetes context found (KUBECONFIG, ~/.kube/config or the gpumem.kubeconfig setting).',
    );
    return undefined;
  }
  if (contexts.length === 1) return contexts[0];
  const picked = await vscode.window.showQuickPick(
    contexts.map((context) => ({
      label: plainLabel(context.info.name),
      description: contextTreeItem(context.info, context.state, { connecting: false }).description,
      context,
    })),
    { placeHolder: 'Kubernetes context (from your kubeconfig; gpumem never changes its current context)' },
  );
  return picked?.context;
}

export async function pickNode(ctx: Ctx, clusters: ClusterModel, context: ContextElement): Promise<NodeElement | undefined> {
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: `gpumem: listing the nodes of ${context.info.name}` },
    () => clusters.loadContext(context),
  );
  if (context.state.kind !== 'Reachable') {
    // Unreachable: what happened and what to do (the tree's own wording), not the bare reason.
    const view = describeContextState(context.state, `context "${context.info.name}"`);
    showError(
      ctx,
      context.state.kind === 'Forbidden'
        ? explainKubeFailure(
            { kind: 'forbidden', verb: context.state.verb, resource: context.state.resource, message: '' },
            { context: context.info.name },
          )
        : `${view.message}${view.action ? ` ${view.action}` : ''}`,
    );
    return undefined;
  }
  const now = Date.now();
  const picked = await vscode.window.showQuickPick(
    (context.nodes ?? []).map((node) => ({
      label: plainLabel(node.summary.name),
      description: nodeTreeItem(node.summary, node.events, now).description,
      node,
    })),
    { placeHolder: `Node of ${context.info.name} (GPU nodes first)`, matchOnDescription: true },
  );
  return picked?.node;
}

export async function pickPod(ctx: Ctx, clusters: ClusterModel, node: NodeElement): Promise<PodTarget | undefined> {
  const client = clusters.client(node.context);
  let pods;
  try {
    pods = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `gpumem: listing the pods on ${node.summary.name}` },
      () => listNodeGpuPods(client, node.summary.name),
    );
  } catch (error) {
    const action = `Pods on ${node.summary.name}`;
    reportError(ctx.output, action, error, errorText(error, { context: node.context.info.name, action }));
    return undefined;
  }
  if (pods.gpuPods.length === 0) {
    void vscode.window.showInformationMessage(`gpumem: no GPU pod runs on ${node.summary.name}.`);
    return undefined;
  }
  const now = Date.now();
  const picked = await vscode.window.showQuickPick(
    pods.gpuPods.map((pod) => ({ label: plainLabel(pod.summary.name), description: podTreeItem(pod.summary, now).description, pod })),
    { placeHolder: `GPU pod on ${node.summary.name}`, matchOnDescription: true },
  );
  return picked ? { context: node.context, client, pod: picked.pod.raw, summary: picked.pod.summary } : undefined;
}

export async function nodeTarget(ctx: Ctx, clusters: ClusterModel, arg: unknown): Promise<NodeTarget | undefined> {
  let node: NodeElement | undefined;
  if (isElement(arg, 'node')) node = arg as NodeElement;
  else if (isElement(arg, 'pod')) node = (arg as PodElement).node;
  else {
    const context = await pickContext(clusters);
    node = context ? await pickNode(ctx, clusters, context) : undefined;
  }
  return node ? { context: node.context, client: clusters.client(node.context), node: node.summary } : undefined;
}

export async function podTarget(ctx: Ctx, clusters: ClusterModel, arg: unknown): Promise<PodTarget | undefined> {
  if (isElement(arg, 'pod')) {
    const pod = arg as PodElement;
    return { context: pod.node.context, client: clusters.client(pod.node.context), pod: pod.raw, summary: pod.summary };
  }
  if (isElement(arg, 'node')) return pickPod(ctx, clusters, arg as NodeElement);
  const link = livePodLink(arg);
  if (link) return linkedPodTarget(ctx, clusters, link);
  const context = await pickContext(clusters);
  const node = context ? await pickNode(ctx, clusters, context) : undefined;
  return node ? pickPod(ctx, clusters, node) : undefined;
}

/** A pod link of the live hover (src/core/live/liveHover.ts): its arguments cross a command boundary, so they are parsed. */
function livePodLink(arg: unknown): { context: string; namespace: string; name: string } | undefined {
  if (typeof arg !== 'object' || arg === null) return undefined;
  const link = (arg as { livePod?: unknown }).livePod;
  if (typeof link !== 'object' || link === null) return undefined;
  const { context, namespace, name } = link as Record<string, unknown>;
  if (typeof context !== 'string' || typeof namespace !== 'string' || typeof name !== 'string') return undefined;
  return isDnsLabel(namespace) && isDnsSubdomain(name) ? { context, namespace, name } : undefined;
}

/** The pod a live hover links to, read in its context now (it may have been replaced since the snapshot). */
async function linkedPodTarget(
  ctx: Ctx,
  clusters: ClusterModel,
  link: { context: string; namespace: string; name: string },
): Promise<PodTarget | undefined> {
  const context = (await clusters.ensureLoaded()).find((one) => one.info.name === link.context);
  if (!context) {
    showError(ctx, `gpumem: no kubeconfig context named "${plainLabel(link.context)}" to inspect pod ${link.namespace}/${link.name} in.`);
    return undefined;
  }
  const client = clusters.client(context);
  try {
    const pod = await client.readPod(link.namespace, link.name);
    return { context, client, pod, summary: summarizePod(pod) };
  } catch (error) {
    const action = `Read pod ${link.namespace}/${link.name}`;
    reportError(ctx.output, action, error, errorText(error, { context: link.context, namespace: link.namespace, action }));
    return undefined;
  }
}

/** The container to probe: asked when the pod has several app containers (GPU ones first). */
export async function pickContainer(pod: V1Pod): Promise<{ container: string | undefined } | undefined> {
  const containers = podContainers(pod);
  if (containers.length <= 1) return { container: containers[0]?.name };
  const summary = summarizePod(pod);
  const picked = await vscode.window.showQuickPick(
    containers.map((c) => ({
      label: plainLabel(c.name),
      description: c.gpu
        ? `GPU: ${
            summary.gpuContainers
              .find((g) => g.container === c.name)
              ?.resources.map((r) => `${r.name} ${r.request ?? r.limit ?? ''}`)
              .join(', ') ?? ''
          }`
        : plainLabel(c.image ?? ''),
      name: c.name,
    })),
    { placeHolder: `Container of ${pod.metadata?.namespace}/${pod.metadata?.name} to probe` },
  );
  return picked ? { container: picked.name } : undefined;
}
