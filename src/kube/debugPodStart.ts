// Starting a node debug pod (debugPodTransport.ts): the node's facts its manifest needs, and the wait until
// it runs, through a watch on the pod from the resourceVersion the create returned (so no event is missed),
// with a start timeout; image-pull and container-config errors end the wait at once. A watch that is
// forbidden falls back to polling `get pods`.
import type { V1Node, V1Pod, V1Toleration } from '@kubernetes/client-node';
import type { TransportFailure } from '../core/probe/transport.ts';
import { TransportError } from '../core/probe/transport.ts';
import { describeKubeFailure } from '../core/kube/kubeFailure.ts';
import type { ClusterClient } from './clusterClient.ts';
import { KubeRequestError } from './kubeRequestError.ts';
import { DEBUG_CONTAINER, recursiveReadOnlySupport } from './debugPodSpec.ts';
import type { RecursiveReadOnlySupport } from './debugPodSpec.ts';
import { transportFailureOf } from './podExecTransport.ts';
import { errorMessage } from '../core/errorMessage.ts';
import { abortableSleep } from './abortableSleep.ts';

const FATAL_WAITING = new Set([
  'ImagePullBackOff',
  'InvalidImageName',
  'ErrImageNeverPull',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
]);

/** The debug pods' client, namespace and image, and where their log lines go. */
export interface DebugPodPlace {
  readonly client: ClusterClient;
  readonly namespace: string;
  readonly node: string;
  readonly image: string;
  readonly log: (line: string) => void;
}

/** A forbidden failure with the RBAC the debug pod needs in its namespace; any other failure unchanged. */
export function withDebugPodRbac(failure: TransportFailure, namespace: string): TransportFailure {
  if (failure.kind !== 'forbidden') return failure;
  const need = 'the node debug pod needs: create, get, watch and delete on pods, and create on pods/exec';
  return { ...failure, detail: `${failure.detail}; ${need} in namespace "${namespace}"` };
}

/** The node's taints as tolerations, and whether its runtime supports recursive read-only mounts. */
export async function debugPodNodeFacts(
  place: DebugPodPlace,
  tolerate: 'node-taints' | 'all' | undefined,
  signal: AbortSignal | undefined,
): Promise<{ tolerations: V1Toleration[]; recursiveReadOnly: RecursiveReadOnlySupport }> {
  let node: V1Node | undefined;
  try {
    node = await place.client.readNode(place.node, { signal });
  } catch (error) {
    if (error instanceof KubeRequestError && error.failure.kind === 'cancelled') throw new TransportError({ kind: 'cancelled' });
    place.log(`cannot read the node (${errorMessage(error)}); tolerating all taints`);
  }
  const recursiveReadOnly = recursiveReadOnlySupport(node);
  if (tolerate === 'all' || !node) return { tolerations: [{ operator: 'Exists' }], recursiveReadOnly };
  const tolerations = (node.spec?.taints ?? []).map((taint) => ({
    key: taint.key,
    operator: taint.value ? 'Equal' : 'Exists',
    ...(taint.value ? { value: taint.value } : {}),
    effect: taint.effect,
  }));
  return { tolerations, recursiveReadOnly };
}

/** Waits until the pod runs (see the header). Throws TransportError. */
export async function waitForDebugPodRunning(
  place: DebugPodPlace,
  name: string,
  createdVersion: string | undefined,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  const client = place.client;
  const deadline = Date.now() + timeoutMs;
  let resourceVersion = createdVersion;
  let last = 'Pending';
  let polling = false;
  let failures = 0;

  // Returns 'running', a failure, or undefined to keep waiting.
  const check = (pod: V1Pod | undefined): 'running' | TransportFailure | undefined => {
    if (!pod) return undefined;
    const phase = pod.status?.phase ?? 'Pending';
    const container = pod.status?.containerStatuses?.find((status) => status.name === DEBUG_CONTAINER);
    const waiting = container?.state?.waiting;
    last = waiting?.reason ? `${phase}: ${waiting.reason}${waiting.message ? ` (${waiting.message})` : ''}` : phase;
    if (phase === 'Running' && (container === undefined || container.state?.running)) return 'running';
    if (phase === 'Failed' || phase === 'Succeeded') {
      return {
        kind: 'connect',
        detail: `the debug pod ${place.namespace}/${name} ended before the probe ran: ${phase}${pod.status?.reason ? ` ${pod.status.reason}` : ''}${pod.status?.message ? `: ${pod.status.message}` : ''}`,
      };
    }
    if (waiting?.reason && FATAL_WAITING.has(waiting.reason)) {
      return {
        kind: 'connect',
        detail: `the debug pod ${place.namespace}/${name} cannot start: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''} (image ${place.image})`,
      };
    }
    return undefined;
  };

  for (;;) {
    if (signal?.aborted) throw new TransportError({ kind: 'cancelled' });
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      place.log(`not running after ${timeoutMs} ms (${last})`);
      throw new TransportError({ kind: 'timeout', phase: 'connect', ms: timeoutMs });
    }
    if (polling) {
      try {
        const pod = await client.readPod(place.namespace, name, { signal, timeoutMs: Math.min(remaining, 15_000) });
        const verdict = check(pod);
        if (verdict === 'running') return;
        if (verdict) throw new TransportError(verdict);
      } catch (error) {
        if (error instanceof TransportError) throw error;
        if (error instanceof KubeRequestError) {
          if (error.failure.kind === 'cancelled') throw new TransportError({ kind: 'cancelled' });
          if (error.failure.kind === 'forbidden' || error.failure.kind === 'not-found')
            throw new TransportError(withDebugPodRbac(transportFailureOf(error.failure, 'connect', timeoutMs), place.namespace));
        }
      }
      await abortableSleep(Math.min(1_000 * 2 ** Math.min(failures++, 2), Math.max(0, deadline - Date.now())), signal);
      continue;
    }
    const outcome = await new Promise<'running' | 'gone' | 'closed' | 'forbidden' | TransportFailure>((resolve) => {
      const handle = client.watchOnce(
        `/api/v1/namespaces/${encodeURIComponent(place.namespace)}/pods`,
        {
          fieldSelector: `metadata.name=${name}`,
          resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: Math.max(1, Math.ceil(remaining / 1000)),
        },
        'V1Pod',
        (type, object, rv) => {
          if (rv) resourceVersion = rv;
          if (type === 'BOOKMARK') return;
          if (type === 'DELETED') {
            finish({ kind: 'connect', detail: `the debug pod ${place.namespace}/${name} was deleted before the probe ran` });
            return;
          }
          const verdict = check(object as V1Pod);
          if (verdict !== undefined) finish(verdict);
        },
      );
      const timer = setTimeout(() => finish('closed'), remaining);
      const onAbort = (): void => finish('closed');
      signal?.addEventListener('abort', onAbort, { once: true });
      function finish(value: 'running' | 'gone' | 'closed' | 'forbidden' | TransportFailure): void {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        handle.stop();
        resolve(value);
      }
      void handle.done.then((end) => {
        if (end.kind === 'gone') finish('gone');
        else if (end.kind === 'failed' && end.failure.kind === 'forbidden') finish('forbidden');
        else if (end.kind === 'failed') {
          place.log(`watch failed: ${describeKubeFailure(end.failure)}`);
          finish('gone'); // re-read the pod, then watch again
        } else finish('closed');
      });
    });
    if (outcome === 'running') return;
    if (typeof outcome === 'object') throw new TransportError(outcome);
    if (outcome === 'forbidden') {
      place.log('may not watch pods; polling get instead');
      polling = true;
      continue;
    }
    if (outcome === 'gone') {
      // Read the pod (its state and a fresh resourceVersion), then watch again.
      try {
        const pod = await client.readPod(place.namespace, name, {
          signal,
          timeoutMs: Math.min(Math.max(1, deadline - Date.now()), 15_000),
        });
        resourceVersion = pod.metadata?.resourceVersion;
        const verdict = check(pod);
        if (verdict === 'running') return;
        if (verdict) throw new TransportError(verdict);
      } catch (error) {
        if (error instanceof TransportError) throw error;
        if (error instanceof KubeRequestError && error.failure.kind === 'cancelled') throw new TransportError({ kind: 'cancelled' });
        if (error instanceof KubeRequestError && error.failure.kind === 'forbidden') polling = true;
        await abortableSleep(Math.min(1_000 * 2 ** Math.min(failures++, 3), Math.max(0, deadline - Date.now())), signal);
      }
    }
  }
}
