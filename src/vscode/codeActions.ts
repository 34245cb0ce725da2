// Quick fixes in the lightbulb: each finding's fixes, a suppression comment, and the rule's docs.
import * as vscode from 'vscode';
import { insertCommentAbove } from '../core/edits.ts';
import { fixesOf } from '../core/findings.ts';
import type { QuickFix } from '../core/findings.ts';
import type { Ctx } from './ctx.ts';
import type { LintService } from './lintService.ts';

export class GpuCodeActionProvider implements vscode.CodeActionProvider {
  static readonly metadata: vscode.CodeActionProviderMetadata = { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] };
  private readonly ctx: Ctx;
  private readonly lint: LintService;

  constructor(ctx: Ctx, lint: LintService) {
    this.ctx = ctx;
    this.lint = lint;
  }

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const lint = this.lint.get(document);
    if (!lint) return [];
    const actions: vscode.CodeAction[] = [];
    const text = document.getText();
    for (const diagnostic of context.diagnostics) {
      if (diagnostic.source !== 'gpumem') continue;
      const finding = lint.byDiagnostic.get(diagnostic);
      if (!finding) continue;
      // Live mode's fix is built here, on request: judging a document only says that it exists.
      for (const fix of fixesOf(finding, text)) actions.push(this.action(document, fix, diagnostic, fix.preferred === true));
      if (finding.span.start > 0 || finding.ruleId !== 'manifest-skipped') {
        const edit = insertCommentAbove(text, finding.span.start, `gpumem-ignore ${finding.ruleId} -- reason`);
        actions.push(this.action(document, { title: `Suppress ${finding.ruleId} on this line`, edits: [edit] }, diagnostic, false));
      }
      const docs = new vscode.CodeAction(`Show documentation for ${finding.ruleId}`, vscode.CodeActionKind.QuickFix);
      docs.command = { title: docs.title, command: 'vscode.open', arguments: [this.ctx.ruleDocsUri(finding.ruleId)] };
      docs.diagnostics = [diagnostic];
      actions.push(docs);
    }
    return actions;
  }

  private action(document: vscode.TextDocument, fix: QuickFix, diagnostic: vscode.Diagnostic, preferred: boolean): vscode.CodeAction {
    const action = new vscode.CodeAction(fix.title, vscode.CodeActionKind.QuickFix);
    const edit = new vscode.WorkspaceEdit();
    for (const change of fix.edits)
      edit.replace(document.uri, new vscode.Range(document.positionAt(change.start), document.positionAt(change.end)), change.newText);
    action.edit = edit;
    action.diagnostics = [diagnostic];
    action.isPreferred = preferred;
    return action;
  }
}
