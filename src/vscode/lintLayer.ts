// The one seam through which something other than the static lint adds to a linted document: findings merged into
// the same diagnostics (and quick fixes), CodeLenses under the static ones, and hovers. Live mode is the one layer
// (src/vscode/live/). The LintService publishes the static findings first and runs the layer afterwards, on a later
// turn of the event loop, so a layer can never delay or change the static lint.
import type * as vscode from 'vscode';
import type { Finding, Span } from '../core/findings.ts';
import type { LintResult } from '../core/lint.ts';

export interface LayerLens {
  /** The CodeLens is shown above the line of this offset. */
  readonly offset: number;
  readonly title: string;
  readonly tooltip?: string;
  readonly command?: { readonly id: string; readonly arguments: readonly unknown[] };
}

export interface LayerHover {
  readonly span: Span;
  readonly markdown: string;
  /** Commands the hover's links may run (its Markdown is otherwise untrusted). */
  readonly enabledCommands: readonly string[];
}

export interface LayerResult {
  readonly findings: readonly Finding[];
  readonly lenses: readonly LayerLens[];
  readonly hovers: readonly LayerHover[];
}

export const EMPTY_LAYER: LayerResult = { findings: [], lenses: [], hovers: [] };

export interface LintLayer {
  /** What the layer adds to a document the static lint just published; it must not throw (a throw is logged and dropped). */
  readonly judge: (document: vscode.TextDocument, lint: LintResult) => LayerResult;
  /** Fired when the layer's own data changed: every open document is judged again (not linted again). */
  readonly onDidChange: vscode.Event<void>;
}
