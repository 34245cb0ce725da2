// Opens a live manifest (manifestScheme.ts) read-only in an editor, as YAML so the linter reads it: the object is
// read first under a progress indicator, and a failure goes through the one error reporter. The Clusters view's
// Open Manifest (a pod) and the Recommendations section's Open live manifest (a workload) both open through here.
import * as vscode from 'vscode';
import { errorText } from '../../kube/errorText.ts';
import { reportError } from '../messages.ts';
import type { PodManifestProvider } from './manifestProvider.ts';
import type { ManifestTarget } from './manifestScheme.ts';
import { manifestUri } from './manifestScheme.ts';

export async function showLiveManifest(
  output: vscode.LogOutputChannel,
  manifests: PodManifestProvider,
  target: ManifestTarget,
): Promise<void> {
  const uri = manifestUri(target.context, target.namespace, target.name, target.kind);
  const what = `${target.kind === 'Pod' ? 'pod' : target.kind} ${target.namespace}/${target.name}`;
  try {
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `gpumem: reading ${what}` }, () =>
      manifests.fetch(uri),
    );
  } catch (error) {
    const action = `Open the live manifest of ${what}`;
    reportError(output, action, error, errorText(error, { context: target.context, namespace: target.namespace, action }));
    return;
  }
  const document = await vscode.workspace.openTextDocument(uri);
  const yaml = document.languageId === 'yaml' ? document : await vscode.languages.setTextDocumentLanguage(document, 'yaml');
  await vscode.window.showTextDocument(yaml, { preview: false });
}
