// The one way gpumem surfaces a failure: the line goes to the gpumem output channel (where the details
// around it are: the probe, the exec, the cluster calls) and a notification says what failed, with a
// "Show Log" action that opens that channel. Modelled on GitLens's src/messages.ts
// (https://github.com/gitkraken/vscode-gitlens). Never pass a secret: the text is logged as it is.
import * as vscode from 'vscode';

export const SHOW_LOG = 'Show Log';

export type FailureLevel = 'error' | 'warning';

/** Logs `text` and shows it as `gpumem: <text>` with Show Log. Resolves when the notification is closed. */
export async function showFailure(output: vscode.LogOutputChannel, text: string, level: FailureLevel = 'error'): Promise<void> {
  if (level === 'error') output.error(text);
  else output.warn(text);
  const show = level === 'error' ? vscode.window.showErrorMessage : vscode.window.showWarningMessage;
  const choice = await show(`gpumem: ${text}`, SHOW_LOG);
  if (choice === SHOW_LOG) output.show(true);
}
