// Registration of the inspector: the WebviewPanelSerializer that brings panels back after a window reload
// (activation event `onWebviewPanel:gpumem.inspector`), and the entry point showInspection uses.
import * as vscode from 'vscode';
import type { Inspection } from '../../core/inspection/analyze.ts';
import { INSPECTOR_VIEW_TYPE } from '../../core/inspector/protocol.ts';
import type { Ctx } from '../ctx.ts';
import type { ShowInspectionOptions } from './panel.ts';
import { InspectorPanel } from './panel.ts';

let registered: Ctx | undefined;

export function registerInspector(ctx: Ctx): vscode.Disposable {
  registered = ctx;
  const serializer = vscode.window.registerWebviewPanelSerializer(INSPECTOR_VIEW_TYPE, {
    async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
      InspectorPanel.revive(ctx, panel, state);
    },
  });
  return vscode.Disposable.from(serializer, { dispose: () => {
    void InspectorPanel.disposeAll(); // deactivate awaits the same closings
    registered = undefined;
  } });
}

/** Opens the inspection in the inspector panel; false when the inspector is not registered (the caller falls back). */
export function openInspector(inspection: Inspection, options: ShowInspectionOptions = {}): boolean {
  if (!registered) return false;
  InspectorPanel.show(registered, inspection, options);
  return true;
}
