// Deleting node debug pods (debugPodTransport.ts): always, with gracePeriodSeconds 0, a few attempts on
// transient errors, each with its own deadline (never the run's cancelled signal). A pod that could not be
// deleted is recorded with the command that removes it; its activeDeadlineSeconds still stops it.
import { setTimeout as delay } from 'node:timers/promises';
import { describeKubeFailure } from '../core/kube/kubeFailure.ts';
import { KubeRequestError } from './kubeRequestError.ts';
import type { DebugPodPlace } from './debugPodStart.ts';

export class DebugPodCleanup {
  /** Pods that could not be deleted, with the reason and the command to remove them. */
  readonly failures: string[] = [];
  /** Pods that may exist (created, or a create that may have happened): what close() must still delete. */
  readonly pending = new Set<string>();
  readonly #place: DebugPodPlace;
  readonly #timeoutMs: number;
  readonly #onFailure: ((message: string) => void) | undefined;

  constructor(place: DebugPodPlace, timeoutMs: number, onFailure: ((message: string) => void) | undefined) {
    this.#place = place;
    this.#timeoutMs = timeoutMs;
    this.#onFailure = onFailure;
  }

  /** Deletes a debug pod: a few attempts on transient errors, each with its own deadline. Never throws. */
  async delete(name: string): Promise<void> {
    const client = this.#place.client;
    const timeoutMs = this.#timeoutMs;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const deleted = await client.deletePod(this.#place.namespace, name, { gracePeriodSeconds: 0, timeoutMs });
        this.pending.delete(name);
        this.#place.log(deleted ? `deleted ${this.#place.namespace}/${name}` : `${this.#place.namespace}/${name} was already gone`);
        return;
      } catch (error) {
        const failure = error instanceof KubeRequestError ? error.failure : undefined;
        const permanent =
          failure?.kind === 'forbidden' ||
          failure?.kind === 'unauthorized' ||
          failure?.kind === 'credentials' ||
          failure?.kind === 'config';
        if (permanent || attempt === 2) {
          const why = failure
            ? failure.kind === 'forbidden'
              ? `forbidden: cannot ${failure.verb} ${failure.resource}`
              : describeKubeFailure(failure)
            : String(error);
          const message = `could not delete the debug pod ${this.#place.namespace}/${name} (${why}); it stops after activeDeadlineSeconds. Remove it with: kubectl delete pod -n ${this.#place.namespace} ${name}`;
          // A refusal will not change by close(): it is reported once. A transient failure is tried again there.
          if (permanent) this.pending.delete(name);
          this.failures.push(message);
          this.#place.log(message);
          try {
            this.#onFailure?.(message);
          } catch {
            // as in the transport's log: a closed output channel must not stop a deletion
          }
          return;
        }
        await delay(500 * (attempt + 1));
      }
    }
  }
}
