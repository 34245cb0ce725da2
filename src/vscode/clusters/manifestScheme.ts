// The address of a live pod manifest, `gpumem-k8s:/<namespace>/<pod>.yaml?context=<name>`: light on its own,
// so the extension can register what reads these documents at activation without loading Kubernetes code.
import * as vscode from 'vscode';

export const MANIFEST_SCHEME = 'gpumem-k8s';

export function manifestUri(context: string, namespace: string, pod: string): vscode.Uri {
  return vscode.Uri.from({
    scheme: MANIFEST_SCHEME,
    path: `/${namespace}/${pod}.yaml`,
    query: new URLSearchParams({ context }).toString(),
  });
}

export function parseManifestUri(uri: vscode.Uri): { context: string; namespace: string; pod: string } | undefined {
  const context = new URLSearchParams(uri.query).get('context');
  const match = /^\/([^/]+)\/([^/]+)\.yaml$/.exec(uri.path);
  if (context === null || !match) return undefined;
  return { context, namespace: match[1] as string, pod: match[2] as string };
}
