// The state every command and provider shares, built once on activation.
import * as vscode from 'vscode';
import { isLiveRule, liveRuleDocsPath } from '../core/live/liveRules.ts';
import type { Settings } from '../core/settings.ts';
import { DebugPodRegistry } from '../kube/debugPodRegistry.ts';
import { Configuration } from './config.ts';
import type { SettingsChange } from './config.ts';
import { Inspections } from './inspectionRun/inspections.ts';
import type { CreateInspectionPanels } from './inspectionRun/inspections.ts';
import { ReportView } from './reportView.ts';

export class Ctx implements vscode.Disposable {
  readonly extension: vscode.ExtensionContext;
  readonly output: vscode.LogOutputChannel;
  /** Node debug pods still in flight in this window: deactivate() deletes them (src/extension.ts). */
  readonly debugPods = new DebugPodRegistry();
  /** The one surface for Markdown reports (read-only, in the Markdown preview). */
  readonly reports = new ReportView();
  /** The inspector panels of this window: every inspection opens there (created on the first one). */
  readonly inspections: Inspections;
  readonly #config: Configuration;
  readonly onDidChangeSettings: vscode.Event<SettingsChange>;

  /**
   * `output` is the gpumem output channel, which the Ctx then owns; it is made first because loading a bundle
   * logs there, and `createPanels` loads dist/inspect.js (src/extension.ts).
   */
  constructor(extension: vscode.ExtensionContext, output: vscode.LogOutputChannel, createPanels: CreateInspectionPanels) {
    this.extension = extension;
    this.output = output;
    this.#config = new Configuration((problems) => {
      for (const problem of problems) this.output.warn(`Ignoring invalid setting ${problem}`);
    });
    this.onDidChangeSettings = this.#config.onDidChange;
    this.inspections = new Inspections(
      {
        output: this.output,
        extensionUri: extension.extensionUri,
        reports: this.reports,
        sampleSeconds: () => this.settings.inspectorSampleSeconds,
        headroomPercent: () => this.settings.lint.headroomPercent,
        onDidChangeSampleSeconds: (listener, thisArgs, disposables) =>
          this.onDidChangeSettings(
            (change) => {
              if (change.affects('gpumem.inspector.sampleSeconds')) listener.call(thisArgs, change);
            },
            undefined,
            disposables,
          ),
      },
      createPanels,
    );
  }

  get settings(): Settings {
    return this.#config.settings;
  }

  /** The bundled documentation page of a rule, or of a live finding (docs/live/). */
  ruleDocsUri(ruleId: string): vscode.Uri {
    if (isLiveRule(ruleId)) return vscode.Uri.joinPath(this.extension.extensionUri, ...liveRuleDocsPath(ruleId).split('/'));
    return vscode.Uri.joinPath(this.extension.extensionUri, 'docs', 'rules', `${ruleId}.md`);
  }

  dispose(): void {
    this.#config.dispose();
    this.output.dispose();
  }
}
