// Hovers on GPU resources, memory quantities and gpumem's memory annotations.
import * as vscode from 'vscode';
import { hoverAt } from '../core/analysis/hover.ts';
import type { Ctx } from './ctx.ts';
import type { LintService } from './lintService.ts';

const MAX_HOVER_TEXT = 2 * 1024 * 1024;

export class GpuHoverProvider implements vscode.HoverProvider {
  private readonly ctx: Ctx | undefined;
  private readonly lint: LintService | undefined;

  /** Without ctx and lint, DRA claims resolve within the file only and only the drivers' GPU classes are known. */
  constructor(ctx?: Ctx, lint?: LintService) {
    this.ctx = ctx;
    this.lint = lint;
  }

  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    if (document.getText().length > MAX_HOVER_TEXT) return undefined;
    try {
      const claims = this.lint?.workspaceClaimLookup();
      const info = hoverAt(document.getText(), document.offsetAt(position), {
        ...(this.ctx ? { gpuDeviceClasses: this.ctx.settings.lint.gpuDeviceClasses } : {}),
        ...(claims ? { claims } : {}),
      });
      if (!info) return undefined;
      const markdown = new vscode.MarkdownString(info.markdown);
      markdown.isTrusted = false;
      return new vscode.Hover(markdown, new vscode.Range(document.positionAt(info.start), document.positionAt(info.end)));
    } catch {
      return undefined;
    }
  }
}
