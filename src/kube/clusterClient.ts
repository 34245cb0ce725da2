// One context's API client: every call has a deadline and can be cancelled, errors become KubeFailures with
// the verb and resource that were attempted, a node's pods are selected ON THE SERVER
// (fieldSelector=spec.nodeName=<node>), and a per-node watch restarts after `410 Gone` with a fresh list.
//
// How timeouts and cancellation work in @kubernetes/client-node 2.x (read from dist/, not documented):
// - The generated APIs (CoreV1Api = ObjectCoreV1Api) take a per-call `ConfigurationOptions` whose `middleware`
//   (observable style: `pre(ctx) → Observable<RequestContext>`) runs after the request is built and authenticated.
//   RequestContext has `setSignal(signal)`, and the fetch library (undici) passes it to fetch(). No API sets a
//   signal by itself, and there is no timeout option: a middleware that sets AbortSignal.any([caller, timeout])
//   is the way. With middlewareMergeStrategy 'append' the client's own User-Agent middleware stays.
// - Building the request runs the authenticators first (an exec credential plugin is spawned there), so the
//   signal cannot reach that step; the promise is therefore also raced against the signal here, and the late
//   rejection is swallowed.
// - A failed HTTP status throws ApiException {code, body}; the body is often the Status as JSON text.
// - Watch (dist/watch.js) does its own fetch with its own AbortController, resolves `watch()` only after the
//   response headers (so stop() before that must abort the controller when it arrives), has a 30 s inactivity
//   timeout (`requestTimeoutMs`, public), calls `done(err)` exactly once, and passes each line's
//   `{type, object}` undeserialized. An expired resourceVersion arrives either as HTTP 410 (`err.statusCode`)
//   or, from a real API server, as an `ERROR` event whose object is a Status with code 410.
// - Every request and every Watch builds a new undici Agent, i.e. a new TLS connection (see
//   sharedDispatcher.ts). Each ClusterClient therefore works on a private copy of its context's KubeConfig
//   whose requests and watches share one keep-alive pool; dispose() closes it (the Clusters view disposes a
//   client when it drops it). Exec (WebSocket) keeps client-node's own https.Agent.
import { pushAll } from '../core/arrays.ts';
import { CoreV1Api, Observable, VersionApi, Watch } from '@kubernetes/client-node';
import type { ConfigurationOptions, KubeConfig, CoreV1Event, ObservableMiddleware, RequestContext, ResponseContext, V1Node, V1Pod } from '@kubernetes/client-node';
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import type { AttemptedRequest, ContextState, KubeFailure } from '../core/kube/contextState.ts';
import { classifyKubeError, contextStateFromFailure, describeKubeFailure } from '../core/kube/contextState.ts';
import { privateKubeConfigCopy, SharedDispatcher } from './sharedDispatcher.ts';

export const HAMI_DEVICE_PLUGIN_SELECTOR = 'app.kubernetes.io/component=hami-device-plugin';
export const HAMI_SCHEDULER_SELECTOR = 'app.kubernetes.io/component=hami-scheduler';

export interface WatchTuning {
  /** First retry delay after a failure; doubles up to maxBackoffMs, with jitter. Default 1 s. */
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** client-node's inactivity timeout for a watch connection. Default 90 s. */
  readonly inactivityTimeoutMs?: number;
  /** Asks the server to end each watch after about this long (jittered), as client-go does. Default 300 s. */
  readonly serverTimeoutSeconds?: number;
  /** Changes arriving within this window are reported once. Default 50 ms. */
  readonly coalesceMs?: number;
}

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

/** A failed Kubernetes request: what was attempted, and why it failed, ready for the UI. */
export class KubeRequestError extends Error {
  readonly failure: KubeFailure;
  readonly attempted: AttemptedRequest;

  constructor(failure: KubeFailure, attempted: AttemptedRequest) {
    super(`${attempted.verb} ${attempted.resource}: ${describeKubeFailure(failure)}`);
    this.name = 'KubeRequestError';
    this.failure = failure;
    this.attempted = attempted;
  }

  get state(): ContextState {
    return contextStateFromFailure(this.failure);
  }
}

/** Escapes a field-selector value as apimachinery's fields.EscapeValue does. */
export function escapeFieldValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/=/g, '\\=');
}

export function nodeFieldSelector(node: string): string {
  return `spec.nodeName=${escapeFieldValue(node)}`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** One watch connection's outcome. */
export type WatchEnd =
  | { readonly kind: 'closed' } // the server ended it (timeoutSeconds) or it went idle
  | { readonly kind: 'gone' } // 410: the resourceVersion is too old; list again
  | { readonly kind: 'stopped' }
  | { readonly kind: 'failed'; readonly failure: KubeFailure };

export interface WatchHandle {
  readonly done: Promise<WatchEnd>;
  stop(): void;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

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
      throw new KubeRequestError(classifyKubeError(error), { verb: 'connect', resource: 'the API server', ...(this.server ? { server: this.server } : {}) });
    }
  }

  /**
   * Runs one API call with a deadline and the caller's cancellation (see the header). Every error becomes a
   * KubeRequestError: cancelled when the caller aborted, timeout when the deadline passed, credentials when it
   * failed before anything was sent (an exec plugin that failed), otherwise as classifyKubeError says.
   */
  async call<T>(attempted: AttemptedRequest, run: (options: ConfigurationOptions) => Promise<T>, options: CallOptions = {}): Promise<T> {
    const timeoutMs = options.timeoutMs ?? this.#options.requestTimeoutMs;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    const described = { ...attempted, ...(this.server ? { server: this.server } : {}) };
    if (options.signal?.aborted) throw new KubeRequestError({ kind: 'cancelled' }, described);
    let sent = false;
    const middleware: ObservableMiddleware = {
      pre: (context: RequestContext) => {
        sent = true;
        context.setSignal(signal);
        return new Observable(Promise.resolve(context));
      },
      post: (response: ResponseContext) => new Observable(Promise.resolve(response)),
    };
    let removeListener = (): void => undefined;
    const aborted = new Promise<never>((_, reject) => {
      const onAbort = (): void => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      removeListener = () => signal.removeEventListener('abort', onAbort);
    });
    let request: Promise<T>;
    try {
      request = run({ middleware: [middleware], middlewareMergeStrategy: 'append' });
    } catch (error) {
      removeListener();
      throw new KubeRequestError(classifyKubeError(error, described), described);
    }
    request.catch(() => undefined); // it may lose the race below and reject later
    try {
      return await Promise.race([request, aborted]);
    } catch (error) {
      throw new KubeRequestError(this.#failure(error, described, { sent, caller: options.signal, deadline, timeoutMs }), described);
    } finally {
      removeListener();
    }
  }

  #failure(error: unknown, attempted: AttemptedRequest, how: { sent: boolean; caller: AbortSignal | undefined; deadline: AbortSignal; timeoutMs: number }): KubeFailure {
    if (how.caller?.aborted) return { kind: 'cancelled' };
    if (how.deadline.aborted) return { kind: 'timeout', message: `no answer from ${this.server ?? 'the API server'} within ${how.timeoutMs} ms` };
    const failure = classifyKubeError(error, attempted);
    if (!how.sent && failure.kind === 'unknown') return { kind: 'credentials', message: failure.message.trim() || 'the credential plugin failed' };
    return failure;
  }

  /** GET /version with the probe timeout: Reachable(gitVersion), or why not. Never throws. */
  async probe(options: CallOptions = {}): Promise<ContextState> {
    try {
      if (!this.#version) this.#version = this.#make(VersionApi);
      const version = this.#version;
      const info = await this.call({ verb: 'get', resource: '/version' }, (o) => version.getCode({}, o), { timeoutMs: this.#options.probeTimeoutMs, ...options });
      return { kind: 'Reachable', version: info.gitVersion || `v${info.major}.${info.minor}` };
    } catch (error) {
      return error instanceof KubeRequestError ? error.state : contextStateFromFailure(classifyKubeError(error));
    }
  }

  /** Every page of a list, following `continue`; returns the items and the list's resourceVersion. */
  async #listAll<T>(
    attempted: AttemptedRequest,
    page: (cont: string | undefined, limit: number, options: ConfigurationOptions) => Promise<{ items: T[]; metadata?: { _continue?: string; resourceVersion?: string } }>,
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
    const result = await this.#listAll({ verb: 'list', resource: 'nodes' }, (cont, limit, o) => core.listNode({ limit, ...(cont ? { _continue: cont } : {}), ...(options.labelSelector ? { labelSelector: options.labelSelector } : {}) }, o), options);
    return result.items;
  }

  async readNode(name: string, options: CallOptions = {}): Promise<V1Node> {
    const core = this.core;
    return this.call({ verb: 'get', resource: 'nodes' }, (o) => core.readNode({ name }, o), options);
  }

  /** The pods bound to `node`, selected by the API server, in all namespaces (or one). */
  async listPodsOnNode(node: string, options: CallOptions & { readonly labelSelector?: string; readonly namespace?: string } = {}): Promise<{ pods: V1Pod[]; resourceVersion: string | undefined }> {
    const core = this.core;
    const fieldSelector = nodeFieldSelector(node);
    const extra = { fieldSelector, ...(options.labelSelector ? { labelSelector: options.labelSelector } : {}) };
    const namespace = options.namespace;
    const result = await this.#listAll(
      { verb: 'list', resource: 'pods' },
      (cont, limit, o) => {
        const paging = { limit, ...(cont ? { _continue: cont } : {}) };
        return namespace !== undefined ? core.listNamespacedPod({ namespace, ...extra, ...paging }, o) : core.listPodForAllNamespaces({ ...extra, ...paging }, o);
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
      const all = await this.#listAll({ verb: 'list', resource: 'events' }, (cont, limit, o) => core.listEventForAllNamespaces({ fieldSelector, limit, ...(cont ? { _continue: cont } : {}) }, o), options);
      return all.items;
    } catch (error) {
      if (!(error instanceof KubeRequestError) || error.failure.kind !== 'forbidden') throw error;
      const scoped = await this.#listAll({ verb: 'list', resource: 'events' }, (cont, limit, o) => core.listNamespacedEvent({ namespace: 'default', fieldSelector, limit, ...(cont ? { _continue: cont } : {}) }, o), options);
      return scoped.items;
    }
  }

  /** The pods of one namespace that match `labelSelector` (every page). */
  async listPods(namespace: string, options: CallOptions & { readonly labelSelector: string }): Promise<V1Pod[]> {
    const core = this.core;
    const result = await this.#listAll(
      { verb: 'list', resource: 'pods' },
      (cont, limit, o) => core.listNamespacedPod({ namespace, labelSelector: options.labelSelector, limit, ...(cont ? { _continue: cont } : {}) }, o),
      options,
    );
    return result.items;
  }

  async readPod(namespace: string, name: string, options: CallOptions = {}): Promise<V1Pod> {
    const core = this.core;
    return this.call({ verb: 'get', resource: 'pods' }, (o) => core.readNamespacedPod({ namespace, name }, o), options);
  }

  async createPod(namespace: string, body: V1Pod, options: CallOptions = {}): Promise<V1Pod> {
    const core = this.core;
    return this.call({ verb: 'create', resource: 'pods' }, (o) => core.createNamespacedPod({ namespace, body }, o), options);
  }

  /** Deletes a pod; a pod that is already gone is not an error (returns false). */
  async deletePod(namespace: string, name: string, options: CallOptions & { readonly gracePeriodSeconds?: number } = {}): Promise<boolean> {
    const core = this.core;
    try {
      await this.call(
        { verb: 'delete', resource: 'pods' },
        (o) => core.deleteNamespacedPod({ namespace, name, propagationPolicy: 'Background', ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}) }, o),
        options,
      );
      return true;
    } catch (error) {
      if (error instanceof KubeRequestError && error.failure.kind === 'not-found') return false;
      throw error;
    }
  }

  /** The HAMi device-plugin pod on `node` (label app.kubernetes.io/component=hami-device-plugin), Running first. */
  async findHamiDevicePluginPod(node: string, options: CallOptions = {}): Promise<V1Pod | undefined> {
    const { pods } = await this.listPodsOnNode(node, { ...options, labelSelector: HAMI_DEVICE_PLUGIN_SELECTOR });
    return pods.find((pod) => pod.status?.phase === 'Running') ?? pods[0];
  }

  /** The HAMi scheduler pods (label app.kubernetes.io/component=hami-scheduler) in any namespace; [] when HAMi is not installed. */
  async findHamiScheduler(options: CallOptions = {}): Promise<V1Pod[]> {
    const core = this.core;
    const result = await this.#listAll({ verb: 'list', resource: 'pods' }, (cont, limit, o) => core.listPodForAllNamespaces({ labelSelector: HAMI_SCHEDULER_SELECTOR, limit, ...(cont ? { _continue: cont } : {}) }, o), options);
    return result.items;
  }

  /**
   * One watch connection on `path` (e.g. /api/v1/pods) from `resourceVersion`. Events are deserialized to
   * `kind` (e.g. 'V1Pod'). Resolves `done` once: closed, gone (410), stopped, or failed.
   */
  watchOnce(path: string, query: Record<string, string | number | boolean | undefined>, kind: string, onEvent: (type: WatchEventType, object: unknown, resourceVersion: string | undefined) => void): WatchHandle {
    const watch = new Watch(this.kubeConfig);
    // Declared private in the typings, but a plain property in dist/watch.js (default 30 s).
    (watch as unknown as { requestTimeoutMs: number }).requestTimeoutMs = this.#options.watch.inactivityTimeoutMs;
    let controller: AbortController | undefined;
    let stopped = false;
    let gone = false;
    let settle: (end: WatchEnd) => void = () => undefined;
    const done = new Promise<WatchEnd>((resolve) => {
      let settled = false;
      settle = (end) => {
        if (settled) return;
        settled = true;
        resolve(end);
      };
    });
    const attempted: AttemptedRequest = { verb: 'watch', resource: path.replace(/^\/api\/v1\/(namespaces\/[^/]+\/)?/, ''), ...(this.server ? { server: this.server } : {}) };
    const onDone = (error: unknown): void => {
      if (stopped) return settle({ kind: 'stopped' });
      if (gone) return settle({ kind: 'gone' });
      if (error === null || error === undefined) return settle({ kind: 'closed' });
      const failure = classifyKubeError(error, attempted);
      if (failure.kind === 'gone') return settle({ kind: 'gone' });
      // client-node's inactivity timeout: the connection went quiet; a new watch from the last version is fine.
      if (failure.kind === 'timeout') return settle({ kind: 'closed' });
      settle({ kind: 'failed', failure });
    };
    const onLine = (type: string, object: unknown): void => {
      if (stopped || gone) return;
      if (type === 'ERROR') {
        const status = object as { code?: number; reason?: string; message?: string } | undefined;
        if (status?.code === 410 || status?.reason === 'Expired' || status?.reason === 'Gone') {
          gone = true;
        } else {
          settle({ kind: 'failed', failure: classifyKubeError({ code: status?.code ?? 500, body: status }, attempted) });
        }
        controller?.abort();
        return;
      }
      if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED' && type !== 'BOOKMARK') return;
      const rv = (object as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion;
      let typed: unknown = object;
      try {
        if (type !== 'BOOKMARK') typed = ObjectSerializer.deserialize(object, kind, '');
      } catch {
        // keep the plain object
      }
      onEvent(type, typed, rv);
    };
    watch.watch(path, query, onLine, onDone).then(
      (c) => {
        controller = c;
        if (stopped || gone) c.abort();
      },
      (error: unknown) => onDone(error),
    );
    return {
      done,
      stop: () => {
        if (stopped) return;
        stopped = true;
        controller?.abort();
        settle({ kind: 'stopped' });
      },
    };
  }

  /**
   * Keeps the GPU-view's pod list of one node current: list (server-side field selector), then watch from the
   * list's resourceVersion; after `410 Gone` list again; after a failure retry with exponential backoff and
   * jitter (1 s → 30 s), so an unreachable cluster costs one request per backoff step, never a storm. Changes
   * are coalesced. `onChange` gets the full current list. Returns stop().
   */
  watchPodsOnNode(node: string, onChange: (pods: readonly V1Pod[]) => void, options: { readonly onError?: (failure: KubeFailure) => void; readonly signal?: AbortSignal } = {}): () => void {
    const tuning = this.#options.watch;
    const life = new AbortController();
    const pods = new Map<string, V1Pod>();
    let resourceVersion: string | undefined;
    let current: WatchHandle | undefined;
    let emitTimer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    const key = (pod: V1Pod): string => `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    const emit = (): void => {
      if (emitTimer !== undefined || life.signal.aborted) return;
      emitTimer = setTimeout(() => {
        emitTimer = undefined;
        if (!life.signal.aborted) onChange([...pods.values()]);
      }, tuning.coalesceMs);
    };
    const backoff = async (): Promise<void> => {
      const base = Math.min(tuning.maxBackoffMs, tuning.minBackoffMs * 2 ** Math.min(failures, 16));
      failures++;
      await sleep(base * (0.5 + Math.random() * 0.5), life.signal);
    };
    const report = (failure: KubeFailure): void => {
      this.#options.log(`[${this.context}] pods on ${node}: ${describeKubeFailure(failure)}`);
      options.onError?.(failure);
    };
    const loop = async (): Promise<void> => {
      let needList = true;
      while (!life.signal.aborted) {
        if (needList) {
          try {
            const listed = await this.listPodsOnNode(node, { signal: life.signal });
            pods.clear();
            for (const pod of listed.pods) pods.set(key(pod), pod);
            resourceVersion = listed.resourceVersion;
            needList = false;
            emit();
          } catch (error) {
            if (life.signal.aborted) return;
            report(error instanceof KubeRequestError ? error.failure : classifyKubeError(error));
            await backoff();
            continue;
          }
        }
        const started = Date.now();
        const timeoutSeconds = Math.round(tuning.serverTimeoutSeconds * (1 + Math.random()));
        current = this.watchOnce('/api/v1/pods', { fieldSelector: nodeFieldSelector(node), resourceVersion, allowWatchBookmarks: true, timeoutSeconds }, 'V1Pod', (type, object, rv) => {
          if (rv) resourceVersion = rv;
          failures = 0;
          if (type === 'BOOKMARK') return;
          const pod = object as V1Pod;
          if (type === 'DELETED') pods.delete(key(pod));
          else pods.set(key(pod), pod);
          emit();
        });
        const end = await current.done;
        current = undefined;
        if (life.signal.aborted || end.kind === 'stopped') return;
        if (end.kind === 'gone') {
          this.#options.log(`[${this.context}] pods on ${node}: resourceVersion ${resourceVersion ?? '?'} expired (410); listing again`);
          needList = true;
          // Two 410s in a row without progress: back off rather than hammer the list.
          if (Date.now() - started < 1_000) await backoff();
          continue;
        }
        if (end.kind === 'failed') {
          report(end.failure);
          if (end.failure.kind === 'forbidden' || end.failure.kind === 'unauthorized') needList = true;
          await backoff();
          continue;
        }
        // closed by the server or idle: reconnect from the last version; a connection that ends at once
        // (a proxy that drops watches) is treated like a failure so it cannot spin.
        if (Date.now() - started < 1_000) await backoff();
      }
    };
    const stop = (): void => {
      if (life.signal.aborted) return;
      life.abort();
      current?.stop();
      if (emitTimer !== undefined) clearTimeout(emitTimer);
      options.signal?.removeEventListener('abort', stop);
    };
    if (options.signal?.aborted) return () => undefined;
    options.signal?.addEventListener('abort', stop, { once: true });
    void loop();
    return stop;
  }
}
