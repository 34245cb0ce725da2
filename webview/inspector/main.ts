// The inspector webview's start-up: it builds the page's roots, the request channel and the one InspectorApp
// that holds the page's state (inspectorApp.ts), then routes the host's messages and theme changes to it. The
// app renders the view model the host sends (or the one saved with setState, at once, after a hide/show or a
// window reload) and talks to the host only through the typed protocol (src/core/inspector/protocol.ts). Text
// from the target is set with textContent everywhere (dom.ts).
// First: marks when the bundle starts to run, before its modules (lit, the elements, Chart.js) are evaluated.
import './perfStart.ts';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import './inspector.css';
import { command, parseHostNotification, parseInspectorState } from '../../src/core/inspector/protocol.ts';
import { PendingRequests } from '../../src/core/inspector/requests.ts';
import type { Actions } from './actions.ts';
import { h } from '../shared/dom.ts';
import { loadState, post, saveState } from './host.ts';
import { InspectorApp } from './inspectorApp.ts';
import { countCspViolations, watchTheme } from '../shared/pageWatch.ts';

function start(): void {
  const app = document.getElementById('app') ?? document.body.appendChild(h('main', { attrs: { id: 'app' } }));
  const notice = h('div', { class: 'notice', attrs: { id: 'notice', role: 'status', 'aria-live': 'polite' } });
  countCspViolations();

  // Requests (the exports, the raw sections' Copy) wait for the host's answer, with a timeout. The ids start
  // with a random prefix of this page: a webview re-created on show never takes an answer meant for the old one.
  const requests = new PendingRequests({
    send: post,
    idPrefix: [...crypto.getRandomValues(new Uint8Array(6))].map((byte) => byte.toString(16).padStart(2, '0')).join(''),
  });
  const actions: Actions = {
    openPod: (podUid) => post(command('openPod', { podUid })),
    openDocs: (docsId) => post(command('openDocs', { docsId })),
    setLive: (live) => post(command('setLive', { live })),
    request: (method, params, onLate) => requests.request(method, params, { onLate }),
  };
  const root = document.documentElement;
  const inspector = new InspectorApp({ app, notice, root, actions, requests, saveState });

  window.addEventListener('message', (event: MessageEvent) => {
    const message = parseHostNotification(event.data);
    if (message) inspector.receive(message);
  });
  // Charts read their colours from the theme's variables, so they are drawn again.
  watchTheme(root, () => inspector.themeChanged());

  const saved = parseInspectorState(loadState());
  if (saved) inspector.restore(saved);
  else app.append(h('p', { class: 'muted', attrs: { id: 'loading' }, text: 'Loading the inspection…' }));
  performance.mark('inspector:ready');
  post(command('ready', { restored: saved !== undefined }));
}

start();
