// The fleet panel's HTML: the inspector's static shell and Content Security Policy (src/vscode/inspector/html.ts:
// nothing loads but the bundle, no inline script or style, a fresh nonce per render), with the fleet bundle. The
// data arrives by postMessage and is set as text. Pure (no vscode import), so the unit tests check it.
import type { InspectorHtmlInput } from '../inspector/html.ts';
import { contentSecurityPolicy } from '../inspector/html.ts';

function attribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function fleetHtml(input: InspectorHtmlInput): string {
  if (!/^[A-Za-z0-9+/]{16,}$/.test(input.nonce)) throw new Error('the CSP nonce must be base64');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attribute(contentSecurityPolicy(input.cspSource, input.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attribute(input.styleUri)}">
<title>gpumem fleet</title>
</head>
<body>
<main id="app" aria-label="gpumem fleet"></main>
<script nonce="${input.nonce}" src="${attribute(input.scriptUri)}"></script>
</body>
</html>
`;
}
