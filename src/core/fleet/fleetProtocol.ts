// The fleet view's typed protocol, both ways. Host → webview: the view model (`state`), a line while the fleet is
// read (`progress`), a failure (`error`, with `offerScan` when no agent runs and a scan could read it), where an
// export went (`exported`), and the panel's identity (`panel`: its context and window, which the webview keeps with
// setState so that the panel comes back, and reads its fleet again, after a window reload). Webview → host: `ready`,
// `refresh`, `scan` (the user asked for a debug-pod scan; the host still confirms), `setWindow`, `openNode`,
// `openPod`, `export`. A webview message is untrusted input (a compromised or stale page): parseFleetWebviewMessage
// accepts exactly these shapes, with bounded strings, and nothing else. So is a restored panel's saved state.
// Pure (no vscode, no DOM): the host (src/vscode/fleet/) and the webview (webview/fleet/) both import it.
import type { FleetViewModel } from './fleetViewModel.ts';

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

export type FleetHostMessage =
  | { readonly type: 'state'; readonly viewModel: FleetViewModel }
  | { readonly type: 'panel'; readonly state: FleetPanelState }
  | { readonly type: 'progress'; readonly text: string }
  | { readonly type: 'error'; readonly message: string; readonly offerScan?: boolean }
  | {
      readonly type: 'exported';
      readonly format: FleetExportFormat;
      readonly outcome: 'saved' | 'cancelled' | 'failed';
      /** The file's path when saved, the reason when it failed. */
      readonly detail: string;
    };

export type FleetWebviewMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'refresh' }
  | { readonly type: 'scan' }
  | { readonly type: 'setWindow'; readonly window: FleetWindowChoice }
  | { readonly type: 'openNode'; readonly node: string }
  | { readonly type: 'openPod'; readonly namespace: string; readonly pod: string; readonly uid: string; readonly node: string }
  | { readonly type: 'export'; readonly format: FleetExportFormat };

/** Longer than any Kubernetes name (253) or UID (36): anything longer is not one. */
const MAX_NAME = 253;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function name(value: unknown, allowEmpty = false, max = MAX_NAME): value is string {
  return typeof value === 'string' && value.length <= max && (allowEmpty || value !== '') && !/[\u0000-\u001f\u007f]/.test(value);
}

/** Exactly these keys (plus `type`), no others. */
function hasKeys(message: Record<string, unknown>, keys: readonly string[]): boolean {
  const present = Object.keys(message);
  return present.length === keys.length + 1 && keys.every((key) => key in message);
}

function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

/** A message from the webview, or undefined when it is not exactly one of the protocol's. */
export function parseFleetWebviewMessage(value: unknown): FleetWebviewMessage | undefined {
  if (!isRecord(value)) return undefined;
  switch (value.type) {
    case 'ready':
    case 'refresh':
    case 'scan':
      return hasKeys(value, []) ? { type: value.type } : undefined;
    case 'setWindow':
      return hasKeys(value, ['window']) && isOneOf(FLEET_WINDOWS, value.window) ? { type: 'setWindow', window: value.window } : undefined;
    case 'openNode':
      return hasKeys(value, ['node']) && name(value.node) ? { type: 'openNode', node: value.node } : undefined;
    case 'openPod': {
      // A pod without names (an agent without API access) still has its UID and node; namespace and pod may be ''.
      const { namespace, pod, uid, node } = value;
      if (!hasKeys(value, ['namespace', 'pod', 'uid', 'node'])) return undefined;
      if (!name(namespace, true) || !name(pod, true) || !name(uid) || !name(node, true)) return undefined;
      return { type: 'openPod', namespace, pod, uid, node };
    }
    case 'export':
      return hasKeys(value, ['format']) && isOneOf(FLEET_EXPORT_FORMATS, value.format)
        ? { type: 'export', format: value.format }
        : undefined;
    default:
      return undefined;
  }
}

/** A kubeconfig context's name: any text but control characters; 1,024 characters is far past any real one. */
const MAX_CONTEXT = 1024;

/** The saved state of a restored panel (untrusted: it went through the workbench), or undefined when unusable. */
export function parseFleetPanelState(value: unknown): FleetPanelState | undefined {
  if (!isRecord(value) || value.version !== 1) return undefined;
  const { context, window } = value;
  if (!name(context, false, MAX_CONTEXT) || !isOneOf(FLEET_WINDOWS, window)) return undefined;
  return { version: 1, context, window };
}

/** A message from the host (the webview's side): the type checked, the view model's outline checked. */
export function parseFleetHostMessage(value: unknown): FleetHostMessage | undefined {
  if (!isRecord(value)) return undefined;
  switch (value.type) {
    case 'state': {
      const model = value.viewModel;
      if (!isRecord(model) || model.version !== 1 || !Array.isArray(model.nodes) || !isRecord(model.header)) return undefined;
      return { type: 'state', viewModel: model as unknown as FleetViewModel };
    }
    case 'panel': {
      const state = parseFleetPanelState(value.state);
      return state ? { type: 'panel', state } : undefined;
    }
    case 'progress':
      return typeof value.text === 'string' ? { type: 'progress', text: value.text } : undefined;
    case 'error':
      if (typeof value.message !== 'string') return undefined;
      return value.offerScan === true
        ? { type: 'error', message: value.message, offerScan: true }
        : { type: 'error', message: value.message };
    case 'exported':
      return isOneOf(FLEET_EXPORT_FORMATS, value.format) &&
        isOneOf(['saved', 'cancelled', 'failed'] as const, value.outcome) &&
        typeof value.detail === 'string'
        ? { type: 'exported', format: value.format, outcome: value.outcome, detail: value.detail }
        : undefined;
    default:
      return undefined;
  }
}
