// The host side every gpumem webview panel shares: the bundle under dist/webview/ as the only local
// resource, a fresh HTML with a new CSP nonce on each render (./html.ts holds the policy),
// and messages out that are dropped once the panel is gone. What the messages mean is the panel's own.
// https://code.visualstudio.com/api/extension-guides/webview#content-security-policy
import * as vscode from 'vscode';
import type { WebviewHtmlInput } from './html.ts';
import { contentSecurityPolicy, newCspNonce } from './html.ts';

export interface WebviewBundle {
  /** File names under dist/webview/. */
  readonly script: string;
  readonly style: string;
  /** The page around them (a static shell: the data arrives by postMessage). */
  readonly html: (input: WebviewHtmlInput) => string;
}

/** Scripts on, and nothing but the bundle loads: also what a panel restored after a reload gets. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview')] };
}

export class WebviewHost<Outgoing> implements vscode.Disposable {
  readonly #panel: vscode.WebviewPanel;
  readonly #extensionUri: vscode.Uri;
  readonly #bundle: WebviewBundle;
  readonly #log: (line: string) => void;
  readonly #subscription: vscode.Disposable;
  #disposed = false;

  constructor(
    panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    bundle: WebviewBundle,
    handlers: { readonly onMessage: (message: unknown) => void; readonly log: (line: string) => void },
  ) {
    this.#panel = panel;
    this.#extensionUri = extensionUri;
    this.#bundle = bundle;
    this.#log = handlers.log;
    this.#subscription = panel.webview.onDidReceiveMessage(handlers.onMessage);
  }

  /** A fresh HTML (and nonce); the webview script then asks the panel for its data. */
  render(): void {
    const webview = this.#panel.webview;
    const base = vscode.Uri.joinPath(this.#extensionUri, 'dist', 'webview');
    const nonce = newCspNonce();
    webview.html = this.#bundle.html({
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(base, this.#bundle.script)).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(base, this.#bundle.style)).toString(),
      nonce,
    });
    this.#log(contentSecurityPolicy(webview.cspSource, nonce));
  }

  post(message: Outgoing): void {
    if (this.#disposed) return;
    void this.#panel.webview.postMessage(message);
  }

  dispose(): void {
    this.#disposed = true;
    this.#subscription.dispose();
  }
}
