// Wires gpumem's VS Code parts together; behaviour lives in src/vscode/ and src/core/.
import * as vscode from 'vscode';
import { GpuCodeActionProvider } from './vscode/codeActions.ts';
import { GpuCodeLensProvider } from './vscode/codeLens.ts';
import { APPLY_FIX_COMMAND, applyFix } from './vscode/commands/applyFix.ts';
import { lintActiveFile } from './vscode/commands/lintActiveFile.ts';
import { lintWorkspace } from './vscode/commands/lintWorkspace.ts';
import { showRuleDocs } from './vscode/commands/showRuleDocs.ts';
import { Ctx } from './vscode/ctx.ts';
import { GpuHoverProvider } from './vscode/hover.ts';
import { LintService } from './vscode/lintService.ts';

const YAML_DOCUMENTS: vscode.DocumentSelector = [
  { language: 'yaml', scheme: 'file' },
  { language: 'yaml', scheme: 'untitled' },
  { language: 'helm', scheme: 'file' },
  { language: 'helm', scheme: 'untitled' },
];

export function activate(context: vscode.ExtensionContext) {
  const ctx = new Ctx(context);
  const lint = new LintService(ctx);
  context.subscriptions.push(
    ctx,
    lint,
    vscode.languages.registerCodeLensProvider(YAML_DOCUMENTS, new GpuCodeLensProvider(ctx, lint)),
    vscode.languages.registerCodeActionsProvider(YAML_DOCUMENTS, new GpuCodeActionProvider(ctx, lint), GpuCodeActionProvider.metadata),
    vscode.languages.registerHoverProvider(YAML_DOCUMENTS, new GpuHoverProvider()),
    vscode.commands.registerCommand('gpumem.lintWorkspace', () => lintWorkspace(ctx, lint)),
    vscode.commands.registerCommand('gpumem.lintActiveFile', () => lintActiveFile(lint)),
    vscode.commands.registerCommand('gpumem.showRuleDocs', (ruleId?: unknown) => showRuleDocs(ctx, ruleId)),
    vscode.commands.registerCommand(APPLY_FIX_COMMAND, applyFix),
  );
}

export function deactivate() {}
