// The clusters as gpumem knows them: every kubeconfig context → its nodes → the node's GPU pods, with one
// client per context and a pod watch per node that someone looks at. The Clusters view renders this model
// (clusterTreeContent.ts decides its rows, src/vscode/clusters/clusterTree.ts hands them to VS Code); the commands
// (src/vscode/clusters/targets.ts, nodeCommands.ts, podCommands.ts, …) act on it. Like everything in src/clusters/ it
// imports no `vscode` (lint-enforced): settings, the log and the node labels are handed in, and changes go out through
// a small emitter.
// - never blocking: a context is "connecting" while it is probed (short timeout) and its nodes listed;
// - contexts authenticated by certificate or token are probed in the background when the kubeconfig is
//   read, so their state shows without a click and "all contexts unreachable" can be told; contexts with an
//   exec credential plugin are only contacted when expanded (a plugin may open a browser to log in);
// - a node's pods are watched (server-side field selector, ClusterClient.watchPodsOnNode) between
//   startWatch and stopWatch (the view calls them as the node is expanded, collapsed, hidden);
// - the kubeconfig is never written.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { NodeLabelRule } from '../core/config.ts';
import type { KubeFailure } from '../core/kube/kubeFailure.ts';
import type { ContextState } from '../core/kube/contextState.ts';
import { describeContextState } from '../core/kube/contextState.ts';
import type { NodeMemoryEvent } from '../core/kube/events.ts';
import type { GpuNodeSummary } from '../core/kube/nodes.ts';
import type { GpuPodSummary } from '../core/kube/pods.ts';
import type { ContextInfo } from '../core/kube/contextTreeItem.ts';
import { ClusterClient } from '../kube/clusterClient.ts';
import { loadContextNodes, splitGpuPods } from '../kube/explorer.ts';
import type { LoadedContext, LoadedKubeconfig } from '../kube/kubeconfig.ts';
import { loadKubeconfigs } from '../kube/kubeconfig.ts';
import { ChangeEmitter } from './changeEmitter.ts';
import type { KubeSettings } from '../core/settings.ts';
import { errorMessage } from '../core/errorMessage.ts';

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

export type ModelElement = ContextElement | NodeElement | PodElement;

/**
 * What changed: `loading`, the kubeconfig is being read; `reset`, everything was dropped (refresh, settings);
 * `changed`, one element (or, undefined, the list of contexts) has new state.
 */
export type ModelChange =
  { readonly kind: 'loading' } | { readonly kind: 'reset' } | { readonly kind: 'changed'; readonly element: ModelElement | undefined };

export interface ModelLog {
  debug(line: string): void;
  info(line: string): void;
  warn(line: string): void;
  error(line: string): void;
}

export interface ClusterModelOptions {
  /** Read at creation and on every full refresh. */
  readonly readSettings: () => KubeSettings;
  /** gpumem.lint.unifiedMemoryNodeLabels, read when a context's nodes are listed. */
  readonly unifiedMemoryLabels: () => readonly NodeLabelRule[];
  readonly log: ModelLog;
}

/** Refused or not authenticated: retrying a watch will not help until the credentials change (Refresh). */
const watchGivesUp = (failure: KubeFailure): boolean =>
  failure.kind === 'forbidden' || failure.kind === 'unauthorized' || failure.kind === 'credentials';

/** Element ids are stable across refreshes (VS Code keeps selection and expansion by id). */
export const idOf = (...parts: string[]): string => JSON.stringify(parts);

export class ClusterModel {
  private readonly changes = new ChangeEmitter<ModelChange>();
  readonly onDidChange = this.changes.event;
  private readonly options: ClusterModelOptions;
  private settings: KubeSettings;
  private kubeconfig: LoadedKubeconfig | undefined;
  private loading: Promise<LoadedKubeconfig> | undefined;
  private contextElements: ContextElement[] = [];
  private readonly clients = new Map<string, ClusterClient>();
  private readonly watched = new Set<NodeElement>();
  private generation = 0;

  constructor(options: ClusterModelOptions) {
    this.options = options;
    this.settings = options.readSettings();
  }

  get kubeSettings(): KubeSettings {
    return this.settings;
  }

  /** The contexts as loaded (after the first load or ensureLoaded). */
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
        log: (line) => this.options.log.debug(line),
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

  /** Forgets a context's nodes, a node's pods, or (no element) everything, re-reading the settings. */
  refresh(element?: ContextElement | NodeElement): void {
    if (element?.kind === 'context') {
      for (const node of element.nodes ?? []) this.stopWatch(node);
      element.nodes = undefined;
      element.connecting = false;
      element.state = { kind: 'Unknown' };
      element.generation++;
      void this.clients.get(element.info.name)?.dispose(); // its keep-alive connections (after its watches stopped above)
      this.clients.delete(element.info.name);
      this.changed(element);
      return;
    }
    if (element?.kind === 'node') {
      this.stopWatch(element);
      element.pods = undefined;
      element.podsError = undefined;
      this.changed(element);
      return;
    }
    for (const node of Array.from(this.watched)) this.stopWatch(node);
    this.generation++;
    this.settings = this.options.readSettings();
    this.kubeconfig = undefined;
    this.loading = undefined;
    this.contextElements = [];
    for (const client of this.clients.values()) void client.dispose();
    this.clients.clear();
    this.changes.fire({ kind: 'reset' });
  }

  /** Reads the kubeconfig once (until the next full refresh); the same promise while it is being read. */
  loadKubeconfig(): Promise<LoadedKubeconfig> {
    if (this.kubeconfig) return Promise.resolve(this.kubeconfig);
    if (this.loading) return this.loading;
    const generation = this.generation;
    this.changes.fire({ kind: 'loading' });
    const loading = loadKubeconfigs({ explicitPath: this.settings.kubeconfig }).then((loaded) => {
      if (generation !== this.generation) return loaded;
      this.kubeconfig = loaded;
      for (const problem of loaded.problems) this.options.log.warn(`kubeconfig: ${problem}`);
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
    return {
      kind: 'context',
      id: idOf('context', context.name),
      loaded: context,
      info,
      state,
      connecting: false,
      nodes: undefined,
      generation: 0,
    };
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
        if (state.kind !== 'Reachable') this.options.log.info(`context ${element.info.name}: ${describeContextState(state).message}`);
        this.changed(element);
      }),
    ).then(() => {
      // Every context answered "unreachable": the view switches to its welcome content.
      if (generation === this.generation && this.contextElements.every((c) => c.state.kind === 'Unreachable')) this.changed(undefined);
    });
  }

  /** Lists the context's nodes (once at a time: a second call waits for the first). */
  async startContextLoad(element: ContextElement): Promise<void> {
    if (element.connecting) {
      while (element.connecting) await new Promise((resolve) => setTimeout(resolve, 50));
      return;
    }
    element.connecting = true;
    const generation = element.generation;
    const modelGeneration = this.generation;
    this.changed(element);
    try {
      const result = await loadContextNodes(this.client(element), { unifiedMemoryLabels: this.options.unifiedMemoryLabels() });
      if (generation !== element.generation || modelGeneration !== this.generation) return;
      element.state = result.state;
      if (result.eventsProblem) this.options.log.info(result.eventsProblem);
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
          return {
            kind: 'node',
            id,
            context: element,
            summary,
            raw,
            events,
            pods: undefined,
            otherPods: 0,
            podsError: undefined,
            stopWatch: undefined,
            expanded: false,
          };
        });
      } else {
        element.nodes = undefined;
        this.options.log.info(`context ${element.info.name}: ${describeContextState(result.state).message}`);
      }
    } catch (error) {
      if (generation !== element.generation) return;
      element.state = { kind: 'Unreachable', reason: errorMessage(error), cause: 'unknown' };
      this.options.log.error(`context ${element.info.name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    } finally {
      if (generation === element.generation) {
        element.connecting = false;
        this.changed(element);
      }
    }
  }

  /**
   * Watches the node's pods; stopped by stopWatch, refresh or dispose. A no-op while a watch runs, and after the API
   * server refused the node's pods or the credentials (until a refresh clears that): the view asks for a node's
   * children again on every change, and restarting there retried a refused watch over and over.
   */
  startWatch(node: NodeElement): void {
    if (node.stopWatch || (node.podsError && watchGivesUp(node.podsError))) return;
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
          if (watchGivesUp(failure)) this.stopWatch(node);
          this.changed(node);
        },
      },
    );
    node.stopWatch = stop;
  }

  stopWatch(node: NodeElement): void {
    const stop = node.stopWatch;
    node.stopWatch = undefined;
    this.watched.delete(node);
    stop?.();
  }

  /** The nodes whose pods are being watched now. */
  get watchedNodeElements(): readonly NodeElement[] {
    return Array.from(this.watched);
  }

  /** Nodes whose pods are being watched now, as context/node (for tests and the output channel). */
  get watchedNodes(): readonly string[] {
    return Array.from(this.watched, (node) => `${node.context.info.name}/${node.summary.name}`);
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
    this.changed(node);
  }

  /**
   * The element of a pod, for "reveal": first among the pods already listed (by UID), then, when its
   * namespace/name is known, by reading it in each context that answered (its UID must match: the same name in
   * another cluster is another pod), loading its node and the node's pods once. Contexts behind a credential
   * plugin that was never run are not contacted (a plugin may open a browser). Undefined when no context has it.
   */
  async locatePod(
    query: { readonly uid: string; readonly namespace?: string; readonly name?: string },
    signal?: AbortSignal,
  ): Promise<PodElement | undefined> {
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
      const element = node.pods?.find(
        (p) => p.raw.metadata?.uid === pod.metadata?.uid || (p.summary.namespace === namespace && p.summary.name === name),
      );
      if (element) return element;
    }
    return undefined;
  }

  private changed(element: ModelElement | undefined): void {
    this.changes.fire({ kind: 'changed', element });
  }

  dispose(): void {
    for (const node of Array.from(this.watched)) this.stopWatch(node);
    for (const client of this.clients.values()) void client.dispose();
    this.clients.clear();
    this.changes.dispose();
  }
}
