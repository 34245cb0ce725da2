// One context's API client: every call has a deadline and can be cancelled, errors become KubeFailures with
// the verb and resource that were attempted, a node's pods are selected ON THE SERVER
// (fieldSelector=spec.nodeName=<node>), and a per-node watch restarts after `410 Gone` with a fresh list
// (kubeWatch.ts).
//
// How a call gets its deadline and cancellation with @kubernetes/client-node 2.x: kubeCall.ts.
// - The watch engine, with what client-node's Watch does, is kubeWatch.ts; HAMi's pods are found by
//   hamiLookups.ts.
// - Every request and every Watch builds a new undici Agent, i.e. a new TLS connection (see
//   sharedDispatcher.ts). Each ClusterClient therefore works on a private copy of its context's KubeConfig
//   whose requests and watches share one keep-alive pool; dispose() closes it (the Clusters view disposes a
//   client when it drops it). Exec (WebSocket) keeps client-node's own https.Agent.
import { pushAll } from '../core/arrays.ts';
import { AuthorizationV1Api, CoreV1Api, NodeV1Api, setHeaderOptions, VersionApi } from '@kubernetes/client-node';
import type { ConfigurationOptions, KubeConfig, CoreV1Event, V1Node, V1Pod, V1RuntimeClass, V1Service } from '@kubernetes/client-node';
import type { AttemptedRequest, KubeFailure } from '../core/kube/kubeFailure.ts';
import type { ContextState } from '../core/kube/contextState.ts';
import { classifyKubeError } from '../core/kube/kubeFailure.ts';
import { contextStateFromFailure } from '../core/kube/contextState.ts';
import { callWithDeadline, runWithDeadline } from './kubeCall.ts';
import { proxyGet } from './proxyGet.ts';
import type { HttpAnswer } from './proxyGet.ts';
import { escapeFieldValue, KubeRequestError, nodeFieldSelector } from './kubeRequestError.ts';
import { watchOnce, watchPodsOnNode } from './kubeWatch.ts';
import type { WatchEventType, WatchHandle, WatchTuning } from './kubeWatch.ts';
import { privateKubeConfigCopy, SharedDispatcher } from './sharedDispatcher.ts';

// The names this module offered before the request error and the watch engine moved out.
export { escapeFieldValue, KubeRequestError, nodeFieldSelector } from './kubeRequestError.ts';
export type { HttpAnswer } from './proxyGet.ts';
export type { WatchEnd, WatchEventType, WatchHandle, WatchTuning } from './kubeWatch.ts';

export interface ClusterClientOptions {
  /** Deadline of every request. Default 15 s. */
  readonly requestTimeoutMs?: number;
  /** Deadline of probe() (GET /version). Default 5 s. */
  readonly probeTimeoutMs?: number;
  /** `limit` of list pages. Default 500. */
  readonly pageSize?: number;
  readonly watch?: WatchTuning;
  readonly log?: (line: string) => void;
}

export interface CallOptions {
  readonly signal?: AbortSignal | undefined;
  /** Overrides the client's request timeout for this call. */
  readonly timeoutMs?: number;
}

/** A pod's or a service's port behind the API server's proxy. */
export interface ProxyTarget {
  readonly kind: 'pods' | 'services';
  readonly namespace: string;
  readonly name: string;
  /** A port number or name. */
  readonly port: string | number;
}

/** 50,000 pods' series answer in about 20 MiB of JSON; more than this is refused rather than held. */
export const DEFAULT_PROXY_MAX_BYTES = 128 * 1024 * 1024;

export class ClusterClient {
  readonly context: string;
  readonly kubeConfig: KubeConfig;
  readonly server: string | undefined;
  readonly #options: Required<Omit<ClusterClientOptions, 'log' | 'watch'>> & { watch: Required<WatchTuning>; log: (line: string) => void };
  #core: CoreV1Api | undefined;
  #version: VersionApi | undefined;
  readonly #dispatcher: SharedDispatcher;

  constructor(context: { readonly name: string; readonly kubeConfig: KubeConfig }, options: ClusterClientOptions = {}) {
    this.context = context.name;
    // A copy of its own, with one keep-alive connection pool shared by its requests and watches (sharedDispatcher.ts).
    this.kubeConfig = privateKubeConfigCopy(context.kubeConfig);
    this.#dispatcher = new SharedDispatcher(this.kubeConfig, (line) => options.log?.(`[${context.name}] ${line}`));
    this.server = context.kubeConfig.getCurrentCluster()?.server;
    this.#options = {
      requestTimeoutMs: options.requestTimeoutMs ?? 15_000,
      probeTimeoutMs: options.probeTimeoutMs ?? 5_000,
      pageSize: options.pageSize ?? 500,
      watch: {
        minBackoffMs: options.watch?.minBackoffMs ?? 1_000,
        maxBackoffMs: options.watch?.maxBackoffMs ?? 30_000,
        inactivityTimeoutMs: options.watch?.inactivityTimeoutMs ?? 90_000,
        serverTimeoutSeconds: options.watch?.serverTimeoutSeconds ?? 300,
        coalesceMs: options.watch?.coalesceMs ?? 50,
      },
      log: options.log ?? (() => undefined),
    };
  }

  /** The connection pool this client's requests share (see sharedDispatcher.ts). */
  get connections(): SharedDispatcher {
    return this.#dispatcher;
  }

  /**
   * Closes the shared connection pool (after a short grace period; requests in flight finish). The client
   * still works afterwards, with a connection per request, so a probe that outlives a refresh can still
   * delete its debug pod. Stop its watches first: a watch keeps its connection until it ends.
   * `graceMs` 0, for a caller whose requests have all settled (the CLI), closes it at once.
   */
  dispose(graceMs?: number): Promise<void> {
    return this.#dispatcher.dispose(graceMs);
  }

  /** The generated CoreV1 API; throws KubeRequestError(config) when the context has no cluster. */
  get core(): CoreV1Api {
    if (!this.#core) this.#core = this.#make(CoreV1Api);
    return this.#core;
  }

  #make<T>(api: new (config: never) => T): T {
    try {
      return this.kubeConfig.makeApiClient(api as never) as T;
    } catch (error) {
      throw new KubeRequestError(classifyKubeError(error), {
        verb: 'connect',
        resource: 'the API server',
        ...(this.server ? { server: this.server } : {}),
      });
    }
  }

  /**
   * Runs one API call with a deadline (the client's request timeout unless the call sets one) and the caller's
   * cancellation; every error becomes a KubeRequestError (kubeCall.ts).
   */
  call<T>(attempted: AttemptedRequest, run: (options: ConfigurationOptions) => Promise<T>, options: CallOptions = {}): Promise<T> {
    return callWithDeadline(attempted, run, {
      timeoutMs: options.timeoutMs ?? this.#options.requestTimeoutMs,
      signal: options.signal,
      server: this.server,
    });
  }

  /**
   * GETs `pathAndQuery` from a pod or service through the API server's proxy, with this client's deadline (or
   * `timeoutMs`), cancellation, credentials and connection pool, the answer capped at `maxBytes` (proxyGet.ts).
   * The backend's answer is returned whatever its status; the API server's refusals throw KubeRequestError.
   */
  proxyGet(target: ProxyTarget, pathAndQuery: string, options: CallOptions & { readonly maxBytes?: number } = {}): Promise<HttpAnswer> {
    const path = `api/v1/namespaces/${encodeURIComponent(target.namespace)}/${target.kind}/${encodeURIComponent(target.name)}:${encodeURIComponent(String(target.port))}/proxy/${pathAndQuery.replace(/^\//, '')}`;
    return runWithDeadline(
      { verb: 'get', resource: `${target.kind}/proxy` },
      (signal, markSent) => {
        // Throws (a config failure) when the context has no server.
        const base = new URL(this.server?.endsWith('/') ? this.server : `${this.server ?? ''}/`);
        return proxyGet(this.kubeConfig, new URL(path, base), { signal, markSent, maxBytes: options.maxBytes ?? DEFAULT_PROXY_MAX_BYTES });
      },
      { timeoutMs: options.timeoutMs ?? this.#options.requestTimeoutMs, signal: options.signal, server: this.server },
    );
  }

  /** GET /version with the probe timeout: Reachable(gitVersion), or why not. Never throws. */
  async probe(options: CallOptions = {}): Promise<ContextState> {
    try {
      if (!this.#version) this.#version = this.#make(VersionApi);
      const version = this.#version;
      const info = await this.call({ verb: 'get', resource: '/version' }, (o) => version.getCode({}, o), {
        timeoutMs: this.#options.probeTimeoutMs,
        ...options,
      });
      return { kind: 'Reachable', version: info.gitVersion || `v${info.major}.${info.minor}` };
    } catch (error) {
      return error instanceof KubeRequestError ? error.state : contextStateFromFailure(classifyKubeError(error));
    }
  }

  /** Every page of a list, following `continue`; returns the items and the list's resourceVersion. */
  async #listAll<T>(
    attempted: AttemptedRequest,
    page: (
      cont: string | undefined,
      limit: number,
      options: ConfigurationOptions,
    ) => Promise<{ items: T[]; metadata?: { _continue?: string; resourceVersion?: string } }>,
    options: CallOptions,
  ): Promise<{ items: T[]; resourceVersion: string | undefined }> {
    for (let attempt = 0; ; attempt++) {
      const items: T[] = [];
      let cont: string | undefined;
      let resourceVersion: string | undefined;
      try {
        do {
          const result = await this.call(attempted, (o) => page(cont, this.#options.pageSize, o), options);
          pushAll(items, result.items);
          cont = result.metadata?._continue || undefined;
          resourceVersion ??= result.metadata?.resourceVersion;
        } while (cont !== undefined);
        return { items, resourceVersion };
      } catch (error) {
        // A continue token expired between pages (410): start over once, as client-go's pager does.
        if (attempt === 0 && cont !== undefined && error instanceof KubeRequestError && error.failure.kind === 'gone') continue;
        throw error;
      }
    }
  }

  async listNodes(options: CallOptions & { readonly labelSelector?: string } = {}): Promise<V1Node[]> {
    const core = this.core;
    const result = await this.#listAll(
      { verb: 'list', resource: 'nodes' },
      (cont, limit, o) =>
        core.listNode(
          { limit, ...(cont ? { _continue: cont } : {}), ...(options.labelSelector ? { labelSelector: options.labelSelector } : {}) },
          o,
        ),
      options,
    );
    return result.items;
  }

  async readNode(name: string, options: CallOptions = {}): Promise<V1Node> {
    const core = this.core;
    return this.call({ verb: 'get', resource: 'nodes' }, (o) => core.readNode({ name }, o), options);
  }

  /** The pods bound to `node`, selected by the API server, in all namespaces (or one). */
  async listPodsOnNode(
    node: string,
    options: CallOptions & { readonly labelSelector?: string; readonly namespace?: string } = {},
  ): Promise<{ pods: V1Pod[]; resourceVersion: string | undefined }> {
    const core = this.core;
    const fieldSelector = nodeFieldSelector(node);
    const extra = { fieldSelector, ...(options.labelSelector ? { labelSelector: options.labelSelector } : {}) };
    const namespace = options.namespace;
    const result = await this.#listAll(
      { verb: 'list', resource: 'pods' },
      (cont, limit, o) => {
        const paging = { limit, ...(cont ? { _continue: cont } : {}) };
        return namespace !== undefined
          ? core.listNamespacedPod({ namespace, ...extra, ...paging }, o)
          : core.listPodForAllNamespaces({ ...extra, ...paging }, o);
      },
      options,
    );
    return { pods: result.items, resourceVersion: result.resourceVersion };
  }

  /**
   * Events about the Node (involvedObject.kind=Node, name=node), newest last as the server returns them. Node
   * events live in `default` (a Node reference has no namespace); this asks all namespaces first and falls
   * back to `default` when listing events cluster-wide is forbidden.
   */
  async listNodeEvents(node: string, options: CallOptions = {}): Promise<CoreV1Event[]> {
    const core = this.core;
    const fieldSelector = `involvedObject.kind=Node,involvedObject.name=${escapeFieldValue(node)}`;
    try {
      const all = await this.#listAll(
        { verb: 'list', resource: 'events' },
        (cont, limit, o) => core.listEventForAllNamespaces({ fieldSelector, limit, ...(cont ? { _continue: cont } : {}) }, o),
        options,
      );
      return all.items;
    } catch (error) {
      if (!(error instanceof KubeRequestError) || error.failure.kind !== 'forbidden') throw error;
      const scoped = await this.#listAll(
        { verb: 'list', resource: 'events' },
        (cont, limit, o) =>
          core.listNamespacedEvent({ namespace: 'default', fieldSelector, limit, ...(cont ? { _continue: cont } : {}) }, o),
        options,
      );
      return scoped.items;
    }
  }

  /** The pods of one namespace that match `labelSelector` (every page). */
  async listPods(
    namespace: string,
    options: CallOptions & { readonly labelSelector: string; readonly fieldSelector?: string },
  ): Promise<V1Pod[]> {
    const core = this.core;
    const result = await this.#listAll(
      { verb: 'list', resource: 'pods' },
      (cont, limit, o) =>
        core.listNamespacedPod(
          {
            namespace,
            labelSelector: options.labelSelector,
            ...(options.fieldSelector !== undefined ? { fieldSelector: options.fieldSelector } : {}),
            limit,
            ...(cont ? { _continue: cont } : {}),
          },
          o,
        ),
      options,
    );
    return result.items;
  }

  /** A RuntimeClass (node.k8s.io/v1): its handler is the CRI runtime that runs the pods naming it. */
  async readRuntimeClass(name: string, options: CallOptions = {}): Promise<V1RuntimeClass> {
    const api = this.#make(NodeV1Api);
    return this.call({ verb: 'get', resource: 'runtimeclasses' }, (o) => api.readRuntimeClass({ name }, o), options);
  }

  async readPod(namespace: string, name: string, options: CallOptions = {}): Promise<V1Pod> {
    const core = this.core;
    return this.call({ verb: 'get', resource: 'pods' }, (o) => core.readNamespacedPod({ namespace, name }, o), options);
  }

  async createPod(namespace: string, body: V1Pod, options: CallOptions = {}): Promise<V1Pod> {
    const core = this.core;
    return this.call({ verb: 'create', resource: 'pods' }, (o) => core.createNamespacedPod({ namespace, body }, o), options);
  }

  /**
   * Whether this user may `verb` the `resource` (with `subresource`) in `namespace`, as `kubectl auth can-i` asks it:
   * a SelfSubjectAccessReview. Throws KubeRequestError when the review itself cannot be made.
   */
  async canI(verb: string, resource: string, options: CallOptions & { readonly namespace?: string; readonly subresource?: string } = {}) {
    const authorization = this.#make(AuthorizationV1Api);
    const review = await this.call(
      { verb: 'create', resource: 'selfsubjectaccessreviews' },
      (o) =>
        authorization.createSelfSubjectAccessReview(
          {
            body: {
              apiVersion: 'authorization.k8s.io/v1',
              kind: 'SelfSubjectAccessReview',
              spec: {
                resourceAttributes: {
                  verb,
                  resource,
                  ...(options.subresource !== undefined ? { subresource: options.subresource } : {}),
                  ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
                },
              },
            },
          },
          o,
        ),
      options,
    );
    return { allowed: review.status?.allowed === true, reason: review.status?.reason ?? '' };
  }

  /** Creates a core/v1 Event (the agent's GlobalOOMKill, with `--events`). */
  async createEvent(namespace: string, body: CoreV1Event, options: CallOptions = {}): Promise<CoreV1Event> {
    const core = this.core;
    return this.call({ verb: 'create', resource: 'events' }, (o) => core.createNamespacedEvent({ namespace, body }, o), options);
  }

  /** Updates fields of an Event (count, lastTimestamp, message) with a JSON merge patch: no get needed. */
  async patchEvent(namespace: string, name: string, patch: object, options: CallOptions = {}): Promise<CoreV1Event> {
    const core = this.core;
    return this.call(
      { verb: 'patch', resource: 'events' },
      (o) =>
        core.patchNamespacedEvent({ namespace, name, body: patch }, setHeaderOptions('Content-Type', 'application/merge-patch+json', o)),
      options,
    );
  }

  /** Deletes a pod; a pod that is already gone is not an error (returns false). */
  async deletePod(namespace: string, name: string, options: CallOptions & { readonly gracePeriodSeconds?: number } = {}): Promise<boolean> {
    const core = this.core;
    try {
      await this.call(
        { verb: 'delete', resource: 'pods' },
        (o) =>
          core.deleteNamespacedPod(
            {
              namespace,
              name,
              propagationPolicy: 'Background',
              ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
            },
            o,
          ),
        options,
      );
      return true;
    } catch (error) {
      if (error instanceof KubeRequestError && error.failure.kind === 'not-found') return false;
      throw error;
    }
  }

  /** The pods of all namespaces that match `labelSelector` (every page). */
  async listPodsInAllNamespaces(options: CallOptions & { readonly labelSelector: string }): Promise<V1Pod[]> {
    const core = this.core;
    const result = await this.#listAll(
      { verb: 'list', resource: 'pods' },
      (cont, limit, o) =>
        core.listPodForAllNamespaces({ labelSelector: options.labelSelector, limit, ...(cont ? { _continue: cont } : {}) }, o),
      options,
    );
    return result.items;
  }

  /** Services of every namespace that match `labelSelector` (the fleet's Prometheus discovery). */
  async listServicesInAllNamespaces(options: CallOptions & { readonly labelSelector: string }): Promise<V1Service[]> {
    const core = this.core;
    const result = await this.#listAll(
      { verb: 'list', resource: 'services' },
      (cont, limit, o) =>
        core.listServiceForAllNamespaces({ labelSelector: options.labelSelector, limit, ...(cont ? { _continue: cont } : {}) }, o),
      options,
    );
    return result.items;
  }

  /**
   * One watch connection on `path` (e.g. /api/v1/pods) from `resourceVersion`. Events are deserialized to
   * `kind` (e.g. 'V1Pod'). Resolves `done` once: closed, gone (410), stopped, or failed (kubeWatch.ts).
   */
  watchOnce(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    kind: string,
    onEvent: (type: WatchEventType, object: unknown, resourceVersion: string | undefined) => void,
  ): WatchHandle {
    return watchOnce(
      { kubeConfig: this.kubeConfig, server: this.server, inactivityTimeoutMs: this.#options.watch.inactivityTimeoutMs },
      path,
      query,
      kind,
      onEvent,
    );
  }

  /**
   * Keeps the pod list of one node current: list, then watch, list again after `410 Gone`, back off after
   * failures (kubeWatch.ts). `onChange` gets the full current list. Returns stop().
   */
  watchPodsOnNode(
    node: string,
    onChange: (pods: readonly V1Pod[]) => void,
    options: { readonly onError?: (failure: KubeFailure) => void; readonly signal?: AbortSignal } = {},
  ): () => void {
    return watchPodsOnNode(this, this.#options.watch, this.#options.log, node, onChange, options);
  }
}
