// The node debug-pod transport, like `kubectl debug node/<n>`: a short-lived pod pinned to the node with
// `nodeName`, `hostPID: true` and the host's root mounted read-only at /host; the node-scope probe then
// runs in it through pod exec with `hostRoot '/host'` (this transport's `hostRoot`; the caller passes it to
// runProbe).
//
// The pod:
// - `nodeName` (no scheduler), `restartPolicy: Never`, `activeDeadlineSeconds` (the kubelet kills it after
//   that even if everything here dies), `automountServiceAccountToken: false`, `terminationGracePeriodSeconds: 0`;
// - one container `debugger`, a configurable image (busybox:1.36 by default), command `sleep <deadline>`,
//   the hostPath `/` mounted read-only at `/host`, and CAP_SYS_PTRACE (to read other processes' fd and
//   fdinfo in the host PID namespace) unless configured otherwise; not privileged by default;
// - labels `app.kubernetes.io/managed-by: gpumem` and `gpumem.io/debug-pod: "true"`, and an annotation with
//   the node, so stray pods can be found and removed (`kubectl delete pod -A -l gpumem.io/debug-pod=true`);
// - tolerations for the node's own taints (read from the Node), or `operator: Exists` when the Node cannot be
//   read, as kubectl debug does.
// It waits for Running through a watch on the pod, from the resourceVersion the create returned (so no event
// is missed), with a start timeout; image-pull and container-config errors end the wait at once.
//
// The pod is ALWAYS deleted: a finally block deletes it after success, failure, timeout and cancel (with
// its own deadline, never the cancelled signal), a create that failed in a way that may still have created
// it (a timeout, a dropped connection, a 5xx) is followed by a delete by name, and close() deletes whatever
// is left. Deletion uses gracePeriodSeconds 0. When deletion is forbidden the failure is recorded in
// `cleanupFailures` and logged with the command to run; activeDeadlineSeconds still stops the pod.
//
// RBAC refusals name the verb and resource: `create pods`, `create pods/exec`, `delete pods` (and `watch pods`,
// which falls back to polling `get pods`).
import { randomBytes } from 'node:crypto';
import type { V1Pod, V1Toleration } from '@kubernetes/client-node';
import type { ExecRequest, ExecResult, Transport, TransportFailure } from '../core/probe/transport.ts';
import { TransportError } from '../core/probe/transport.ts';
import { describeKubeFailure } from '../core/kube/contextState.ts';
import type { ClusterClient } from './clusterClient.ts';
import { KubeRequestError } from './clusterClient.ts';
import { PodExecTransport, transportFailureOf } from './podExecTransport.ts';

export const DEBUG_POD_IMAGE = 'busybox:1.36';
export const DEBUG_CONTAINER = 'debugger';
export const DEBUG_HOST_ROOT = '/host';
export const DEBUG_POD_LABELS: Readonly<Record<string, string>> = { 'app.kubernetes.io/managed-by': 'gpumem', 'gpumem.io/debug-pod': 'true' };
export const DEBUG_POD_NODE_ANNOTATION = 'gpumem.io/node';
export const DEBUG_POD_SELECTOR = 'gpumem.io/debug-pod=true';

const FATAL_WAITING = new Set(['ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull', 'CreateContainerConfigError', 'CreateContainerError', 'RunContainerError']);

export interface DebugPodTransportOptions {
  readonly client: ClusterClient;
  readonly node: string;
  /** Where the pod is created. Default `default`. */
  readonly namespace?: string;
  readonly image?: string;
  /** The kubelet stops the pod after this, whatever happens here. Default 900 s (longer than a probe). */
  readonly activeDeadlineSeconds?: number;
  /** From create to Running (an image pull). Default 120 s. */
  readonly startTimeoutMs?: number;
  /** `node-taints` (default): tolerate exactly the node's taints; `all`: `operator: Exists`. */
  readonly tolerations?: 'node-taints' | 'all';
  /** Added capabilities. Default ['SYS_PTRACE']. */
  readonly capabilities?: readonly string[];
  readonly privileged?: boolean;
  /** Deadline of each delete attempt. Default 15 s. */
  readonly cleanupTimeoutMs?: number;
  readonly log?: (line: string) => void;
}

export interface DebugPodSpecInput {
  readonly name: string;
  readonly namespace: string;
  readonly node: string;
  readonly image: string;
  readonly activeDeadlineSeconds: number;
  readonly tolerations: readonly V1Toleration[];
  readonly capabilities: readonly string[];
  readonly privileged: boolean;
}

/** The debug pod's manifest (see the header). */
export function debugPodManifest(input: DebugPodSpecInput): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: input.name,
      namespace: input.namespace,
      labels: { ...DEBUG_POD_LABELS },
      annotations: { [DEBUG_POD_NODE_ANNOTATION]: input.node },
    },
    spec: {
      nodeName: input.node,
      hostPID: true,
      restartPolicy: 'Never',
      activeDeadlineSeconds: input.activeDeadlineSeconds,
      terminationGracePeriodSeconds: 0,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      tolerations: [...input.tolerations],
      volumes: [{ name: 'host-root', hostPath: { path: '/' } }],
      containers: [
        {
          name: DEBUG_CONTAINER,
          image: input.image,
          imagePullPolicy: 'IfNotPresent',
          command: ['sleep', String(input.activeDeadlineSeconds)],
          stdin: false,
          tty: false,
          volumeMounts: [{ name: 'host-root', mountPath: DEBUG_HOST_ROOT, readOnly: true }],
          securityContext: {
            privileged: input.privileged,
            ...(input.capabilities.length > 0 ? { capabilities: { add: [...input.capabilities] } } : {}),
          },
        },
      ],
    },
  };
}

/** `gpumem-debug-<node>-<random>`, a valid pod name for any node name. */
export function debugPodName(node: string): string {
  const stem = node.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40).replace(/-+$/, '');
  return `gpumem-debug-${stem || 'node'}-${randomBytes(4).toString('hex').slice(0, 5)}`;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export class DebugPodTransport implements Transport {
  readonly hostRoot = DEBUG_HOST_ROOT;
  readonly target: string;
  /** Pods that could not be deleted, with the reason and the command to remove them. */
  readonly cleanupFailures: string[] = [];
  readonly #options: DebugPodTransportOptions;
  readonly #namespace: string;
  readonly #pending = new Set<string>();
  readonly #execs = new Set<PodExecTransport>();
  #lastPod: string | undefined;

  constructor(options: DebugPodTransportOptions) {
    this.#options = options;
    this.#namespace = options.namespace ?? 'default';
    this.target = `debug pod on node/${options.node} (context ${options.client.context})`;
  }

  /** The name of the last debug pod created, for messages and tests. */
  get lastPod(): string | undefined {
    return this.#lastPod;
  }

  #log(line: string): void {
    this.#options.log?.(`[debug pod ${this.#options.node}] ${line}`);
  }

  #forbidden(failure: TransportFailure): TransportFailure {
    if (failure.kind !== 'forbidden') return failure;
    const need = 'the node debug pod needs: create, get, watch and delete on pods, and create on pods/exec';
    return { ...failure, detail: `${failure.detail}; ${need} in namespace "${this.#namespace}"` };
  }

  async #tolerations(signal: AbortSignal | undefined): Promise<V1Toleration[]> {
    if (this.#options.tolerations === 'all') return [{ operator: 'Exists' }];
    try {
      const node = await this.#options.client.readNode(this.#options.node, { signal });
      return (node.spec?.taints ?? []).map((taint) => ({
        key: taint.key,
        operator: taint.value ? 'Equal' : 'Exists',
        ...(taint.value ? { value: taint.value } : {}),
        effect: taint.effect,
      }));
    } catch (error) {
      if (error instanceof KubeRequestError && error.failure.kind === 'cancelled') throw new TransportError({ kind: 'cancelled' });
      this.#log(`cannot read the node's taints (${error instanceof Error ? error.message : String(error)}); tolerating all taints`);
      return [{ operator: 'Exists' }];
    }
  }

  async run(request: ExecRequest): Promise<ExecResult> {
    if (request.signal?.aborted) throw new TransportError({ kind: 'cancelled' });
    const client = this.#options.client;
    const name = debugPodName(this.#options.node);
    const startMs = this.#options.startTimeoutMs ?? 120_000;
    let mayExist = false;
    try {
      const tolerations = await this.#tolerations(request.signal);
      const manifest = debugPodManifest({
        name,
        namespace: this.#namespace,
        node: this.#options.node,
        image: this.#options.image ?? DEBUG_POD_IMAGE,
        activeDeadlineSeconds: this.#options.activeDeadlineSeconds ?? 900,
        tolerations,
        capabilities: this.#options.capabilities ?? ['SYS_PTRACE'],
        privileged: this.#options.privileged ?? false,
      });
      let created: V1Pod;
      mayExist = true;
      this.#pending.add(name);
      this.#lastPod = name;
      try {
        created = await client.createPod(this.#namespace, manifest, { signal: request.signal });
      } catch (error) {
        if (!(error instanceof KubeRequestError)) throw error;
        const kind = error.failure.kind;
        // Refused outright: nothing was created (and a 409 would be somebody else's pod: never delete it).
        if (kind === 'forbidden' || kind === 'unauthorized' || kind === 'credentials' || kind === 'config' || (kind === 'http' && error.failure.status >= 400 && error.failure.status < 500 && error.failure.status !== 429)) {
          mayExist = false;
          this.#pending.delete(name);
        }
        throw new TransportError(this.#forbidden(transportFailureOf(error.failure, 'connect', startMs)));
      }
      this.#log(`created ${this.#namespace}/${name}`);
      await this.#waitRunning(name, created.metadata?.resourceVersion, startMs, request.signal);
      const exec = new PodExecTransport({ kubeConfig: client.kubeConfig, namespace: this.#namespace, pod: name, container: DEBUG_CONTAINER, client, target: this.target });
      this.#execs.add(exec);
      try {
        return await exec.run(request);
      } catch (error) {
        if (error instanceof TransportError) throw new TransportError(this.#forbidden(error.failure));
        throw error;
      } finally {
        this.#execs.delete(exec);
        await exec.close();
      }
    } finally {
      if (mayExist) await this.#delete(name);
    }
  }

  /** Waits until the pod runs (see the header). Throws TransportError. */
  async #waitRunning(name: string, createdVersion: string | undefined, timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
    const client = this.#options.client;
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
        return { kind: 'connect', detail: `the debug pod ${this.#namespace}/${name} ended before the probe ran: ${phase}${pod.status?.reason ? ` ${pod.status.reason}` : ''}${pod.status?.message ? `: ${pod.status.message}` : ''}` };
      }
      if (waiting?.reason && FATAL_WAITING.has(waiting.reason)) {
        return { kind: 'connect', detail: `the debug pod ${this.#namespace}/${name} cannot start: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''} (image ${this.#options.image ?? DEBUG_POD_IMAGE})` };
      }
      return undefined;
    };

    for (;;) {
      if (signal?.aborted) throw new TransportError({ kind: 'cancelled' });
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        this.#log(`not running after ${timeoutMs} ms (${last})`);
        throw new TransportError({ kind: 'timeout', phase: 'connect', ms: timeoutMs });
      }
      if (polling) {
        try {
          const pod = await client.readPod(this.#namespace, name, { signal, timeoutMs: Math.min(remaining, 15_000) });
          const verdict = check(pod);
          if (verdict === 'running') return;
          if (verdict) throw new TransportError(verdict);
        } catch (error) {
          if (error instanceof TransportError) throw error;
          if (error instanceof KubeRequestError) {
            if (error.failure.kind === 'cancelled') throw new TransportError({ kind: 'cancelled' });
            if (error.failure.kind === 'forbidden' || error.failure.kind === 'not-found') throw new TransportError(this.#forbidden(transportFailureOf(error.failure, 'connect', timeoutMs)));
          }
        }
        await sleep(Math.min(1_000 * 2 ** Math.min(failures++, 2), Math.max(0, deadline - Date.now())), signal);
        continue;
      }
      const outcome = await new Promise<'running' | 'gone' | 'closed' | 'forbidden' | TransportFailure>((resolve) => {
        const handle = client.watchOnce(
          `/api/v1/namespaces/${encodeURIComponent(this.#namespace)}/pods`,
          { fieldSelector: `metadata.name=${name}`, resourceVersion, allowWatchBookmarks: true, timeoutSeconds: Math.max(1, Math.ceil(remaining / 1000)) },
          'V1Pod',
          (type, object, rv) => {
            if (rv) resourceVersion = rv;
            if (type === 'BOOKMARK') return;
            if (type === 'DELETED') {
              finish({ kind: 'connect', detail: `the debug pod ${this.#namespace}/${name} was deleted before the probe ran` });
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
            this.#log(`watch failed: ${describeKubeFailure(end.failure)}`);
            finish('gone'); // re-read the pod, then watch again
          } else finish('closed');
        });
      });
      if (outcome === 'running') return;
      if (typeof outcome === 'object') throw new TransportError(outcome);
      if (outcome === 'forbidden') {
        this.#log('may not watch pods; polling get instead');
        polling = true;
        continue;
      }
      if (outcome === 'gone') {
        // Read the pod (its state and a fresh resourceVersion), then watch again.
        try {
          const pod = await client.readPod(this.#namespace, name, { signal, timeoutMs: Math.min(Math.max(1, deadline - Date.now()), 15_000) });
          resourceVersion = pod.metadata?.resourceVersion;
          const verdict = check(pod);
          if (verdict === 'running') return;
          if (verdict) throw new TransportError(verdict);
        } catch (error) {
          if (error instanceof TransportError) throw error;
          if (error instanceof KubeRequestError && error.failure.kind === 'cancelled') throw new TransportError({ kind: 'cancelled' });
          if (error instanceof KubeRequestError && error.failure.kind === 'forbidden') polling = true;
          await sleep(Math.min(1_000 * 2 ** Math.min(failures++, 3), Math.max(0, deadline - Date.now())), signal);
        }
      }
    }
  }

  /** Deletes a debug pod: a few attempts on transient errors, each with its own deadline. Never throws. */
  async #delete(name: string): Promise<void> {
    const client = this.#options.client;
    const timeoutMs = this.#options.cleanupTimeoutMs ?? 15_000;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const deleted = await client.deletePod(this.#namespace, name, { gracePeriodSeconds: 0, timeoutMs });
        this.#pending.delete(name);
        this.#log(deleted ? `deleted ${this.#namespace}/${name}` : `${this.#namespace}/${name} was already gone`);
        return;
      } catch (error) {
        const failure = error instanceof KubeRequestError ? error.failure : undefined;
        const permanent = failure?.kind === 'forbidden' || failure?.kind === 'unauthorized' || failure?.kind === 'credentials' || failure?.kind === 'config';
        if (permanent || attempt === 2) {
          const why = failure ? (failure.kind === 'forbidden' ? `forbidden: cannot ${failure.verb} ${failure.resource}` : describeKubeFailure(failure)) : String(error);
          const message = `could not delete the debug pod ${this.#namespace}/${name} (${why}); it stops after activeDeadlineSeconds. Remove it with: kubectl delete pod -n ${this.#namespace} ${name}`;
          this.cleanupFailures.push(message);
          this.#log(message);
          return;
        }
        await sleep(500 * (attempt + 1));
      }
    }
  }

  /** Stops a run in progress (its socket) and deletes any debug pod still left. */
  async close(): Promise<void> {
    for (const exec of this.#execs) await exec.close();
    for (const name of [...this.#pending]) await this.#delete(name);
  }
}
