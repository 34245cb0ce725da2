// Applies a quick fix chosen from a CodeLens, if the document has not changed since it was computed.
import * as vscode from 'vscode';
import type { QuickFix, TextEdit } from '../../core/findings.ts';

export function fixArguments(document: vscode.TextDocument, fix: QuickFix): unknown[] {
  return [document.uri.toString(), document.version, fix.edits];
}

export async function applyFix(uri: unknown, version: unknown, edits: unknown): Promise<void> {
  if (typeof uri !== 'string' || typeof version !== 'number' || !Array.isArray(edits)) return;
  const document = vscode.workspace.textDocuments.find((candidate) => candidate.uri.toString() === uri);
  if (!document) return;
  if (document.version !== version) {
    void vscode.window.showInformationMessage(
      'gpumem: the document changed since this fix was computed; try again from the updated CodeLens.',
    );
    return;
  }
  const edit = new vscode.WorkspaceEdit();
  for (const change of edits as TextEdit[]) {
    edit.replace(document.uri, new vscode.Range(document.positionAt(change.start), document.positionAt(change.end)), change.newText);
  }
  await vscode.workspace.applyEdit(edit);
}
