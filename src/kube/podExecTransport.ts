// The pod-exec transport: `sh -s` in a container through client-node's Exec (the API server's exec
// WebSocket), with the probe script written to stdin.
//
// What client-node 2.x does and what this file adds (read from dist/exec.js and dist/web-socket-handler.js):
// - Exec.exec() offers v5.channel.k8s.io, v4, v3, v2 and channel.k8s.io, resolves with the open socket, writes
//   our stdin stream's data as channel-0 frames, and when that stream ENDS it sends the v5 close signal
//   [255, 0] — or, on any older protocol, closes the WHOLE socket. So on v4 stdin is never ended here: the
//   script is followed by an `exit` line instead (`exit` without a status keeps the last command's status,
//   which is what `sh -s` returns at end of input anyway).
// - The status channel (3) carries a metav1.Status: Success → 0; Failure with reason NonZeroExitCode → the
//   `ExitCode` cause's message; any other Failure (a command missing from the image) → a spawn failure.
//   client-node closes the socket after it.
// - The handler's default streams are process.stdin/stdout/stderr, and a server close frame [255, n] would
//   end process.stdout and then throw "Unknown stream: 255" from the message handler. A WebSocketHandler with
//   this run's own streams, whose binary handler ignores channel 255, avoids both.
// - A refused upgrade rejects with ws's error event, `Unexpected server response: 403`; it carries no body,
//   so a 403 here is reported as `create pods/exec` (the exec subresource is reached with the create verb).
// - Timeout, cancel and the output cap terminate the socket. As with `kubectl exec`, that does not kill the
//   process in the container; the probe scripts bound their own run time.
import { PassThrough, Writable } from 'node:stream';
import { Exec } from '@kubernetes/client-node';
import type { KubeConfig, V1Status } from '@kubernetes/client-node';
import { WebSocketHandler } from '@kubernetes/client-node/dist/web-socket-handler.js';
import type { ExecRequest, ExecResult, Transport, TransportFailure } from '../core/probe/transport.ts';
import { TransportError } from '../core/probe/transport.ts';
import type { KubeFailure } from '../core/kube/kubeFailure.ts';
import { classifyKubeError, describeKubeFailure } from '../core/kube/kubeFailure.ts';
import { defaultExecContainer } from '../core/kube/pods.ts';
import { ExecRun } from '../transports/execRun.ts';
import type { ClusterClient } from './clusterClient.ts';
import { KubeRequestError } from './clusterClient.ts';

export const POD_EXEC_COMMAND: readonly string[] = ['sh', '-s'];
const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

/** A KubeFailure as the Transport contract's failure union. */
export function transportFailureOf(failure: KubeFailure, phase: 'connect' | 'command', ms: number): TransportFailure {
  switch (failure.kind) {
    case 'forbidden':
      return { kind: 'forbidden', verb: failure.verb, resource: failure.resource, detail: failure.message };
    case 'unauthorized':
      return { kind: 'auth', detail: `401 Unauthorized: ${failure.message}` };
    case 'credentials':
      return { kind: 'auth', detail: failure.message };
    case 'cancelled':
      return { kind: 'cancelled' };
    case 'timeout':
      return { kind: 'timeout', phase, ms };
    default:
      return { kind: 'connect', detail: describeKubeFailure(failure) };
  }
}

/** The exit status in an exec Status (see the header). */
export function exitCodeOfStatus(status: V1Status | Record<string, unknown> | undefined): { exitCode: number | null; error?: string } {
  const s = status as
    { status?: string; reason?: string; message?: string; details?: { causes?: { reason?: string; message?: string }[] } } | undefined;
  if (!s) return { exitCode: null };
  if (s.status === 'Success') return { exitCode: 0 };
  if (s.reason === 'NonZeroExitCode') {
    const cause = s.details?.causes?.find((c) => c.reason === 'ExitCode');
    const code = cause?.message !== undefined ? Number.parseInt(cause.message, 10) : Number.NaN;
    if (Number.isFinite(code)) return { exitCode: code };
    const fromMessage = /exit code (\d+)/.exec(s.message ?? '');
    return { exitCode: fromMessage ? Number(fromMessage[1]) : null };
  }
  return { exitCode: null, error: s.message ?? s.reason ?? 'the command failed to start' };
}

/**
 * client-node's handler with this run's streams (see the header). Its binary handler ignores close frames
 * from the server, and hands a status-channel payload that is not JSON (the pre-v4 protocols write the bare
 * message there) to `onStatusText` instead of letting JSON.parse throw inside the socket's message event.
 */
class ProbeSocketHandler extends WebSocketHandler {
  readonly #onStatusText: (text: string) => void;

  constructor(
    kc: KubeConfig,
    socketFactory: SocketFactory | undefined,
    streams: { stdin: PassThrough; stdout: Writable; stderr: Writable },
    onStatusText: (text: string) => void,
  ) {
    super(kc, socketFactory, streams);
    this.#onStatusText = onStatusText;
  }

  override connect(
    path: string,
    textHandler: ((text: string) => boolean) | null,
    binaryHandler: ((stream: number, buff: Buffer) => boolean) | null,
  ): ReturnType<WebSocketHandler['connect']> {
    const onStatusText = this.#onStatusText;
    const guarded = binaryHandler
      ? (stream: number, buff: Buffer): boolean => {
          if (stream === WebSocketHandler.CloseStream) return true;
          if (stream === WebSocketHandler.StatusStream && buff.length > 0) {
            try {
              JSON.parse(buff.toString('utf8'));
            } catch {
              onStatusText(buff.toString('utf8'));
              return false;
            }
          }
          return binaryHandler(stream, buff);
        }
      : null;
    return super.connect(path, textHandler, guarded);
  }
}

/** client-node's socket factory hook: (uri, offered subprotocols, ws options) → a ws WebSocket. */
export type SocketFactory = ConstructorParameters<typeof WebSocketHandler>[1];

interface Socket {
  readonly protocol: string;
  close(): void;
  terminate?(): void;
  on(event: 'close', listener: (code: number, reason: Buffer) => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
}

export interface PodExecTransportOptions {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  readonly pod: string;
  /** The container; default: the one `kubectl exec` would pick (defaultExecContainer), read from the pod. */
  readonly container?: string;
  /** Used to read the pod when no container is given, with its timeouts. */
  readonly client?: ClusterClient;
  /** Default ['sh', '-s']. */
  readonly command?: readonly string[];
  /** Opens the WebSocket (client-node's hook), e.g. to offer only v4.channel.k8s.io in tests. */
  readonly socketFactory?: SocketFactory;
  /** From opening the socket to the first byte of the script. Default 30 s. */
  readonly connectTimeoutMs?: number;
  /** For reports. Default `pod <ns>/<pod>[ -c <container>]` plus the context when known. */
  readonly target?: string;
}

export class PodExecTransport implements Transport {
  readonly target: string;
  readonly #options: PodExecTransportOptions;
  readonly #sockets = new Set<Socket>();
  #container: string | undefined;

  constructor(options: PodExecTransportOptions) {
    this.#options = options;
    this.#container = options.container;
    const context = options.client ? ` (context ${options.client.context})` : '';
    this.target =
      options.target ?? `pod ${options.namespace}/${options.pod}${options.container ? ` -c ${options.container}` : ''}${context}`;
  }

  /** The container the last run used (after defaulting). */
  get container(): string | undefined {
    return this.#container;
  }

  async #resolveContainer(signal: AbortSignal | undefined): Promise<string | undefined> {
    if (this.#container !== undefined || !this.#options.client) return this.#container;
    try {
      const pod = await this.#options.client.readPod(this.#options.namespace, this.#options.pod, { signal });
      this.#container = defaultExecContainer(pod);
    } catch (error) {
      if (!(error instanceof KubeRequestError)) throw error;
      // May exec but not get pods: let the API server pick (it does when the pod has one container).
      if (error.failure.kind === 'forbidden') return undefined;
      throw new TransportError(transportFailureOf(error.failure, 'connect', this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS));
    }
    return this.#container;
  }

  async run(request: ExecRequest): Promise<ExecResult> {
    if (request.signal?.aborted) throw new TransportError({ kind: 'cancelled' });
    const container = await this.#resolveContainer(request.signal);
    if (request.signal?.aborted) throw new TransportError({ kind: 'cancelled' });
    const connectMs = this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const command = [...(this.#options.command ?? POD_EXEC_COMMAND)];

    const stdin = new PassThrough();
    let socket: Socket | undefined;
    let status: V1Status | undefined;
    let statusText: string | undefined;
    const kill = (): void => {
      if (!socket) return;
      try {
        if (socket.terminate) socket.terminate();
        else socket.close();
      } catch {
        // already closed
      }
    };
    // Past the output cap the socket is terminated and the run settles at once: nothing more can be said.
    const run = new ExecRun({
      request,
      connectTimeoutMs: connectMs,
      afterOverflow: 'settle',
      stop: kill,
      onSettled: () => {
        stdin.destroy();
        if (socket) this.#sockets.delete(socket);
      },
    });
    const sink = (stream: 'stdout' | 'stderr'): Writable => {
      const writable = new Writable({
        write: (chunk: Buffer, _encoding, callback) => {
          run.take(stream, chunk);
          callback();
        },
      });
      // client-node ends these when the status arrives; a late frame must not become an unhandled 'error'.
      writable.on('error', () => undefined);
      return writable;
    };

    const streams = { stdin, stdout: sink('stdout'), stderr: sink('stderr') };
    const handler = new ProbeSocketHandler(this.#options.kubeConfig, this.#options.socketFactory, streams, (text) => {
      statusText = text;
    });
    const exec = new Exec(this.#options.kubeConfig, handler);
    exec
      .exec(this.#options.namespace, this.#options.pod, container as string, command, streams.stdout, streams.stderr, stdin, false, (s) => {
        status = s;
      })
      .then(
        (ws) => {
          socket = ws as unknown as Socket;
          if (run.settled) {
            kill(); // cancelled or timed out while connecting
            return;
          }
          this.#sockets.add(socket);
          run.started();
          socket.on('error', () => undefined); // the close event follows and decides
          socket.on('close', (code, reason) => {
            if (run.settled) return;
            if (status === undefined && statusText !== undefined) {
              // channel.k8s.io … v3: the failure message as text.
              const parsed = /exit code (\d+)/.exec(statusText);
              if (parsed) run.finish(Number(parsed[1]));
              else run.fail({ kind: 'spawn', detail: `${command.join(' ')}: ${statusText.trim()}` });
              return;
            }
            if (
              status === undefined &&
              code === 1000 &&
              socket?.protocol !== 'v5.channel.k8s.io' &&
              socket?.protocol !== 'v4.channel.k8s.io'
            ) {
              // The pre-v4 protocols say nothing on success.
              run.finish(0);
              return;
            }
            const exit = exitCodeOfStatus(status);
            if (status === undefined) {
              run.fail({
                kind: 'disconnected',
                detail: `the exec WebSocket closed before the exit status arrived (code ${code}${reason.length > 0 ? `, ${reason.toString()}` : ''})`,
              });
            } else if (exit.error !== undefined && exit.exitCode === null) {
              run.fail({ kind: 'spawn', detail: `${command.join(' ')}: ${exit.error}` });
            } else {
              run.finish(exit.exitCode);
            }
          });
          // v5 half-closes stdin; older protocols cannot (see the header).
          if (socket.protocol === 'v5.channel.k8s.io') stdin.end(request.script, 'utf8');
          else stdin.write(`${request.script}${request.script.endsWith('\n') ? '' : '\n'}exit\n`, 'utf8');
        },
        (error: unknown) => {
          const failure = classifyKubeError(error, { verb: 'create', resource: 'pods/exec' });
          const detail =
            failure.kind === 'not-found'
              ? {
                  ...failure,
                  message: `pod ${this.#options.namespace}/${this.#options.pod}${container ? ` or its container "${container}"` : ''} was not found`,
                }
              : failure;
          run.fail(transportFailureOf(detail, 'connect', connectMs));
        },
      );
    return run.result;
  }

  /** Terminates any socket still open. */
  close(): Promise<void> {
    for (const socket of this.#sockets) {
      try {
        if (socket.terminate) socket.terminate();
        else socket.close();
      } catch {
        // gone
      }
    }
    this.#sockets.clear();
    return Promise.resolve();
  }
}
