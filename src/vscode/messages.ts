// The one way gpumem surfaces a failure: the gpumem output channel gets the whole of it (where the details around
// it are: the probe, the exec, the cluster calls) and a notification says what failed in one sentence, with a
// "Show Log" action that opens that channel. An expected failure (RBAC, unreachable, a deadline, a file) says its
// cause; anything else is a bug in gpumem, said as such, its stack in the log (core/failureReport.ts). Modelled on
// GitLens's src/messages.ts (https://github.com/gitkraken/vscode-gitlens). Never pass a secret: the text is logged
// as it is.
import * as vscode from 'vscode';
import { errorDetails, ExplainedError, reportFailure } from '../core/failureReport.ts';
import type { FailureReport } from '../core/failureReport.ts';

export const SHOW_LOG = 'Show Log';

export type FailureLevel = 'error' | 'warning';

async function notify(output: vscode.LogOutputChannel, text: string, level: FailureLevel): Promise<void> {
  const show = level === 'error' ? vscode.window.showErrorMessage : vscode.window.showWarningMessage;
  const choice = await show(`gpumem: ${text}`, SHOW_LOG);
  if (choice === SHOW_LOG) output.show(true);
}

/** Logs `text`, a sentence gpumem wrote itself (not an exception's), and shows it with Show Log. */
export async function showFailure(output: vscode.LogOutputChannel, text: string, level: FailureLevel = 'error'): Promise<void> {
  if (level === 'error') output.error(text);
  else output.warn(text);
  await notify(output, text, level);
}

/** VS Code's file-system errors (workspace.fs) are the file's, not gpumem's. */
function known(error: unknown): unknown {
  return error instanceof vscode.FileSystemError ? new ExplainedError(error.message, 'file', { cause: error }) : error;
}

/**
 * A failure of `action` ("Inspect node gpu-1") from what was thrown: the sentence for the user (see the header;
 * `explanation` is the caller's whole sentence for an expected failure, e.g. errorText with its context and
 * namespace), the sentence and the whole error with its stack in the log. A cancel is logged, not shown. Resolves
 * to the report (a panel shows its sentence too) without waiting for the notification.
 */
export function reportError(output: vscode.LogOutputChannel, action: string, error: unknown, explanation?: string): FailureReport {
  const report = reportFailure(action, known(error), explanation);
  if (report.kind === 'cancelled') {
    output.info(`${action}: cancelled`);
    return report;
  }
  output.error(`${report.sentence}\n${errorDetails(error)}`);
  void notify(output, report.sentence, 'error');
  return report;
}
