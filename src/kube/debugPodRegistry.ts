// The debug-pod transports of one VS Code window that may still hold a pod: an Inspect Node still starting
// or running when the window closes would otherwise leave its pod until activeDeadlineSeconds. deactivate()
// closes them all (each close() deletes its pods with its own deadline), beside the inspector panels.
export interface ClosableDebugPods {
  close(): Promise<void>;
}

export class DebugPodRegistry {
  readonly #transports = new Set<ClosableDebugPods>();

  /** Tracks `transport` until it is closed (DebugPodTransport calls this and untracks itself in close()). */
  track(transport: ClosableDebugPods): void {
    this.#transports.add(transport);
  }

  untrack(transport: ClosableDebugPods): void {
    this.#transports.delete(transport);
  }

  get size(): number {
    return this.#transports.size;
  }

  /** Closes every tracked transport at once; never throws. */
  async closeAll(): Promise<void> {
    const all = [...this.#transports];
    this.#transports.clear();
    await Promise.all(all.map((transport) => transport.close().catch(() => undefined)));
  }
}
