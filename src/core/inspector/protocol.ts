// The inspector's protocol between its host (src/vscode/inspectorPanel/panel.ts) and its webview (webview/inspector/),
// on the shared typed protocol of src/core/webviewIpc/ (commands, requests with a correlation id answered by one
// `response`, notifications; every message versioned and checked by the side that receives it: the host treats the
// webview as untrusted input, since it renders text from the target, and a restored webview may hold state from an
// older version). This module names the inspector's messages with their checks, and its saved state.
import type { ClusterFactsState } from '../inspectorPanel/clusterFactsState.ts';
import { parseClusterFactsState } from '../inspectorPanel/clusterFactsState.ts';
import type { SamplePoint } from '../inspectorPanel/series.ts';
import type { InspectorViewModel } from '../inspectorPanel/viewModelTypes.ts';
import { VIEW_MODEL_VERSION } from '../inspectorPanel/viewModelTypes.ts';
import type {
  MessageOf,
  NoParams,
  ParamsOf,
  ParamsParsers,
  ParsedWebviewMessage,
  RequestMethodOf,
  RequestOf,
  RequestParamsOf,
  RequestResultOf,
  ResponseNotification,
} from '../webviewIpc/protocol.ts';
import { defineRequest, isRecord, shortString, WebviewProtocol } from '../webviewIpc/protocol.ts';
import type { CopiedResult, SavedResult } from '../webviewIpc/results.ts';
import { parseCopied, parseSaved } from '../webviewIpc/results.ts';

/** 2: the exports and the raw sections' Copy became requests (they were commands answered by a notice). */
export const INSPECTOR_PROTOCOL_VERSION = 2;

// ---- commands: webview → host ----------------------------------------------------------------------------

const COMMANDS = {
  /** The webview's script is running; `restored` when it rendered from its saved state. */
  ready: (params): { readonly restored: boolean } => ({ restored: params.restored === true }),
  /** A click on a pod (table row or chart bar). */
  openPod: (params): { readonly podUid: string } | undefined =>
    shortString(params.podUid) && params.podUid !== '' ? { podUid: params.podUid } : undefined,
  /** A click on a verdict's documentation link. */
  openDocs: (params): { readonly docsId: string } | undefined =>
    shortString(params.docsId) && /^[a-z0-9.-]+$/.test(params.docsId) ? { docsId: params.docsId } : undefined,
  /** Pause (false) or resume (true) live sampling. */
  setLive: (params): { readonly live: boolean } | undefined => (typeof params.live === 'boolean' ? { live: params.live } : undefined),
} satisfies ParamsParsers;

export type WebviewCommand = MessageOf<typeof COMMANDS>;
export type WebviewCommandMethod = WebviewCommand['method'];

// ---- requests: webview → host, each answered by one `response` notification -------------------------------

const MAX_COPY = 64 * 1024 * 1024;

/** Every request, keyed by its method. */
export const REQUESTS = {
  /** Copy the report to the clipboard as Markdown. */
  copyMarkdown: defineRequest<'copyMarkdown', NoParams, CopiedResult>({
    method: 'copyMarkdown',
    timeoutMs: 15_000,
    parseParams: () => ({}),
    parseResult: parseCopied,
  }),
  /** Save the JSON report through a save dialog. */
  saveJson: defineRequest<'saveJson', NoParams, SavedResult>({
    method: 'saveJson',
    timeoutMs: 120_000,
    parseParams: () => ({}),
    parseResult: parseSaved,
  }),
  /** Save the probe capture (which `gpumem analyze` reads back) through a save dialog. */
  saveCapture: defineRequest<'saveCapture', NoParams, SavedResult>({
    method: 'saveCapture',
    timeoutMs: 120_000,
    parseParams: () => ({}),
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
export type InspectorRequests = typeof REQUESTS;
export type WebviewRequestMethod = RequestMethodOf<InspectorRequests>;
export type RequestParams<M extends WebviewRequestMethod> = RequestParamsOf<InspectorRequests, M>;
export type RequestResult<M extends WebviewRequestMethod> = RequestResultOf<InspectorRequests, M>;
/** A request: a message with a correlation id, one type per method (a union when M is). */
export type WebviewRequest<M extends WebviewRequestMethod = WebviewRequestMethod> = RequestOf<InspectorRequests, M>;

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

const NOTIFICATIONS = {
  update: (params): { readonly model: InspectorViewModel; readonly source: InspectionSource } | undefined =>
    isViewModel(params.model) && isSource(params.source) ? { model: params.model, source: params.source } : undefined,
  sample: (params): { readonly point: SamplePoint } | undefined =>
    isRecord(params.point) && typeof params.point.t === 'number' && Array.isArray(params.point.pods) && numbersFinite(params.point)
      ? { point: params.point as unknown as SamplePoint }
      : undefined,
  /** The whole history the host kept (after the webview was re-created on show). */
  samples: (params): { readonly points: readonly SamplePoint[] } | undefined =>
    Array.isArray(params.points) && numbersFinite(params.points) ? { points: params.points as SamplePoint[] } : undefined,
  liveState: (params): { readonly state: LiveState } | undefined =>
    isRecord(params.state) &&
    typeof params.state.status === 'string' &&
    Number.isFinite(params.state.everySeconds) &&
    Number.isFinite(params.state.samples) &&
    typeof params.state.detail === 'string'
      ? { state: params.state as unknown as LiveState }
      : undefined,
  /** A short message for the panel's status line (a command that failed). */
  notice: (params): { readonly text: string; readonly tone: 'info' | 'error' } | undefined =>
    typeof params.text === 'string' && (params.tone === 'info' || params.tone === 'error')
      ? { text: params.text, tone: params.tone }
      : undefined,
} satisfies ParamsParsers;

export type HostNotification = MessageOf<typeof NOTIFICATIONS> | ResponseNotification;
export type HostNotificationMethod = HostNotification['method'];
export type { ResponseNotification, ResponseParams } from '../webviewIpc/protocol.ts';
export type { CopiedResult, SavedResult } from '../webviewIpc/results.ts';

export const INSPECTOR_PROTOCOL = new WebviewProtocol({
  version: INSPECTOR_PROTOCOL_VERSION,
  commands: COMMANDS,
  notifications: NOTIFICATIONS,
  requests: REQUESTS,
});

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

// ---- constructors and checks (the names both sides use) ---------------------------------------------------

export function command<M extends WebviewCommandMethod>(
  method: M,
  params: ParamsOf<typeof COMMANDS, M>,
): Extract<WebviewCommand, { method: M }> {
  return INSPECTOR_PROTOCOL.command(method, params) as unknown as Extract<WebviewCommand, { method: M }>;
}

export function notification<M extends HostNotificationMethod>(
  method: M,
  params: Extract<HostNotification, { method: M }>['params'],
): Extract<HostNotification, { method: M }> {
  return { v: INSPECTOR_PROTOCOL_VERSION, method, params } as unknown as Extract<HostNotification, { method: M }>;
}

export function request<M extends WebviewRequestMethod>(id: string, method: M, params: RequestParams<M>): WebviewRequest<M> {
  return INSPECTOR_PROTOCOL.request(id, method, params);
}

/** The successful answer to `to`: the result's type is the request method's. */
export function response<M extends WebviewRequestMethod>(to: WebviewRequest<M>, result: RequestResult<M>): ResponseNotification {
  return INSPECTOR_PROTOCOL.response(to, result);
}

/** The failed answer to the request with this id (a long message is cut). */
export function errorResponse(id: string, error: string): ResponseNotification {
  return INSPECTOR_PROTOCOL.errorResponse(id, error);
}

export { isRequestId } from '../webviewIpc/protocol.ts';

/** Any message from the webview: one with an `id` is a request, one without is a command. */
export function parseWebviewMessage(value: unknown): ParsedWebviewMessage<typeof COMMANDS, InspectorRequests> {
  return INSPECTOR_PROTOCOL.parseWebviewMessage(value);
}

/** A request from the webview, or undefined when its version, id, method or parameters are not right. */
export function parseWebviewRequest(value: unknown): WebviewRequest | undefined {
  return INSPECTOR_PROTOCOL.parseWebviewRequest(value);
}

/** A successful response's result checked against its request's method (the webview's side), or undefined. */
export function parseRequestResult<M extends WebviewRequestMethod>(method: M, value: unknown): RequestResult<M> | undefined {
  return INSPECTOR_PROTOCOL.parseRequestResult(method, value);
}

/** A command from the webview, or undefined when it is not one this version knows (a request is not a command). */
export function parseWebviewCommand(value: unknown): WebviewCommand | undefined {
  return INSPECTOR_PROTOCOL.parseWebviewCommand(value);
}

/** A notification from the host (the webview's side of the check). */
export function parseHostNotification(value: unknown): HostNotification | undefined {
  return INSPECTOR_PROTOCOL.parseHostNotification(value);
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
