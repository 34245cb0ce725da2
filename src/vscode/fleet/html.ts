// The fleet panel's HTML: the shared shell and Content Security Policy of every gpumem webview
// (src/vscode/webview/html.ts: nothing loads but the bundle, no inline script or style, a fresh nonce per render),
// with the fleet bundle. The data arrives by postMessage and is set as text. Pure (no vscode import), so the unit
// tests check it.
import type { WebviewHtmlInput } from '../webview/html.ts';
import { webviewShell } from '../webview/html.ts';

export function fleetHtml(input: WebviewHtmlInput): string {
  return webviewShell(input, { title: 'gpumem fleet', label: 'gpumem fleet' });
}
