// "Analyze Probe Capture…": reads a saved capture back, for offline and air-gapped work.
import * as vscode from 'vscode';
import { analyzeCaptureText } from '../../core/inspectionRun/analyze.ts';
import type { Ctx } from '../ctx.ts';
import { reportError } from '../messages.ts';
import { readUriBounded } from '../readUri.ts';
import { ExplainedError } from '../../core/failureReport.ts';
import { engineLimitReason } from '../../core/internalError.ts';

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
    if (read.kind !== 'read') throw new ExplainedError(`not read: ${read.reason}`, 'file');
    const text = new TextDecoder().decode(read.bytes);
    const inspection = analyzeCaptureText(text, {
      target: `capture ${vscode.workspace.asRelativePath(target)}`,
      headroomPercent: ctx.settings.lint.headroomPercent,
    });
    if (inspection.scope === undefined) throw new ExplainedError(inspection.problems.join('; '));
    await ctx.inspections.show(inspection);
  } catch (error) {
    // The engine's own limits (input nested too deeply, too large) are the input's, in words.
    const limit = engineLimitReason(error);
    reportError(
      ctx.output,
      `Analyze capture ${target.fsPath}`,
      limit !== undefined ? new ExplainedError(limit, 'input', { cause: error }) : error,
    );
  }
}
