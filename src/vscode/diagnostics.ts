// Findings as VS Code diagnostics: source `gpumem`, the rule id as the code, linked to the rule's docs.
import * as vscode from 'vscode';
import type { Finding, Severity } from '../core/findings.ts';
import type { Ctx } from './ctx.ts';

const SEVERITY: Record<Severity, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

export function toDiagnostic(finding: Finding, positionAt: (offset: number) => vscode.Position, ctx: Ctx): vscode.Diagnostic {
  const range = new vscode.Range(positionAt(finding.span.start), positionAt(finding.span.end));
  const diagnostic = new vscode.Diagnostic(range, finding.message, SEVERITY[finding.severity]);
  diagnostic.source = 'gpumem';
  diagnostic.code = { value: finding.ruleId, target: ctx.ruleDocsUri(finding.ruleId) };
  if (
    finding.ruleId === 'manifest-skipped' ||
    finding.ruleId === 'analysis-budget' ||
    finding.ruleId === 'helm-template' ||
    finding.ruleId === 'unrendered-template'
  )
    diagnostic.tags = [];
  return diagnostic;
}
