// Where inspections are shown: the inspector panels of this window, one per target (a new inspection of
// the same target replaces the old one), and their return after a window reload (revive, called by the
// WebviewPanelSerializer that ./inspections.ts registers at activation). Part of dist/inspect.js: one
// InspectionPanels per window, created on first use by the Ctx's Inspections: no module-level registry.
import type * as vscode from 'vscode';
import type { Inspection } from '../../core/inspectionRun/analyze.ts';
import { parseInspectorState } from '../../core/inspector/protocol.ts';
import { InspectorPanel } from '../inspectorPanel/panel.ts';
import type { InspectorEnvironment, PanelRegistry, ShowInspectionOptions } from '../inspectorPanel/panel.ts';

export class InspectionPanels {
  readonly #env: InspectorEnvironment;
  readonly #panels = new Map<string, InspectorPanel>();
  /** Transports being closed (a debug pod being deleted), so that deactivate can wait for them. */
  readonly #closing = new Set<Promise<void>>();
  readonly #registry: PanelRegistry;
  #sources = 0;

  constructor(env: InspectorEnvironment) {
    this.#env = env;
    this.#registry = {
      nextSourceId: () => `${Date.now().toString(36)}-${++this.#sources}`,
      disposed: (panel) => {
        if (this.#panels.get(panel.target) === panel) this.#panels.delete(panel.target);
      },
      trackClosing: (closing) => {
        this.#closing.add(closing);
        void closing.finally(() => this.#closing.delete(closing));
      },
    };
  }

  /**
   * Opens (or updates) the panel of the inspection's target. `options.transport`, when given, passes to the
   * panel (live sampling), which closes it; it is closed here when the panel cannot be opened.
   */
  async show(inspection: Inspection, options: ShowInspectionOptions = {}): Promise<void> {
    try {
      const existing = this.#panels.get(inspection.target);
      if (existing && !existing.isDisposed) {
        existing.update(inspection, options);
        return;
      }
      this.#panels.set(inspection.target, InspectorPanel.create(this.#env, this.#registry, inspection, options));
    } catch (error) {
      await options.transport?.close();
      throw error;
    }
  }

  /** Brings back a panel VS Code restored after a reload, from the state its webview saved (untrusted). */
  revive(panel: vscode.WebviewPanel, rawState: unknown): void {
    const state = parseInspectorState(rawState);
    if (!state) {
      this.#env.output.warn('inspector: a panel restored without a usable state was closed; run the inspection again');
      panel.dispose();
      return;
    }
    const revived = InspectorPanel.revive(this.#env, this.#registry, panel, state);
    this.#panels.get(state.source.target)?.dispose();
    this.#panels.set(state.source.target, revived);
  }

  /** Disposes every panel; resolves once their transports are closed (debug pods deleted). deactivate returns it. */
  async closeAll(): Promise<void> {
    for (const panel of Array.from(this.#panels.values())) panel.dispose();
    await Promise.all(Array.from(this.#closing));
  }
}
