// Prometheus credentials for the Fleet view: a bearer token or basic auth, kept in VS Code's SecretStorage under a
// key per Prometheus URL (never in settings, never logged), and "gpumem: Set Prometheus Credentials…" to set or
// clear them with input boxes that hide what is typed.
import * as vscode from 'vscode';
import { parseFleetSettings, withoutTrailingSlashes } from '../../core/settings.ts';
import type { PrometheusAuth } from '../../prometheus/httpGet.ts';
import { readSetting } from '../config.ts';

/** The secret's key: one per Prometheus (origin and path, no query, no trailing slash). */
export function secretKey(url: string): string {
  const parsed = new URL(url);
  return `gpumem.fleet.prometheus:${parsed.origin}${withoutTrailingSlashes(parsed.pathname)}`;
}

/** The stored credentials as PrometheusAuth; `none` when there are none (or they do not parse). */
export function parseStoredAuth(text: string | undefined): PrometheusAuth {
  if (!text) return { kind: 'none' };
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    if (value.kind === 'bearer' && typeof value.token === 'string' && value.token !== '') return { kind: 'bearer', token: value.token };
    if (value.kind === 'basic' && typeof value.user === 'string' && typeof value.password === 'string')
      return { kind: 'basic', user: value.user, password: value.password };
  } catch {
    // fall through: unreadable is none
  }
  return { kind: 'none' };
}

export async function readPrometheusAuth(secrets: vscode.SecretStorage, url: string): Promise<PrometheusAuth> {
  return parseStoredAuth(await secrets.get(secretKey(url)));
}

function validUrl(text: string): string | undefined {
  try {
    const url = new URL(text.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'an http:// or https:// URL';
    if (url.username !== '' || url.password !== '') return 'no credentials in the URL: they are asked for next';
    return undefined;
  } catch {
    return 'an http:// or https:// URL, e.g. https://prometheus.example:9090';
  }
}

export function setPrometheusCredentials(secrets: vscode.SecretStorage, output: vscode.LogOutputChannel) {
  return async (): Promise<void> => {
    let url = parseFleetSettings(readSetting).prometheusUrl;
    if (!url) {
      const typed = await vscode.window.showInputBox({
        title: 'gpumem: Prometheus credentials',
        prompt: 'The Prometheus URL these credentials are for (gpumem.fleet.prometheusUrl is not set)',
        placeHolder: 'https://prometheus.example:9090',
        ignoreFocusOut: true,
        validateInput: (value) => validUrl(value),
      });
      if (!typed) return;
      url = withoutTrailingSlashes(typed.trim());
    }
    const key = secretKey(url);
    const host = new URL(url).host;
    const picked = await vscode.window.showQuickPick(
      [
        { label: 'Bearer token', description: 'Authorization: Bearer …', choice: 'bearer' as const },
        { label: 'Basic auth', description: 'a user and a password', choice: 'basic' as const },
        { label: 'Clear', description: `forget the credentials for ${host}`, choice: 'clear' as const },
      ],
      { title: `gpumem: Prometheus credentials for ${host}`, placeHolder: 'Kept in VS Code secret storage, never in settings' },
    );
    if (!picked) return;
    if (picked.choice === 'clear') {
      await secrets.delete(key);
      output.info(`fleet: Prometheus credentials cleared for ${host}`);
      void vscode.window.showInformationMessage(`gpumem: Prometheus credentials cleared for ${host}.`);
      return;
    }
    let auth: PrometheusAuth;
    if (picked.choice === 'bearer') {
      const token = await vscode.window.showInputBox({
        title: `gpumem: bearer token for ${host}`,
        password: true,
        ignoreFocusOut: true,
        validateInput: (value) => (value.trim() === '' ? 'a token' : /\s/.test(value.trim()) ? 'no spaces in a token' : undefined),
      });
      if (!token) return;
      auth = { kind: 'bearer', token: token.trim() };
    } else {
      const user = await vscode.window.showInputBox({
        title: `gpumem: basic auth user for ${host}`,
        ignoreFocusOut: true,
        validateInput: (value) => (value === '' ? 'a user' : value.includes(':') ? 'no colon in a basic-auth user' : undefined),
      });
      if (!user) return;
      const password = await vscode.window.showInputBox({
        title: `gpumem: password of ${user} on ${host}`,
        password: true,
        ignoreFocusOut: true,
      });
      if (password === undefined) return;
      auth = { kind: 'basic', user, password };
    }
    await secrets.store(key, JSON.stringify(auth));
    // Which kind, never the value.
    output.info(`fleet: Prometheus credentials (${auth.kind}) stored for ${host}`);
    void vscode.window.showInformationMessage(`gpumem: Prometheus credentials (${picked.label.toLowerCase()}) saved for ${host}.`);
  };
}
