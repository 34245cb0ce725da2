// "Analyze Probe Capture…": reads a saved capture back, for offline and air-gapped work.
import * as vscode from 'vscode';
import { analyzeCaptureText } from '../../core/inspectionRun/analyze.ts';
import type { Ctx } from '../ctx.ts';
import { showFailure } from '../messages.ts';
import { readUriBounded } from '../readUri.ts';
import { errorMessage } from '../../core/errorMessage.ts';

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
    const read = await readUriBounded(target, { kind: 'capture' });
    if (read.kind !== 'read') throw new Error(`not read: ${read.reason}`);
    const text = new TextDecoder().decode(read.bytes);
    const inspection = analyzeCaptureText(text, {
      target: `capture ${vscode.workspace.asRelativePath(target)}`,
      headroomPercent: ctx.settings.lint.headroomPercent,
    });
    if (inspection.scope === undefined) throw new Error(inspection.problems.join('; '));
    await ctx.inspections.show(inspection);
  } catch (error) {
    const message = errorMessage(error);
    void showFailure(ctx.output, `cannot analyse ${target.fsPath}: ${message}`);
  }
}
