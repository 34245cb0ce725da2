// The fleet view's protocol (src/core/webviewIpc/: versioned `{ v, method, params }` messages, each checked by the
// side that receives it). Host → webview notifications: the view model (`state`), a line while the fleet is read
// (`progress`), a failure (`error`, with `offerScan` when no agent runs and a scan could read it), and the panel's
// identity (`panel`: its context and window, which the webview keeps with setState so that the panel comes back, and
// reads its fleet again, after a window reload), and the Recommendations section (`recommendations`, from
// gpumem: Right-Size Workloads…). Webview → host commands: `ready`, `refresh`, `scan` (the user asked for a debug-pod
// scan; the host still confirms), `setWindow`, `openNode`, `openPod`, `openWorkload` (a row's live manifest); and
// two requests: `export`, answered with where the file went, and `copyPatch` (a row's workload patch to the
// clipboard; the webview names the workload, the host copies its own patch text), answered when it is copied. A
// webview message is untrusted input (a compromised or stale page): the parsers accept exactly these params, with
// bounded strings, and nothing else. So is a restored panel's saved state.
// A new section adds its notification or request to the tables below. Pure (no vscode, no DOM): the host
// (src/vscode/fleet/) and the webview (webview/fleet/) both import it.
import type { MessageOf, ParamsOf, RequestOf, RequestResultOf } from '../webviewIpc/protocol.ts';
import { defineRequest, hasExactly, isRecord, noParams, WebviewProtocol } from '../webviewIpc/protocol.ts';
import type { CopiedResult, SavedResult } from '../webviewIpc/results.ts';
import { parseCopied, parseSaved } from '../webviewIpc/results.ts';
import type { FleetViewModel } from './fleetViewModel.ts';
import { isDnsLabel, isDnsSubdomain } from '../kube/names.ts';
import { isLiveWorkloadKind } from '../rightsizing/liveKinds.ts';
import type { WorkloadTarget } from '../rightsizing/liveKinds.ts';
import { RECOMMENDATIONS_VIEW_VERSION } from '../rightsizing/recommendationsView.ts';
import type { RecommendationsViewModel } from '../rightsizing/recommendationsView.ts';

/** 2: the `{ type }` messages became the shared `{ v, method, params }` protocol, and the export a request. */
export const FLEET_PROTOCOL_VERSION = 2;

export const FLEET_WINDOWS = ['1h', '24h', '7d'] as const;
export type FleetWindowChoice = (typeof FLEET_WINDOWS)[number];

export const FLEET_EXPORT_FORMATS = ['markdown', 'json', 'csv'] as const;
export type FleetExportFormat = (typeof FLEET_EXPORT_FORMATS)[number];

/**
 * What a fleet panel keeps across a window reload: which fleet it shows, not the fleet itself (that is read again:
 * it is live data, and 5,000 nodes' worth of it does not belong in the workbench's saved state).
 */
export interface FleetPanelState {
  readonly version: 1;
  readonly context: string;
  readonly window: FleetWindowChoice;
}

export interface FleetPodTarget {
  readonly namespace: string;
  readonly pod: string;
  readonly uid: string;
  readonly node: string;
}

/** Longer than any Kubernetes name (253) or UID (36): anything longer is not one. */
const MAX_NAME = 253;
/** A kubeconfig context's name: any text but control characters; 1,024 characters is far past any real one. */
const MAX_CONTEXT = 1024;

function name(value: unknown, allowEmpty = false, max = MAX_NAME): value is string {
  return typeof value === 'string' && value.length <= max && (allowEmpty || value !== '') && !/[\u0000-\u001f\u007f]/.test(value);
}

function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

/** The saved state of a restored panel (untrusted: it went through the workbench), or undefined when unusable. */
export function parseFleetPanelState(value: unknown): FleetPanelState | undefined {
  if (!isRecord(value) || value.version !== 1) return undefined;
  const { context, window } = value;
  if (!name(context, false, MAX_CONTEXT) || !isOneOf(FLEET_WINDOWS, window)) return undefined;
  return { version: 1, context, window };
}

/** A row's workload: a kind gpumem reads, a namespace (a workload has one) and a name, nothing else. */
function parseWorkloadTarget(params: Readonly<Record<string, unknown>>): WorkloadTarget | undefined {
  const { kind, namespace, name: workload } = params;
  if (!hasExactly(params, ['kind', 'namespace', 'name']) || typeof kind !== 'string' || !isLiveWorkloadKind(kind)) return undefined;
  // Kubernetes names: a namespace is a DNS label, a workload's name a DNS subdomain (the API refuses anything else).
  return typeof namespace === 'string' && isDnsLabel(namespace) && typeof workload === 'string' && isDnsSubdomain(workload)
    ? { kind, namespace, name: workload }
    : undefined;
}

const COMMANDS = {
  /** The page's script runs: the host answers with the panel's identity and the fleet. */
  ready: noParams,
  refresh: noParams,
  /** The user asked for a debug-pod scan (the host still asks before any pod). */
  scan: noParams,
  setWindow: (params): { readonly window: FleetWindowChoice } | undefined =>
    hasExactly(params, ['window']) && isOneOf(FLEET_WINDOWS, params.window) ? { window: params.window } : undefined,
  openNode: (params): { readonly node: string } | undefined =>
    hasExactly(params, ['node']) && name(params.node) ? { node: params.node } : undefined,
  openPod: (params): FleetPodTarget | undefined => {
    // A pod without names (an agent without API access) still has its UID and node; namespace and pod may be ''.
    const { namespace, pod, uid, node } = params;
    if (!hasExactly(params, ['namespace', 'pod', 'uid', 'node'])) return undefined;
    if (!name(namespace, true) || !name(pod, true) || !name(uid) || !name(node, true)) return undefined;
    return { namespace, pod, uid, node };
  },
  /** Open live manifest of a Recommendations row's workload (read-only). */
  openWorkload: parseWorkloadTarget,
} satisfies Record<string, (params: Readonly<Record<string, unknown>>) => unknown>;

const NOTIFICATIONS = {
  /** The view model: its outline checked (the host built it from the summary). */
  state: (params): { readonly viewModel: FleetViewModel } | undefined => {
    const model = params.viewModel;
    if (!isRecord(model) || model.version !== 1 || !Array.isArray(model.nodes) || !isRecord(model.header)) return undefined;
    return { viewModel: model as unknown as FleetViewModel };
  },
  /** The Recommendations section: its outline checked (the host built it from the gathered rows). */
  recommendations: (params): { readonly viewModel: RecommendationsViewModel } | undefined => {
    const model = params.viewModel;
    if (!isRecord(model) || model.version !== RECOMMENDATIONS_VIEW_VERSION || !Array.isArray(model.rows) || !isRecord(model.header))
      return undefined;
    return { viewModel: model as unknown as RecommendationsViewModel };
  },
  panel: (params): { readonly state: FleetPanelState } | undefined => {
    const state = parseFleetPanelState(params.state);
    return state ? { state } : undefined;
  },
  progress: (params): { readonly text: string } | undefined => (typeof params.text === 'string' ? { text: params.text } : undefined),
  error: (params): { readonly message: string; readonly offerScan?: true } | undefined => {
    if (typeof params.message !== 'string') return undefined;
    return params.offerScan === true ? { message: params.message, offerScan: true } : { message: params.message };
  },
} satisfies Record<string, (params: Readonly<Record<string, unknown>>) => unknown>;

const REQUESTS = {
  /** Save the summary (Markdown, JSON) or the pods (CSV) through a save dialog: the file's path, or cancelled. */
  export: defineRequest<'export', { readonly format: FleetExportFormat }, SavedResult>({
    method: 'export',
    timeoutMs: 120_000,
    parseParams: (params) =>
      hasExactly(params, ['format']) && isOneOf(FLEET_EXPORT_FORMATS, params.format) ? { format: params.format } : undefined,
    parseResult: parseSaved,
  }),
  /** A Recommendations row's Copy patch: the host copies its workload's strategic-merge patch. */
  copyPatch: defineRequest<'copyPatch', WorkloadTarget, CopiedResult>({
    method: 'copyPatch',
    timeoutMs: 30_000,
    parseParams: parseWorkloadTarget,
    parseResult: parseCopied,
  }),
} as const;

export const FLEET_PROTOCOL = new WebviewProtocol({
  version: FLEET_PROTOCOL_VERSION,
  commands: COMMANDS,
  notifications: NOTIFICATIONS,
  requests: REQUESTS,
});

export type FleetCommand = MessageOf<typeof COMMANDS>;
export type FleetNotification = MessageOf<typeof NOTIFICATIONS>;
export type FleetNotificationParams<M extends FleetNotification['method']> = ParamsOf<typeof NOTIFICATIONS, M>;
export type FleetCommandParams<M extends FleetCommand['method']> = ParamsOf<typeof COMMANDS, M>;
export type FleetRequests = typeof REQUESTS;
export type FleetRequest = RequestOf<FleetRequests>;
export type FleetExportResult = RequestResultOf<FleetRequests, 'export'>;
