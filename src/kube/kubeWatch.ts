// The watch engine of a ClusterClient: one watch connection (watchOnce) and the self-healing pod list of
// one node (watchPodsOnNode).
//
// How Watch behaves in @kubernetes/client-node 2.x (read from dist/watch.js, not documented): it does its
// own fetch with its own AbortController, resolves `watch()` only after the response headers (so stop()
// before that must abort the controller when it arrives), has a 30 s inactivity timeout
// (`requestTimeoutMs`, public), calls `done(err)` exactly once, and passes each line's `{type, object}`
// undeserialized. An expired resourceVersion arrives either as HTTP 410 (`err.statusCode`) or, from a real
// API server, as an `ERROR` event whose object is a Status with code 410.
import { Watch } from '@kubernetes/client-node';
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import type { AttemptedRequest, KubeFailure } from '../core/kube/kubeFailure.ts';
import { classifyKubeError, describeKubeFailure } from '../core/kube/kubeFailure.ts';
import { KubeRequestError, nodeFieldSelector } from './kubeRequestError.ts';
import { abortableSleep } from './abortableSleep.ts';

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

/** Where a watch connects: the client's (private) KubeConfig, its server for messages, its inactivity timeout. */
export interface WatchTarget {
  readonly kubeConfig: KubeConfig;
  readonly server: string | undefined;
  readonly inactivityTimeoutMs: number;
}

/** What watchPodsOnNode needs from its client. */
export interface PodWatchSource {
  readonly context: string;
  listPodsOnNode(node: string, options: { readonly signal?: AbortSignal }): Promise<{ pods: V1Pod[]; resourceVersion: string | undefined }>;
  watchOnce(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    kind: string,
    onEvent: (type: WatchEventType, object: unknown, resourceVersion: string | undefined) => void,
  ): WatchHandle;
}

/**
 * One watch connection on `path` (e.g. /api/v1/pods) from `resourceVersion`. Events are deserialized to
 * `kind` (e.g. 'V1Pod'). Resolves `done` once: closed, gone (410), stopped, or failed.
 */
export function watchOnce(
  target: WatchTarget,
  path: string,
  query: Record<string, string | number | boolean | undefined>,
  kind: string,
  onEvent: (type: WatchEventType, object: unknown, resourceVersion: string | undefined) => void,
): WatchHandle {
  const watch = new Watch(target.kubeConfig);
  // Declared private in the typings, but a plain property in dist/watch.js (default 30 s).
  (watch as unknown as { requestTimeoutMs: number }).requestTimeoutMs = target.inactivityTimeoutMs;
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
  const attempted: AttemptedRequest = {
    verb: 'watch',
    resource: path.replace(/^\/api\/v1\/(namespaces\/[^/]+\/)?/, ''),
    ...(target.server ? { server: target.server } : {}),
  };
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
export function watchPodsOnNode(
  client: PodWatchSource,
  tuning: Required<WatchTuning>,
  log: (line: string) => void,
  node: string,
  onChange: (pods: readonly V1Pod[]) => void,
  options: { readonly onError?: (failure: KubeFailure) => void; readonly signal?: AbortSignal } = {},
): () => void {
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
    await abortableSleep(base * (0.5 + Math.random() * 0.5), life.signal);
  };
  const report = (failure: KubeFailure): void => {
    log(`[${client.context}] pods on ${node}: ${describeKubeFailure(failure)}`);
    options.onError?.(failure);
  };
  const loop = async (): Promise<void> => {
    let needList = true;
    while (!life.signal.aborted) {
      if (needList) {
        try {
          const listed = await client.listPodsOnNode(node, { signal: life.signal });
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
      current = client.watchOnce(
        '/api/v1/pods',
        { fieldSelector: nodeFieldSelector(node), resourceVersion, allowWatchBookmarks: true, timeoutSeconds },
        'V1Pod',
        (type, object, rv) => {
          if (rv) resourceVersion = rv;
          failures = 0;
          if (type === 'BOOKMARK') return;
          const pod = object as V1Pod;
          if (type === 'DELETED') pods.delete(key(pod));
          else pods.set(key(pod), pod);
          emit();
        },
      );
      const end = await current.done;
      current = undefined;
      if (life.signal.aborted || end.kind === 'stopped') return;
      if (end.kind === 'gone') {
        log(`[${client.context}] pods on ${node}: resourceVersion ${resourceVersion ?? '?'} expired (410); listing again`);
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
