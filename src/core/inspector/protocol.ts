// The typed message protocol between the inspector's host (src/vscode/inspector/panel.ts) and its webview
// (webview/inspector/), shared by both sides. Modelled on GitLens's webview IPC (src/webviews/protocol.ts):
//   commands       webview → host, fire-and-forget (the host answers, if at all, with a notification);
//   notifications  host → webview, state pushes.
// Every message carries the protocol version `v` and a `method` that discriminates the union. Both ends
// validate what they receive with the parse functions below: the host treats the webview as untrusted
// input (it renders text from the target), and a restored webview may hold state from an older version.
import type { SamplePoint } from './series.ts';
import type { InspectorViewModel } from './viewModel.ts';
import { VIEW_MODEL_VERSION } from './viewModel.ts';

export const INSPECTOR_PROTOCOL_VERSION = 1;
/** The WebviewPanel view type (and the `onWebviewPanel:` activation event's argument). */
export const INSPECTOR_VIEW_TYPE = 'gpumem.inspector';

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
export type CopyMarkdownCommand = Message<'copyMarkdown', NoParams>;
export type SaveJsonCommand = Message<'saveJson', NoParams>;
export type SaveCaptureCommand = Message<'saveCapture', NoParams>;
/** Copy one raw section (or part of it) to the clipboard. */
export type CopyTextCommand = Message<'copyText', { readonly what: string; readonly text: string }>;
/** Pause (false) or resume (true) live sampling. */
export type SetLiveCommand = Message<'setLive', { readonly live: boolean }>;

export type WebviewCommand = ReadyCommand | OpenPodCommand | OpenDocsCommand | CopyMarkdownCommand | SaveJsonCommand | SaveCaptureCommand | CopyTextCommand | SetLiveCommand;
export type WebviewCommandMethod = WebviewCommand['method'];

// ---- notifications: host → webview -----------------------------------------------------------------------

/** What the inspection was made from, kept in the webview's state so a reload can re-render and re-export. */
export interface InspectionSource {
  /** Unique per inspection: a webview that rendered this one already (hide/show) does not render it again. */
  readonly id: string;
  readonly target: string;
  /** The raw capture (dropped when larger than MAX_STATE_CAPTURE_CHARS). */
  readonly captureText: string | null;
  readonly podNames: Readonly<Record<string, string>>;
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
/** A short message for the panel's status line (an export done, an action not possible). */
export type NoticeNotification = Message<'notice', { readonly text: string; readonly tone: 'info' | 'error' }>;

export type HostNotification = UpdateNotification | SampleNotification | SamplesNotification | LiveStateNotification | NoticeNotification;
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

export function command<M extends WebviewCommandMethod>(method: M, params: ParamsOf<WebviewCommand, M>): Extract<WebviewCommand, { method: M }> {
  return { v: INSPECTOR_PROTOCOL_VERSION, method, params } as Extract<WebviewCommand, { method: M }>;
}

export function notification<M extends HostNotificationMethod>(method: M, params: ParamsOf<HostNotification, M>): Extract<HostNotification, { method: M }> {
  return { v: INSPECTOR_PROTOCOL_VERSION, method, params } as Extract<HostNotification, { method: M }>;
}

// ---- validation ------------------------------------------------------------------------------------------

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const MAX_ID = 512;
const MAX_COPY = 64 * 1024 * 1024;

function shortString(value: unknown, max = MAX_ID): value is string {
  return typeof value === 'string' && value.length <= max;
}

/** A command from the webview, or undefined when it is not one this version knows. */
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
    case 'copyMarkdown':
    case 'saveJson':
    case 'saveCapture':
      return command(value.method, {});
    case 'copyText':
      return shortString(params.what) && shortString(params.text, MAX_COPY) ? command('copyText', { what: params.what, text: params.text }) : undefined;
    case 'setLive':
      return typeof params.live === 'boolean' ? command('setLive', { live: params.live }) : undefined;
    default:
      return undefined;
  }
}

/** A notification from the host (the webview's side of the check). */
export function parseHostNotification(value: unknown): HostNotification | undefined {
  if (!isRecord(value) || value.v !== INSPECTOR_PROTOCOL_VERSION || typeof value.method !== 'string' || !isRecord(value.params)) return undefined;
  const params = value.params;
  switch (value.method) {
    case 'update':
      return isViewModel(params.model) && isSource(params.source) ? (value as unknown as UpdateNotification) : undefined;
    case 'sample':
      return isRecord(params.point) && typeof params.point.t === 'number' && Array.isArray(params.point.pods) ? (value as unknown as SampleNotification) : undefined;
    case 'samples':
      return Array.isArray(params.points) ? (value as unknown as SamplesNotification) : undefined;
    case 'liveState':
      return isRecord(params.state) && typeof params.state.status === 'string' ? (value as unknown as LiveStateNotification) : undefined;
    case 'notice':
      return typeof params.text === 'string' && (params.tone === 'info' || params.tone === 'error') ? (value as unknown as NoticeNotification) : undefined;
    default:
      return undefined;
  }
}

function isViewModel(value: unknown): value is InspectorViewModel {
  return isRecord(value) && value.v === VIEW_MODEL_VERSION && isRecord(value.header) && isRecord(value.banner) && isRecord(value.chart) && Array.isArray(value.pods) && Array.isArray(value.raw);
}

function isSource(value: unknown): value is InspectionSource {
  return isRecord(value) && typeof value.id === 'string' && typeof value.target === 'string' && (value.captureText === null || typeof value.captureText === 'string') && isRecord(value.podNames);
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
      podNames: Object.fromEntries(Object.entries(value.source.podNames).filter((entry): entry is [string, string] => typeof entry[1] === 'string')),
    },
    ui: {
      sort: { column: typeof sort.column === 'string' ? sort.column : 'footprint', descending: sort.descending !== false },
      rawFilter: typeof ui.rawFilter === 'string' ? ui.rawFilter : '',
      livePod: typeof ui.livePod === 'string' ? ui.livePod : '',
    },
  };
}
