// What a layer over the static lint (live mode) adds to a linted document, as plain data: findings merged into the
// same diagnostics, CodeLenses under the static ones, and hovers. The core builds it; src/vscode/lintLayer.ts shows it.
import type { Finding, Span } from './findings.ts';

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
