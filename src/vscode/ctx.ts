// The state every command and provider shares, built once on activation.
import * as vscode from 'vscode';
import { DebugPodRegistry } from '../kube/debugPodRegistry.ts';
import { InspectionPanels } from './inspection/show.ts';
import { ReportView } from './reportView.ts';
import { readSettings } from './settings.ts';
import type { Settings } from './settings.ts';

function inspectorSampleSeconds(): number {
  const value = vscode.workspace.getConfiguration('gpumem.inspector').get<number>('sampleSeconds', 5);
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.min(3600, Math.max(1, value)) : 0;
}

export class Ctx implements vscode.Disposable {
  readonly extension: vscode.ExtensionContext;
  readonly output: vscode.LogOutputChannel;
  /** Node debug pods still in flight in this window: deactivate() deletes them (src/extension.ts). */
  readonly debugPods = new DebugPodRegistry();
  /** The one surface for Markdown reports (read-only, in the Markdown preview). */
  readonly reports = new ReportView();
  /** The inspector panels of this window: every inspection opens there. */
  readonly inspections: InspectionPanels;
  private current: Settings;
  private readonly changed = new vscode.EventEmitter<Settings>();
  readonly onDidChangeSettings = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(extension: vscode.ExtensionContext) {
    this.extension = extension;
    this.output = vscode.window.createOutputChannel('gpumem', { log: true });
    this.current = readSettings();
    this.reportProblems();
    this.inspections = new InspectionPanels({
      output: this.output,
      extensionUri: extension.extensionUri,
      reports: this.reports,
      sampleSeconds: () => inspectorSampleSeconds(),
      onDidChangeSampleSeconds: (listener, thisArgs, disposables) =>
        vscode.workspace.onDidChangeConfiguration((event) => {
          if (event.affectsConfiguration('gpumem.inspector.sampleSeconds')) listener.call(thisArgs, event);
        }, undefined, disposables),
    });
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
