// CodeLens above each GPU container: a one-line summary, then one lens per finding with its fix; then the lint
// layer's (live mode's) lenses, each on its own line under the container's.
import * as vscode from 'vscode';
import type { Finding } from '../core/findings.ts';
import type { Ctx } from './ctx.ts';
import type { LintService } from './lintService.ts';
import { COMMANDS } from './commandIds.ts';
import { fixArguments } from './commands/applyFix.ts';

const ICON: Record<Finding['severity'], string> = { error: '$(error)', warning: '$(warning)', info: '$(info)' };

export class GpuCodeLensProvider implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly ctx: Ctx;
  private readonly lint: LintService;

  constructor(ctx: Ctx, lint: LintService) {
    this.ctx = ctx;
    this.lint = lint;
    lint.onDidLint(() => this.changed.fire());
    ctx.onDidChangeSettings(() => this.changed.fire());
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const mode = this.ctx.settings.codeLens;
    if (mode === 'off') return [];
    const lint = this.lint.get(document) ?? this.lint.lintNow(document);
    if (!lint) return [];
    const lenses: vscode.CodeLens[] = [];
    for (const summary of lint.result.containers) {
      const range = new vscode.Range(document.positionAt(summary.span.start), document.positionAt(summary.span.start));
      lenses.push(
        new vscode.CodeLens(range, {
          title: summary.title,
          command: 'workbench.actions.view.problems',
          tooltip: 'Show the Problems panel',
        }),
      );
      if (mode !== 'all') continue;
      const mine = lint.result.findings.filter((finding) => finding.container === summary.container && finding.object === summary.object);
      for (const finding of mine) {
        const fix = finding.fixes.find((candidate) => candidate.preferred) ?? finding.fixes[0];
        const title = `${ICON[finding.severity]} ${finding.ruleId}${fix ? `: ${fix.title}` : ''}`;
        lenses.push(
          new vscode.CodeLens(
            range,
            fix
              ? { title, command: COMMANDS.applyFix, arguments: fixArguments(document, fix), tooltip: finding.message }
              : { title, command: 'vscode.open', arguments: [this.ctx.ruleDocsUri(finding.ruleId)], tooltip: finding.message },
          ),
        );
      }
    }
    for (const lens of this.lint.layerOf(document).lenses) {
      const at = document.positionAt(lens.offset);
      lenses.push(
        new vscode.CodeLens(new vscode.Range(at, at), {
          title: lens.title,
          command: lens.command?.id ?? '',
          ...(lens.command ? { arguments: [...lens.command.arguments] } : {}),
          ...(lens.tooltip ? { tooltip: lens.tooltip } : {}),
        }),
      );
    }
    return lenses;
  }
}
