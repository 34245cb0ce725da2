// A webview panel's page outside VS Code, for the page benchmarks (bench/inspector.mjs, bench/fleetView.mjs): the
// panel's own HTML and Content Security Policy served from a local HTTP server with the production bundle, and a
// dark theme's variables as VS Code sets them. Headless Chromium (through playwright-core) loads it.
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { newCspNonce } from '../src/vscode/webview/html.ts';

/** A dark theme's variables, as VS Code sets them on the webview's <html> (a subset: what the inspector reads). */
export const THEME_CSS = `:root {
  --vscode-font-family: system-ui, sans-serif; --vscode-font-size: 13px; --vscode-editor-font-family: monospace;
  --vscode-foreground: #cccccc; --vscode-editor-background: #1f1f1f; --vscode-descriptionForeground: #9d9d9d;
  --vscode-charts-foreground: #cccccc; --vscode-charts-lines: rgba(204, 204, 204, 0.5); --vscode-charts-red: #f14c4c;
  --vscode-charts-blue: #3794ff; --vscode-charts-yellow: #cca700; --vscode-charts-orange: #d18616; --vscode-charts-green: #89d185;
  --vscode-charts-purple: #b180d7; --vscode-editor-foreground: #cccccc; --vscode-textLink-foreground: #4daafc;
  --vscode-errorForeground: #f85149; --vscode-editorError-foreground: #f14c4c; --vscode-editorWarning-foreground: #cca700;
}
`;

/**
 * Serves `html(origin, nonce)` at / (the CSP source is the server's origin, the theme added, the body dark), the
 * theme at /theme.css, and the named files of `bundleDir` under /dist/webview/.
 */
export async function startPageServer({ html, bundleDir, files }) {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const origin = `http://${request.headers.host}`;
    if (url.pathname === '/') {
      const page = html(origin, newCspNonce())
        .replace('</head>', `<link rel="stylesheet" href="${origin}/theme.css">\n</head>`)
        .replace('<body>', '<body class="vscode-dark">');
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end(page);
      return;
    }
    if (url.pathname === '/theme.css') {
      response.writeHead(200, { 'content-type': 'text/css' });
      response.end(THEME_CSS);
      return;
    }
    const name = url.pathname.startsWith('/dist/webview/') ? url.pathname.slice('/dist/webview/'.length) : '';
    if (files.includes(name)) {
      response.writeHead(200, { 'content-type': name.endsWith('.js') ? 'text/javascript' : 'text/css' });
      response.end(readFileSync(join(bundleDir, name)));
      return;
    }
    response.writeHead(404);
    response.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, url: `http://127.0.0.1:${address.port}/` };
}

/**
 * The webview bundles as users get them: scripts/build.mjs's webview target with --production (minified, no
 * source map), built into a temp dir so that dist/ (built for development by `npm run bench`) is left alone.
 */
export async function productionBundle(entryPoints) {
  const dir = mkdtempSync(join(os.tmpdir(), 'gpumem-bench-webview-'));
  await esbuild.build({
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
    entryPoints,
    outdir: dir,
    sourcemap: false,
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  return dir;
}
