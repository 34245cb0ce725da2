// Lints open YAML documents (debounced, cached per version) and publishes diagnostics.
// Other providers (CodeLens, code actions) read the cached results instead of linting again.
import * as vscode from 'vscode';
import type { ContainerSummary } from '../core/analysis/containerSummary.ts';
import type { Finding } from '../core/findings.ts';
import { LineIndex } from '../core/lineIndex.ts';
import { internalErrorFinding } from '../core/internalError.ts';
import { lintText } from '../core/lint.ts';
import type { LintResult } from '../core/lint.ts';
import type { ClaimLookup } from '../core/manifest/draClaims.ts';
import type { Ctx } from './ctx.ts';
import { toDiagnostic } from './diagnostics.ts';

export interface DocumentLint {
  readonly version: number;
  readonly result: LintResult;
  /** Findings by the diagnostic that shows them, for code actions. */
  readonly byDiagnostic: WeakMap<vscode.Diagnostic, Finding>;
}

const KUBERNETES_HINT = /^[ \t]*(apiVersion|kind)[ \t]*:/m;

export function isLintable(document: vscode.TextDocument): boolean {
  return (
    (document.languageId === 'yaml' || document.languageId === 'helm') && document.uri.scheme !== 'output' && document.uri.scheme !== 'git'
  );
}

export class LintService implements vscode.Disposable {
  readonly diagnostics = vscode.languages.createDiagnosticCollection('gpumem');
  private readonly cache = new Map<string, DocumentLint>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidLint = this.changed.event;
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly ctx: Ctx;
  /** DRA claims of the last workspace lint: open editors resolve claims defined in other files through it. */
  private workspaceClaims: ClaimLookup | undefined;

  constructor(ctx: Ctx) {
    this.ctx = ctx;
    this.subscriptions.push(
      vscode.workspace.onDidOpenTextDocument((document) => this.lintNow(document)),
      vscode.workspace.onDidChangeTextDocument((event) => this.schedule(event.document)),
      vscode.workspace.onDidCloseTextDocument((document) => this.forget(document.uri)),
      ctx.onDidChangeSettings(() => this.relintAll()),
    );
    this.relintAll();
  }

  get(document: vscode.TextDocument): DocumentLint | undefined {
    const cached = this.cache.get(document.uri.toString());
    return cached && cached.version === document.version ? cached : undefined;
  }

  /** Lints now unless the cache is current; returns undefined for documents gpumem does not lint. */
  lintNow(document: vscode.TextDocument): DocumentLint | undefined {
    const key = document.uri.toString();
    this.clearTimer(key);
    if (!isLintable(document)) return undefined;
    const cached = this.get(document);
    if (cached) return cached;
    const settings = this.ctx.settings;
    if (!settings.enabled) {
      this.forget(document.uri);
      return undefined;
    }
    const text = document.getText();
    let result: LintResult;
    if (!KUBERNETES_HINT.test(text)) {
      result = { findings: [], containers: [], unanalysed: [] };
    } else if (text.length > settings.maxFileBytes) {
      const notice: Finding = {
        ruleId: 'manifest-skipped',
        severity: 'info',
        span: { start: 0, end: 0 },
        message: `Not linted as you type: the file is ${(text.length / 1024).toFixed(0)} KiB, above gpumem.lint.maxFileSizeKB (${settings.maxFileBytes / 1024} KiB). Run "gpumem: Lint Active File" or "Lint Workspace Manifests" to analyse it.`,
        fixes: [],
      };
      result = { findings: [notice], containers: [], unanalysed: [notice] };
    } else {
      result = this.lintSafely(text, document.uri);
    }
    return this.publish(document, result);
  }

  /** Lints regardless of the live-typing size cap (explicit user request). */
  lintExplicitly(document: vscode.TextDocument): DocumentLint {
    return this.publish(document, this.lintSafely(document.getText(), document.uri));
  }

  publishForFile(uri: vscode.Uri, findings: readonly Finding[], text: string): void {
    const open = vscode.workspace.textDocuments.find((document) => document.uri.toString() === uri.toString());
    if (open) {
      this.lintExplicitly(open);
      return;
    }
    const lines = new LineIndex(text);
    const positionAt = (offset: number) => {
      const { line, column } = lines.position(offset);
      return new vscode.Position(line - 1, column - 1);
    };
    this.diagnostics.set(
      uri,
      findings.map((finding) => toDiagnostic(finding, positionAt, this.ctx)),
    );
  }

  workspaceClaimLookup(): ClaimLookup | undefined {
    return this.workspaceClaims;
  }

  /** Claims indexed by a workspace lint; open documents are linted again against them. */
  setWorkspaceClaims(claims: ClaimLookup): void {
    this.workspaceClaims = claims;
    this.relintAll();
  }

  private lintSafely(text: string, uri: vscode.Uri): LintResult {
    try {
      return lintText(text, this.ctx.settings.lint, { claims: this.workspaceClaims });
    } catch (error) {
      // A bug in a rule must never take the editor down: log it and show one notice.
      this.ctx.output.error(`Linting ${uri.toString(true)} failed: ${(error as Error).stack ?? String(error)}`);
      const failure = internalErrorFinding({ kind: 'file', file: vscode.workspace.asRelativePath(uri) }, error);
      return { findings: [failure], containers: [], unanalysed: [failure] };
    }
  }

  private publish(document: vscode.TextDocument, result: LintResult): DocumentLint {
    const byDiagnostic = new WeakMap<vscode.Diagnostic, Finding>();
    const diagnostics = result.findings.map((finding) => {
      const diagnostic = toDiagnostic(finding, (offset) => document.positionAt(offset), this.ctx);
      byDiagnostic.set(diagnostic, finding);
      return diagnostic;
    });
    const lint: DocumentLint = { version: document.version, result, byDiagnostic };
    this.cache.set(document.uri.toString(), lint);
    this.diagnostics.set(document.uri, diagnostics);
    this.changed.fire(document.uri);
    return lint;
  }

  containers(document: vscode.TextDocument): readonly ContainerSummary[] {
    return this.get(document)?.result.containers ?? [];
  }

  private schedule(document: vscode.TextDocument): void {
    if (!isLintable(document)) return;
    const key = document.uri.toString();
    this.clearTimer(key);
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        this.lintNow(document);
      }, this.ctx.settings.debounceMs),
    );
  }

  private relintAll(): void {
    this.cache.clear();
    if (!this.ctx.settings.enabled) this.diagnostics.clear();
    for (const document of vscode.workspace.textDocuments) this.lintNow(document);
  }

  private forget(uri: vscode.Uri): void {
    const key = uri.toString();
    this.clearTimer(key);
    this.cache.delete(key);
    this.diagnostics.delete(uri);
    this.changed.fire(uri);
  }

  private clearTimer(key: string): void {
    const timer = this.timers.get(key);
    if (timer) clearTimeout(timer);
    this.timers.delete(key);
  }

  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    for (const subscription of this.subscriptions) subscription.dispose();
    this.diagnostics.dispose();
    this.changed.dispose();
  }
}
