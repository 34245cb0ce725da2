// The fleet webview's start-up: the page (fleetApp.ts), the host's messages parsed by the typed protocol
// (src/core/fleet/fleetProtocol.ts), the theme watched (the chart reads its colours from the theme), CSP violations
// counted for the tests (there must be none), the panel's identity kept for a window reload, and `ready` posted: the
// host answers with the fleet.
import './fleet.css';
import { parseFleetHostMessage } from '../../src/core/fleet/fleetProtocol.ts';
import { h } from '../inspector/dom.ts';
import { countCspViolations, watchTheme } from '../inspector/pageWatch.ts';
import { FleetApp } from './fleetApp.ts';
import { post, savePanelState } from './host.ts';

function start(): void {
  countCspViolations();
  const app = document.getElementById('app') ?? document.body.appendChild(h('main', { attrs: { id: 'app' } }));
  const fleet = new FleetApp(app, post);
  window.addEventListener('message', (event: MessageEvent) => {
    const message = parseFleetHostMessage(event.data);
    if (!message) return;
    if (message.type === 'panel') savePanelState(message.state);
    fleet.receive(message);
  });
  watchTheme(document.documentElement, () => fleet.themeChanged());
  post({ type: 'ready' });
}

start();
