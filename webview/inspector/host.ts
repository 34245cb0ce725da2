// The webview's only link to the extension host. The object acquireVsCodeApi() returns stays private to
// this module (VS Code's guidance: never put it on a global where other scripts could reach it); the rest
// of the webview gets three typed functions.
import type { InspectorState, WebviewCommand, WebviewRequest } from '../../src/core/inspector/protocol.ts';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

// acquireVsCodeApi may be called once per page load.
const api: VsCodeApi = acquireVsCodeApi();

export function post(message: WebviewCommand | WebviewRequest): void {
  api.postMessage(message);
}

export function loadState(): unknown {
  return api.getState();
}

export function saveState(state: InspectorState): void {
  api.setState(state);
}
