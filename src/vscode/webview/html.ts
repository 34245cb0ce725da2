// Every gpumem webview panel's HTML (the inspector's, the fleet's): a static shell that loads the panel's bundled
// script and stylesheet from dist/webview/ under a strict Content Security Policy with a fresh nonce per render:
//   default-src 'none'                       nothing else loads (no remote resources, no frames, no fetch);
//   img-src <webview source> data:           images only from the bundle (Chart.js needs none);
//   style-src <webview source>               the stylesheet file and constructable stylesheets (lit's
//                                            adoptedStyleSheets), no inline <style> or style="" attributes;
//   font-src <webview source>;
//   script-src 'nonce-<nonce>'               only the one script tag below runs; no inline script, no eval.
// Nothing from the panel's data is put into this HTML: the data arrives by postMessage and is set as text.
// Pure (no vscode import), so the unit tests check the policy.
import { randomBytes } from 'node:crypto';

export interface WebviewHtmlInput {
  /** webview.cspSource */
  readonly cspSource: string;
  /** webview.asWebviewUri(dist/webview/<panel>.js) as a string */
  readonly scriptUri: string;
  /** webview.asWebviewUri(dist/webview/<panel>.css) as a string */
  readonly styleUri: string;
  readonly nonce: string;
}

/** 128 random bits, base64 without padding: a new one for every render of the HTML. */
export function newCspNonce(): string {
  return randomBytes(16).toString('base64').replace(/=+$/, '');
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return `default-src 'none'; img-src ${cspSource} data:; style-src ${cspSource}; font-src ${cspSource}; script-src 'nonce-${nonce}';`;
}

function attribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The static shell every gpumem webview uses: the policy, the stylesheet, one `<main>` and the nonce'd script. */
export function webviewShell(input: WebviewHtmlInput, page: { readonly title: string; readonly label: string }): string {
  if (!/^[A-Za-z0-9+/]{16,}$/.test(input.nonce)) throw new Error('the CSP nonce must be base64');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attribute(contentSecurityPolicy(input.cspSource, input.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attribute(input.styleUri)}">
<title>${attribute(page.title)}</title>
</head>
<body>
<main id="app" aria-label="${attribute(page.label)}"></main>
<script nonce="${input.nonce}" src="${attribute(input.scriptUri)}"></script>
</body>
</html>
`;
}
