// What the Clusters view shows, without VS Code: the rows under each row (contexts → their nodes, GPU nodes first →
// the node's GPU pods, with a Fleet item first under a context that listed its nodes, and message rows for
// "Connecting…", a refused or unreachable context, "Loading pods…", "No GPU pods"), what each row says (label,
// description, tooltip, codicon, contextValue, from the row builders in src/core/kube/) and what the view's welcome
// content keys off. Asking for a row's children is what starts loading it, as VS Code asks when a row is expanded:
// a context's nodes are listed, a node's pods watched (the model's startContextLoad, startWatch).
// src/vscode/clusters/clusterTree.ts is the thin adapter that hands these rows to VS Code and owns what is the
// view's own (events, coalescing, reveal, the `setContext` key); test/integration/clusterTree.test.ts runs this
// module against the API simulator.
import { describeContextState } from '../core/kube/contextState.ts';
import { explainForbidden, explainKubeFailure } from '../core/kube/failureMessages.ts';
import type { MessageKind } from '../core/kube/messageTreeItems.ts';
import { messageTreeItem, noGpuPodsItem, otherPodsItem } from '../core/kube/messageTreeItems.ts';
import type { TreeItemModel } from '../core/kube/treeItemModel.ts';
import { contextTreeItem } from '../core/kube/contextTreeItem.ts';
import { nodeTreeItem } from '../core/kube/nodeTreeItem.ts';
import { podTreeItem } from '../core/kube/podTreeItem.ts';
import { fleetTreeItem } from '../core/fleet/fleetTreeItem.ts';
import type { ClusterModel, ContextElement, NodeElement, PodElement } from './clusterModel.ts';
import { idOf } from './clusterModel.ts';

/** Welcome views (package.json viewsWelcome) key off this state: noKubeconfig, allUnreachable, restricted. */
export type ViewState = 'loading' | 'ok' | 'noKubeconfig' | 'allUnreachable' | 'restricted';

/** A row that is no cluster object: "Connecting…", an error and what to do, "No GPU pods". */
export interface MessageElement {
  readonly kind: 'message';
  readonly id: string;
  readonly parent: ContextElement | NodeElement | undefined;
  readonly model: TreeItemModel;
}

/** The Fleet item at the top of a context's children: opens the context's fleet view. */
export interface FleetElement {
  readonly kind: 'fleet';
  readonly id: string;
  readonly context: ContextElement;
}

export type ClusterElement = ContextElement | NodeElement | PodElement | MessageElement | FleetElement;

/**
 * The view's top level. `contexts` when there is something to show (with the kubeconfig's problems as the view's
 * message); otherwise no rows and the state whose welcome content says why, with the details for the log (a TreeView
 * message would hide the welcome content).
 */
export type RootRows =
  | { readonly kind: 'contexts'; readonly contexts: readonly ContextElement[]; readonly message: string | undefined }
  | { readonly kind: 'empty'; readonly state: 'restricted' | 'allUnreachable' }
  | { readonly kind: 'empty'; readonly state: 'noKubeconfig'; readonly logLine: string };

export interface RootOptions {
  /** Workspace Trust: nothing is read in Restricted Mode. */
  readonly trusted: boolean;
  /** The welcome view's "show them anyway" once every context was found unreachable. */
  readonly showUnreachable: boolean;
}

export class ClusterTreeContent {
  private readonly model: ClusterModel;

  constructor(model: ClusterModel) {
    this.model = model;
  }

  async root(options: RootOptions): Promise<RootRows> {
    if (!options.trusted) return { kind: 'empty', state: 'restricted' };
    const loaded = await this.model.loadKubeconfig();
    const contexts = this.model.contexts;
    if (contexts.length === 0) {
      const problems = loaded.problems.length > 0 ? `: ${loaded.problems.join('; ')}` : '';
      const logLine = `Clusters: no kubeconfig context in ${loaded.source.files.join(', ')} (${loaded.source.origin})${problems}`;
      return { kind: 'empty', state: 'noKubeconfig', logLine };
    }
    const allProbedUnreachable = contexts.every((c) => c.state.kind === 'Unreachable' && !c.connecting);
    if (allProbedUnreachable && !options.showUnreachable) return { kind: 'empty', state: 'allUnreachable' };
    return { kind: 'contexts', contexts, message: loaded.problems.length > 0 ? `kubeconfig: ${loaded.problems.join('; ')}` : undefined };
  }

  /** The rows under a row; asking starts loading what is not there yet (a context's nodes, a node's pod watch). */
  children(element: ClusterElement): ClusterElement[] {
    switch (element.kind) {
      case 'context':
        return this.contextChildren(element);
      case 'node':
        return this.nodeChildren(element);
      default:
        return [];
    }
  }

  parent(element: ClusterElement): ClusterElement | undefined {
    switch (element.kind) {
      case 'context':
        return undefined;
      case 'node':
        return element.context;
      case 'pod':
        return element.node;
      case 'message':
        return element.parent;
      case 'fleet':
        return element.context;
    }
  }

  /** What the row says, as of `now` (ages such as "OOMKilled 20m ago"). */
  item(element: ClusterElement, now: number): TreeItemModel {
    switch (element.kind) {
      case 'context':
        return contextTreeItem(element.info, element.state, {
          connecting: element.connecting,
          ...(element.nodes
            ? { nodes: { total: element.nodes.length, gpu: element.nodes.filter((n) => n.summary.isGpuNode).length } }
            : {}),
        });
      case 'node':
        return nodeTreeItem(element.summary, element.events, now);
      case 'pod':
        return podTreeItem(element.summary, now);
      case 'fleet':
        return fleetTreeItem(element.context.info.name);
      case 'message':
        return element.model;
    }
  }

  private contextChildren(element: ContextElement): ClusterElement[] {
    if (element.nodes === undefined && !element.connecting && (element.state.kind === 'Unknown' || element.state.kind === 'Reachable')) {
      void this.model.startContextLoad(element);
    }
    if (element.connecting) return [message(element, 'connecting', `Connecting to ${element.info.server ?? element.info.name}…`)];
    const state = element.state;
    if (state.kind === 'Forbidden') {
      const text = explainForbidden(state.verb, state.resource, { context: element.info.name });
      return [
        message(element, 'forbidden', `Forbidden: ${state.verb} ${state.resource}`, text),
        message(element, 'info', text, text, 'action'),
      ];
    }
    if (state.kind === 'Unreachable') {
      const view = describeContextState(state, `context "${element.info.name}"`);
      const action = view.action ?? 'Refresh to try again.';
      return [
        message(element, 'error', `${view.label === 'unreachable' ? 'Unreachable' : view.label}: ${state.reason}`, view.message),
        message(element, 'info', action, action, 'action'),
      ];
    }
    const nodes = element.nodes ?? [];
    if (nodes.length === 0) return [message(element, 'empty', 'No nodes')];
    return [{ kind: 'fleet', id: idOf('fleet', element.id), context: element }, ...nodes];
  }

  private nodeChildren(node: NodeElement): ClusterElement[] {
    node.expanded = true;
    this.model.startWatch(node);
    if (node.podsError && (node.pods === undefined || node.podsError.kind === 'forbidden')) {
      const forbidden = node.podsError.kind === 'forbidden';
      const text = explainKubeFailure(node.podsError, { context: node.context.info.name, action: `Pods on ${node.summary.name}` });
      const label = node.podsError.kind === 'forbidden' ? `forbidden: ${node.podsError.verb} ${node.podsError.resource}` : text;
      return [message(node, forbidden ? 'forbidden' : 'error', label, text)];
    }
    if (node.pods === undefined) return [message(node, 'loading', 'Loading pods…')];
    if (node.pods.length === 0) return [messageFrom(node, noGpuPodsItem(node.otherPods), 'none')];
    const rows: ClusterElement[] = Array.from(node.pods);
    if (node.otherPods > 0) rows.push(messageFrom(node, otherPodsItem(node.otherPods), 'others'));
    return rows;
  }
}

function message(
  parent: ContextElement | NodeElement,
  kind: MessageKind,
  text: string,
  detail?: string,
  slot: string = kind,
): MessageElement {
  return messageFrom(parent, messageTreeItem(kind, text, detail), slot);
}

function messageFrom(parent: ContextElement | NodeElement, model: TreeItemModel, slot: string): MessageElement {
  return { kind: 'message', id: idOf('message', parent.id, slot), parent, model };
}
