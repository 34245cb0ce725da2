// The fleet webview's only link to the extension host: the object acquireVsCodeApi() returns stays in this module;
// the rest of the page posts typed messages (src/core/fleet/fleetProtocol.ts) and keeps the panel's identity.
import type { FleetCommand, FleetPanelState, FleetRequest } from '../../src/core/fleet/fleetProtocol.ts';

interface VsCodeApi {
  postMessage(message: unknown): void;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const api: VsCodeApi = acquireVsCodeApi();

export function post(message: FleetCommand | FleetRequest): void {
  api.postMessage(message);
}

/** Kept by the workbench: after a window reload the host's serializer gets it back and reopens this fleet. */
export function savePanelState(state: FleetPanelState): void {
  api.setState(state);
}
