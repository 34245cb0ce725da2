// The Clusters view (`gpumem.clusters`): the VS Code side of the tree whose rows src/clusters/clusterTreeContent.ts
// decides (contexts → their nodes, GPU nodes first → the node's GPU pods; what each row says). This file owns what
// is the view's:
// - never blocking: a context shows a "Connecting…" child while the model probes it, then the view
//   refreshes that context alone;
// - a node's pod watch runs while the node is expanded: started when its children are asked for or it is
//   expanded again (onDidExpandElement: VS Code keeps the children of a collapsed item and does not ask
//   again), stopped when it or its context collapses or the view is hidden; the model's changes are
//   coalesced before the view is told;
// - nothing is read in Restricted Mode (a welcome view says why);
// - the Fleet item opens its context's fleet view (src/vscode/fleet/).
// Welcome views (package.json viewsWelcome) key off `gpumem.clusters.state`: noKubeconfig, allUnreachable.
import * as vscode from 'vscode';
import type { ClusterModel, ModelChange, ModelLog, NodeElement } from '../../clusters/clusterModel.ts';
import type { ClusterElement, ViewState } from '../../clusters/clusterTreeContent.ts';
import { ClusterTreeContent } from '../../clusters/clusterTreeContent.ts';
import { COMMANDS } from '../commandIds.ts';
import { CLUSTERS_VIEW } from './commandIds.ts';

export const STATE_CONTEXT_KEY = 'gpumem.clusters.state';
/** How long changes are gathered before the view is told (watch events, background probes). */
const COALESCE_MS = 150;
/** How long a reveal waits for the view to show its contexts, then for its row to be selected. */
const REVEAL_WAIT_MS = 5_000;

export class ClusterTreeProvider implements vscode.TreeDataProvider<ClusterElement>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ClusterElement | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly model: ClusterModel;
  private readonly content: ClusterTreeContent;
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
    this.content = new ClusterTreeContent(model);
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
    if (element) return this.content.children(element);
    const rows = await this.content.root({ trusted: vscode.workspace.isTrusted, showUnreachable: this.showUnreachable });
    if (rows.kind === 'empty') {
      if (rows.state === 'noKubeconfig' && this.viewState !== 'noKubeconfig') this.log.info(rows.logLine);
      this.setViewState(rows.state);
      if (rows.state !== 'restricted') this.setMessage(undefined);
      return [];
    }
    this.setViewState('ok');
    this.setMessage(rows.message);
    this.root = { kind: 'served' };
    this.rootServed.fire();
    return Array.from(rows.contexts);
  }

  getParent(element: ClusterElement): ClusterElement | undefined {
    return this.content.parent(element);
  }

  getTreeItem(element: ClusterElement): vscode.TreeItem {
    const model = this.content.item(element, Date.now());
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
  // Reveal, change events

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
