// Rendered kustomize overlays as read-only documents, `gpumem-kustomize:/<overlay directory>/kustomize-rendered.yaml`:
// "Lint Rendered Kustomize Overlay" (src/vscode/commands/lintRenderedOverlay.ts, in dist/inspect.js) puts the text
// of `kubectl kustomize DIR` here, and the LintService lints the document like any YAML one, so its findings sit at
// their lines in the rendered objects. Light (a map of texts), so it is registered at activation.
import * as vscode from 'vscode';

export const KUSTOMIZE_SCHEME = 'gpumem-kustomize';
/** No overlay file has this name, so a kustomization never lists the rendered document as a patch. */
const RENDERED_NAME = 'kustomize-rendered.yaml';
/** The rendered overlays kept for their documents (each bounded by gpumem.lint.maxFileSizeKB); the oldest go first. */
const MAX_OVERLAYS = 20;

export class RenderedOverlays implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  register(): vscode.Disposable {
    return vscode.workspace.registerTextDocumentContentProvider(KUSTOMIZE_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return (
      this.texts.get(uri.toString()) ??
      '# gpumem: this rendered overlay is no longer available; run "Lint Rendered Kustomize Overlay" again\n'
    );
  }

  /** Keeps `text` as the rendered overlay of `directory` (a file URI) and returns its document's URI. */
  put(directory: vscode.Uri, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: KUSTOMIZE_SCHEME, path: vscode.Uri.joinPath(directory, RENDERED_NAME).path });
    const key = uri.toString();
    this.texts.delete(key);
    this.texts.set(key, text);
    while (this.texts.size > MAX_OVERLAYS) {
      const oldest = this.texts.keys().next().value;
      if (oldest === undefined) break;
      this.texts.delete(oldest);
    }
    // An open document of the same overlay is read again (and relinted as it changes).
    this.changed.fire(uri);
    return uri;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
