// The inspector as the rest of the extension sees it (ctx.inspections): show an inspection, close every panel.
// The panels themselves (./show.ts and the inspector, in dist/inspect.js) are created on the first inspection
// or restored panel, so activating on a YAML file loads none of them (issue 16). The panel serializer is
// registered here at activation, as the `onWebviewPanel:gpumem.inspector` activation event requires.
import * as vscode from 'vscode';
import type { Inspection } from '../../core/inspectionRun/analyze.ts';
import { INSPECTOR_VIEW_TYPE } from '../../core/inspectorPanel/viewType.ts';
import type { InspectorEnvironment, ShowInspectionOptions } from '../inspectorPanel/panel.ts';
import type { InspectionPanels } from './show.ts';

/** Creates the window's panels; `reason` (what first needed them) goes to the output channel with the load. */
export type CreateInspectionPanels = (env: InspectorEnvironment, reason: string) => InspectionPanels;

type PanelsState = { readonly kind: 'not-created' } | { readonly kind: 'created'; readonly panels: InspectionPanels };

export class Inspections {
  readonly #env: InspectorEnvironment;
  readonly #create: CreateInspectionPanels;
  #state: PanelsState = { kind: 'not-created' };

  constructor(env: InspectorEnvironment, create: CreateInspectionPanels) {
    this.#env = env;
    this.#create = create;
  }

  #panels(reason: string): InspectionPanels {
    if (this.#state.kind === 'created') return this.#state.panels;
    const panels = this.#create(this.#env, reason);
    this.#state = { kind: 'created', panels };
    return panels;
  }

  /**
   * Opens (or updates) the panel of the inspection's target. `options.transport`, when given, passes to the
   * panel (live sampling), which closes it; it is closed here when the panel cannot be opened.
   */
  async show(inspection: Inspection, options: ShowInspectionOptions = {}): Promise<void> {
    let panels: InspectionPanels;
    try {
      panels = this.#panels('an inspection');
    } catch (error) {
      await options.transport?.close();
      throw error;
    }
    await panels.show(inspection, options);
  }

  /** The serializer that brings panels back after a reload; disposing it closes every panel. */
  register(): vscode.Disposable {
    const serializer = vscode.window.registerWebviewPanelSerializer(INSPECTOR_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel: vscode.WebviewPanel, state: unknown): Promise<void> =>
        this.#panels('a restored inspector panel').revive(panel, state),
    });
    return vscode.Disposable.from(serializer, { dispose: () => void this.closeAll() }); // deactivate awaits the same closings
  }

  /** Disposes every panel; resolves once their transports are closed (debug pods deleted). Never loads the panels. */
  async closeAll(): Promise<void> {
    if (this.#state.kind === 'created') await this.#state.panels.closeAll();
  }
}
