// The status-bar item of live mode: "gpumem: live off" or "gpumem: live · <context>" with the state of its last read
// (src/core/live/livePresentation.ts says the words); a click opens the context pick.
import * as vscode from 'vscode';
import type { LiveModeState } from '../../core/live/livePresentation.ts';
import { liveStatus } from '../../core/live/livePresentation.ts';
import { COMMANDS } from '../commandIds.ts';

export class LiveStatusBar implements vscode.Disposable {
  readonly #item = vscode.window.createStatusBarItem('gpumem.live', vscode.StatusBarAlignment.Left, 20);

  constructor() {
    this.#item.name = 'gpumem live mode';
    this.#item.command = COMMANDS.chooseLiveContext;
  }

  show(state: LiveModeState, nowMs: number, staleAfterMs: number): void {
    const view = liveStatus(state, nowMs, staleAfterMs);
    this.#item.text = view.text;
    this.#item.tooltip = view.tooltip;
    this.#item.backgroundColor = view.tone === 'warning' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.#item.show();
  }

  dispose(): void {
    this.#item.dispose();
  }
}
