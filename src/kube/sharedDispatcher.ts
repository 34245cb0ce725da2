// One keep-alive connection pool per context. @kubernetes/client-node 2.0.1 opens a new TLS connection for
// every API request: KubeConfig.applySecurityAuthentication(), which every generated API call and every Watch
// runs, ends with `this.createDispatcher(cluster, agentOptions)`, and that builds a new undici Agent each time
// (the Agent's keep-alive pool is then used once and dropped). Its own `agentCache` only covers the
// https.Agent of WebSockets (exec). So a tree that lists 20 nodes' pods made 20 TLS handshakes.
//
// The supported inputs are reused and only the construction is cached: `createDispatcher` is replaced ON A
// PRIVATE COPY of the context's KubeConfig by a function that asks client-node's public
// `createDispatcherOptions(cluster, agentOptions)` (the CA, client certificate and key, insecure-skip-tls-verify,
// tls-server-name and proxy-url it would use) and returns the dispatcher already built for identical options,
// or builds one with client-node's own `createDispatcher` (so proxies, SOCKS and TLS are exactly client-node's)
// when the options changed (a rotated client certificate from an exec plugin or a file); the previous one is
// then closed gracefully (requests in flight, watches included, finish first).
//
// `createDispatcher` is private in client-node's typings (a plain method in dist/config.js). If a later
// version renames it, the constructor logs that and changes nothing: every request then connects anew, as
// before (test/integration/clusterConnections.test.ts would fail, and its control test shows whether
// client-node pools connections by itself by then).
//
// dispose() (ClusterClient.dispose(), when the Clusters view drops a client on refresh, on a kubeconfig change
// and on deactivation) switches the copy back to one dispatcher per request, then closes the shared one
// after a short grace period, so a request whose authentication already picked it still goes out; close()
// lets requests in flight finish and then closes every socket of the pool.
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import type { AgentOptions } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import type { Cluster, RequestContext } from '@kubernetes/client-node';

type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;
type CreateDispatcher = (cluster: Cluster | null, agentOptions: AgentOptions) => Dispatcher | undefined;

/** Grace period between dispose() and closing the pool (see the header). */
export const DISPOSE_GRACE_MS = 1_000;

export type SharedDispatcherState =
  | { readonly kind: 'unsupported' } // this client-node has no createDispatcher to wrap: nothing shared
  | { readonly kind: 'idle' } // nothing requested yet
  | { readonly kind: 'shared'; readonly key: string; readonly dispatcher: Dispatcher | undefined }
  | { readonly kind: 'disposed' };

/** A copy of `source` with the same clusters, users and contexts, and the same current context. */
export function privateKubeConfigCopy(source: KubeConfig): KubeConfig {
  const copy = new KubeConfig();
  copy.loadFromOptions({
    clusters: source.getClusters(),
    users: source.getUsers(),
    contexts: source.getContexts(),
    currentContext: source.getCurrentContext(),
  });
  return copy;
}

/** Feeds a value into the hash: strings, numbers, booleans, Buffers and arrays or objects of them (keys sorted). */
function feed(hash: Hash, value: unknown): void {
  if (value === undefined || value === null) hash.update('\u0000u');
  else if (typeof value === 'string') hash.update(`\u0000s${value.length}:`).update(value);
  else if (typeof value === 'number' || typeof value === 'boolean') hash.update(`\u0000${typeof value}${String(value)}`);
  else if (value instanceof Uint8Array) hash.update(`\u0000b${value.length}:`).update(value);
  else if (Array.isArray(value)) {
    hash.update(`\u0000a${value.length}`);
    for (const item of value) feed(hash, item);
  } else if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    hash.update(`\u0000o${entries.length}`);
    for (const [k, v] of entries) {
      feed(hash, k);
      feed(hash, v);
    }
  } else hash.update(`\u0000?${typeof value}`);
}

/** A digest of what a dispatcher is built from (it holds key material: never logged, only compared). */
export function dispatcherKey(options: unknown): string {
  const hash = createHash('sha256');
  feed(hash, options);
  return hash.digest('hex');
}

export class SharedDispatcher {
  readonly #kubeConfig: KubeConfig;
  readonly #log: (line: string) => void;
  #state: SharedDispatcherState = { kind: 'idle' };
  #built = 0;

  /** Installs the shared dispatcher on `kubeConfig`, which must be this client's own (privateKubeConfigCopy). */
  constructor(kubeConfig: KubeConfig, log: (line: string) => void = () => undefined) {
    this.#kubeConfig = kubeConfig;
    this.#log = log;
    const target = kubeConfig as unknown as { createDispatcher?: unknown };
    if (typeof target.createDispatcher !== 'function' || typeof kubeConfig.createDispatcherOptions !== 'function') {
      this.#state = { kind: 'unsupported' };
      log('this @kubernetes/client-node has no KubeConfig.createDispatcher: every request opens its own connection');
      return;
    }
    const original = (target.createDispatcher as CreateDispatcher).bind(kubeConfig);
    target.createDispatcher = ((cluster, agentOptions) => this.#dispatcher(original, cluster, agentOptions)) satisfies CreateDispatcher;
  }

  get state(): SharedDispatcherState {
    return this.#state;
  }

  /** How many dispatchers (connection pools) were built so far: 1 unless the TLS material changed. */
  get built(): number {
    return this.#built;
  }

  #dispatcher(original: CreateDispatcher, cluster: Cluster | null, agentOptions: AgentOptions): Dispatcher | undefined {
    const state = this.#state;
    if (state.kind === 'disposed' || state.kind === 'unsupported') return original(cluster, agentOptions);
    // Throws for what client-node refuses (http:// without insecure-skip-tls-verify), as original() would.
    const key = dispatcherKey(this.#kubeConfig.createDispatcherOptions(cluster, agentOptions));
    if (state.kind === 'shared' && state.key === key) return state.dispatcher;
    const dispatcher = original(cluster, agentOptions);
    this.#built++;
    if (state.kind === 'shared') {
      this.#log('the TLS settings of the context changed (a new client certificate?): new connection pool');
      close(state.dispatcher);
    }
    this.#state = { kind: 'shared', key, dispatcher };
    return dispatcher;
  }

  /**
   * From now on every request gets its own dispatcher again; the shared one is closed after `graceMs` (see
   * the header). Resolves once it is closed. Idempotent.
   */
  async dispose(graceMs = DISPOSE_GRACE_MS): Promise<void> {
    const state = this.#state;
    if (state.kind === 'disposed' || state.kind === 'unsupported') return;
    this.#state = { kind: 'disposed' };
    if (state.kind !== 'shared' || state.dispatcher === undefined) return;
    const dispatcher = state.dispatcher;
    // Unreferenced: the grace period alone must not keep a process alive (so 0 waits for nothing).
    if (graceMs > 0) await new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
    await close(dispatcher);
  }
}

/** Closes a pool gracefully (in-flight requests finish); errors (already closed) are ignored. */
function close(dispatcher: Dispatcher | undefined): Promise<void> {
  if (!dispatcher) return Promise.resolve();
  return dispatcher.close().then(
    () => undefined,
    () => undefined,
  );
}
