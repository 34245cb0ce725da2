// The address of a live manifest: a pod, `gpumem-k8s:/<namespace>/<pod>.yaml?context=<name>`, or a workload the
// Recommendations section opens, `gpumem-k8s:/<namespace>/<name>.<kind>.yaml?context=<name>&kind=<Kind>`: light on
// its own, so the extension can register what reads these documents at activation without loading Kubernetes code.
import * as vscode from 'vscode';
import { isLiveWorkloadKind } from '../../core/rightsizing/liveKinds.ts';
import type { LiveWorkloadKind } from '../../core/rightsizing/liveKinds.ts';

export const MANIFEST_SCHEME = 'gpumem-k8s';

export type ManifestKind = 'Pod' | LiveWorkloadKind;

export interface ManifestTarget {
  readonly context: string;
  readonly kind: ManifestKind;
  readonly namespace: string;
  readonly name: string;
}

export function manifestUri(context: string, namespace: string, name: string, kind: ManifestKind = 'Pod'): vscode.Uri {
  return vscode.Uri.from({
    scheme: MANIFEST_SCHEME,
    path: kind === 'Pod' ? `/${namespace}/${name}.yaml` : `/${namespace}/${name}.${kind.toLowerCase()}.yaml`,
    query: new URLSearchParams(kind === 'Pod' ? { context } : { context, kind }).toString(),
  });
}

export function parseManifestUri(uri: vscode.Uri): ManifestTarget | undefined {
  const query = new URLSearchParams(uri.query);
  const context = query.get('context');
  const kind = query.get('kind') ?? 'Pod';
  const match = /^\/([^/]+)\/([^/]+)\.yaml$/.exec(uri.path);
  if (context === null || !match) return undefined;
  const namespace = match[1] as string;
  const file = match[2] as string;
  if (kind === 'Pod') return { context, kind, namespace, name: file };
  const suffix = `.${kind.toLowerCase()}`;
  if (!isLiveWorkloadKind(kind) || !file.endsWith(suffix) || file.length === suffix.length) return undefined;
  return { context, kind, namespace, name: file.slice(0, -suffix.length) };
}
