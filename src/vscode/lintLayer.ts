// The one seam through which something other than the static lint adds to a linted document: findings merged into
// the same diagnostics (and quick fixes), CodeLenses under the static ones, and hovers. Live mode is the one layer
// (src/vscode/live/). The LintService publishes the static findings first and runs the layer afterwards, on a later
// turn of the event loop, so a layer can never delay or change the static lint.
import type * as vscode from 'vscode';
import type { LintResult } from '../core/lint.ts';
import type { LayerResult } from '../core/lintLayerResult.ts';

export type { LayerHover, LayerLens, LayerResult } from '../core/lintLayerResult.ts';

export const EMPTY_LAYER: LayerResult = { findings: [], lenses: [], hovers: [] };

export interface LintLayer {
  /** What the layer adds to a document the static lint just published; it must not throw (a throw is logged and dropped). */
  readonly judge: (document: vscode.TextDocument, lint: LintResult) => LayerResult;
  /** Fired when the layer's own data changed: every open document is judged again (not linted again). */
  readonly onDidChange: vscode.Event<void>;
}
