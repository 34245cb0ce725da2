// One sentence for the user from whatever a cluster operation threw: a transport failure (exec, debug pod,
// SSH) or a failed API request, each explained with where it happened (context, namespace, action) and,
// for RBAC refusals, the verb and resource. Shared by the Clusters commands and the CLI.
import type { FailurePlace } from '../core/kube/failureMessages.ts';
import { explainKubeFailure, explainProbeFailure } from '../core/kube/failureMessages.ts';
import { TransportError } from '../core/probe/transport.ts';
import { KubeRequestError } from './clusterClient.ts';
import { errorMessage } from '../core/errorMessage.ts';

export function errorText(error: unknown, place: FailurePlace): string {
  if (error instanceof TransportError) return explainProbeFailure(error.failure, place);
  if (error instanceof KubeRequestError) return explainKubeFailure(error.failure, place);
  return errorMessage(error);
}
