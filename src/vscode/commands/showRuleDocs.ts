// "Show Rule Documentation…": pick a rule and open its page.
import * as vscode from 'vscode';
import { RULES } from '../../core/rules/catalog.ts';
import type { Ctx } from '../ctx.ts';

export async function showRuleDocs(ctx: Ctx, ruleId?: unknown): Promise<void> {
  let id = typeof ruleId === 'string' ? ruleId : undefined;
  if (!id) {
    const picked = await vscode.window.showQuickPick(
      RULES.map((rule) => ({ label: rule.id, description: rule.defaultSeverity, detail: rule.title })),
      { placeHolder: 'gpumem rule', matchOnDetail: true },
    );
    id = picked?.label;
  }
  if (id) await vscode.commands.executeCommand('markdown.showPreview', ctx.ruleDocsUri(id));
}
