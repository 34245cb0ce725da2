// The fleet webview's only link to the extension host: the object acquireVsCodeApi() returns stays in this module;
// the rest of the page posts typed messages (src/core/fleet/fleetProtocol.ts).
import type { FleetWebviewMessage } from '../../src/core/fleet/fleetProtocol.ts';

interface VsCodeApi {
  postMessage(message: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const api: VsCodeApi = acquireVsCodeApi();

export function post(message: FleetWebviewMessage): void {
  api.postMessage(message);
}
