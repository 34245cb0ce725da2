// The webview's side of a protocol's requests (./protocol.ts): it sends each request with a fresh correlation id,
// keeps it pending until the host's `response` with that id arrives, and checks the result's shape against the
// request's method. A request the host does not answer in time settles as a timeout, so a host that never answers
// leaves nothing busy for ever; if its answer still comes (a save dialog left open a long time), it goes to the
// request's `onLate` callback. Pure (timers are injected), so the unit tests run it.
import { errorMessage } from '../errorMessage.ts';
import type { RequestMethodOf, RequestOf, RequestParamsOf, RequestResultOf, RequestTable, ResponseParams } from './protocol.ts';

/** The part of a protocol (WebviewProtocol) its requests need. */
export interface RequestCodec<R extends RequestTable> {
  readonly requestTimeouts: Readonly<Record<RequestMethodOf<R>, number>>;
  request<M extends RequestMethodOf<R>>(id: string, method: M, params: RequestParamsOf<R, M>): RequestOf<R, M>;
  parseRequestResult<M extends RequestMethodOf<R>>(method: M, value: unknown): RequestResultOf<R, M> | undefined;
}

/** Why a request did not succeed: the host said it failed, it did not answer in time, its answer was malformed, or the page closed. */
export type FailureReason = 'failed' | 'timeout' | 'malformed' | 'disposed';

export type RequestOutcome<R> =
  { readonly ok: true; readonly result: R } | { readonly ok: false; readonly reason: FailureReason; readonly error: string };

export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface PendingRequestsOptions<R extends RequestTable> {
  /** The panel's protocol: its requests and their checks. */
  readonly protocol: RequestCodec<R>;
  /** Posts a request to the host. */
  readonly send: (message: RequestOf<R>) => void;
  /** A prefix for the ids, unique to this page (a re-created webview must not take an answer meant for the old one). */
  readonly idPrefix: string;
  readonly timeouts?: Readonly<Record<RequestMethodOf<R>, number>>;
  readonly timers?: Timers;
}

export interface RequestOptions<R> {
  /** Overrides the method's timeout. */
  readonly timeoutMs?: number;
  /** An answer that came after the timeout. */
  readonly onLate?: (outcome: RequestOutcome<R>) => void;
}

interface Pending {
  readonly method: string;
  readonly resolve: (outcome: RequestOutcome<unknown>) => void;
  readonly onLate: ((outcome: RequestOutcome<unknown>) => void) | undefined;
  readonly timer: unknown;
}

/** How many timed-out requests are remembered for their late answers. */
const MAX_EXPIRED = 16;

export class PendingRequests<R extends RequestTable> {
  readonly #options: PendingRequestsOptions<R>;
  readonly #timers: Timers;
  readonly #pending = new Map<string, Pending>();
  readonly #expired = new Map<string, Pick<Pending, 'method' | 'onLate'>>();
  #counter = 0;
  #disposed = false;

  constructor(options: PendingRequestsOptions<R>) {
    if (!/^[A-Za-z0-9_.:-]{1,40}$/.test(options.idPrefix)) throw new Error('the id prefix must be 1 to 40 letters, digits, _ . : or -');
    this.#options = options;
    this.#timers = options.timers ?? realTimers;
  }

  /** Requests waiting for their answer. */
  get size(): number {
    return this.#pending.size;
  }

  /** Sends a request; the promise resolves (never rejects) with its result or why there is none. */
  request<M extends RequestMethodOf<R>>(
    method: M,
    params: RequestParamsOf<R, M>,
    options: RequestOptions<RequestResultOf<R, M>> = {},
  ): Promise<RequestOutcome<RequestResultOf<R, M>>> {
    if (this.#disposed) return Promise.resolve({ ok: false, reason: 'disposed', error: 'The panel is closing.' });
    const id = `${this.#options.idPrefix}-${++this.#counter}`;
    const timeoutMs = options.timeoutMs ?? (this.#options.timeouts ?? this.#options.protocol.requestTimeouts)[method];
    return new Promise((resolve) => {
      const timer = this.#timers.set(() => {
        const pending = this.#pending.get(id);
        if (!pending) return;
        this.#pending.delete(id);
        this.#expired.set(id, { method, onLate: pending.onLate });
        while (this.#expired.size > MAX_EXPIRED) this.#expired.delete(this.#expired.keys().next().value as string);
        resolve({ ok: false, reason: 'timeout', error: `No answer from the extension host after ${Math.round(timeoutMs / 1000)} s.` });
      }, timeoutMs);
      this.#pending.set(id, {
        method,
        resolve: resolve as (outcome: RequestOutcome<unknown>) => void,
        onLate: options.onLate as ((outcome: RequestOutcome<unknown>) => void) | undefined,
        timer,
      });
      try {
        this.#options.send(this.#options.protocol.request(id, method, params) as RequestOf<R>);
      } catch (error) {
        this.#timers.clear(timer);
        this.#pending.delete(id);
        resolve({
          ok: false,
          reason: 'failed',
          error: `The request could not be sent: ${errorMessage(error)}`,
        });
      }
    });
  }

  /**
   * A response from the host: settles its request (or goes to the `onLate` of one that timed out). False when
   * no request has that id (never sent from this page, or already answered): the response is ignored.
   */
  settle(response: ResponseParams): boolean {
    const pending = this.#pending.get(response.id);
    if (pending) {
      this.#pending.delete(response.id);
      this.#timers.clear(pending.timer);
      pending.resolve(this.#outcome(pending.method, response));
      return true;
    }
    const expired = this.#expired.get(response.id);
    if (expired) {
      this.#expired.delete(response.id);
      expired.onLate?.(this.#outcome(expired.method, response));
      return true;
    }
    return false;
  }

  /** Settles every pending request as failed; later requests fail at once. */
  dispose(): void {
    this.#disposed = true;
    for (const [id, pending] of [...this.#pending]) {
      this.#pending.delete(id);
      this.#timers.clear(pending.timer);
      pending.resolve({ ok: false, reason: 'disposed', error: 'The panel is closing.' });
    }
    this.#expired.clear();
  }

  #outcome(method: string, response: ResponseParams): RequestOutcome<unknown> {
    if (!response.ok) return { ok: false, reason: 'failed', error: response.error };
    const result = this.#options.protocol.parseRequestResult(method as RequestMethodOf<R>, response.result);
    return result === undefined
      ? { ok: false, reason: 'malformed', error: `The extension host's answer to ${method} is not one this panel understands.` }
      : { ok: true, result };
  }
}
