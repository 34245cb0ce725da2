// The Clusters view (`gpumem.clusters`): renders the cluster model (clusterModel.ts) as a tree — contexts →
// their nodes, GPU nodes first → the node's GPU pods. What each row says comes from the row builders in src/core/kube/;
// this file owns what is the view's:
// - never blocking: a context shows a "Connecting…" child while the model probes it, then the view
//   refreshes that context alone;
// - a node's pod watch runs while the node is expanded: started when its children are asked for or it is
//   expanded again (onDidExpandElement: VS Code keeps the children of a collapsed item and does not ask
//   again), stopped when it or its context collapses or the view is hidden; the model's changes are
//   coalesced before the view is told;
// - nothing is read in Restricted Mode (a welcome view says why);
// - a context that listed its nodes shows a Fleet item first, which opens its fleet view (src/vscode/fleet/).
// Welcome views (package.json viewsWelcome) key off `gpumem.clusters.state`: noKubeconfig, allUnreachable.
import * as vscode from 'vscode';
import { describeContextState } from '../../core/kube/contextState.ts';
import { explainForbidden, explainKubeFailure } from '../../core/kube/failureMessages.ts';
import type { MessageKind } from '../../core/kube/messageTreeItems.ts';
import type { TreeItemModel } from '../../core/kube/treeItemModel.ts';
import { contextTreeItem } from '../../core/kube/contextTreeItem.ts';
import { fleetTreeItem } from '../../core/fleet/fleetTreeItem.ts';
import { COMMANDS } from '../commandIds.ts';
import { messageTreeItem, noGpuPodsItem, otherPodsItem } from '../../core/kube/messageTreeItems.ts';
import { nodeTreeItem } from '../../core/kube/nodeTreeItem.ts';
import { podTreeItem } from '../../core/kube/podTreeItem.ts';
import type { ClusterModel, ContextElement, ModelChange, ModelLog, NodeElement, PodElement } from './clusterModel.ts';
import { idOf } from './clusterModel.ts';
import { CLUSTERS_VIEW } from './commandIds.ts';

export const STATE_CONTEXT_KEY = 'gpumem.clusters.state';
/** How long changes are gathered before the view is told (watch events, background probes). */
const COALESCE_MS = 150;
/** How long a reveal waits for the view to show its contexts, then for its row to be selected. */
const REVEAL_WAIT_MS = 5_000;

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

export class ClusterTreeProvider implements vscode.TreeDataProvider<ClusterElement>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ClusterElement | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly model: ClusterModel;
  private readonly log: ModelLog;
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly resumeOnShow = new Set<NodeElement>();
  private readonly pending = new Set<ClusterElement | undefined>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private viewState: ViewState | undefined;
  private view: vscode.TreeView<ClusterElement> | undefined;
  private showUnreachable = false;
  /** Whether VS Code got the root's children since the last full refresh (a reveal waits for it). */
  private root: { readonly kind: 'pending' } | { readonly kind: 'served' } = { kind: 'pending' };
  private readonly rootServed = new vscode.EventEmitter<void>();

  constructor(model: ClusterModel, log: ModelLog) {
    this.model = model;
    this.log = log;
    this.subscriptions.push(model.onDidChange((change) => this.onModelChange(change)));
  }

  private onModelChange(change: ModelChange): void {
    if (change.kind === 'loading') {
      this.setViewState('loading');
      return;
    }
    if (change.kind === 'reset') {
      this.resumeOnShow.clear();
      this.showUnreachable = false;
      this.pending.clear();
      this.root = { kind: 'pending' };
      this.fire(undefined);
      return;
    }
    this.fire(change.element);
  }

  /** Connects the view's collapse and visibility events (watches stop when nobody can see them). */
  attach(view: vscode.TreeView<ClusterElement>): void {
    this.view = view;
    this.subscriptions.push(
      // VS Code keeps the children of a collapsed item and does not ask for them again on expand: the watch
      // is restarted here, not in getChildren alone.
      view.onDidCollapseElement(({ element }) => {
        if (element.kind === 'node') {
          element.expanded = false;
          this.model.stopWatch(element);
        } else if (element.kind === 'context') for (const node of element.nodes ?? []) this.model.stopWatch(node);
      }),
      view.onDidExpandElement(({ element }) => {
        if (element.kind === 'node') {
          element.expanded = true;
          this.model.startWatch(element);
        } else if (element.kind === 'context') for (const node of element.nodes ?? []) if (node.expanded) this.model.startWatch(node);
      }),
      // Hidden (another view container, a collapsed section): no watch runs for rows nobody sees.
      view.onDidChangeVisibility(({ visible }) => {
        if (!visible) {
          for (const node of this.model.watchedNodeElements) {
            this.model.stopWatch(node);
            this.resumeOnShow.add(node);
          }
          return;
        }
        for (const node of this.resumeOnShow) if (node.expanded) this.model.startWatch(node);
        this.resumeOnShow.clear();
        if (this.pending.size > 0) this.flushSoon();
      }),
    );
  }

  /** Shows the contexts although none answers (the welcome view's button). */
  showAllContexts(): void {
    this.showUnreachable = true;
    this.fire(undefined);
  }

  // -------------------------------------------------------------------------------------------------
  // TreeDataProvider

  async getChildren(element?: ClusterElement): Promise<ClusterElement[]> {
    if (!element) return this.rootChildren();
    switch (element.kind) {
      case 'context':
        return this.contextChildren(element);
      case 'node':
        return this.nodeChildren(element);
      default:
        return [];
    }
  }

  getParent(element: ClusterElement): ClusterElement | undefined {
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

  getTreeItem(element: ClusterElement): vscode.TreeItem {
    const now = Date.now();
    const model =
      element.kind === 'context'
        ? contextTreeItem(element.info, element.state, {
            connecting: element.connecting,
            ...(element.nodes
              ? { nodes: { total: element.nodes.length, gpu: element.nodes.filter((n) => n.summary.isGpuNode).length } }
              : {}),
          })
        : element.kind === 'node'
          ? nodeTreeItem(element.summary, element.events, now)
          : element.kind === 'pod'
            ? podTreeItem(element.summary, now)
            : element.kind === 'fleet'
              ? fleetTreeItem(element.context.info.name)
              : element.model;
    const item = new vscode.TreeItem(
      model.label,
      model.collapsible ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.id = element.id;
    item.description = model.description;
    const tooltip = new vscode.MarkdownString(model.tooltip, false);
    tooltip.isTrusted = false;
    tooltip.supportHtml = false;
    item.tooltip = tooltip;
    item.iconPath = new vscode.ThemeIcon(model.icon.id, model.icon.color ? new vscode.ThemeColor(model.icon.color) : undefined);
    item.contextValue = model.contextValue;
    if (element.kind === 'fleet')
      item.command = { command: COMMANDS.openFleetView, title: 'Open Fleet View', arguments: [element.context.info.name] };
    return item;
  }

  // -------------------------------------------------------------------------------------------------
  // Levels

  private async rootChildren(): Promise<ClusterElement[]> {
    if (!vscode.workspace.isTrusted) {
      this.setViewState('restricted');
      return [];
    }
    const loaded = await this.model.loadKubeconfig();
    const contexts = this.model.contexts;
    // A TreeView message hides the welcome view: the details of these two states go to the output channel.
    if (contexts.length === 0) {
      if (this.viewState !== 'noKubeconfig')
        this.log.info(
          `Clusters: no kubeconfig context in ${loaded.source.files.join(', ')} (${loaded.source.origin})${loaded.problems.length > 0 ? `: ${loaded.problems.join('; ')}` : ''}`,
        );
      this.setViewState('noKubeconfig');
      this.setMessage(undefined);
      return [];
    }
    const probed = contexts.every((c) => c.state.kind === 'Unreachable' && !c.connecting);
    if (probed && !this.showUnreachable) {
      this.setViewState('allUnreachable');
      this.setMessage(undefined);
      return [];
    }
    this.setViewState('ok');
    this.setMessage(loaded.problems.length > 0 ? `kubeconfig: ${loaded.problems.join('; ')}` : undefined);
    this.root = { kind: 'served' };
    this.rootServed.fire();
    return Array.from(contexts);
  }

  private contextChildren(element: ContextElement): ClusterElement[] {
    if (element.nodes === undefined && !element.connecting && (element.state.kind === 'Unknown' || element.state.kind === 'Reachable')) {
      void this.model.startContextLoad(element);
    }
    if (element.connecting) return [this.message(element, 'connecting', `Connecting to ${element.info.server ?? element.info.name}…`)];
    const state = element.state;
    if (state.kind === 'Forbidden') {
      const text = explainForbidden(state.verb, state.resource, { context: element.info.name });
      return [
        this.message(element, 'forbidden', `Forbidden: ${state.verb} ${state.resource}`, text),
        this.message(element, 'info', text, text, 'action'),
      ];
    }
    if (state.kind === 'Unreachable') {
      const view = describeContextState(state, `context "${element.info.name}"`);
      const action = view.action ?? 'Refresh to try again.';
      return [
        this.message(element, 'error', `${view.label === 'unreachable' ? 'Unreachable' : view.label}: ${state.reason}`, view.message),
        this.message(element, 'info', action, action, 'action'),
      ];
    }
    const nodes = element.nodes ?? [];
    if (nodes.length === 0) return [this.message(element, 'empty', 'No nodes')];
    return [{ kind: 'fleet', id: idOf('fleet', element.id), context: element }, ...nodes];
  }

  private nodeChildren(node: NodeElement): ClusterElement[] {
    node.expanded = true;
    this.model.startWatch(node);
    if (node.podsError && (node.pods === undefined || node.podsError.kind === 'forbidden')) {
      const text = explainKubeFailure(node.podsError, { context: node.context.info.name, action: `Pods on ${node.summary.name}` });
      return [
        this.message(
          node,
          node.podsError.kind === 'forbidden' ? 'forbidden' : 'error',
          node.podsError.kind === 'forbidden' ? `forbidden: ${node.podsError.verb} ${node.podsError.resource}` : text,
          text,
        ),
      ];
    }
    if (node.pods === undefined) return [this.message(node, 'loading', 'Loading pods…')];
    if (node.pods.length === 0) return [this.messageFrom(node, noGpuPodsItem(node.otherPods), 'none')];
    const rows: ClusterElement[] = Array.from(node.pods);
    if (node.otherPods > 0) rows.push(this.messageFrom(node, otherPodsItem(node.otherPods), 'others'));
    return rows;
  }

  // -------------------------------------------------------------------------------------------------
  // Helpers

  private message(
    parent: ContextElement | NodeElement,
    kind: MessageKind,
    text: string,
    detail?: string,
    slot: string = kind,
  ): MessageElement {
    return this.messageFrom(parent, messageTreeItem(kind, text, detail), slot);
  }

  private messageFrom(parent: ContextElement | NodeElement, model: TreeItemModel, slot: string): MessageElement {
    return { kind: 'message', id: idOf('message', parent.id, slot), parent, model };
  }

  /**
   * Reveals an element: opens the view and waits until it shows its contexts, hands VS Code every change
   * still held back, reveals, and reveals once more if the row did not end up selected. VS Code's
   * TreeView.reveal resolves the parent chain in the extension host, then opens the view and expands that
   * chain by handle in the workbench; when the view was never opened, the workbench's first render of the
   * root, or a change flushed only once the view became visible (held while it was hidden, below), raced that
   * expansion: "No tree item with id '1/["node",…]' found", or a silently skipped parent, and nothing selected.
   * See reveal in microsoft/vscode src/vs/workbench/api/browser/mainThreadTreeViews.ts and
   * src/vs/workbench/api/common/extHostTreeViews.ts.
   */
  async reveal(
    element: ClusterElement,
    options: { readonly select: boolean; readonly focus: boolean; readonly expand: boolean },
  ): Promise<void> {
    const view = this.view;
    if (!view) return;
    if (!view.visible || this.root.kind !== 'served') {
      const shown = this.whenShown(view, REVEAL_WAIT_MS);
      await vscode.commands.executeCommand(`${CLUSTERS_VIEW}.focus`);
      await shown;
    }
    for (let attempt = 0; attempt < 2; attempt++) {
      this.flushNow();
      const selected = options.select ? this.whenSelected(view, element, REVEAL_WAIT_MS) : Promise.resolve(true);
      await view.reveal(element, options);
      if (await selected) return;
    }
  }

  /** Resolves when the view is visible and its contexts were handed to VS Code (or after timeoutMs). */
  private whenShown(view: vscode.TreeView<ClusterElement>, timeoutMs: number): Promise<void> {
    return this.waitUntil(
      () => view.visible && this.root.kind === 'served',
      [view.onDidChangeVisibility, this.rootServed.event],
      timeoutMs,
    ).then(() => undefined);
  }

  /** True once the element is the view's selection; false after timeoutMs. */
  private whenSelected(view: vscode.TreeView<ClusterElement>, element: ClusterElement, timeoutMs: number): Promise<boolean> {
    return this.waitUntil(() => view.selection.some((selected) => selected.id === element.id), [view.onDidChangeSelection], timeoutMs);
  }

  private waitUntil(condition: () => boolean, events: readonly vscode.Event<unknown>[], timeoutMs: number): Promise<boolean> {
    if (condition()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const listeners: vscode.Disposable[] = [];
      const finish = (value: boolean): void => {
        clearTimeout(timer);
        for (const listener of listeners) listener.dispose();
        resolve(value);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      for (const event of events)
        listeners.push(
          event(() => {
            if (condition()) finish(true);
          }),
        );
    });
  }

  private flushNow(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const all = Array.from(this.pending);
    this.pending.clear();
    if (all.includes(undefined)) this.changed.fire(undefined);
    else for (const element of all) this.changed.fire(element);
  }

  /** Coalesces change events: the view is told at most once per COALESCE_MS, per element. */
  private fire(element: ClusterElement | undefined): void {
    this.pending.add(element);
    this.flushSoon();
  }

  private flushSoon(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.view && !this.view.visible && !this.pending.has(undefined)) return; // flushed when shown again
      this.flushNow();
    }, COALESCE_MS);
  }

  private setViewState(state: ViewState): void {
    if (this.viewState === state) return;
    this.viewState = state;
    void vscode.commands.executeCommand('setContext', STATE_CONTEXT_KEY, state);
  }

  private setMessage(message: string | undefined): void {
    if (this.view) this.view.message = message;
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
    this.rootServed.dispose();
  }
}
