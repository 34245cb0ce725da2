// "Lint Active File": lints the current editor now, even above the live-typing size cap.
import * as vscode from 'vscode';
import type { LintService } from '../lintService.ts';

export function lintActiveFile(lint: LintService): number | undefined {
  const document = vscode.window.activeTextEditor?.document;
  if (!document) {
    void vscode.window.showInformationMessage('gpumem: open a YAML manifest first.');
    return undefined;
  }
  return lint.lintExplicitly(document).result.findings.length;
}
