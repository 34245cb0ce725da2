// What the Clusters view and its commands say when Kubernetes refuses or fails a request: the verb and the
// resource that were refused, where, and what to do (the `kubectl auth can-i` line to check it, the role to
// ask for, running the probe by hand). Pure text; the callers show it.
import type { KubeFailure } from './kubeFailure.ts';
import { describeKubeFailure } from './kubeFailure.ts';
import type { TransportFailure } from '../probe/transport.ts';
import { describeFailure } from '../probe/transport.ts';
import { shellQuote } from './probeCommand.ts';

export interface FailurePlace {
  readonly context: string;
  /** The namespace of the refused request, when it was namespaced. */
  readonly namespace?: string;
  /** What the user asked for, e.g. `Inspect Node strix-node-1`. */
  readonly action?: string;
  /** How to run the probe by hand in this front end; default the extension's "Copy Probe Command". */
  readonly byHand?: string;
}

/** The `kubectl auth can-i` command that checks a permission. */
export function canICommand(verb: string, resource: string, place: FailurePlace): string {
  const [base, sub] = resource.split('/', 2);
  const what = sub ? `${base} --subresource=${shellQuote(sub)}` : shellQuote(resource);
  return `kubectl auth can-i ${shellQuote(verb)} ${what}${place.namespace ? ` -n ${shellQuote(place.namespace)}` : ''} --context=${shellQuote(place.context)}`;
}

/** "Your credentials for context "x" may not create pods in namespace "y". Check with: …". */
export function explainForbidden(verb: string, resource: string, place: FailurePlace): string {
  const where = place.namespace ? ` in namespace "${place.namespace}"` : '';
  return `Your credentials for context "${place.context}" may not ${verb} ${resource}${where} (RBAC). Check with: ${canICommand(verb, resource, place)}. Ask a cluster administrator for a role that allows "${verb}" on "${resource}"${where}, or run the probe by hand with other credentials (${place.byHand ?? '"Copy Probe Command"'}).`;
}

/** A probe transport's failure (pod exec, node debug pod, SSH) as one message, RBAC refusals explained. */
export function explainProbeFailure(failure: TransportFailure, place: FailurePlace): string {
  const prefix = place.action ? `${place.action}: ` : '';
  if (failure.kind === 'forbidden') {
    const needs = /needs: ([^;]*?)(?: in namespace "[^"]*")?$/.exec(failure.detail)?.[1];
    return `${prefix}${explainForbidden(failure.verb, failure.resource, place)}${needs ? ` The node debug pod needs ${needs}.` : ''} (API server: ${failure.detail.replace(/;[^\n]*$/, '')})`;
  }
  return `${prefix}${describeFailure(failure)}`;
}

/** A failed Kubernetes request (list, get…) as one message, RBAC refusals explained. */
export function explainKubeFailure(failure: KubeFailure, place: FailurePlace): string {
  const prefix = place.action ? `${place.action}: ` : '';
  if (failure.kind === 'forbidden')
    return `${prefix}${explainForbidden(failure.verb, failure.resource, refusedPlace(failure.message, place))}`;
  return `${prefix}${describeKubeFailure(failure)}`;
}

/**
 * The place of a refusal as the API server states it: RBAC's denial ends in `in the namespace "<ns>"` or `at the
 * cluster scope` (kubernetes/kubernetes, plugin/pkg/auth/authorizer/rbac: the Forbidden status message), which is
 * the namespace that was really refused, whatever namespace the caller expected (a fleet read touches the agents'
 * namespace, Prometheus's, the scan's and cluster-scoped nodes). Neither phrase: the caller's namespace stands.
 */
export function refusedPlace(message: string, place: FailurePlace): FailurePlace {
  const marker = 'in the namespace "';
  const start = message.lastIndexOf(marker);
  if (start >= 0) {
    const from = start + marker.length;
    const end = message.indexOf('"', from);
    if (end > from) return { ...place, namespace: message.slice(from, end) };
  }
  if (message.includes('at the cluster scope')) {
    const { namespace: _namespace, ...clusterWide } = place;
    return clusterWide;
  }
  return place;
}
