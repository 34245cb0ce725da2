// The fleet webview's start-up: the page (fleetApp.ts), the host's messages parsed by the typed protocol
// (src/core/fleet/fleetProtocol.ts), the theme watched (the chart reads its colours from the theme), CSP violations
// counted for the tests (there must be none), the panel's identity kept for a window reload, and `ready` posted: the
// host answers with the fleet.
import './fleet.css';
import { parseFleetHostMessage } from '../../src/core/fleet/fleetProtocol.ts';
import { h, themeKind } from '../inspector/dom.ts';
import { FleetApp } from './fleetApp.ts';
import { post, savePanelState } from './host.ts';

function countCspViolations(): void {
  const csp = h('output', { class: 'visually-hidden', attrs: { id: 'csp-violations', 'data-count': 0, 'aria-hidden': 'true' } });
  document.body.appendChild(csp);
  let violations = 0;
  document.addEventListener('securitypolicyviolation', (event) => {
    violations++;
    csp.setAttribute('data-count', String(violations));
    csp.textContent = `${event.violatedDirective} ${event.blockedURI}`;
  });
}

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
  const root = document.documentElement;
  let theme = `${themeKind()} ${document.body.className}`;
  root.setAttribute('data-theme', themeKind());
  new MutationObserver(() => {
    const next = `${themeKind()} ${document.body.className}`;
    if (next === theme) return;
    theme = next;
    root.setAttribute('data-theme', themeKind());
    fleet.themeChanged();
  }).observe(document.body, { attributes: true, attributeFilter: ['class'] });
  post({ type: 'ready' });
}

start();
