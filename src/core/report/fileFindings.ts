// Findings of one file with 1-based positions: the shape every CLI output format starts from.
import type { Finding } from '../findings.ts';
import { LineIndex } from '../lineIndex.ts';

export interface PositionedFinding {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** End position, exclusive (the character after the span), 1-based as in SARIF. */
  readonly endLine: number;
  readonly endColumn: number;
  readonly finding: Finding;
}

export function positionFindings(file: string, text: string, findings: readonly Finding[]): PositionedFinding[] {
  const lines = new LineIndex(text);
  return findings.map((finding) => {
    const start = lines.position(finding.span.start);
    const end = lines.position(Math.max(finding.span.end, finding.span.start));
    return { file, line: start.line, column: start.column, endLine: end.line, endColumn: end.column, finding };
  });
}
