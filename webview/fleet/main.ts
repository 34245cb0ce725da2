// The fleet webview's start-up: the page (fleetApp.ts), the host's messages parsed by the typed protocol
// (src/core/fleet/fleetProtocol.ts), the export requests kept until their answer (src/core/webviewIpc/requests.ts),
// the theme watched (the chart reads its colours from the theme), CSP violations counted for the tests (there must be
// none), the panel's identity kept for a window reload, and `ready` posted: the host answers with the fleet.
import './fleet.css';
import type { FleetCommand, FleetRequests } from '../../src/core/fleet/fleetProtocol.ts';
import { FLEET_PROTOCOL } from '../../src/core/fleet/fleetProtocol.ts';
import { PendingRequests } from '../../src/core/webviewIpc/requests.ts';
import { h } from '../shared/dom.ts';
import { countCspViolations, watchTheme } from '../shared/pageWatch.ts';
import type { FleetActions } from './fleetApp.ts';
import { FleetApp } from './fleetApp.ts';
import { post, savePanelState } from './host.ts';

function start(): void {
  countCspViolations();
  const app = document.getElementById('app') ?? document.body.appendChild(h('main', { attrs: { id: 'app' } }));
  // The ids start with a random prefix of this page: a webview re-created on show never takes an answer meant for the old one.
  const requests = new PendingRequests<FleetRequests>({
    protocol: FLEET_PROTOCOL,
    send: post,
    idPrefix: [...crypto.getRandomValues(new Uint8Array(6))].map((byte) => byte.toString(16).padStart(2, '0')).join(''),
  });
  const actions: FleetActions = {
    command: (method, params) => post(FLEET_PROTOCOL.command(method, params) as unknown as FleetCommand),
    exportAs: (format, onLate) => requests.request('export', { format }, { onLate }),
    copyPatch: (target, onLate) => requests.request('copyPatch', target, { onLate }),
  };
  const fleet = new FleetApp(app, actions);
  window.addEventListener('message', (event: MessageEvent) => {
    const message = FLEET_PROTOCOL.parseHostNotification(event.data);
    if (!message) return;
    if (message.method === 'response') {
      requests.settle(message.params);
      return;
    }
    if (message.method === 'panel') savePanelState(message.params.state);
    fleet.receive(message);
  });
  watchTheme(document.documentElement, () => fleet.themeChanged());
  actions.command('ready', {});
}

start();
