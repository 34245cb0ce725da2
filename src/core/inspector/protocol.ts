// The typed message protocol between the inspector's host (src/vscode/inspectorPanel/panel.ts) and its webview
// (webview/inspector/), shared by both sides. Modelled on GitLens's webview IPC (src/webviews/protocol.ts):
//   commands       webview → host, fire-and-forget (the host answers, if at all, with a notification);
//   requests       webview → host, with a correlation `id`: the host answers each with exactly one `response`
//                  notification, `{ id, ok: true, result }` or `{ id, ok: false, error }`, whose result type
//                  is the request descriptor's (REQUESTS); the webview keeps the pending ones with a timeout
//                  (./requests.ts), so a host that never answers leaves nothing busy for ever;
//   notifications  host → webview, state pushes (and the responses).
// Every message carries the protocol version `v` and a `method` that discriminates the union. Both ends
// validate what they receive with the parse functions below: the host treats the webview as untrusted
// input (it renders text from the target), and a restored webview may hold state from an older version.
import type { ClusterFactsState } from '../inspectorPanel/clusterFactsState.ts';
import { parseClusterFactsState } from '../inspectorPanel/clusterFactsState.ts';
import type { SamplePoint } from '../inspectorPanel/series.ts';
import type { InspectorViewModel } from '../inspectorPanel/viewModelTypes.ts';
import { VIEW_MODEL_VERSION } from '../inspectorPanel/viewModelTypes.ts';

/** 2: the exports and the raw sections' Copy became requests (they were commands answered by a notice). */
export const INSPECTOR_PROTOCOL_VERSION = 2;

interface Message<M extends string, P> {
  readonly v: typeof INSPECTOR_PROTOCOL_VERSION;
  readonly method: M;
  readonly params: P;
}

type NoParams = Readonly<Record<string, never>>;

// ---- commands: webview → host ----------------------------------------------------------------------------

/** The webview's script is running; `restored` when it rendered from its saved state. */
export type ReadyCommand = Message<'ready', { readonly restored: boolean }>;
/** A click on a pod (table row or chart bar). */
export type OpenPodCommand = Message<'openPod', { readonly podUid: string }>;
/** A click on a verdict's documentation link. */
export type OpenDocsCommand = Message<'openDocs', { readonly docsId: string }>;
/** Pause (false) or resume (true) live sampling. */
export type SetLiveCommand = Message<'setLive', { readonly live: boolean }>;

export type WebviewCommand = ReadyCommand | OpenPodCommand | OpenDocsCommand | SetLiveCommand;
export type WebviewCommandMethod = WebviewCommand['method'];

// ---- requests: webview → host, each answered by one `response` notification -------------------------------

/** Something was put on the clipboard. */
export interface CopiedResult {
  readonly kind: 'copied';
}
/** A file was written (`path`: the file system path, or the URI when it is not a file), or the save dialog was cancelled. */
export type SavedResult = { readonly kind: 'saved'; readonly path: string } | { readonly kind: 'cancelled' };

/**
 * A request, named once (GitLens's IpcRequest<Params, Result>): its method, how long the webview waits for
 * the answer, and the two checks of what crosses the boundary: the host's of the params, the webview's of
 * the result. The params and result types are derived from it (RequestParams, RequestResult), so a request
 * cannot be declared in one place and validated or answered with another shape in the next.
 */
export interface RequestDescriptor<M extends string, P, R> {
  readonly method: M;
  /** How long the webview waits for the answer; the saves wait for the user in a save dialog. */
  readonly timeoutMs: number;
  /** The host's check of the params the webview sent, or undefined when they are not this request's. */
  readonly parseParams: (params: Readonly<Record<string, unknown>>) => P | undefined;
  /** The webview's check of a successful answer's result, or undefined when it is not this request's. */
  readonly parseResult: (value: unknown) => R | undefined;
}

function defineRequest<M extends string, P, R>(descriptor: RequestDescriptor<M, P, R>): RequestDescriptor<M, P, R> {
  return descriptor;
}

/** Every request, keyed by its method. */
export const REQUESTS = {
  /** Copy the report to the clipboard as Markdown. */
  copyMarkdown: defineRequest<'copyMarkdown', NoParams, CopiedResult>({
    method: 'copyMarkdown',
    timeoutMs: 15_000,
    parseParams: noParams,
    parseResult: parseCopied,
  }),
  /** Save the JSON report through a save dialog. */
  saveJson: defineRequest<'saveJson', NoParams, SavedResult>({
    method: 'saveJson',
    timeoutMs: 120_000,
    parseParams: noParams,
    parseResult: parseSaved,
  }),
  /** Save the probe capture (which `gpumem analyze` reads back) through a save dialog. */
  saveCapture: defineRequest<'saveCapture', NoParams, SavedResult>({
    method: 'saveCapture',
    timeoutMs: 120_000,
    parseParams: noParams,
    parseResult: parseSaved,
  }),
  /** Copy one raw section (or its lines that match the filter) to the clipboard. */
  copyText: defineRequest<'copyText', { readonly what: string; readonly text: string }, CopiedResult>({
    method: 'copyText',
    timeoutMs: 15_000,
    parseParams: (params) =>
      shortString(params.what) && shortString(params.text, MAX_COPY) ? { what: params.what, text: params.text } : undefined,
    parseResult: parseCopied,
  }),
} as const;
export type WebviewRequestMethod = keyof typeof REQUESTS;
export type RequestParams<M extends WebviewRequestMethod> = NonNullable<ReturnType<(typeof REQUESTS)[M]['parseParams']>>;
export type RequestResult<M extends WebviewRequestMethod> = NonNullable<ReturnType<(typeof REQUESTS)[M]['parseResult']>>;
/** A request: a message with a correlation id, one type per method (a union when M is). */
export type WebviewRequest<M extends WebviewRequestMethod = WebviewRequestMethod> = {
  [K in M]: Message<K, RequestParams<K>> & { readonly id: string };
}[M];

// ---- notifications: host → webview -----------------------------------------------------------------------

/** What the inspection was made from, kept in the webview's state so a reload can re-render and re-export. */
export interface InspectionSource {
  /** Unique per inspection: a webview that rendered this one already (hide/show) does not render it again. */
  readonly id: string;
  readonly target: string;
  /** The raw capture (dropped when larger than MAX_STATE_CAPTURE_CHARS). */
  readonly captureText: string | null;
  readonly podNames: Readonly<Record<string, string>>;
  /** What the cluster told the analysis (HAMi allocations, checklist facts); null off Kubernetes. */
  readonly clusterFacts: ClusterFactsState | null;
}

export type LiveStatus = 'off' | 'running' | 'paused' | 'hidden' | 'unavailable' | 'error';

export interface LiveState {
  readonly status: LiveStatus;
  readonly everySeconds: number;
  /** Samples taken since the panel opened (execs on the target). */
  readonly samples: number;
  /** One sentence for the status line. */
  readonly detail: string;
}

export type UpdateNotification = Message<'update', { readonly model: InspectorViewModel; readonly source: InspectionSource }>;
export type SampleNotification = Message<'sample', { readonly point: SamplePoint }>;
/** The whole history the host kept (after the webview was re-created on show). */
export type SamplesNotification = Message<'samples', { readonly points: readonly SamplePoint[] }>;
export type LiveStateNotification = Message<'liveState', { readonly state: LiveState }>;
/** A short message for the panel's status line (a command that failed). */
export type NoticeNotification = Message<'notice', { readonly text: string; readonly tone: 'info' | 'error' }>;
/** The answer to the request with this `id`: its result (of the request method's type), or why it failed. */
export type ResponseParams<R = unknown> =
  { readonly id: string; readonly ok: true; readonly result: R } | { readonly id: string; readonly ok: false; readonly error: string };
export type ResponseNotification = Message<'response', ResponseParams>;

export type HostNotification =
  UpdateNotification | SampleNotification | SamplesNotification | LiveStateNotification | NoticeNotification | ResponseNotification;
export type HostNotificationMethod = HostNotification['method'];

// ---- the webview's persisted state (getState/setState; the serializer gets it back) -----------------------
// The live samples are not in it: setState runs on every UI change, and the host keeps the history (it
// re-sends it when the webview is re-created on show; after a window reload there is no transport anyway).

export const INSPECTOR_STATE_VERSION = 1;
/** A capture larger than this is not kept in the webview state (the panel still has it while open). */
export const MAX_STATE_CAPTURE_CHARS = 4 * 1024 * 1024;

export interface InspectorUiState {
  readonly sort: { readonly column: string; readonly descending: boolean };
  readonly rawFilter: string;
  readonly livePod: string;
}

export interface InspectorState {
  readonly v: typeof INSPECTOR_STATE_VERSION;
  readonly model: InspectorViewModel;
  readonly source: InspectionSource;
  readonly ui: InspectorUiState;
}

// ---- constructors ----------------------------------------------------------------------------------------

type ParamsOf<U extends Message<string, unknown>, M extends U['method']> = Extract<U, { method: M }>['params'];

export function command<M extends WebviewCommandMethod>(
  method: M,
  params: ParamsOf<WebviewCommand, M>,
): Extract<WebviewCommand, { method: M }> {
  return { v: INSPECTOR_PROTOCOL_VERSION, method, params } as Extract<WebviewCommand, { method: M }>;
}

export function notification<M extends HostNotificationMethod>(
  method: M,
  params: ParamsOf<HostNotification, M>,
): Extract<HostNotification, { method: M }> {
  return { v: INSPECTOR_PROTOCOL_VERSION, method, params } as Extract<HostNotification, { method: M }>;
}

export function request<M extends WebviewRequestMethod>(id: string, method: M, params: RequestParams<M>): WebviewRequest<M> {
  return { v: INSPECTOR_PROTOCOL_VERSION, id, method, params } as unknown as WebviewRequest<M>;
}

/** The successful answer to `to`: the result's type is the request method's. */
export function response<M extends WebviewRequestMethod>(to: WebviewRequest<M>, result: RequestResult<M>): ResponseNotification {
  return notification('response', { id: to.id, ok: true, result });
}

/** The failed answer to the request with this id (a long message is cut). */
export function errorResponse(id: string, error: string): ResponseNotification {
  return notification('response', { id, ok: false, error: error.length > MAX_ERROR ? `${error.slice(0, MAX_ERROR - 1)}…` : error });
}

// ---- validation ------------------------------------------------------------------------------------------

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const MAX_ID = 512;
const MAX_COPY = 64 * 1024 * 1024;
const MAX_ERROR = 4096;
const MAX_PATH = 4096;

function shortString(value: unknown, max = MAX_ID): value is string {
  return typeof value === 'string' && value.length <= max;
}

/** A request's correlation id: 1 to 64 letters, digits, `_`, `-`, `.` or `:`. */
export function isRequestId(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_.:-]{1,64}$/.test(value);
}

/** What the host received from the webview. An invalid request with a usable id carries it, so it can be answered. */
export type ParsedWebviewMessage =
  | { readonly kind: 'command'; readonly message: WebviewCommand }
  | { readonly kind: 'request'; readonly message: WebviewRequest }
  | { readonly kind: 'invalid'; readonly id: string | undefined };

/** Any message from the webview: one with an `id` is a request, one without is a command. */
export function parseWebviewMessage(value: unknown): ParsedWebviewMessage {
  if (isRecord(value) && 'id' in value) {
    const parsed = parseWebviewRequest(value);
    if (parsed) return { kind: 'request', message: parsed };
    return { kind: 'invalid', id: value.v === INSPECTOR_PROTOCOL_VERSION && isRequestId(value.id) ? value.id : undefined };
  }
  const parsed = parseWebviewCommand(value);
  return parsed ? { kind: 'command', message: parsed } : { kind: 'invalid', id: undefined };
}

function isRequestMethod(value: string): value is WebviewRequestMethod {
  return Object.hasOwn(REQUESTS, value);
}

/** A request from the webview, or undefined when its version, id, method or parameters are not right. */
export function parseWebviewRequest(value: unknown): WebviewRequest | undefined {
  if (!isRecord(value) || value.v !== INSPECTOR_PROTOCOL_VERSION || !isRequestId(value.id) || typeof value.method !== 'string')
    return undefined;
  if (!isRequestMethod(value.method)) return undefined;
  const descriptor: RequestDescriptor<WebviewRequestMethod, unknown, unknown> = REQUESTS[value.method];
  const params = descriptor.parseParams(isRecord(value.params) ? value.params : {});
  return params === undefined
    ? undefined
    : ({ v: INSPECTOR_PROTOCOL_VERSION, id: value.id, method: descriptor.method, params } as WebviewRequest);
}

function noParams(): NoParams {
  return {};
}

function parseCopied(value: unknown): CopiedResult | undefined {
  return isRecord(value) && value.kind === 'copied' ? { kind: 'copied' } : undefined;
}

function parseSaved(value: unknown): SavedResult | undefined {
  if (!isRecord(value)) return undefined;
  if (value.kind === 'saved' && typeof value.path === 'string' && value.path !== '' && value.path.length <= MAX_PATH)
    return { kind: 'saved', path: value.path };
  return value.kind === 'cancelled' ? { kind: 'cancelled' } : undefined;
}

/** A successful response's result checked against its request's method (the webview's side), or undefined. */
export function parseRequestResult<M extends WebviewRequestMethod>(method: M, value: unknown): RequestResult<M> | undefined {
  if (!isRequestMethod(method)) return undefined;
  const descriptor: RequestDescriptor<WebviewRequestMethod, unknown, unknown> = REQUESTS[method as WebviewRequestMethod];
  return descriptor.parseResult(value) as RequestResult<M> | undefined;
}

/** A command from the webview, or undefined when it is not one this version knows (a request is not a command). */
export function parseWebviewCommand(value: unknown): WebviewCommand | undefined {
  if (!isRecord(value) || value.v !== INSPECTOR_PROTOCOL_VERSION || typeof value.method !== 'string') return undefined;
  const params = isRecord(value.params) ? value.params : {};
  switch (value.method) {
    case 'ready':
      return command('ready', { restored: params.restored === true });
    case 'openPod':
      return shortString(params.podUid) && params.podUid !== '' ? command('openPod', { podUid: params.podUid }) : undefined;
    case 'openDocs':
      return shortString(params.docsId) && /^[a-z0-9.-]+$/.test(params.docsId) ? command('openDocs', { docsId: params.docsId }) : undefined;
    case 'setLive':
      return typeof params.live === 'boolean' ? command('setLive', { live: params.live }) : undefined;
    default:
      return undefined;
  }
}

/** A notification from the host (the webview's side of the check). */
export function parseHostNotification(value: unknown): HostNotification | undefined {
  if (!isRecord(value) || value.v !== INSPECTOR_PROTOCOL_VERSION || typeof value.method !== 'string' || !isRecord(value.params))
    return undefined;
  const params = value.params;
  switch (value.method) {
    case 'update':
      return isViewModel(params.model) && isSource(params.source) ? (value as unknown as UpdateNotification) : undefined;
    case 'sample':
      return isRecord(params.point) && typeof params.point.t === 'number' && Array.isArray(params.point.pods) && numbersFinite(params.point)
        ? (value as unknown as SampleNotification)
        : undefined;
    case 'samples':
      return Array.isArray(params.points) && numbersFinite(params.points) ? (value as unknown as SamplesNotification) : undefined;
    case 'liveState':
      return isRecord(params.state) &&
        typeof params.state.status === 'string' &&
        Number.isFinite(params.state.everySeconds) &&
        Number.isFinite(params.state.samples) &&
        typeof params.state.detail === 'string'
        ? (value as unknown as LiveStateNotification)
        : undefined;
    case 'notice':
      return typeof params.text === 'string' && (params.tone === 'info' || params.tone === 'error')
        ? (value as unknown as NoticeNotification)
        : undefined;
    case 'response':
      // The result's shape depends on the request's method, which only the webview's pending request knows:
      // parseRequestResult checks it there.
      if (!isRequestId(params.id)) return undefined;
      if (params.ok === true && 'result' in params) return notification('response', { id: params.id, ok: true, result: params.result });
      if (params.ok === false && shortString(params.error, MAX_ERROR))
        return notification('response', { id: params.id, ok: false, error: params.error });
      return undefined;
    default:
      return undefined;
  }
}

function isViewModel(value: unknown): value is InspectorViewModel {
  return (
    isRecord(value) &&
    value.v === VIEW_MODEL_VERSION &&
    isRecord(value.header) &&
    isRecord(value.banner) &&
    isRecord(value.chart) &&
    Array.isArray(value.pods) &&
    Array.isArray(value.raw) &&
    numbersFinite(value)
  );
}

/**
 * Every number in `value` is finite, and none under an amount-of-memory key is negative: a saved state or a
 * message can carry 1e999, which JSON.parse reads as Infinity, or a segment of -9.2e18 bytes that would draw a
 * bar backwards (both found by long fuzz runs, seeds 168661840 and 695546592). Iterative, each object once (a
 * structured clone can be cyclic), so linear in the value's size.
 */
function numbersFinite(value: unknown): boolean {
  const seen = new Set<object>();
  const stack: { item: unknown; key: string }[] = [{ item: value, key: '' }];
  while (stack.length > 0) {
    const { item, key } = stack.pop() as { item: unknown; key: string };
    if (typeof item === 'number') {
      if (!Number.isFinite(item) || (item < 0 && AMOUNT_KEYS.has(key))) return false;
    } else if (typeof item === 'object' && item !== null && !seen.has(item)) {
      seen.add(item);
      for (const [childKey, child] of Object.entries(item)) stack.push({ item: child, key: childKey });
    }
  }
  return true;
}

/** Keys of the view model and the samples that hold amounts (bytes, counts): never negative. */
const AMOUNT_KEYS = new Set([
  'accounted',
  'gtt',
  'free',
  'kernel',
  'other',
  'vram',
  'limit',
  'podCount',
  'totalPods',
  'shownPods',
  'current',
  'memAvailable',
  'memTotal',
  'evictedRate',
]);

function isSource(value: unknown): value is InspectionSource {
  return (
    isRecord(value) &&
    typeof value.id === 'string' &&
    typeof value.target === 'string' &&
    (value.captureText === null || typeof value.captureText === 'string') &&
    isRecord(value.podNames)
  );
}

/** The webview state handed to the serializer after a reload, or undefined when it is not usable. */
export function parseInspectorState(value: unknown): InspectorState | undefined {
  if (!isRecord(value) || value.v !== INSPECTOR_STATE_VERSION || !isViewModel(value.model) || !isSource(value.source)) return undefined;
  const ui = isRecord(value.ui) ? value.ui : {};
  const sort = isRecord(ui.sort) ? ui.sort : {};
  return {
    v: INSPECTOR_STATE_VERSION,
    model: value.model,
    source: {
      id: value.source.id,
      target: value.source.target,
      captureText: value.source.captureText,
      podNames: Object.fromEntries(
        Object.entries(value.source.podNames).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
      ),
      // A state saved before cluster facts were kept has none: the restored analysis goes without, as it did.
      clusterFacts: parseClusterFactsState(value.source.clusterFacts),
    },
    ui: {
      sort: { column: typeof sort.column === 'string' ? sort.column : 'footprint', descending: sort.descending !== false },
      rawFilter: typeof ui.rawFilter === 'string' ? ui.rawFilter : '',
      livePod: typeof ui.livePod === 'string' ? ui.livePod : '',
    },
  };
}
