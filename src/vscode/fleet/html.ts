// The fleet panel's HTML: the inspector's static shell and Content Security Policy (src/vscode/inspectorPanel/html.ts:
// nothing loads but the bundle, no inline script or style, a fresh nonce per render), with the fleet bundle. The
// data arrives by postMessage and is set as text. Pure (no vscode import), so the unit tests check it.
import type { InspectorHtmlInput } from '../inspectorPanel/html.ts';
import { webviewShell } from '../inspectorPanel/html.ts';

export function fleetHtml(input: InspectorHtmlInput): string {
  return webviewShell(input, { title: 'gpumem fleet', label: 'gpumem fleet' });
}
