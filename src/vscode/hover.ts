// Hovers on GPU resources, memory quantities and gpumem's memory annotations.
import * as vscode from 'vscode';
import { hoverAt } from '../core/analysis/hover.ts';

const MAX_HOVER_TEXT = 2 * 1024 * 1024;

export class GpuHoverProvider implements vscode.HoverProvider {
  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    if (document.getText().length > MAX_HOVER_TEXT) return undefined;
    try {
      const info = hoverAt(document.getText(), document.offsetAt(position));
      if (!info) return undefined;
      const markdown = new vscode.MarkdownString(info.markdown);
      markdown.isTrusted = false;
      return new vscode.Hover(markdown, new vscode.Range(document.positionAt(info.start), document.positionAt(info.end)));
    } catch {
      return undefined;
    }
  }
}
