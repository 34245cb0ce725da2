// Hovers on GPU resources, memory quantities and gpumem's memory annotations, followed by the lint layer's (live
// mode's pods of the container) where the position is inside one of its spans.
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
      const offset = document.offsetAt(position);
      const info = hoverAt(document.getText(), offset, {
        ...(this.ctx ? { gpuDeviceClasses: this.ctx.settings.lint.gpuDeviceClasses } : {}),
        ...(claims ? { claims } : {}),
      });
      const layered = this.lint?.layerOf(document).hovers.find((hover) => hover.span.start <= offset && offset < hover.span.end);
      if (!info && !layered) return undefined;
      const contents: vscode.MarkdownString[] = [];
      if (info) {
        const markdown = new vscode.MarkdownString(info.markdown);
        markdown.isTrusted = false;
        contents.push(markdown);
      }
      if (layered) {
        const markdown = new vscode.MarkdownString(layered.markdown);
        markdown.isTrusted = { enabledCommands: [...layered.enabledCommands] };
        contents.push(markdown);
      }
      const span = info ?? layered?.span ?? { start: offset, end: offset };
      return new vscode.Hover(contents, new vscode.Range(document.positionAt(span.start), document.positionAt(span.end)));
    } catch {
      return undefined;
    }
  }
}
