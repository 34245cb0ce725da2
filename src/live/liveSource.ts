// Where the editor's live findings come from: a LiveSource holds the latest snapshot of one context and says when it
// changes. The lint path never awaits it: it reads `snapshot()` (or nothing) and merges what is there. Two sources:
// ReadOnceSource (this file: one list per refresh, for a quick check or a CLI) and WatchedSource (watchedSource.ts:
// list+watch of the namespaces the open manifests name, figures on an interval). Never writes to the cluster.
import type { FleetWindow } from '../core/fleet/facts.ts';
import type { LiveSnapshot } from '../core/live/liveSnapshot.ts';
import { DEFAULT_STALE_AFTER_MS } from '../core/live/liveFindings.ts';
import type { ClusterClient } from '../kube/clusterClient.ts';
import { errorText } from '../kube/errorText.ts';
import type { FiguresFrom } from '../rightsizing/gather.ts';
import { readLiveSnapshot } from './readLive.ts';

/** What a source holds. `stale`: the snapshot is older than the window it may be trusted for (kept, said so). */
export type LiveState =
  | { readonly kind: 'idle' }
  | { readonly kind: 'reading'; readonly previous: LiveSnapshot | undefined }
  | { readonly kind: 'ready'; readonly snapshot: LiveSnapshot; readonly notes: readonly string[] }
  | { readonly kind: 'stale'; readonly snapshot: LiveSnapshot; readonly reason: string }
  | { readonly kind: 'failed'; readonly reason: string };

export interface LiveDisposable {
  dispose(): void;
}

export interface LiveSource {
  readonly context: string;
  state(): LiveState;
  /** The snapshot to judge with: the ready or stale one (a stale one's lenses say so), else undefined. */
  snapshot(): LiveSnapshot | undefined;
  onDidChange(listener: (state: LiveState) => void): LiveDisposable;
  /** The namespaces the open manifests name (the context's own is always read); takes effect at the next read. */
  setNamespaces(namespaces: readonly string[]): void;
  /** Reads again now; resolves when the read ended (its outcome is in state()). Never rejects. */
  refresh(signal?: AbortSignal): Promise<void>;
  dispose(): void;
}

export interface LiveSourceOptions {
  readonly client: ClusterClient;
  readonly window: FleetWindow;
  readonly headroomPercent: number;
  readonly figuresFrom: FiguresFrom;
  /** A read that takes longer is abandoned and the source fails with a sentence. Default 60 s. */
  readonly readTimeoutMs?: number;
  /** After this a ready snapshot turns stale. Default DEFAULT_STALE_AFTER_MS. */
  readonly staleAfterMs?: number;
  readonly now?: () => number;
}

export const DEFAULT_READ_TIMEOUT_MS = 60_000;

/** The listener list and state of a source; sources extend it. */
export class LiveStateHolder {
  #state: LiveState = { kind: 'idle' };
  readonly #listeners = new Set<(state: LiveState) => void>();

  state(): LiveState {
    return this.#state;
  }

  snapshot(): LiveSnapshot | undefined {
    const state = this.#state;
    if (state.kind === 'ready' || state.kind === 'stale') return state.snapshot;
    if (state.kind === 'reading') return state.previous;
    return undefined;
  }

  onDidChange(listener: (state: LiveState) => void): LiveDisposable {
    this.#listeners.add(listener);
    return { dispose: () => this.#listeners.delete(listener) };
  }

  protected set(state: LiveState): void {
    this.#state = state;
    for (const listener of [...this.#listeners]) {
      try {
        listener(state);
      } catch {
        // One listener's failure must not keep the others from hearing of the change.
      }
    }
  }

  protected clearListeners(): void {
    this.#listeners.clear();
  }
}

/** A signal that aborts with the caller's, on dispose, or after `timeoutMs`; `timedOut()` tells which. */
export function readSignal(
  outer: AbortSignal | undefined,
  life: AbortSignal,
  timeoutMs: number,
): { signal: AbortSignal; timedOut: () => boolean; done: () => void } {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const abort = (): void => controller.abort();
  outer?.addEventListener('abort', abort, { once: true });
  life.addEventListener('abort', abort, { once: true });
  if (outer?.aborted || life.aborted) controller.abort();
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', abort);
      life.removeEventListener('abort', abort);
    },
  };
}

/** Reads the whole snapshot once per refresh (one list per resource and namespace). */
export class ReadOnceSource extends LiveStateHolder implements LiveSource {
  readonly context: string;
  readonly #options: LiveSourceOptions;
  readonly #life = new AbortController();
  #namespaces: readonly string[] = [];
  #staleTimer: ReturnType<typeof setTimeout> | undefined;
  #reads = 0;

  constructor(options: LiveSourceOptions) {
    super();
    this.#options = options;
    this.context = options.client.context;
  }

  setNamespaces(namespaces: readonly string[]): void {
    this.#namespaces = [...new Set(namespaces)].sort();
  }

  async refresh(signal?: AbortSignal): Promise<void> {
    if (this.#life.signal.aborted) return;
    const read = ++this.#reads;
    const now = this.#options.now ?? Date.now;
    this.set({ kind: 'reading', previous: this.snapshot() });
    const timeoutMs = this.#options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
    const scoped = readSignal(signal, this.#life.signal, timeoutMs);
    try {
      const result = await readLiveSnapshot(this.#options.client, {
        namespaces: this.#namespaces,
        window: this.#options.window,
        headroomPercent: this.#options.headroomPercent,
        figuresFrom: this.#options.figuresFrom,
        signal: scoped.signal,
        nowMs: now(),
      });
      if (read !== this.#reads || this.#life.signal.aborted) return;
      if (result.kind === 'unreadable') this.set({ kind: 'failed', reason: `${this.context} could not be read: ${result.reason}` });
      else {
        this.set({ kind: 'ready', snapshot: result.snapshot, notes: result.notes });
        this.#armStale(result.snapshot);
      }
    } catch (error) {
      if (read !== this.#reads || this.#life.signal.aborted) return;
      this.set({ kind: 'failed', reason: failureSentence(this.context, error, scoped.timedOut(), timeoutMs, signal) });
    } finally {
      scoped.done();
    }
  }

  #armStale(snapshot: LiveSnapshot): void {
    if (this.#staleTimer !== undefined) clearTimeout(this.#staleTimer);
    const after = this.#options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
    this.#staleTimer = setTimeout(() => {
      this.#staleTimer = undefined;
      const state = this.state();
      if (state.kind === 'ready' && state.snapshot === snapshot)
        this.set({ kind: 'stale', snapshot, reason: `read more than ${Math.round(after / 60_000)} min ago` });
    }, after);
    this.#staleTimer.unref?.();
  }

  dispose(): void {
    this.#life.abort();
    if (this.#staleTimer !== undefined) clearTimeout(this.#staleTimer);
    this.clearListeners();
  }
}

/** One sentence for a read that threw: cancelled, timed out, or the API's own error in words. */
export function failureSentence(context: string, error: unknown, timedOut: boolean, timeoutMs: number, signal?: AbortSignal): string {
  if (timedOut) return `${context} did not answer within ${Math.round(timeoutMs / 1000)} s`;
  if (signal?.aborted) return `reading ${context} was cancelled`;
  return errorText(error, { context, namespace: 'the namespaces read', action: 'Read the live workloads' });
}
