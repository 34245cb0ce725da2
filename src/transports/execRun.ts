// One run of `sh -s` on a target, as a state machine every transport shares (local process, SSH channel,
// pod exec WebSocket): the Transport contract's limits (src/core/probe/transport.ts) are enforced here once,
// and each transport only says how to stop what it started and when its command ended.
//
//   connecting ──started()──▶ running ──cap reached──▶ stopping(overflow) ──▶ settled
//        └──────────────┴── timeout, abort, fail() ─────────┴──────── finish() ──▶ settled
//
// - Settle once: the first of finish(), fail(), the deadline or the abort decides; later events are
//   ignored (a late exit status, a socket error after a timeout).
// - Time: the command deadline (`timeoutMs`) runs from started(); a run created without a connect
//   deadline starts at once. The connect deadline ends in {kind:'timeout', phase:'connect'}.
// - Cancellation: aborting the request's signal stops the run and settles it as {kind:'cancelled'}.
// - Output: each stream keeps at most `maxOutputBytes`; the first chunk past the cap stops the run and
//   the result is `truncated` with `exitCode: null`. What happens next is the transport's `afterOverflow`:
//   `settle` at once (a pod exec socket has nothing more to say), `await-end` (the local process group
//   is killed, its close follows; deadline and abort no longer apply) or `await-end-within-deadline`
//   (an SSH channel closes only after the remote clean-up, which the deadline and abort still bound).
import type { ExecRequest, ExecResult, TransportFailure } from '../core/probe/transport.ts';
import { TransportError } from '../core/probe/transport.ts';
import { OutputBuffer } from './outputBuffer.ts';

/** Why a run is being stopped: told to the transport's `stop`. */
export type ExecStopReason = 'timeout' | 'cancelled' | 'overflow';

/** What a run does once its output passed the cap (see the header). */
export type AfterOverflow = 'settle' | 'await-end' | 'await-end-within-deadline';

export type ExecRunState =
  | { readonly kind: 'connecting' }
  | { readonly kind: 'running' }
  | { readonly kind: 'stopping'; readonly reason: 'overflow' }
  | { readonly kind: 'settled' };

export interface ExecRunOptions {
  readonly request: ExecRequest;
  /** Stops what the run started: kill the process group, reap the remote session, terminate the socket. */
  readonly stop: (reason: ExecStopReason) => void;
  readonly afterOverflow: AfterOverflow;
  /** When given, the run starts `connecting` under this deadline until started(). */
  readonly connectTimeoutMs?: number;
  /** Called once, when the run settles, before its result is delivered (release pipes, sockets, timers). */
  readonly onSettled?: () => void;
}

export class ExecRun {
  readonly stdout: OutputBuffer;
  readonly stderr: OutputBuffer;
  /** Resolves with the result, or rejects with a TransportError. */
  readonly result: Promise<ExecResult>;
  readonly #options: ExecRunOptions;
  #state: ExecRunState;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #resolve: (result: ExecResult) => void = () => undefined;
  #reject: (error: TransportError) => void = () => undefined;
  readonly #onAbort = (): void => this.#expire('cancelled', { kind: 'cancelled' });

  constructor(options: ExecRunOptions) {
    this.#options = options;
    const { request } = options;
    this.stdout = new OutputBuffer(request.maxOutputBytes, request.onStdout);
    this.stderr = new OutputBuffer(request.maxOutputBytes);
    this.result = new Promise<ExecResult>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#state = { kind: options.connectTimeoutMs === undefined ? 'running' : 'connecting' };
    if (request.signal?.aborted) {
      // Nothing was started for this run yet: there is nothing to stop.
      this.#settle(() => this.#reject(new TransportError({ kind: 'cancelled' })));
      return;
    }
    request.signal?.addEventListener('abort', this.#onAbort, { once: true });
    if (options.connectTimeoutMs !== undefined) {
      const ms = options.connectTimeoutMs;
      this.#timer = setTimeout(() => this.#expire('timeout', { kind: 'timeout', phase: 'connect', ms }), ms);
    } else {
      this.#armCommandDeadline();
    }
  }

  get state(): ExecRunState {
    return this.#state;
  }

  get settled(): boolean {
    return this.#state.kind === 'settled';
  }

  /** The command is running on the target: the connect deadline ends, the command deadline starts. */
  started(): void {
    if (this.#state.kind !== 'connecting') return;
    clearTimeout(this.#timer);
    this.#state = { kind: 'running' };
    this.#armCommandDeadline();
  }

  /** A chunk of output; past the cap it stops the run (see the header). */
  take(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    const buffer = stream === 'stdout' ? this.stdout : this.stderr;
    if (buffer.push(chunk) || this.#state.kind !== 'running') return;
    this.#state = { kind: 'stopping', reason: 'overflow' };
    this.#options.stop('overflow');
    if (this.#options.afterOverflow === 'settle') this.finish(null);
  }

  /** The command ended with this status (null: killed or unknown); settles with the output collected. */
  finish(exitCode: number | null): void {
    const overflowed = this.#state.kind === 'stopping';
    this.#settle(() =>
      this.#resolve({
        stdout: this.stdout.text(),
        stderr: this.stderr.text(),
        exitCode: overflowed ? null : exitCode,
        truncated: this.stdout.truncated || this.stderr.truncated,
      }),
    );
  }

  /** The run failed (could not start, the connection dropped…); settles with this failure. */
  fail(failure: TransportFailure): void {
    this.#settle(() => this.#reject(new TransportError(failure)));
  }

  #armCommandDeadline(): void {
    const ms = this.#options.request.timeoutMs;
    this.#timer = setTimeout(() => this.#expire('timeout', { kind: 'timeout', phase: 'command', ms }), Math.max(0, ms));
  }

  /** The deadline passed or the caller aborted: stop, then settle, unless the overflow policy says otherwise. */
  #expire(reason: 'timeout' | 'cancelled', failure: TransportFailure): void {
    const state = this.#state.kind;
    if (state === 'settled') return;
    if (state === 'stopping' && this.#options.afterOverflow === 'await-end') return;
    this.#options.stop(reason);
    this.fail(failure);
  }

  #settle(deliver: () => void): void {
    if (this.#state.kind === 'settled') return;
    this.#state = { kind: 'settled' };
    clearTimeout(this.#timer);
    this.#options.request.signal?.removeEventListener('abort', this.#onAbort);
    this.#options.onSettled?.();
    deliver();
  }
}
