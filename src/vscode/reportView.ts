// The one surface for Markdown reports (Explain OOM, the HAMi checklist, a pod's numbers): a read-only
// virtual document (scheme gpumem-report) shown in the Markdown preview. Nothing is written to disk and no
// unsaved editor is left behind; the user can still copy or save the text. Inspections open in the
// inspector instead (src/vscode/inspectionRun/show.ts). One ReportView per window, created with the Ctx.
import * as vscode from 'vscode';

export const REPORT_SCHEME = 'gpumem-report';
const MAX_REPORTS = 20;

export class ReportView implements vscode.TextDocumentContentProvider {
  private readonly reports = new Map<string, string>();
  private counter = 0;

  /** Serves the reports' text to the Markdown preview; extension.ts adds it to the subscriptions. */
  register(): vscode.Disposable {
    return vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.reports.get(uri.query) ?? '# This gpumem report is no longer available\n\nRun the inspection again.\n';
  }

  /** Opens `markdown` read-only in the Markdown preview. */
  async show(markdown: string, title = 'gpumem report'): Promise<void> {
    await vscode.commands.executeCommand('markdown.showPreview', this.add(title, markdown));
  }

  private add(title: string, markdown: string): vscode.Uri {
    const id = String(++this.counter);
    this.reports.set(id, markdown);
    // Keep memory bounded: the oldest reports go first.
    while (this.reports.size > MAX_REPORTS) {
      const oldest = this.reports.keys().next().value;
      if (oldest === undefined) break;
      this.reports.delete(oldest);
    }
    const name =
      title
        .replace(/[^A-Za-z0-9._-]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 80) || 'report';
    return vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${name}.md`, query: id });
  }
}
