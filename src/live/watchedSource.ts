// The editor's live source: the workloads and pods of the namespaces the open manifests name, kept current by
// list+watch (listWatch.ts), and the figures (Prometheus, the agents' HAMi states) read on an interval, never per
// keystroke. A change the watches bring rebuilds the snapshot from the figures already read (no request). The
// snapshot turns stale when its figures are older than the stale window; a cluster nothing can be listed from turns
// the source to failed with a sentence. Read-only. Memory is bounded: objects are trimmed, each list is capped, and
// at most MAX_NAMESPACES namespaces are watched. Custom workloads (RayClusters, LeaderWorkerSets…) are watched too
// when discovery, asked once per source, says the API serves them; an operator not installed costs one 404 per API
// group and nothing after.
import type { LiveSnapshot } from '../core/live/liveSnapshot.ts';
import { DEFAULT_STALE_AFTER_MS } from '../core/live/liveFindings.ts';
import { describeKubeFailure } from '../core/kube/kubeFailure.ts';
import { contextNamespace } from '../rightsizing/gather.ts';
import { servedCustomWorkloads } from '../kube/customWorkloads.ts';
import { customWatchedKind, ListWatch, watchedKinds } from './listWatch.ts';
import type { WatchedKind } from './listWatch.ts';
import type { LiveSource, LiveSourceOptions } from './liveSource.ts';
import { DEFAULT_READ_TIMEOUT_MS, failureSentence, LiveStateHolder, readSignal } from './liveSource.ts';
import { buildLiveSnapshot, readLiveFigures } from './readLive.ts';
import type { LiveFigures } from './readLive.ts';

export const MAX_NAMESPACES = 20;
export const DEFAULT_MAX_OBJECTS_PER_LIST = 5_000;
export const DEFAULT_FIGURES_INTERVAL_MS = 5 * 60 * 1000;

export interface WatchedSourceOptions extends LiveSourceOptions {
  /** How often the figures are read again. Default 5 min. */
  readonly figuresIntervalMs?: number;
  /** Watch events arriving within this window rebuild the snapshot once. Default 1 s. */
  readonly rebuildDelayMs?: number;
  readonly maxObjectsPerList?: number;
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
}

export class WatchedSource extends LiveStateHolder implements LiveSource {
  readonly context: string;
  readonly #options: WatchedSourceOptions;
  readonly #life = new AbortController();
  readonly #caches = new Map<string, ListWatch[]>();
  #namespaces: string[] = [];
  #figures: { readonly figures: LiveFigures; readonly atMs: number } | undefined;
  #figuresTimer: ReturnType<typeof setInterval> | undefined;
  #rebuildTimer: ReturnType<typeof setTimeout> | undefined;
  #staleTimer: ReturnType<typeof setTimeout> | undefined;
  #reading: Promise<void> | undefined;
  #figuresFailure: string | undefined;
  /** The custom workloads the API serves, once discovery answered (asked once, at the first namespaces). */
  #customKinds: readonly WatchedKind[] = [];
  #discovery: Promise<void> | undefined;
  #discoveryNotes: readonly string[] = [];

  constructor(options: WatchedSourceOptions) {
    super();
    this.#options = options;
    this.context = options.client.context;
  }

  get #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  /** The namespaces watched: those named, the context's own first, at most MAX_NAMESPACES. */
  get namespaces(): readonly string[] {
    return this.#namespaces;
  }

  /** Objects held over every list, for the memory budget's bench. */
  get objectCount(): number {
    let count = 0;
    for (const lists of this.#caches.values()) for (const list of lists) count += list.size;
    return count;
  }

  setNamespaces(namespaces: readonly string[]): void {
    if (this.#life.signal.aborted) return;
    const wanted = [...new Set([contextNamespace(this.#options.client), ...namespaces])].slice(0, MAX_NAMESPACES);
    const changed = wanted.length !== this.#namespaces.length || wanted.some((ns, i) => ns !== this.#namespaces[i]);
    if (!changed) return;
    this.#namespaces = wanted;
    for (const [namespace, lists] of this.#caches)
      if (!wanted.includes(namespace)) {
        for (const list of lists) list.stop();
        this.#caches.delete(namespace);
      }
    for (const namespace of wanted)
      if (!this.#caches.has(namespace))
        this.#caches.set(
          namespace,
          [...watchedKinds(this.#options.client), ...this.#customKinds].map((kind) => this.#listWatch(kind, namespace)),
        );
    this.#discovery ??= this.#discoverCustomKinds();
    if (this.state().kind === 'idle') this.set({ kind: 'reading', previous: undefined });
    // New namespaces need their figures: read them now rather than at the next interval.
    void this.refresh();
    if (this.#figuresTimer === undefined) {
      this.#figuresTimer = setInterval(() => void this.refresh(), this.#options.figuresIntervalMs ?? DEFAULT_FIGURES_INTERVAL_MS);
      this.#figuresTimer.unref?.();
    }
  }

  #listWatch(kind: WatchedKind, namespace: string): ListWatch {
    return new ListWatch(this.#options.client, kind, namespace, {
      onChange: () => this.#scheduleRebuild(),
      maxObjects: this.#options.maxObjectsPerList ?? DEFAULT_MAX_OBJECTS_PER_LIST,
      ...(this.#options.minBackoffMs !== undefined ? { minBackoffMs: this.#options.minBackoffMs } : {}),
      ...(this.#options.maxBackoffMs !== undefined ? { maxBackoffMs: this.#options.maxBackoffMs } : {}),
    });
  }

  /** Asks once which custom workloads the API serves, then watches them in every namespace watched. */
  async #discoverCustomKinds(): Promise<void> {
    const signal = this.#life.signal;
    try {
      const found = await servedCustomWorkloads(this.#options.client, signal);
      if (signal.aborted) return;
      this.#discoveryNotes = found.notes;
      this.#customKinds = found.served.map(customWatchedKind);
    } catch {
      return; // cancelled: the source is being disposed
    }
    for (const [namespace, lists] of this.#caches) for (const kind of this.#customKinds) lists.push(this.#listWatch(kind, namespace));
    this.#scheduleRebuild();
  }

  /** Reads the figures again and rebuilds the snapshot; one read at a time (a second call waits for the first). */
  refresh(signal?: AbortSignal): Promise<void> {
    if (this.#life.signal.aborted || this.#namespaces.length === 0) return Promise.resolve();
    if (this.#reading) return this.#reading;
    const asked = this.#namespaces.join(',');
    const reading = this.#readFigures(signal).finally(() => {
      this.#reading = undefined;
      // Namespaces added while this read ran have no figures yet: read again rather than wait for the interval.
      if (this.#namespaces.join(',') !== asked) void this.refresh();
    });
    this.#reading = reading;
    return reading;
  }

  async #readFigures(signal: AbortSignal | undefined): Promise<void> {
    const timeoutMs = this.#options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
    const scoped = readSignal(signal, this.#life.signal, timeoutMs);
    const nowMs = this.#now;
    try {
      const figures = await readLiveFigures(this.#options.client, {
        namespaces: this.#namespaces,
        window: this.#options.window,
        headroomPercent: this.#options.headroomPercent,
        figuresFrom: this.#options.figuresFrom,
        signal: scoped.signal,
        nowMs,
      });
      this.#figures = { figures, atMs: nowMs };
      this.#figuresFailure = undefined;
    } catch (error) {
      if (this.#life.signal.aborted) return;
      this.#figuresFailure = failureSentence(this.context, error, scoped.timedOut(), timeoutMs, signal);
    } finally {
      scoped.done();
    }
    this.#rebuild();
  }

  #scheduleRebuild(): void {
    if (this.#rebuildTimer !== undefined || this.#life.signal.aborted) return;
    this.#rebuildTimer = setTimeout(() => {
      this.#rebuildTimer = undefined;
      this.#rebuild();
    }, this.#options.rebuildDelayMs ?? 1_000);
    this.#rebuildTimer.unref?.();
  }

  #rebuild(): void {
    if (this.#life.signal.aborted) return;
    const lists = [...this.#caches.values()].flat();
    const failed = lists.filter((list) => list.state.kind === 'failed');
    const synced = lists.filter((list) => list.state.kind === 'synced' || (list.state.kind === 'failed' && list.state.synced));
    if (synced.length === 0) {
      const first = failed[0]?.state;
      if (first?.kind === 'failed')
        this.set({ kind: 'failed', reason: `${this.context} could not be read: ${describeKubeFailure(first.failure)}` });
      else if (this.#figuresFailure) this.set({ kind: 'failed', reason: this.#figuresFailure });
      return; // still listing
    }
    if (!this.#figures) {
      if (this.#figuresFailure) this.set({ kind: 'failed', reason: this.#figuresFailure });
      return;
    }
    // A list not answered yet (a namespace just added): a snapshot without it would say its workloads do not exist.
    if (lists.some((list) => list.state.kind === 'listing')) {
      if (this.state().kind !== 'reading') this.set({ kind: 'reading', previous: this.snapshot() });
      return;
    }
    const notes: string[] = [];
    for (const list of failed)
      if (list.state.kind === 'failed')
        notes.push(`${list.watched.resource} in ${list.namespace}: ${describeKubeFailure(list.state.failure)} (the last list is kept)`);
    for (const list of lists)
      if (list.dropped > 0) notes.push(`${list.watched.resource} in ${list.namespace}: ${list.dropped} beyond the cache's cap not kept`);
    if (this.#figuresFailure) notes.push(`figures not read again: ${this.#figuresFailure}`);
    for (const note of this.#discoveryNotes) notes.push(note);
    const objects: unknown[] = [];
    const pods: unknown[] = [];
    for (const list of lists) for (const object of list.objects()) (list.watched.kind === 'Pod' ? pods : objects).push(object);
    const built = buildLiveSnapshot(this.#options.client, { objects, pods, notes: [] }, this.#figures.figures, {
      window: this.#options.window,
      headroomPercent: this.#options.headroomPercent,
      fetchedAtMs: this.#figures.atMs,
      nowMs: this.#now,
    });
    this.#publish(built.snapshot, [...notes, ...built.notes]);
  }

  #publish(snapshot: LiveSnapshot, notes: readonly string[]): void {
    const after = this.#options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
    const age = this.#now - snapshot.fetchedAtMs;
    if (age > after) this.set({ kind: 'stale', snapshot, reason: `figures read more than ${Math.round(after / 60_000)} min ago` });
    else this.set({ kind: 'ready', snapshot, notes });
    if (this.#staleTimer !== undefined) clearTimeout(this.#staleTimer);
    if (age <= after) {
      this.#staleTimer = setTimeout(
        () => {
          this.#staleTimer = undefined;
          const state = this.state();
          if (state.kind === 'ready' && state.snapshot === snapshot)
            this.set({ kind: 'stale', snapshot, reason: `figures read more than ${Math.round(after / 60_000)} min ago` });
        },
        after - age + 1,
      );
      this.#staleTimer.unref?.();
    }
  }

  dispose(): void {
    this.#life.abort();
    for (const lists of this.#caches.values()) for (const list of lists) list.stop();
    this.#caches.clear();
    for (const timer of [this.#rebuildTimer, this.#staleTimer]) if (timer !== undefined) clearTimeout(timer);
    if (this.#figuresTimer !== undefined) clearInterval(this.#figuresTimer);
    this.clearListeners();
  }
}
