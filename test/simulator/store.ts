// The simulator's object store: one global resourceVersion counter (as etcd's revision), objects kept as
// immutable snapshots per resource, and a bounded history of change events for watches. A watch that asks
// for a resourceVersion older than the history holds gets the API server's 410 `Expired`.
import type { KubeObject } from './objects.ts';
import { keyOf, RESOURCES } from './objects.ts';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface ChangeEvent {
  readonly rv: number;
  readonly resource: string;
  readonly type: ChangeType;
  readonly object: KubeObject;
  /** The object before the change (MODIFIED, DELETED). */
  readonly prev?: KubeObject;
}

export type ChangeListener = (event: ChangeEvent) => void;

export class Store {
  #rv = 0;
  readonly #objects = new Map<string, Map<string, KubeObject>>();
  readonly #sorted = new Map<string, KubeObject[]>();
  #history: ChangeEvent[] = [];
  readonly #listeners = new Set<ChangeListener>();
  readonly historyLimit: number;
  /** Every change after this resourceVersion is still in the history. */
  compactedRv = 0;

  constructor(historyLimit = 1000) {
    this.historyLimit = historyLimit;
    for (const resource of Object.keys(RESOURCES)) this.#objects.set(resource, new Map());
  }

  get resourceVersion(): number {
    return this.#rv;
  }

  #map(resource: string): Map<string, KubeObject> {
    const map = this.#objects.get(resource);
    if (!map) throw new Error(`unknown resource ${resource}`);
    return map;
  }

  get(resource: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.#map(resource).get(keyOf(namespace, name));
  }

  /** Objects of a resource sorted by namespace then name (etcd key order), optionally in one namespace. */
  list(resource: string, namespace?: string): readonly KubeObject[] {
    let sorted = this.#sorted.get(resource);
    if (!sorted) {
      sorted = [...this.#map(resource).entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, o]) => o);
      this.#sorted.set(resource, sorted);
    }
    return namespace === undefined ? sorted : sorted.filter((o) => o.metadata.namespace === namespace);
  }

  count(resource: string): number {
    return this.#map(resource).size;
  }

  subscribe(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }

  #stamp(object: KubeObject): KubeObject {
    const copy = structuredClone(object);
    copy.metadata.resourceVersion = String(++this.#rv);
    return copy;
  }

  #record(event: ChangeEvent): void {
    this.#history.push(event);
    if (this.#history.length > this.historyLimit + 256) {
      const drop = this.#history.length - this.historyLimit;
      this.compactedRv = (this.#history[drop - 1] as ChangeEvent).rv;
      this.#history = this.#history.slice(drop);
    }
    for (const listener of [...this.#listeners]) listener(event);
  }

  /** Loads an object without a history entry (fixture state that predates every watch). */
  load(resource: string, object: KubeObject): KubeObject {
    const stored = this.#stamp(object);
    this.#map(resource).set(keyOf(stored.metadata.namespace, stored.metadata.name as string), stored);
    this.#sorted.delete(resource);
    this.compactedRv = this.#rv;
    return stored;
  }

  /** Adds or replaces an object; emits ADDED or MODIFIED. */
  put(resource: string, object: KubeObject): KubeObject {
    const key = keyOf(object.metadata.namespace, object.metadata.name as string);
    const map = this.#map(resource);
    const prev = map.get(key);
    const stored = this.#stamp(object);
    map.set(key, stored);
    if (!prev) this.#sorted.delete(resource);
    else {
      const sorted = this.#sorted.get(resource);
      if (sorted) {
        const i = sorted.indexOf(prev);
        if (i >= 0) sorted[i] = stored;
        else this.#sorted.delete(resource);
      }
    }
    this.#record(
      prev ? { rv: this.#rv, resource, type: 'MODIFIED', object: stored, prev } : { rv: this.#rv, resource, type: 'ADDED', object: stored },
    );
    return stored;
  }

  /** Removes an object; the DELETED event carries the deletion's resourceVersion, as the API server's does. */
  remove(resource: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const key = keyOf(namespace, name);
    const map = this.#map(resource);
    const prev = map.get(key);
    if (!prev) return undefined;
    map.delete(key);
    this.#sorted.delete(resource);
    const gone = this.#stamp(prev);
    this.#record({ rv: this.#rv, resource, type: 'DELETED', object: gone, prev });
    return gone;
  }

  /** The changes of a resource after `rv`, or 'expired' when part of that range was compacted away. */
  since(resource: string, rv: number): ChangeEvent[] | 'expired' {
    if (rv < this.compactedRv) return 'expired';
    const out: ChangeEvent[] = [];
    for (const event of this.#history) if (event.rv > rv && event.resource === resource) out.push(event);
    return out;
  }

  /** Drops the whole history: every resourceVersion before now becomes too old to watch from. */
  compact(): void {
    this.#history = [];
    this.compactedRv = this.#rv;
  }
}
