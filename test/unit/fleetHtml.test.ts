// The fleet panel's HTML shell has the inspector's Content Security Policy (nothing loads but the bundle, the one
// script by nonce, no inline style) and its webview code puts text on the page only as text; the Clusters view's
// Fleet item opens the view of its context.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fleetTreeItem } from '../../src/core/fleet/fleetTreeItem.ts';
import { contentSecurityPolicy } from '../../src/vscode/webview/html.ts';
import { fleetHtml } from '../../src/vscode/fleet/html.ts';
import { bundledWebviewCss } from './helpers/webviewCss.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const webviewDir = path.join(root, 'webview', 'fleet');

test('the shell: the same CSP as the inspector, a nonce per render, no inline code or style', () => {
  const source = 'https://x.vscode-cdn.net';
  const nonce = 'abcdefghijklmnopqrstuv';
  const html = fleetHtml({ cspSource: source, scriptUri: 'https://x/fleet.js', styleUri: 'https://x/fleet.css', nonce });
  assert.ok(html.includes(`content="${contentSecurityPolicy(source, nonce).replace(/'/g, "'")}"`));
  assert.match(html, /default-src 'none'/);
  assert.doesNotMatch(html, /unsafe-inline|unsafe-eval/);
  assert.match(html, new RegExp(`<script nonce="${nonce}" src="https://x/fleet.js"></script>`));
  assert.doesNotMatch(html, /<style|style=/);
  assert.throws(() => fleetHtml({ cspSource: source, scriptUri: 'x', styleUri: 'y', nonce: "x' 'unsafe-inline" }), /nonce/);
  assert.ok(!fleetHtml({ cspSource: source, scriptUri: '"><script>', styleUri: 'y', nonce }).includes('"><script>'));
});

test('the webview: no innerHTML, no eval, no style attributes, no remote resources', () => {
  const files = readdirSync(webviewDir).filter((name) => name.endsWith('.ts'));
  assert.ok(files.includes('main.ts') && files.includes('nodeTable.ts') && files.includes('fleetApp.ts'));
  for (const name of files) {
    const text = readFileSync(path.join(webviewDir, name), 'utf8').replace(/^\s*\/\/.*$/gm, '');
    assert.doesNotMatch(
      text,
      /\.innerHTML|\.outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function\(|setAttribute\(\s*['"]style['"]/,
      name,
    );
  }
  // With the shared page stylesheet it @imports (inlined by the build): no other import and no url() remain.
  const css = bundledWebviewCss(path.join(webviewDir, 'fleet.css'));
  assert.match(css, /color-scheme: light dark/, 'the shared page stylesheet is part of it');
  assert.doesNotMatch(css, /@import|url\(/, 'no resources in the stylesheet');
  assert.doesNotMatch(css, /#[0-9a-f]{3,8}\b|rgb\(/i, 'theme colours only');
});

test("the Fleet tree item: the context's name escaped in its tooltip", () => {
  const item = fleetTreeItem('prod [east](http://evil)');
  assert.equal(item.label, 'Fleet');
  assert.equal(item.icon.id, 'dashboard');
  assert.equal(item.collapsible, false);
  assert.ok(item.tooltip.includes('prod \\[east\\]'), item.tooltip);
});
