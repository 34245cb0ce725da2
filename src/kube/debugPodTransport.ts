// The node debug-pod transport, like `kubectl debug node/<n>`: a short-lived pod pinned to the node with
// `nodeName`, `hostPID: true` and the host's root mounted read-only at /host; the node-scope probe then
// runs in it through pod exec with `hostRoot '/host'` (this transport's `hostRoot`; the caller passes it to
// runProbe).
//
// The pod's manifest is debugPodSpec.ts's; the wait until it runs is debugPodStart.ts's, its deletion
// debugPodCleanup.ts's, and the options and states debugPodOptions.ts's.
//
// The pod is ALWAYS deleted: a finally block deletes it after success, failure, timeout and cancel (with
// its own deadline, never the cancelled signal), a create that failed in a way that may still have created
// it (a timeout, a dropped connection, a 5xx) is followed by a delete by name, and close() deletes whatever
// is left. Deletion uses gracePeriodSeconds 0. When deletion is forbidden the failure is recorded in
// `cleanupFailures` and logged with the command to run; activeDeadlineSeconds still stops the pod.
//
// Before its first pod, a transport removes its creator's finished or expired debug pods in the namespace
// (debugPodSweep.ts; option `sweep`), and logs how many. The pod is labelled with its creator (`creator`,
// default user@host). /host is mounted recursively read-only when the node's runtime supports it (read from
// the Node with the taints; `hostMount` says which), and a log line says so when it cannot be.
// With a `registry` (VS Code), the transport is tracked from construction until close(), so deactivate can
// close (and delete the pods of) every Inspect Node still in flight.
//
// RBAC refusals name the verb and resource: `create pods`, `create pods/exec`, `delete pods` (and `watch pods`,
// which falls back to polling `get pods`).
//
// Lifetime (option `lifetime`): `per-run` (the default, the CLI and one-shot reports) creates a pod per run()
// and deletes it after. `retained` (the inspector's live sampling) keeps the pod of the first run and execs
// every later run in it (one exec per run, runs one at a time), with a state that is one of
// none | starting | ready | closed:
// - the pod gets a longer activeDeadlineSeconds (default 1 h), so the kubelet still stops it when VS Code
//   dies; a run that would end past that deadline first replaces the pod with a new one;
// - a pod that is gone behind our back (deleted, ended at its deadline, evicted by a drain) is noticed when
//   an exec in it fails to connect: the pod is read, and when it is gone (404, Failed/Succeeded, being
//   deleted) a new one is created and the run is retried in it once;
// - after `idleMs` (default 2 min) without a run the pod is deleted; the next run creates a new one;
// - close() deletes it (with its own deadline), and a run still starting a pod when close() is called
//   deletes that pod and ends as cancelled.
import type { V1Pod } from '@kubernetes/client-node';
import { DEBUG_CONTAINER, DEBUG_HOST_ROOT, DEBUG_POD_IMAGE, debugPodManifest, debugPodName } from './debugPodSpec.ts';
import { DebugPodCleanup } from './debugPodCleanup.ts';
import {
  DEADLINE_MARGIN_MS,
  DEBUG_POD_DEADLINE_SECONDS,
  RETAINED_DEBUG_POD_DEADLINE_SECONDS,
  RETAINED_DEBUG_POD_IDLE_MS,
} from './debugPodOptions.ts';
import type { DebugPodState, DebugPodTransportOptions, HostMount } from './debugPodOptions.ts';
import { debugPodNodeFacts, waitForDebugPodRunning, withDebugPodRbac } from './debugPodStart.ts';
import type { DebugPodPlace } from './debugPodStart.ts';
import { localCreator, sweepDebugPods } from './debugPodSweep.ts';
import type { SweepOutcome } from './debugPodSweep.ts';
import type { ExecRequest, ExecResult, Transport } from '../core/probe/transport.ts';
import { TransportError } from '../core/probe/transport.ts';
import { KubeRequestError } from './kubeRequestError.ts';
import { PodExecTransport, transportFailureOf } from './podExecTransport.ts';

// The names this module offered before its options, start and clean-up moved out.
export { DEBUG_POD_DEADLINE_SECONDS, RETAINED_DEBUG_POD_DEADLINE_SECONDS, RETAINED_DEBUG_POD_IDLE_MS } from './debugPodOptions.ts';
export type { DebugPodExecFactory, DebugPodLifetime, DebugPodState, DebugPodTransportOptions, HostMount } from './debugPodOptions.ts';

export class DebugPodTransport implements Transport {
  readonly hostRoot = DEBUG_HOST_ROOT;
  readonly target: string;
  /** Pods that could not be deleted, with the reason and the command to remove them. */
  readonly cleanupFailures: string[];
  readonly #options: DebugPodTransportOptions;
  readonly #namespace: string;
  readonly #place: DebugPodPlace;
  readonly #cleanup: DebugPodCleanup;
  readonly #execs = new Set<Transport>();
  #lastPod: string | undefined;
  #state: DebugPodState = { kind: 'none' };
  /** Retained runs, one at a time (and the idle deletion between them). */
  #queue: Promise<void> = Promise.resolve();
  #runs = 0;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #hostMount: HostMount = { kind: 'unknown' };
  #sweep: Promise<SweepOutcome> | undefined;
  readonly #creator: string;

  constructor(options: DebugPodTransportOptions) {
    this.#options = options;
    this.#namespace = options.namespace ?? 'default';
    this.#creator = options.creator ?? localCreator();
    this.target = `debug pod on node/${options.node} (context ${options.client.context})`;
    this.#place = {
      client: options.client,
      namespace: this.#namespace,
      node: options.node,
      image: options.image ?? DEBUG_POD_IMAGE,
      log: (line) => this.#log(line),
    };
    this.#cleanup = new DebugPodCleanup(this.#place, options.cleanupTimeoutMs ?? 15_000, options.onCleanupFailure);
    this.cleanupFailures = this.#cleanup.failures;
    options.registry?.track(this);
  }

  /** How /host was mounted in the last pod created (see the header). */
  get hostMount(): HostMount {
    return this.#hostMount;
  }

  /** What the leftover sweep did (undefined before the first pod, or with `sweep: false`). */
  async sweepOutcome(): Promise<SweepOutcome | undefined> {
    return this.#sweep;
  }

  /** Once per transport, before its first pod: this creator's finished or expired debug pods are deleted. */
  async #sweepLeftovers(signal: AbortSignal | undefined): Promise<void> {
    if (this.#options.sweep === false) return;
    this.#sweep ??= sweepDebugPods(this.#options.client, this.#namespace, this.#creator, {
      signal,
      timeoutMs: this.#options.cleanupTimeoutMs ?? 15_000,
    }).then(
      (outcome) => {
        if (outcome.kind === 'skipped') this.#log(outcome.reason);
        else if (outcome.removed.length > 0 || outcome.failed.length > 0) {
          this.#log(
            `removed ${outcome.removed.length} leftover debug pod(s) of ${this.#creator} in ${this.#namespace}${outcome.removed.length > 0 ? `: ${outcome.removed.join(', ')}` : ''}${outcome.failed.length > 0 ? `; could not remove ${outcome.failed.join(', ')}` : ''}`,
          );
        }
        return outcome;
      },
      (error: unknown) => {
        if (error instanceof KubeRequestError && error.failure.kind === 'cancelled') throw new TransportError({ kind: 'cancelled' });
        return { kind: 'skipped', reason: String(error) } as const;
      },
    );
    try {
      await this.#sweep;
    } catch (error) {
      this.#sweep = undefined; // a cancelled sweep is tried again by the next run
      throw error;
    }
  }

  /** The name of the last debug pod created, for messages and tests. */
  get lastPod(): string | undefined {
    return this.#lastPod;
  }

  /** The retained pod (see the header). */
  get state(): DebugPodState {
    return this.#state;
  }

  get #deadlineSeconds(): number {
    return (
      this.#options.activeDeadlineSeconds ??
      (this.#options.lifetime?.kind === 'retained' ? RETAINED_DEBUG_POD_DEADLINE_SECONDS : DEBUG_POD_DEADLINE_SECONDS)
    );
  }

  #log(line: string): void {
    try {
      this.#options.log?.(`[debug pod ${this.#options.node}] ${line}`);
    } catch {
      // A closed output channel (the extension host shutting down) must not stop a deletion.
    }
  }

  async run(request: ExecRequest): Promise<ExecResult> {
    this.#ensureOpen(request.signal);
    const lifetime = this.#options.lifetime;
    if (lifetime?.kind === 'retained')
      return this.#exclusive(() => this.#runRetained(request, lifetime.idleMs ?? RETAINED_DEBUG_POD_IDLE_MS));
    const name = debugPodName(this.#options.node);
    await this.#startPod(name, request.signal);
    try {
      return await this.#execIn(name, request);
    } finally {
      await this.#cleanup.delete(name);
    }
  }

  /** Throws `cancelled` once the run is cancelled or the transport closed. */
  #ensureOpen(signal: AbortSignal | undefined): void {
    if (signal?.aborted || this.#state.kind === 'closed') throw new TransportError({ kind: 'cancelled' });
  }

  /** Runs `body` after every retained run queued before it. */
  async #exclusive<T>(body: () => Promise<T>): Promise<T> {
    const previous = this.#queue;
    let release: () => void = () => undefined;
    this.#queue = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      return await body();
    } finally {
      release();
    }
  }

  /** A run in the retained pod (see the header): reuse it, replace it before its deadline, recreate it when gone. */
  async #runRetained(request: ExecRequest, idleMs: number): Promise<ExecResult> {
    this.#runs++;
    clearTimeout(this.#idleTimer);
    try {
      this.#ensureOpen(request.signal);
      const current = this.#state;
      if (current.kind === 'ready' && Date.now() + request.timeoutMs + DEADLINE_MARGIN_MS >= current.expiresAt) {
        this.#log(`${this.#namespace}/${current.name} is close to its activeDeadlineSeconds (${this.#deadlineSeconds} s): replacing it`);
        await this.#drop();
      }
      const kept = this.#state;
      const name = kept.kind === 'ready' ? kept.name : await this.#startRetained(request.signal);
      try {
        return await this.#execIn(name, request);
      } catch (error) {
        this.#ensureOpen(request.signal);
        const gone = kept.kind === 'ready' ? await this.#gone(name, error, request.signal) : undefined;
        if (gone === undefined) throw error;
        this.#log(`${this.#namespace}/${name} is gone (${gone}): creating a new debug pod`);
        await this.#drop();
        return await this.#execIn(await this.#startRetained(request.signal), request);
      }
    } finally {
      this.#armIdle(idleMs);
    }
  }

  /** Creates the retained pod and waits for it to run; its name. */
  async #startRetained(signal: AbortSignal | undefined): Promise<string> {
    this.#ensureOpen(signal);
    const name = debugPodName(this.#options.node);
    const expiresAt = Date.now() + this.#deadlineSeconds * 1000;
    this.#state = { kind: 'starting', name };
    try {
      await this.#startPod(name, signal);
    } catch (error) {
      // (Read through the getter: close() may have changed the state while this awaited.)
      if (this.state.kind !== 'closed') this.#state = { kind: 'none' };
      throw error;
    }
    if (this.state.kind === 'closed') {
      await this.#cleanup.delete(name);
      throw new TransportError({ kind: 'cancelled' });
    }
    this.#state = { kind: 'ready', name, expiresAt };
    return name;
  }

  /** After an exec in the retained pod failed: why the pod is gone (404, ended, being deleted), or undefined when it is not. */
  async #gone(name: string, error: unknown, signal: AbortSignal | undefined): Promise<string | undefined> {
    if (!(error instanceof TransportError)) return undefined;
    const failure = error.failure;
    if (failure.kind !== 'connect' && failure.kind !== 'disconnected' && !(failure.kind === 'timeout' && failure.phase === 'connect'))
      return undefined;
    try {
      const pod = await this.#options.client.readPod(this.#namespace, name, {
        signal,
        timeoutMs: this.#options.cleanupTimeoutMs ?? 15_000,
      });
      if (pod.metadata?.deletionTimestamp) return 'it is being deleted';
      const phase = pod.status?.phase;
      if (phase === 'Failed' || phase === 'Succeeded') return `it ended: ${phase}${pod.status?.reason ? ` ${pod.status.reason}` : ''}`;
      return undefined;
    } catch (readError) {
      return readError instanceof KubeRequestError && readError.failure.kind === 'not-found' ? 'it was deleted' : undefined;
    }
  }

  /** Deletes the retained pod (if any); the next run creates a new one. */
  async #drop(): Promise<void> {
    const current = this.#state;
    if (current.kind !== 'ready') return;
    this.#state = { kind: 'none' };
    await this.#cleanup.delete(current.name);
  }

  /** Deletes the retained pod after `idleMs` without a run. */
  #armIdle(idleMs: number): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    const current = this.#state;
    if (current.kind !== 'ready') return;
    const runs = this.#runs;
    this.#idleTimer = setTimeout(() => {
      void this.#exclusive(async () => {
        if (this.#runs !== runs || this.#state !== current) return;
        this.#log(
          `no run for ${Math.round(idleMs / 1000)} s: deleting ${this.#namespace}/${current.name} (the next run creates a new one)`,
        );
        await this.#drop();
      });
    }, idleMs);
    // Never what keeps a process (the CLI, a test) alive: close() deletes the pod anyway.
    this.#idleTimer.unref?.();
  }

  /**
   * Creates the pod `name` and waits until it runs. On any failure (cancel, close, timeout) a pod that may have
   * been created is deleted before this throws TransportError.
   */
  async #startPod(name: string, signal: AbortSignal | undefined): Promise<void> {
    const client = this.#options.client;
    const startMs = this.#options.startTimeoutMs ?? 120_000;
    let mayExist = false;
    try {
      await this.#sweepLeftovers(signal);
      const { tolerations, recursiveReadOnly } = await debugPodNodeFacts(this.#place, this.#options.tolerations, signal);
      this.#hostMount =
        recursiveReadOnly === 'supported' ? { kind: 'recursive-read-only' } : { kind: 'top-read-only', support: recursiveReadOnly };
      if (recursiveReadOnly !== 'supported') {
        this.#log(
          `/host is read-only at its top mount only: the node's runtime ${recursiveReadOnly === 'unsupported' ? 'does not support' : 'does not report (Kubernetes < 1.30?)'} recursive read-only mounts (status.runtimeHandlers), so mounts below the node's / stay writable through /host`,
        );
      }
      const manifest = debugPodManifest({
        name,
        namespace: this.#namespace,
        node: this.#options.node,
        image: this.#options.image ?? DEBUG_POD_IMAGE,
        activeDeadlineSeconds: this.#deadlineSeconds,
        tolerations,
        capabilities: this.#options.capabilities ?? ['SYS_PTRACE'],
        privileged: this.#options.privileged ?? false,
        recursiveReadOnly: recursiveReadOnly === 'supported',
        creator: this.#creator,
      });
      this.#ensureOpen(signal);
      let created: V1Pod;
      mayExist = true;
      this.#cleanup.pending.add(name);
      this.#lastPod = name;
      try {
        created = await client.createPod(this.#namespace, manifest, { signal });
      } catch (error) {
        if (!(error instanceof KubeRequestError)) throw error;
        const kind = error.failure.kind;
        // Refused outright: nothing was created (and a 409 would be somebody else's pod: never delete it).
        if (
          kind === 'forbidden' ||
          kind === 'unauthorized' ||
          kind === 'credentials' ||
          kind === 'config' ||
          (kind === 'http' && error.failure.status >= 400 && error.failure.status < 500 && error.failure.status !== 429)
        ) {
          mayExist = false;
          this.#cleanup.pending.delete(name);
        }
        throw new TransportError(withDebugPodRbac(transportFailureOf(error.failure, 'connect', startMs), this.#namespace));
      }
      // It exists now, even if close() already tried to delete it before the create was answered.
      this.#cleanup.pending.add(name);
      this.#log(`created ${this.#namespace}/${name}`);
      this.#ensureOpen(signal);
      await waitForDebugPodRunning(this.#place, name, created.metadata?.resourceVersion, startMs, signal);
      this.#ensureOpen(signal);
    } catch (error) {
      if (mayExist) await this.#cleanup.delete(name);
      // close() while the pod started (its watch then saw the pod deleted): the run was cancelled.
      if (this.#state.kind === 'closed') throw new TransportError({ kind: 'cancelled' });
      throw error;
    }
  }

  /** The exec transport into the debug container of pod `name` (option `exec`, else client-node's WebSocket). */
  #openExec(name: string): Transport {
    if (this.#options.exec) return this.#options.exec({ namespace: this.#namespace, pod: name, container: DEBUG_CONTAINER });
    const client = this.#options.client;
    return new PodExecTransport({
      kubeConfig: client.kubeConfig,
      namespace: this.#namespace,
      pod: name,
      container: DEBUG_CONTAINER,
      client,
      target: this.target,
    });
  }

  /** One exec of `sh -s` in the debug pod's container. */
  async #execIn(name: string, request: ExecRequest): Promise<ExecResult> {
    const exec = this.#openExec(name);
    this.#execs.add(exec);
    try {
      return await exec.run(request);
    } catch (error) {
      if (error instanceof TransportError) throw new TransportError(withDebugPodRbac(error.failure, this.#namespace));
      throw error;
    } finally {
      this.#execs.delete(exec);
      await exec.close();
    }
  }

  /** Stops a run in progress (its socket) and deletes any debug pod still left, the retained one too. Runs after it are cancelled. */
  async close(): Promise<void> {
    this.#state = { kind: 'closed' };
    this.#options.registry?.untrack(this);
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    for (const exec of this.#execs) await exec.close();
    for (const name of [...this.#cleanup.pending]) await this.#cleanup.delete(name);
  }
}
