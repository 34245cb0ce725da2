// The inspector panel's HTML: the shared shell and Content Security Policy of every gpumem webview
// (src/vscode/webview/html.ts) with the inspector's title. Pure (no vscode import), so the unit tests check it.
import type { WebviewHtmlInput } from '../webview/html.ts';
import { webviewShell } from '../webview/html.ts';

export function inspectorHtml(input: WebviewHtmlInput): string {
  return webviewShell(input, { title: 'gpumem inspector', label: 'gpumem inspector' });
}
