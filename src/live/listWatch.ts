// One resource of one namespace kept current for the editor's live cache: list (paged, through the cluster client's
// deadline and credentials), then watch from the list's resourceVersion; after `410 Gone` list again; after a failure
// retry with exponential backoff and jitter, so an unreachable cluster costs one request per backoff step. Objects
// are trimmed as they arrive (src/core/live/trimObject.ts) and their number is capped, so memory stays bounded.
// Read-only: list and watch, nothing else.
import { AppsV1Api, BatchV1Api } from '@kubernetes/client-node';
import type { ConfigurationOptions } from '@kubernetes/client-node';
import type { KubeFailure } from '../core/kube/kubeFailure.ts';
import { classifyKubeError } from '../core/kube/kubeFailure.ts';
import { trimPod, trimWorkload } from '../core/live/trimObject.ts';
import type { ClusterClient } from '../kube/clusterClient.ts';
import { KubeRequestError } from '../kube/kubeRequestError.ts';
import { abortableSleep } from '../kube/abortableSleep.ts';
import { listCustomPage } from '../kube/customWorkloads.ts';
import type { CustomWorkload } from '../kube/customWorkloads.ts';

interface Page {
  readonly items: unknown[];
  readonly metadata?: { readonly _continue?: string; readonly resourceVersion?: string };
}

export interface WatchedKind {
  /** The plural resource name: the RBAC resource and the URL segment. */
  readonly resource: string;
  readonly kind: string;
  readonly apiVersion: string;
  list(client: ClusterClient, namespace: string, cont: string | undefined, options: ConfigurationOptions): Promise<Page>;
}

const PAGE = 500;

/** The kinds the live checks match pods through: the workloads, the ReplicaSets and Jobs between, the pods. */
export function watchedKinds(client: ClusterClient): readonly WatchedKind[] {
  const apps = client.kubeConfig.makeApiClient(AppsV1Api);
  const batch = client.kubeConfig.makeApiClient(BatchV1Api);
  const paging = (namespace: string, cont: string | undefined) => ({ namespace, limit: PAGE, ...(cont ? { _continue: cont } : {}) });
  return [
    {
      resource: 'deployments',
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      list: (_, ns, c, o) => apps.listNamespacedDeployment(paging(ns, c), o),
    },
    {
      resource: 'replicasets',
      kind: 'ReplicaSet',
      apiVersion: 'apps/v1',
      list: (_, ns, c, o) => apps.listNamespacedReplicaSet(paging(ns, c), o),
    },
    {
      resource: 'statefulsets',
      kind: 'StatefulSet',
      apiVersion: 'apps/v1',
      list: (_, ns, c, o) => apps.listNamespacedStatefulSet(paging(ns, c), o),
    },
    {
      resource: 'daemonsets',
      kind: 'DaemonSet',
      apiVersion: 'apps/v1',
      list: (_, ns, c, o) => apps.listNamespacedDaemonSet(paging(ns, c), o),
    },
    { resource: 'jobs', kind: 'Job', apiVersion: 'batch/v1', list: (_, ns, c, o) => batch.listNamespacedJob(paging(ns, c), o) },
    { resource: 'cronjobs', kind: 'CronJob', apiVersion: 'batch/v1', list: (_, ns, c, o) => batch.listNamespacedCronJob(paging(ns, c), o) },
    { resource: 'pods', kind: 'Pod', apiVersion: 'v1', list: (cl, ns, c, o) => cl.core.listNamespacedPod(paging(ns, c), o) },
  ];
}

/** A custom workload the API serves (customWorkloads.ts: RayCluster, LeaderWorkerSet…), listed as plain JSON. */
export function customWatchedKind(custom: CustomWorkload): WatchedKind {
  return {
    resource: custom.resource,
    kind: custom.kind,
    apiVersion: `${custom.group}/${custom.version}`,
    list: (client, namespace, cont, options) => listCustomPage(client, custom, namespace, cont, options, PAGE),
  };
}

function watchPath(kind: WatchedKind, namespace: string): string {
  const base = kind.apiVersion === 'v1' ? '/api/v1' : `/apis/${kind.apiVersion}`;
  return `${base}/namespaces/${encodeURIComponent(namespace)}/${kind.resource}`;
}

export type ListWatchState =
  | { readonly kind: 'listing' }
  | { readonly kind: 'synced' }
  | { readonly kind: 'failed'; readonly failure: KubeFailure; readonly synced: boolean };

export interface ListWatchOptions {
  readonly onChange: () => void;
  /** At most this many objects are kept; the others are counted in `dropped`. */
  readonly maxObjects: number;
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
  readonly serverTimeoutSeconds?: number;
}

export class ListWatch {
  readonly namespace: string;
  readonly watched: WatchedKind;
  readonly #client: ClusterClient;
  readonly #options: ListWatchOptions;
  readonly #life = new AbortController();
  readonly #objects = new Map<string, unknown>();
  #state: ListWatchState = { kind: 'listing' };
  #dropped = 0;
  #stopWatch: (() => void) | undefined;

  constructor(client: ClusterClient, watched: WatchedKind, namespace: string, options: ListWatchOptions) {
    this.#client = client;
    this.watched = watched;
    this.namespace = namespace;
    this.#options = options;
    void this.#loop();
  }

  get state(): ListWatchState {
    return this.#state;
  }

  /** Objects the cap kept out at the last list or since. */
  get dropped(): number {
    return this.#dropped;
  }

  objects(): IterableIterator<unknown> {
    return this.#objects.values();
  }

  get size(): number {
    return this.#objects.size;
  }

  stop(): void {
    this.#life.abort();
    this.#stopWatch?.();
  }

  #trim(object: unknown): unknown {
    return this.watched.kind === 'Pod' ? trimPod(object) : trimWorkload(object, this.watched.kind, this.watched.apiVersion);
  }

  #put(object: unknown): void {
    const trimmed = this.#trim(object);
    const uid = (trimmed as { metadata: { uid?: string; name?: string } }).metadata;
    const key = uid.uid ?? uid.name ?? '';
    if (!this.#objects.has(key) && this.#objects.size >= this.#options.maxObjects) {
      this.#dropped++;
      return;
    }
    this.#objects.set(key, trimmed);
  }

  #delete(object: unknown): void {
    const meta = (object as { metadata?: { uid?: string; name?: string } } | undefined)?.metadata;
    this.#objects.delete(meta?.uid ?? meta?.name ?? '');
  }

  async #list(): Promise<string | undefined> {
    const fresh = new Map<string, unknown>();
    let dropped = 0;
    let cont: string | undefined;
    let resourceVersion: string | undefined;
    do {
      const page: Page = await this.#client.call(
        { verb: 'list', resource: this.watched.resource },
        (o) => this.watched.list(this.#client, this.namespace, cont, o),
        { signal: this.#life.signal },
      );
      for (const item of page.items) {
        const trimmed = this.#trim(item);
        const meta = (trimmed as { metadata: { uid?: string; name?: string } }).metadata;
        if (fresh.size >= this.#options.maxObjects) dropped++;
        else fresh.set(meta.uid ?? meta.name ?? '', trimmed);
      }
      cont = page.metadata?._continue || undefined;
      resourceVersion = page.metadata?.resourceVersion;
    } while (cont !== undefined && !this.#life.signal.aborted);
    this.#objects.clear();
    for (const [key, value] of fresh) this.#objects.set(key, value);
    this.#dropped = dropped;
    return resourceVersion;
  }

  async #loop(): Promise<void> {
    const signal = this.#life.signal;
    const minMs = this.#options.minBackoffMs ?? 1_000;
    const maxMs = this.#options.maxBackoffMs ?? 30_000;
    let failures = 0;
    let needList = true;
    let resourceVersion: string | undefined;
    let synced = false;
    const backoff = (): Promise<void> => {
      const base = Math.min(maxMs, minMs * 2 ** Math.min(failures, 16));
      failures++;
      return abortableSleep(base * (0.5 + Math.random() * 0.5), signal);
    };
    const fail = (failure: KubeFailure): void => {
      this.#state = { kind: 'failed', failure, synced };
      this.#options.onChange();
    };
    while (!signal.aborted) {
      if (needList) {
        try {
          resourceVersion = await this.#list();
          needList = false;
          synced = true;
          this.#state = { kind: 'synced' };
          this.#options.onChange();
        } catch (error) {
          if (signal.aborted) return;
          fail(error instanceof KubeRequestError ? error.failure : classifyKubeError(error));
          await backoff();
          continue;
        }
      }
      const started = Date.now();
      const timeoutSeconds = Math.round((this.#options.serverTimeoutSeconds ?? 300) * (1 + Math.random()));
      const handle = this.#client.watchOnce(
        watchPath(this.watched, this.namespace),
        { resourceVersion, allowWatchBookmarks: true, timeoutSeconds },
        'any',
        (type, object, rv) => {
          if (rv) resourceVersion = rv;
          failures = 0;
          if (type === 'BOOKMARK') return;
          if (type === 'DELETED') this.#delete(object);
          else this.#put(object);
          if (this.#state.kind !== 'synced') this.#state = { kind: 'synced' };
          this.#options.onChange();
        },
      );
      this.#stopWatch = () => handle.stop();
      const end = await handle.done;
      this.#stopWatch = undefined;
      if (signal.aborted || end.kind === 'stopped') return;
      if (end.kind === 'gone') needList = true;
      else if (end.kind === 'failed') {
        fail(end.failure);
        if (end.failure.kind === 'forbidden' || end.failure.kind === 'unauthorized') needList = true;
        await backoff();
        continue;
      }
      // A connection that ends at once (a proxy that drops watches) is treated like a failure so it cannot spin.
      if (Date.now() - started < 1_000) await backoff();
    }
  }
}
