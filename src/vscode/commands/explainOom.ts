// "Explain OOM Kills in Selection / File": a pasted kernel log explained with no other context.
// Pure analysis of editor text, so it works in Restricted Mode too.
import * as vscode from 'vscode';
import { oomToMarkdown } from '../../core/report/oomReport.ts';
import { explainKernelLogText } from '../../core/verdicts/oom/oomRootCause.ts';
import type { Ctx } from '../ctx.ts';

const MAX_LOG_CHARS = 64 * 1024 * 1024;

export async function explainOomInEditor(ctx: Ctx): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage(
      'gpumem: open a kernel log (dmesg, journalctl -k, kern.log) or paste one into an editor first.',
    );
    return;
  }
  const selection = editor.selection;
  const text = selection.isEmpty ? editor.document.getText() : editor.document.getText(selection);
  if (text.length > MAX_LOG_CHARS) {
    void vscode.window.showWarningMessage('gpumem: the log is larger than 64 MiB; select the part around the OOM kills.');
    return;
  }
  const explanation = explainKernelLogText(text, { headroomPercent: ctx.settings.lint.headroomPercent });
  const source = `${vscode.workspace.asRelativePath(editor.document.uri)}${selection.isEmpty ? '' : ` (lines ${selection.start.line + 1}–${selection.end.line + 1})`}`;
  if (explanation.summary.kills === 0) {
    void vscode.window.showInformationMessage(`gpumem: ${explanation.summary.text}`);
    return;
  }
  await ctx.reports.show(oomToMarkdown(explanation, source), `OOM kills ${source}`);
}
