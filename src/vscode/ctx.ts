// The state every command and provider shares, built once on activation.
import * as vscode from 'vscode';
import { DebugPodRegistry } from '../kube/debugPodRegistry.ts';
import { readSettings } from './settings.ts';
import type { Settings } from './settings.ts';

export class Ctx implements vscode.Disposable {
  readonly extension: vscode.ExtensionContext;
  readonly output: vscode.LogOutputChannel;
  /** Node debug pods still in flight in this window: deactivate() deletes them (src/extension.ts). */
  readonly debugPods = new DebugPodRegistry();
  private current: Settings;
  private readonly changed = new vscode.EventEmitter<Settings>();
  readonly onDidChangeSettings = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(extension: vscode.ExtensionContext) {
    this.extension = extension;
    this.output = vscode.window.createOutputChannel('gpumem', { log: true });
    this.current = readSettings();
    this.reportProblems();
    this.subscription = vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration('gpumem')) return;
      this.current = readSettings();
      this.reportProblems();
      this.changed.fire(this.current);
    });
  }

  get settings(): Settings {
    return this.current;
  }

  /** The bundled documentation page of a rule. */
  ruleDocsUri(ruleId: string): vscode.Uri {
    return vscode.Uri.joinPath(this.extension.extensionUri, 'docs', 'rules', `${ruleId}.md`);
  }

  private reportProblems(): void {
    for (const problem of this.current.problems) this.output.warn(`Ignoring invalid setting ${problem}`);
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
    this.output.dispose();
  }
}
