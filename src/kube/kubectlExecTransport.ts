// The kubectl-binary exec transport (`gpumem.kubernetes.execMode: kubectl`): `sh -s` in a container through
// the user's own `kubectl exec`, for environments where client-node's WebSocket exec cannot get through but
// kubectl can (a proxy or bastion only kubectl is set up for, an SPDY-only gateway, an auth setup only
// kubectl handles). Only the exec goes through kubectl: every read stays on client-node.
//
// - The argv comes from core's kubectlExecInvocation (names validated first; see src/core/kube/kubectlExec.ts)
//   and is run by LocalTransport: spawn() with an argv array and no shell, the script written to kubectl's
//   stdin (kubectl forwards it and half-closes the remote stdin at its end), each output stream capped at
//   maxOutputBytes, kubectl spawned as the leader of its own process group.
// - Timeout and cancel kill that process group (kubectl, and the child a kubectl version dispatcher such as
//   gcloud's starts); as with `kubectl exec` by hand, the process in the container is ended by the API server
//   when the stream closes, and the probe scripts bound their own run time anyway.
// - The exit status: `command terminated with exit code N` → the remote status N (the line is removed from
//   stderr); kubectl's own failures → TransportError with forbidden (verb and resource from the API server's
//   message), auth, connect (pod not found, unreachable server…), spawn (no `sh` in the image) or disconnected.
// - A kubectl binary that cannot be started → a spawn failure that names the setting to fix.
import { delimiter } from 'node:path';
import type { ExecRequest, ExecResult, Transport } from '../core/probe/transport.ts';
import { TransportError } from '../core/probe/transport.ts';
import type { KubectlExecTarget, KubectlInvocation } from '../core/kube/kubectlExec.ts';
import { interpretKubectlExit, kubectlExecInvocation } from '../core/kube/kubectlExec.ts';
import { LocalTransport } from '../transports/local.ts';

export const DEFAULT_KUBECTL = 'kubectl';
export const DEFAULT_MISSING_KUBECTL_HINT =
  'gpumem.kubernetes.execMode is "kubectl": install kubectl, or set gpumem.kubernetes.kubectlPath to its full path, or set gpumem.kubernetes.execMode back to "api"';

export interface KubectlExecTransportOptions extends KubectlExecTarget {
  /** The kubectl binary: a name looked up on PATH or a path. Default `kubectl`. */
  readonly kubectlPath?: string;
  /** kubectl's environment. Default: this process's (KUBECONFIG replaced when several files are given). */
  readonly env?: NodeJS.ProcessEnv;
  /** Said when kubectl cannot be started. Default: names the gpumem.kubernetes.* settings. */
  readonly missingBinaryHint?: string;
  /** For reports. Default `kubectl exec pod <ns>/<pod>[ -c <container>] (context <ctx>)`. */
  readonly target?: string;
}

export class KubectlExecTransport implements Transport {
  readonly target: string;
  readonly #options: KubectlExecTransportOptions;
  readonly #invocation: KubectlInvocation;
  readonly #kubectl: string;
  readonly #running = new Set<LocalTransport>();

  constructor(options: KubectlExecTransportOptions) {
    this.#options = options;
    this.#kubectl = options.kubectlPath?.trim() || DEFAULT_KUBECTL;
    this.#invocation = kubectlExecInvocation(options, delimiter);
    this.target =
      options.target ??
      `kubectl exec pod ${options.namespace}/${options.pod}${options.container ? ` -c ${options.container}` : ''} (context ${options.context})`;
  }

  /** The argv kubectl is started with (binary first), or undefined when a name was refused. For logs and tests. */
  get argv(): readonly string[] | undefined {
    return this.#invocation.kind === 'ok' ? [this.#kubectl, ...this.#invocation.args] : undefined;
  }

  async run(request: ExecRequest): Promise<ExecResult> {
    if (request.signal?.aborted) throw new TransportError({ kind: 'cancelled' });
    const invocation = this.#invocation;
    if (invocation.kind === 'invalid')
      throw new TransportError({ kind: 'spawn', detail: `refusing to run kubectl: ${invocation.problem}` });
    const baseEnv = this.#options.env ?? process.env;
    const env = invocation.kubeconfigEnv !== undefined ? { ...baseEnv, KUBECONFIG: invocation.kubeconfigEnv } : baseEnv;
    const local = new LocalTransport({ command: [this.#kubectl, ...invocation.args], env, target: this.target });
    this.#running.add(local);
    let raw: ExecResult;
    try {
      raw = await local.run(request);
    } catch (error) {
      if (error instanceof TransportError && error.failure.kind === 'spawn') {
        throw new TransportError({
          kind: 'spawn',
          detail: `cannot run kubectl (${error.failure.detail}). ${this.#options.missingBinaryHint ?? DEFAULT_MISSING_KUBECTL_HINT}`,
        });
      }
      throw error;
    } finally {
      this.#running.delete(local);
    }
    const outcome = interpretKubectlExit(raw, this.#options);
    if (outcome.kind === 'failed') throw new TransportError(outcome.failure);
    return outcome.result;
  }

  /** Kills any kubectl still running (its process group). */
  async close(): Promise<void> {
    for (const local of this.#running) await local.close();
    this.#running.clear();
  }
}
