// A minimal typed event emitter, so the cluster model needs no `vscode` import (its events have the shape of
// vscode.Event: subscribe, get a disposable back) and runs outside the extension host (the integration tests).

export interface Subscription {
  dispose(): void;
}

export type Listener<T> = (value: T) => void;

export class ChangeEmitter<T> {
  private readonly listeners = new Set<Listener<T>>();

  /** Subscribes; the listener runs synchronously on every fire until the subscription is disposed. */
  readonly event = (listener: Listener<T>): Subscription => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  fire(value: T): void {
    // A listener that unsubscribes (or subscribes another) while being told must not disturb this round.
    for (const listener of Array.from(this.listeners)) listener(value);
  }

  dispose(): void {
    this.listeners.clear();
  }
}
