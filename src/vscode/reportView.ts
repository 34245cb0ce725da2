// Inspections open in the inspector webview (showInspection). Markdown reports (Explain OOM, a pod's
// details) are a read-only virtual document (scheme gpumem-report) shown in the Markdown preview. Nothing
// is written to disk and no unsaved editor is left behind; the user can still copy or save the text.
import * as vscode from 'vscode';
import type { Inspection } from '../core/inspection/analyze.ts';
import { inspectionToMarkdown } from '../core/report/inspectionReport.ts';
import type { ShowInspectionOptions } from './inspector/panel.ts';
import { openInspector } from './inspector/serializer.ts';

export const REPORT_SCHEME = 'gpumem-report';
const MAX_REPORTS = 20;

export class ReportStore implements vscode.TextDocumentContentProvider {
  private readonly reports = new Map<string, string>();
  private counter = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.reports.get(uri.query) ?? '# This gpumem report is no longer available\n\nRun the inspection again.\n';
  }

  add(title: string, markdown: string): vscode.Uri {
    const id = String(++this.counter);
    this.reports.set(id, markdown);
    // Keep memory bounded: the oldest reports go first.
    while (this.reports.size > MAX_REPORTS) {
      const oldest = this.reports.keys().next().value;
      if (oldest === undefined) break;
      this.reports.delete(oldest);
    }
    const name = title.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'report';
    return vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${name}.md`, query: id });
  }
}

let store: ReportStore | undefined;

export function registerReportStore(): vscode.Disposable {
  store = new ReportStore();
  return vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, store);
}

export async function showMarkdownReport(markdown: string, title = 'gpumem report'): Promise<void> {
  if (!store) registerReportStore();
  const uri = (store as ReportStore).add(title, markdown);
  await vscode.commands.executeCommand('markdown.showPreview', uri);
}

/**
 * Every inspection opens in the inspector panel (src/vscode/inspector/). `options.transport`, when given,
 * passes to the panel (live sampling), which closes it. The Markdown report stays the fallback when the
 * inspector is not registered, and the source of "Copy report as Markdown".
 */
export async function showInspection(inspection: Inspection, options: ShowInspectionOptions = {}): Promise<void> {
  try {
    if (openInspector(inspection, options)) return;
  } catch (error) {
    await options.transport?.close();
    throw error;
  }
  await options.transport?.close();
  await showMarkdownReport(inspectionToMarkdown(inspection), `gpumem inspection ${inspection.target}`);
}
