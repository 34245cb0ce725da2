// The state of one kubeconfig context as the Clusters view shows it (reachable, unreachable and why, forbidden),
// made from what a request found (a KubeFailure, ./kubeFailure.ts), and what the view says about each state.
import type { KubeFailure } from './kubeFailure.ts';

export type UnreachableCause = 'network' | 'timeout' | 'tls' | 'auth' | 'credentials' | 'server' | 'config' | 'unknown';

export type ContextState =
  | { readonly kind: 'Unknown' }
  | { readonly kind: 'Reachable'; readonly version: string }
  | { readonly kind: 'Unreachable'; readonly reason: string; readonly cause?: UnreachableCause }
  | { readonly kind: 'Forbidden'; readonly verb: string; readonly resource: string };

export function contextStateFromFailure(failure: KubeFailure): ContextState {
  switch (failure.kind) {
    case 'forbidden':
      return { kind: 'Forbidden', verb: failure.verb, resource: failure.resource };
    case 'cancelled':
      return { kind: 'Unknown' };
    case 'unauthorized':
      return { kind: 'Unreachable', reason: `authentication failed (401 Unauthorized): ${failure.message}`, cause: 'auth' };
    case 'timeout':
      return { kind: 'Unreachable', reason: `no answer in time (${failure.message})`, cause: 'timeout' };
    case 'network':
      return { kind: 'Unreachable', reason: `${failure.code}: ${failure.message}`, cause: 'network' };
    case 'tls':
      return { kind: 'Unreachable', reason: `TLS ${failure.code}: ${failure.message}`, cause: 'tls' };
    case 'credentials':
      return { kind: 'Unreachable', reason: `could not get credentials: ${failure.message}`, cause: 'credentials' };
    case 'config':
      return { kind: 'Unreachable', reason: `kubeconfig: ${failure.message}`, cause: 'config' };
    case 'http':
      return { kind: 'Unreachable', reason: `the API server answered ${failure.status}: ${failure.message}`, cause: 'server' };
    case 'not-found':
    case 'gone':
      return { kind: 'Unreachable', reason: failure.message, cause: 'server' };
    case 'unknown':
      return { kind: 'Unreachable', reason: failure.message, cause: 'unknown' };
  }
}

export interface ContextStateView {
  /** Short, for a tree item's description: "v1.31.2", "unreachable", "forbidden: list nodes". */
  readonly label: string;
  /** What happened, for a tooltip or a welcome view. */
  readonly message: string;
  /** What to do about it; undefined when nothing is needed. */
  readonly action: string | undefined;
}

export function describeContextState(state: ContextState, context = 'this context'): ContextStateView {
  switch (state.kind) {
    case 'Unknown':
      return { label: 'not checked', message: `${context} has not been contacted yet.`, action: undefined };
    case 'Reachable':
      return { label: state.version, message: `${context} answers: Kubernetes ${state.version}.`, action: undefined };
    case 'Forbidden':
      return {
        label: `forbidden: ${state.verb} ${state.resource}`,
        message: `Your credentials for ${context} may not ${state.verb} ${state.resource}.`,
        action: `Ask a cluster administrator for a role that allows "${state.verb}" on "${state.resource}", or check with: kubectl auth can-i ${state.verb} ${state.resource} --context ${context}`,
      };
    case 'Unreachable':
      return {
        label: state.cause === 'auth' ? 'not authenticated' : 'unreachable',
        message: `${context}: ${state.reason}.`,
        action: unreachableAction(state.cause),
      };
  }
}

function unreachableAction(cause: UnreachableCause | undefined): string {
  switch (cause) {
    case 'auth':
      return 'The API server rejected the token or client certificate (expired or revoked). Log in again (your cloud CLI, OIDC or exec plugin), then refresh.';
    case 'credentials':
      return 'The credential plugin or a certificate/token file named in the kubeconfig could not be used. Check that the exec plugin is installed and on the PATH of the VS Code extension host, and that the files exist.';
    case 'timeout':
      return 'The API server did not answer in time. Check the VPN, a proxy (proxy-url in the kubeconfig), or whether the cluster is running; then refresh.';
    case 'network':
      return 'The API server could not be reached. Check the server address in the kubeconfig, the VPN or network, and whether the cluster is running; then refresh.';
    case 'tls':
      return "The server's TLS certificate did not verify against the kubeconfig's certificate authority (or tls-server-name). Fix certificate-authority(-data) for this cluster.";
    case 'server':
      return 'The API server returned an error; it may be overloaded or restarting. Refresh later.';
    case 'config':
      return 'The kubeconfig entry for this context is incomplete or invalid (cluster, user or server URL).';
    default:
      return 'Refresh to try again; the output channel has details.';
  }
}
