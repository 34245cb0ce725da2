// The state every command and provider shares, built once on activation.
import * as vscode from 'vscode';
import type { Settings } from '../core/settings.ts';
import { DebugPodRegistry } from '../kube/debugPodRegistry.ts';
import { Configuration } from './config.ts';
import type { SettingsChange } from './config.ts';
import { InspectionPanels } from './inspection/show.ts';
import { ReportView } from './reportView.ts';

export class Ctx implements vscode.Disposable {
  readonly extension: vscode.ExtensionContext;
  readonly output: vscode.LogOutputChannel;
  /** Node debug pods still in flight in this window: deactivate() deletes them (src/extension.ts). */
  readonly debugPods = new DebugPodRegistry();
  /** The one surface for Markdown reports (read-only, in the Markdown preview). */
  readonly reports = new ReportView();
  /** The inspector panels of this window: every inspection opens there. */
  readonly inspections: InspectionPanels;
  readonly #config: Configuration;
  readonly onDidChangeSettings: vscode.Event<SettingsChange>;

  constructor(extension: vscode.ExtensionContext) {
    this.extension = extension;
    this.output = vscode.window.createOutputChannel('gpumem', { log: true });
    this.#config = new Configuration((problems) => {
      for (const problem of problems) this.output.warn(`Ignoring invalid setting ${problem}`);
    });
    this.onDidChangeSettings = this.#config.onDidChange;
    this.inspections = new InspectionPanels({
      output: this.output,
      extensionUri: extension.extensionUri,
      reports: this.reports,
      sampleSeconds: () => this.settings.inspectorSampleSeconds,
      onDidChangeSampleSeconds: (listener, thisArgs, disposables) =>
        this.onDidChangeSettings(
          (change) => {
            if (change.affects('gpumem.inspector.sampleSeconds')) listener.call(thisArgs, change);
          },
          undefined,
          disposables,
        ),
    });
  }

  get settings(): Settings {
    return this.#config.settings;
  }

  /** The bundled documentation page of a rule. */
  ruleDocsUri(ruleId: string): vscode.Uri {
    return vscode.Uri.joinPath(this.extension.extensionUri, 'docs', 'rules', `${ruleId}.md`);
  }

  dispose(): void {
    this.#config.dispose();
    this.output.dispose();
  }
}
