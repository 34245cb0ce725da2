// The Clusters view (`gpumem.clusters`): every kubeconfig context → its nodes, GPU nodes first → the node's
// GPU pods. What each row says comes from src/core/kube/treeItems.ts; this file owns the lifecycle:
// - never blocking: a context shows a "Connecting…" child while it is probed (short timeout) and its nodes
//   listed, then the view refreshes that context alone;
// - contexts authenticated by certificate or token are probed in the background when the kubeconfig is
//   read, so their state shows without a click and "all contexts unreachable" can be told; contexts with an
//   exec credential plugin are only contacted when expanded (a plugin may open a browser to log in);
// - a node's pods are watched (server-side field selector, ClusterClient.watchPodsOnNode) while the node is
//   expanded: started when its children are asked for or it is expanded again (onDidExpandElement: VS Code
//   keeps the children of a collapsed item and does not ask again), stopped when it or its context
//   collapses, the view is hidden, refreshed or disposed; change events are coalesced before the view is told;
// - the kubeconfig is never written, and nothing is read in Restricted Mode (a welcome view says why).
// Welcome views (package.json viewsWelcome) key off `gpumem.clusters.state`: noKubeconfig, allUnreachable.
import * as vscode from 'vscode';
import type { ContextState, KubeFailure } from '../../core/kube/contextState.ts';
import { describeContextState } from '../../core/kube/contextState.ts';
import type { NodeMemoryEvent } from '../../core/kube/events.ts';
import { explainForbidden, explainKubeFailure } from '../../core/kube/failureMessages.ts';
import type { GpuNodeSummary } from '../../core/kube/nodes.ts';
import type { GpuPodSummary } from '../../core/kube/pods.ts';
import type { ContextInfo, MessageKind, TreeItemModel } from '../../core/kube/treeItems.ts';
import { contextTreeItem, messageTreeItem, noGpuPodsItem, nodeTreeItem, otherPodsItem, podTreeItem } from '../../core/kube/treeItems.ts';
import { ClusterClient } from '../../kube/clusterClient.ts';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { loadContextNodes, splitGpuPods } from '../../kube/explorer.ts';
import type { LoadedContext, LoadedKubeconfig } from '../../kube/kubeconfig.ts';
import { loadKubeconfigs } from '../../kube/kubeconfig.ts';
import type { Ctx } from '../ctx.ts';
import type { KubeSettings } from './kubeSettings.ts';
import { affectsKubeSettings, readKubeSettings } from './kubeSettings.ts';

export const CLUSTERS_VIEW = 'gpumem.clusters';
export const STATE_CONTEXT_KEY = 'gpumem.clusters.state';
/** How long changes are gathered before the view is told (watch events, background probes). */
const COALESCE_MS = 150;
/** How long a reveal waits for the view to show its contexts, then for its row to be selected. */
const REVEAL_WAIT_MS = 5_000;

export type ViewState = 'loading' | 'ok' | 'noKubeconfig' | 'allUnreachable' | 'restricted';

export interface ContextElement {
  readonly kind: 'context';
  readonly id: string;
  readonly loaded: LoadedContext;
  readonly info: ContextInfo;
  state: ContextState;
  connecting: boolean;
  /** Set once the nodes were listed (Reachable). */
  nodes: NodeElement[] | undefined;
  /** Bumped by a refresh, so a load that finishes late is ignored. */
  generation: number;
}

export interface NodeElement {
  readonly kind: 'node';
  readonly id: string;
  readonly context: ContextElement;
  summary: GpuNodeSummary;
  raw: V1Node;
  events: readonly NodeMemoryEvent[];
  pods: PodElement[] | undefined;
  otherPods: number;
  podsError: KubeFailure | undefined;
  stopWatch: (() => void) | undefined;
  /** Expanded in the view (kept while its context is collapsed, so its watch resumes with the context). */
  expanded: boolean;
}

export interface PodElement {
  readonly kind: 'pod';
  readonly id: string;
  readonly node: NodeElement;
  summary: GpuPodSummary;
  raw: V1Pod;
}

export interface MessageElement {
  readonly kind: 'message';
  readonly id: string;
  readonly parent: ContextElement | NodeElement | undefined;
  readonly model: TreeItemModel;
}

export type ClusterElement = ContextElement | NodeElement | PodElement | MessageElement;

const idOf = (...parts: string[]): string => JSON.stringify(parts);

export class ClusterTreeProvider implements vscode.TreeDataProvider<ClusterElement>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ClusterElement | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly ctx: Ctx;
  private readonly subscriptions: vscode.Disposable[] = [];
  private settings: KubeSettings;
  private kubeconfig: LoadedKubeconfig | undefined;
  private loading: Promise<LoadedKubeconfig> | undefined;
  private contextElements: ContextElement[] = [];
  private readonly clients = new Map<string, ClusterClient>();
  private readonly watched = new Set<NodeElement>();
  private readonly resumeOnShow = new Set<NodeElement>();
  private readonly pending = new Set<ClusterElement | undefined>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private viewState: ViewState | undefined;
  private view: vscode.TreeView<ClusterElement> | undefined;
  private showUnreachable = false;
  /** Whether VS Code got the root's children since the last full refresh (a reveal waits for it). */
  private root: { readonly kind: 'pending' } | { readonly kind: 'served' } = { kind: 'pending' };
  private readonly rootServed = new vscode.EventEmitter<void>();
  private generation = 0;

  constructor(ctx: Ctx) {
    this.ctx = ctx;
    this.settings = readKubeSettings();
    this.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (affectsKubeSettings(event) || event.affectsConfiguration('gpumem.lint.unifiedMemoryNodeLabels')) this.refresh();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.refresh()),
    );
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
          this.stopWatch(element);
        } else if (element.kind === 'context') for (const node of element.nodes ?? []) this.stopWatch(node);
      }),
      view.onDidExpandElement(({ element }) => {
        if (element.kind === 'node') {
          element.expanded = true;
          this.startWatch(element);
        } else if (element.kind === 'context') for (const node of element.nodes ?? []) if (node.expanded) this.startWatch(node);
      }),
      // Hidden (another view container, a collapsed section): no watch runs for rows nobody sees.
      view.onDidChangeVisibility(({ visible }) => {
        if (!visible) {
          for (const node of [...this.watched]) {
            this.stopWatch(node);
            this.resumeOnShow.add(node);
          }
          return;
        }
        for (const node of this.resumeOnShow) if (node.expanded) this.startWatch(node);
        this.resumeOnShow.clear();
        if (this.pending.size > 0) this.flushSoon();
      }),
    );
  }

  get kubeSettings(): KubeSettings {
    return this.settings;
  }

  /** The contexts as loaded (after the first getChildren or ensureLoaded). */
  get contexts(): readonly ContextElement[] {
    return this.contextElements;
  }

  async ensureLoaded(): Promise<readonly ContextElement[]> {
    if (!this.kubeconfig) await this.loadKubeconfig();
    return this.contextElements;
  }

  /** One client per context, with the configured timeouts (recreated on refresh). */
  client(context: ContextElement | string): ClusterClient {
    const element = typeof context === 'string' ? this.contextElements.find((c) => c.info.name === context) : context;
    if (!element) throw new Error(`no kubeconfig context named "${String(context)}"`);
    let client = this.clients.get(element.info.name);
    if (!client) {
      client = new ClusterClient(element.loaded, {
        requestTimeoutMs: this.settings.requestTimeoutMs,
        probeTimeoutMs: this.settings.probeTimeoutMs,
        log: (line) => this.ctx.output.debug(line),
      });
      this.clients.set(element.info.name, client);
    }
    return client;
  }

  /** Loads (once) the context's nodes; resolves when they are there or the context failed. */
  async loadContext(element: ContextElement): Promise<ContextElement> {
    if (element.nodes !== undefined && !element.connecting) return element;
    await this.startContextLoad(element);
    return element;
  }

  refresh(element?: ClusterElement): void {
    if (element?.kind === 'context') {
      for (const node of element.nodes ?? []) this.stopWatch(node);
      element.nodes = undefined;
      element.connecting = false;
      element.state = { kind: 'Unknown' };
      element.generation++;
      void this.clients.get(element.info.name)?.dispose(); // its keep-alive connections (after its watches stopped above)
      this.clients.delete(element.info.name);
      this.fire(element);
      return;
    }
    if (element?.kind === 'node') {
      this.stopWatch(element);
      element.pods = undefined;
      element.podsError = undefined;
      this.fire(element);
      return;
    }
    for (const node of [...this.watched]) this.stopWatch(node);
    this.resumeOnShow.clear();
    this.generation++;
    this.settings = readKubeSettings();
    this.kubeconfig = undefined;
    this.loading = undefined;
    this.contextElements = [];
    for (const client of this.clients.values()) void client.dispose();
    this.clients.clear();
    this.showUnreachable = false;
    this.pending.clear();
    this.root = { kind: 'pending' };
    this.fire(undefined);
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
    }
  }

  getTreeItem(element: ClusterElement): vscode.TreeItem {
    const now = Date.now();
    const model =
      element.kind === 'context' ? contextTreeItem(element.info, element.state, { connecting: element.connecting, ...(element.nodes ? { nodes: { total: element.nodes.length, gpu: element.nodes.filter((n) => n.summary.isGpuNode).length } } : {}) })
        : element.kind === 'node' ? nodeTreeItem(element.summary, element.events, now)
          : element.kind === 'pod' ? podTreeItem(element.summary, now)
            : element.model;
    const item = new vscode.TreeItem(model.label, model.collapsible ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = element.id;
    item.description = model.description;
    const tooltip = new vscode.MarkdownString(model.tooltip, false);
    tooltip.isTrusted = false;
    tooltip.supportHtml = false;
    item.tooltip = tooltip;
    item.iconPath = new vscode.ThemeIcon(model.icon.id, model.icon.color ? new vscode.ThemeColor(model.icon.color) : undefined);
    item.contextValue = model.contextValue;
    return item;
  }

  // -------------------------------------------------------------------------------------------------
  // Levels

  private async rootChildren(): Promise<ClusterElement[]> {
    if (!vscode.workspace.isTrusted) {
      this.setViewState('restricted');
      return [];
    }
    const loaded = await this.loadKubeconfig();
    // A TreeView message hides the welcome view: the details of these two states go to the output channel.
    if (this.contextElements.length === 0) {
      if (this.viewState !== 'noKubeconfig') this.ctx.output.info(`Clusters: no kubeconfig context in ${loaded.source.files.join(', ')} (${loaded.source.origin})${loaded.problems.length > 0 ? `: ${loaded.problems.join('; ')}` : ''}`);
      this.setViewState('noKubeconfig');
      this.setMessage(undefined);
      return [];
    }
    const probed = this.contextElements.every((c) => c.state.kind === 'Unreachable' && !c.connecting);
    if (probed && !this.showUnreachable) {
      this.setViewState('allUnreachable');
      this.setMessage(undefined);
      return [];
    }
    this.setViewState('ok');
    this.setMessage(loaded.problems.length > 0 ? `kubeconfig: ${loaded.problems.join('; ')}` : undefined);
    this.root = { kind: 'served' };
    this.rootServed.fire();
    return this.contextElements;
  }

  private contextChildren(element: ContextElement): ClusterElement[] {
    if (element.nodes === undefined && !element.connecting && (element.state.kind === 'Unknown' || element.state.kind === 'Reachable')) {
      void this.startContextLoad(element);
    }
    if (element.connecting) return [this.message(element, 'connecting', `Connecting to ${element.info.server ?? element.info.name}…`)];
    const state = element.state;
    if (state.kind === 'Forbidden') {
      const text = explainForbidden(state.verb, state.resource, { context: element.info.name });
      return [this.message(element, 'forbidden', `Forbidden: ${state.verb} ${state.resource}`, text), this.message(element, 'info', text, text, 'action')];
    }
    if (state.kind === 'Unreachable') {
      const view = describeContextState(state, `context "${element.info.name}"`);
      const action = view.action ?? 'Refresh to try again.';
      return [this.message(element, 'error', `${view.label === 'unreachable' ? 'Unreachable' : view.label}: ${state.reason}`, view.message), this.message(element, 'info', action, action, 'action')];
    }
    const nodes = element.nodes ?? [];
    if (nodes.length === 0) return [this.message(element, 'empty', 'No nodes')];
    return nodes;
  }

  private nodeChildren(node: NodeElement): ClusterElement[] {
    node.expanded = true;
    this.startWatch(node);
    if (node.podsError && (node.pods === undefined || node.podsError.kind === 'forbidden')) {
      const text = explainKubeFailure(node.podsError, { context: node.context.info.name, action: `Pods on ${node.summary.name}` });
      return [this.message(node, node.podsError.kind === 'forbidden' ? 'forbidden' : 'error', node.podsError.kind === 'forbidden' ? `forbidden: ${node.podsError.verb} ${node.podsError.resource}` : text, text)];
    }
    if (node.pods === undefined) return [this.message(node, 'loading', 'Loading pods…')];
    if (node.pods.length === 0) return [this.messageFrom(node, noGpuPodsItem(node.otherPods), 'none')];
    return node.otherPods > 0 ? [...node.pods, this.messageFrom(node, otherPodsItem(node.otherPods), 'others')] : node.pods;
  }

  // -------------------------------------------------------------------------------------------------
  // Loading

  private loadKubeconfig(): Promise<LoadedKubeconfig> {
    if (this.kubeconfig) return Promise.resolve(this.kubeconfig);
    if (this.loading) return this.loading;
    const generation = this.generation;
    this.setViewState('loading');
    const loading = loadKubeconfigs({ explicitPath: this.settings.kubeconfig }).then((loaded) => {
      if (generation !== this.generation) return loaded;
      this.kubeconfig = loaded;
      for (const problem of loaded.problems) this.ctx.output.warn(`kubeconfig: ${problem}`);
      this.contextElements = loaded.contexts.map((context) => this.contextElement(context, loaded.currentContext));
      this.probeInBackground(generation);
      return loaded;
    });
    this.loading = loading;
    return loading;
  }

  private contextElement(context: LoadedContext, current: string | undefined): ContextElement {
    const { kubeConfig: _kubeConfig, ...description } = context;
    const info: ContextInfo = { ...description, current: context.name === current };
    const state: ContextState = context.problem ? { kind: 'Unreachable', reason: context.problem, cause: 'config' } : { kind: 'Unknown' };
    return { kind: 'context', id: idOf('context', context.name), loaded: context, info, state, connecting: false, nodes: undefined, generation: 0 };
  }

  /** GET /version of every context that needs no credential plugin, at once, with the short probe timeout. */
  private probeInBackground(generation: number): void {
    const targets = this.contextElements.filter((c) => c.state.kind === 'Unknown' && !c.loaded.execCommand);
    if (targets.length === 0) return;
    void Promise.all(
      targets.map(async (element) => {
        const state = await this.client(element).probe();
        if (generation !== this.generation || element.connecting || element.nodes !== undefined || element.state.kind !== 'Unknown') return;
        element.state = state;
        if (state.kind !== 'Reachable') this.ctx.output.info(`context ${element.info.name}: ${describeContextState(state).message}`);
        this.fire(element);
      }),
    ).then(() => {
      // Every context answered "unreachable": the root switches to the welcome view.
      if (generation === this.generation && this.contextElements.every((c) => c.state.kind === 'Unreachable')) this.fire(undefined);
    });
  }

  private async startContextLoad(element: ContextElement): Promise<void> {
    if (element.connecting) {
      while (element.connecting) await new Promise((resolve) => setTimeout(resolve, 50));
      return;
    }
    element.connecting = true;
    const generation = element.generation;
    const treeGeneration = this.generation;
    this.fire(element);
    try {
      const result = await loadContextNodes(this.client(element), { unifiedMemoryLabels: this.ctx.settings.lint.unifiedMemoryNodeLabels });
      if (generation !== element.generation || treeGeneration !== this.generation) return;
      element.state = result.state;
      if (result.eventsProblem) this.ctx.output.info(result.eventsProblem);
      if (result.state.kind === 'Reachable') {
        const previous = new Map((element.nodes ?? []).map((n) => [n.id, n]));
        element.nodes = result.nodes.map(({ summary, raw }) => {
          const id = idOf('node', element.info.name, summary.name);
          const events = result.events.get(summary.name) ?? [];
          const existing = previous.get(id);
          if (existing) {
            existing.summary = summary;
            existing.raw = raw;
            existing.events = events;
            return existing;
          }
          return { kind: 'node', id, context: element, summary, raw, events, pods: undefined, otherPods: 0, podsError: undefined, stopWatch: undefined, expanded: false };
        });
      } else {
        element.nodes = undefined;
        this.ctx.output.info(`context ${element.info.name}: ${describeContextState(result.state).message}`);
      }
    } catch (error) {
      if (generation !== element.generation) return;
      element.state = { kind: 'Unreachable', reason: error instanceof Error ? error.message : String(error), cause: 'unknown' };
      this.ctx.output.error(`context ${element.info.name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    } finally {
      if (generation === element.generation) {
        element.connecting = false;
        this.fire(element);
      }
    }
  }

  private startWatch(node: NodeElement): void {
    if (node.stopWatch) return;
    const client = this.client(node.context);
    this.watched.add(node);
    const stop = client.watchPodsOnNode(
      node.summary.name,
      (pods) => {
        if (node.stopWatch !== stop) return;
        this.applyPods(node, pods);
      },
      {
        onError: (failure) => {
          if (node.stopWatch !== stop) return;
          node.podsError = failure;
          // Refused or not authenticated: retrying will not help until the credentials change (Refresh).
          if (failure.kind === 'forbidden' || failure.kind === 'unauthorized' || failure.kind === 'credentials') this.stopWatch(node);
          this.fire(node);
        },
      },
    );
    node.stopWatch = stop;
  }

  /** The node's GPU pods from a list or watch snapshot; existing elements are kept (the view keeps its selection). */
  private applyPods(node: NodeElement, pods: readonly V1Pod[]): void {
    const split = splitGpuPods(pods);
    const previous = new Map((node.pods ?? []).map((p) => [p.id, p]));
    node.pods = split.gpuPods.map(({ summary, raw }) => {
      const id = idOf('pod', node.context.info.name, summary.namespace, summary.name);
      const existing = previous.get(id);
      if (existing) {
        existing.summary = summary;
        existing.raw = raw;
        return existing;
      }
      return { kind: 'pod', id, node, summary, raw };
    });
    node.otherPods = split.otherPods;
    node.podsError = undefined;
    this.fire(node);
  }

  /**
   * The tree element of a pod, for "reveal": first among the pods already listed (by UID), then, when its
   * namespace/name is known, by reading it in each context that answered (its UID must match: the same name in
   * another cluster is another pod), loading its node and the node's pods once. Contexts behind a credential
   * plugin that was never run are not contacted (a plugin may open a browser). Undefined when no context has it.
   */
  async locatePod(query: { readonly uid: string; readonly namespace?: string; readonly name?: string }, signal?: AbortSignal): Promise<PodElement | undefined> {
    const contexts = await this.ensureLoaded();
    const loaded = contexts.flatMap((c) => c.nodes ?? []).flatMap((n) => n.pods ?? []);
    const known = loaded.find((pod) => pod.raw.metadata?.uid === query.uid);
    if (known) return known;
    const { namespace, name } = query;
    if (!namespace || !name) return undefined;
    for (const context of contexts) {
      if (signal?.aborted) return undefined;
      const reachable = context.state.kind === 'Reachable' || (context.state.kind === 'Unknown' && !context.loaded.execCommand);
      if (!reachable) continue;
      const client = this.client(context);
      const pod = await client.readPod(namespace, name, { ...(signal ? { signal } : {}) }).catch(() => undefined);
      if (!pod || (pod.metadata?.uid !== undefined && pod.metadata.uid !== query.uid) || !pod.spec?.nodeName) continue;
      await this.loadContext(context);
      const node = context.nodes?.find((n) => n.summary.name === pod.spec?.nodeName);
      if (!node) continue;
      if (node.pods === undefined) {
        const listed = await client.listPodsOnNode(node.summary.name, { ...(signal ? { signal } : {}) }).catch(() => undefined);
        // The node's watch may have filled them meanwhile: its snapshot is as fresh as this list.
        if (listed && node.pods === undefined) this.applyPods(node, listed.pods);
      }
      const element = node.pods?.find((p) => p.raw.metadata?.uid === pod.metadata?.uid || (p.summary.namespace === namespace && p.summary.name === name));
      if (element) return element;
    }
    return undefined;
  }

  private stopWatch(node: NodeElement): void {
    const stop = node.stopWatch;
    node.stopWatch = undefined;
    this.watched.delete(node);
    stop?.();
  }

  /** Nodes whose pods are being watched now (for tests and the output channel). */
  get watchedNodes(): readonly string[] {
    return [...this.watched].map((node) => `${node.context.info.name}/${node.summary.name}`);
  }

  // -------------------------------------------------------------------------------------------------
  // Helpers

  private message(parent: ContextElement | NodeElement, kind: MessageKind, text: string, detail?: string, slot: string = kind): MessageElement {
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
  async reveal(element: ClusterElement, options: { readonly select: boolean; readonly focus: boolean; readonly expand: boolean }): Promise<void> {
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
    return this.waitUntil(() => view.visible && this.root.kind === 'served', [view.onDidChangeVisibility, this.rootServed.event], timeoutMs).then(() => undefined);
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
      for (const event of events) listeners.push(event(() => { if (condition()) finish(true); }));
    });
  }

  private flushNow(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const all = [...this.pending];
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
    for (const node of [...this.watched]) this.stopWatch(node);
    for (const client of this.clients.values()) void client.dispose();
    this.clients.clear();
    if (this.timer !== undefined) clearTimeout(this.timer);
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
    this.rootServed.dispose();
  }
}
