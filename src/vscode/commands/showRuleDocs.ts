// "Show Rule Documentation…": pick a rule, or a live finding, and open its page.
import * as vscode from 'vscode';
import { ruleList } from '../../core/rules/ruleList.ts';
import type { RuleListEntry } from '../../core/rules/ruleList.ts';
import type { Ctx } from '../ctx.ts';

export async function showRuleDocs(ctx: Ctx, ruleId?: unknown): Promise<void> {
  let id = typeof ruleId === 'string' ? ruleId : undefined;
  if (!id) {
    const items: vscode.QuickPickItem[] = [];
    let source: RuleListEntry['source'] = 'lint';
    for (const entry of ruleList()) {
      if (entry.source !== source) items.push({ label: 'From a live cluster', kind: vscode.QuickPickItemKind.Separator });
      source = entry.source;
      items.push({ label: entry.id, description: entry.defaultSeverity, detail: entry.label });
    }
    const picked = await vscode.window.showQuickPick(items, { placeHolder: 'gpumem rule or live finding', matchOnDetail: true });
    id = picked?.label;
  }
  if (id) await vscode.commands.executeCommand('markdown.showPreview', ctx.ruleDocsUri(id));
}
