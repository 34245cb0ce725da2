// Until the inspector webview exists, inspections open as Markdown reports (a read-only preview of an
// untitled document, so nothing is written to disk unless the user saves it).
import * as vscode from 'vscode';
import type { Inspection } from '../core/inspection/analyze.ts';
import { inspectionToMarkdown } from '../core/report/inspectionReport.ts';

export async function showMarkdownReport(markdown: string): Promise<void> {
  const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: markdown });
  await vscode.commands.executeCommand('markdown.showPreview', document.uri);
}

export async function showInspection(inspection: Inspection): Promise<void> {
  await showMarkdownReport(inspectionToMarkdown(inspection));
}
