// Nothing that runs a probe is offered in Restricted Mode; the commands also check, in case they are invoked directly.
import * as vscode from 'vscode';

export function requireTrust(action: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window.showWarningMessage(
    `gpumem: "${action}" runs commands, so it is disabled in Restricted Mode. Trust the workspace to use it.`,
  );
  return false;
}
