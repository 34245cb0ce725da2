// The typed message protocol between a webview panel's host (src/vscode/…/panel.ts) and its page (webview/…), one
// definition per panel, shared by both sides. Modelled on GitLens's webview IPC (src/webviews/protocol.ts):
//   commands       webview → host, fire-and-forget (the host answers, if at all, with a notification);
//   requests       webview → host, with a correlation `id`: the host answers each with exactly one `response`
//                  notification, `{ id, ok: true, result }` or `{ id, ok: false, error }`, whose result type is
//                  the request descriptor's; the webview keeps the pending ones with a timeout (./requests.ts), so
//                  a host that never answers leaves nothing busy for ever;
//   notifications  host → webview, state pushes (and the responses).
// Every message carries its protocol's version `v` and a `method` that discriminates the union. Both ends validate
// what they receive with the protocol's parsers: the host treats the webview as untrusted input (a compromised or
// stale page), and a restored webview may hold state from an older version. A panel names each message once, with
// the check of its params; the message types are derived from those checks, so a message cannot be declared in one
// place and validated or answered with another shape in the next. Pure (no vscode, no DOM).

export interface Message<M extends string, P> {
  readonly v: number;
  readonly method: M;
  readonly params: P;
}

export type NoParams = Readonly<Record<string, never>>;

/** Checks the params of one message kind: the params, normalised, or undefined when they are not its. */
export type ParamsParser<P> = (params: Readonly<Record<string, unknown>>) => P | undefined;

/** The commands or the notifications of a protocol: each method with its params' check. */
export type ParamsParsers = { readonly [method: string]: ParamsParser<unknown> };

/**
 * A request, named once (GitLens's IpcRequest<Params, Result>): its method, how long the webview waits for the
 * answer, and the two checks of what crosses the boundary: the host's of the params, the webview's of the result.
 */
export interface RequestDescriptor<M extends string, P, R> {
  readonly method: M;
  /** How long the webview waits for the answer; a save waits for the user in a save dialog. */
  readonly timeoutMs: number;
  /** The host's check of the params the webview sent, or undefined when they are not this request's. */
  readonly parseParams: ParamsParser<P>;
  /** The webview's check of a successful answer's result, or undefined when it is not this request's. */
  readonly parseResult: (value: unknown) => R | undefined;
}

export type RequestTable = { readonly [method: string]: RequestDescriptor<string, unknown, unknown> };

export function defineRequest<M extends string, P, R>(descriptor: RequestDescriptor<M, P, R>): RequestDescriptor<M, P, R> {
  return descriptor;
}

/** The message of each method of a parser table (a union when M is). */
export type MessageOf<T extends ParamsParsers, M extends keyof T & string = keyof T & string> = {
  [K in M]: Message<K, NonNullable<ReturnType<T[K]>>>;
}[M];
export type ParamsOf<T extends ParamsParsers, M extends keyof T & string> = NonNullable<ReturnType<T[M]>>;

export type RequestMethodOf<R extends RequestTable> = keyof R & string;
export type RequestParamsOf<R extends RequestTable, M extends RequestMethodOf<R>> = NonNullable<ReturnType<R[M]['parseParams']>>;
export type RequestResultOf<R extends RequestTable, M extends RequestMethodOf<R>> = NonNullable<ReturnType<R[M]['parseResult']>>;
/** A request: a message with a correlation id, one type per method (a union when M is). */
export type RequestOf<R extends RequestTable, M extends RequestMethodOf<R> = RequestMethodOf<R>> = {
  [K in M]: Message<K, RequestParamsOf<R, K>> & { readonly id: string };
}[M];

/** The answer to the request with this `id`: its result (of the request method's type), or why it failed. */
export type ResponseParams<R = unknown> =
  { readonly id: string; readonly ok: true; readonly result: R } | { readonly id: string; readonly ok: false; readonly error: string };
export type ResponseNotification = Message<'response', ResponseParams>;

/** What the host received from the webview. An invalid request with a usable id carries it, so it can be answered. */
export type ParsedWebviewMessage<C extends ParamsParsers, R extends RequestTable> =
  | { readonly kind: 'command'; readonly message: MessageOf<C> }
  | { readonly kind: 'request'; readonly message: RequestOf<R> }
  | { readonly kind: 'invalid'; readonly id: string | undefined };

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const MAX_ID = 512;
export const MAX_ERROR = 4096;

export function shortString(value: unknown, max = MAX_ID): value is string {
  return typeof value === 'string' && value.length <= max;
}

/** A request's correlation id: 1 to 64 letters, digits, `_`, `-`, `.` or `:`. */
export function isRequestId(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_.:-]{1,64}$/.test(value);
}

/** Params with exactly these keys and no others (a stale or tampered page's extras are refused, not ignored). */
export function hasExactly(params: Readonly<Record<string, unknown>>, keys: readonly string[]): boolean {
  const present = Object.keys(params);
  return present.length === keys.length && keys.every((key) => Object.hasOwn(params, key));
}

export function noParams(params: Readonly<Record<string, unknown>>): NoParams | undefined {
  return Object.keys(params).length === 0 ? {} : undefined;
}

export interface ProtocolDefinition<C extends ParamsParsers, N extends ParamsParsers, R extends RequestTable> {
  readonly version: number;
  readonly commands: C;
  /** The host's pushes; `response` is every protocol's own and is not listed. */
  readonly notifications: N;
  readonly requests: R;
}

/** One panel's protocol: its constructors and both sides' checks. */
export class WebviewProtocol<C extends ParamsParsers, N extends ParamsParsers, R extends RequestTable> {
  readonly version: number;
  readonly #definition: ProtocolDefinition<C, N, R>;

  constructor(definition: ProtocolDefinition<C, N, R>) {
    if (Object.hasOwn(definition.notifications, 'response')) throw new Error('`response` is the protocol’s own notification');
    this.version = definition.version;
    this.#definition = definition;
  }

  /** How long the webview waits for each request's answer. */
  get requestTimeouts(): Readonly<Record<RequestMethodOf<R>, number>> {
    return Object.fromEntries(Object.values(this.#definition.requests).map((d) => [d.method, d.timeoutMs])) as Record<
      RequestMethodOf<R>,
      number
    >;
  }

  command<M extends keyof C & string>(method: M, params: ParamsOf<C, M>): MessageOf<C, M> {
    return { v: this.version, method, params } as unknown as MessageOf<C, M>;
  }

  notification<M extends keyof N & string>(method: M, params: ParamsOf<N, M>): MessageOf<N, M> {
    return { v: this.version, method, params } as unknown as MessageOf<N, M>;
  }

  request<M extends RequestMethodOf<R>>(id: string, method: M, params: RequestParamsOf<R, M>): RequestOf<R, M> {
    return { v: this.version, id, method, params } as unknown as RequestOf<R, M>;
  }

  /** The successful answer to `to`: the result's type is the request method's. */
  response<M extends RequestMethodOf<R>>(to: RequestOf<R, M>, result: RequestResultOf<R, M>): ResponseNotification {
    return { v: this.version, method: 'response', params: { id: to.id, ok: true, result } };
  }

  /** The failed answer to the request with this id (a long message is cut). */
  errorResponse(id: string, error: string): ResponseNotification {
    const text = error.length > MAX_ERROR ? `${error.slice(0, MAX_ERROR - 1)}…` : error;
    return { v: this.version, method: 'response', params: { id, ok: false, error: text } };
  }

  /** Any message from the webview: one with an `id` is a request, one without is a command. */
  parseWebviewMessage(value: unknown): ParsedWebviewMessage<C, R> {
    if (isRecord(value) && 'id' in value) {
      const parsed = this.parseWebviewRequest(value);
      if (parsed) return { kind: 'request', message: parsed };
      return { kind: 'invalid', id: value.v === this.version && isRequestId(value.id) ? value.id : undefined };
    }
    const parsed = this.parseWebviewCommand(value);
    return parsed ? { kind: 'command', message: parsed } : { kind: 'invalid', id: undefined };
  }

  /** A request from the webview, or undefined when its version, id, method or parameters are not right. */
  parseWebviewRequest(value: unknown): RequestOf<R> | undefined {
    if (!isRecord(value) || value.v !== this.version || !isRequestId(value.id) || typeof value.method !== 'string') return undefined;
    if (!Object.hasOwn(this.#definition.requests, value.method)) return undefined;
    const descriptor = this.#definition.requests[value.method] as RequestDescriptor<string, unknown, unknown>;
    const params = descriptor.parseParams(isRecord(value.params) ? value.params : {});
    return params === undefined ? undefined : ({ v: this.version, id: value.id, method: descriptor.method, params } as RequestOf<R>);
  }

  /** A command from the webview, or undefined when it is not one this version knows (a request is not a command). */
  parseWebviewCommand(value: unknown): MessageOf<C> | undefined {
    if (!isRecord(value) || value.v !== this.version || typeof value.method !== 'string') return undefined;
    if (!Object.hasOwn(this.#definition.commands, value.method)) return undefined;
    const parse = this.#definition.commands[value.method] as ParamsParser<unknown>;
    const params = parse(isRecord(value.params) ? value.params : {});
    return params === undefined ? undefined : ({ v: this.version, method: value.method, params } as MessageOf<C>);
  }

  /** A notification from the host (the webview's side of the check). */
  parseHostNotification(value: unknown): MessageOf<N> | ResponseNotification | undefined {
    if (!isRecord(value) || value.v !== this.version || typeof value.method !== 'string' || !isRecord(value.params)) return undefined;
    const params = value.params;
    if (value.method === 'response') {
      // The result's shape depends on the request's method, which only the webview's pending request knows:
      // parseRequestResult checks it there.
      if (!isRequestId(params.id)) return undefined;
      if (params.ok === true && 'result' in params)
        return { v: this.version, method: 'response', params: { id: params.id, ok: true, result: params.result } };
      if (params.ok === false && shortString(params.error, MAX_ERROR))
        return { v: this.version, method: 'response', params: { id: params.id, ok: false, error: params.error } };
      return undefined;
    }
    if (!Object.hasOwn(this.#definition.notifications, value.method)) return undefined;
    const parse = this.#definition.notifications[value.method] as ParamsParser<unknown>;
    const parsed = parse(params);
    return parsed === undefined ? undefined : ({ v: this.version, method: value.method, params: parsed } as MessageOf<N>);
  }

  /** A successful response's result checked against its request's method (the webview's side), or undefined. */
  parseRequestResult<M extends RequestMethodOf<R>>(method: M, value: unknown): RequestResultOf<R, M> | undefined {
    if (!Object.hasOwn(this.#definition.requests, method)) return undefined;
    const descriptor = this.#definition.requests[method] as RequestDescriptor<string, unknown, unknown>;
    return descriptor.parseResult(value) as RequestResultOf<R, M> | undefined;
  }
}
