// The one place the extension reads its settings: each key is read here and parsed by src/core/settings.ts
// (the clamps and fallbacks, unit-tested); Configuration keeps the current snapshot and re-reads it when a
// gpumem setting changes. (lintWorkspace.ts also reads VS Code's own files.exclude, which is not ours.)
import * as vscode from 'vscode';
import { parseSettings } from '../core/settings.ts';
import type { Settings, SettingsReader } from '../core/settings.ts';

/** A full key's value: the user's (workspace, folder or global), else package.json's default. */
export const readSetting: SettingsReader = (key) => vscode.workspace.getConfiguration().get(key);

export interface SettingsChange {
  readonly settings: Settings;
  /** Whether the change touched `section` (`gpumem.inspector.sampleSeconds`, `gpumem.ssh`). */
  readonly affects: (section: string) => boolean;
}

export class Configuration implements vscode.Disposable {
  #current: Settings;
  readonly #changed = new vscode.EventEmitter<SettingsChange>();
  /** After the snapshot was re-read: listeners see the new settings. */
  readonly onDidChange = this.#changed.event;
  readonly #subscription: vscode.Disposable;

  constructor(onProblems: (problems: readonly string[]) => void) {
    this.#current = parseSettings(readSetting);
    onProblems(this.#current.problems);
    this.#subscription = vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration('gpumem')) return;
      this.#current = parseSettings(readSetting);
      onProblems(this.#current.problems);
      this.#changed.fire({ settings: this.#current, affects: (section) => event.affectsConfiguration(section) });
    });
  }

  get settings(): Settings {
    return this.#current;
  }

  dispose(): void {
    this.#subscription.dispose();
    this.#changed.dispose();
  }
}
