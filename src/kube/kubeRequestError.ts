// What a failed Kubernetes request says (the verb and resource that were attempted, and why), and the
// field-selector escaping the requests use. A leaf, so the client, the watch engine and the transports
// share it without importing the client.
import type { AttemptedRequest, KubeFailure } from '../core/kube/kubeFailure.ts';
import type { ContextState } from '../core/kube/contextState.ts';
import { describeKubeFailure } from '../core/kube/kubeFailure.ts';
import { contextStateFromFailure } from '../core/kube/contextState.ts';

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
