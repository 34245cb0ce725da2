// "Analyze Probe Capture…": reads a saved capture back, for offline and air-gapped work.
import * as vscode from 'vscode';
import { analyzeCaptureText } from '../../core/inspectionRun/analyze.ts';
import type { Ctx } from '../ctx.ts';
import { showFailure } from '../messages.ts';

const MAX_CAPTURE_BYTES = 256 * 1024 * 1024;

export async function analyzeCapture(ctx: Ctx, uri?: vscode.Uri): Promise<void> {
  const target =
    uri ??
    (
      await vscode.window.showOpenDialog({
        canSelectMany: false,
        openLabel: 'Analyze',
        filters: { 'Probe captures': ['txt', 'capture', 'log'], 'All files': ['*'] },
      })
    )?.[0];
  if (!target) return;
  try {
    const stat = await vscode.workspace.fs.stat(target);
    if (stat.size > MAX_CAPTURE_BYTES)
      throw new Error(`the file is ${(stat.size / 2 ** 20).toFixed(0)} MiB, larger than any probe capture`);
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(target));
    const inspection = analyzeCaptureText(text, { target: `capture ${vscode.workspace.asRelativePath(target)}` });
    if (inspection.scope === undefined) throw new Error(inspection.problems.join('; '));
    await ctx.inspections.show(inspection);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    void showFailure(ctx.output, `cannot analyse ${target.fsPath}: ${message}`);
  }
}
