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
import { KustomizePatches } from './kustomizePatches.ts';
import type { KustomizePatchIndex } from '../core/manifest/kustomization.ts';
import { EMPTY_LAYER } from './lintLayer.ts';
import type { LayerResult, LintLayer } from './lintLayer.ts';

export interface DocumentLint {
  readonly version: number;
  readonly result: LintResult;
  /** Findings by the diagnostic that shows them (the layer's too, once merged), for code actions. */
  readonly byDiagnostic: WeakMap<vscode.Diagnostic, Finding>;
  readonly diagnostics: readonly vscode.Diagnostic[];
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
  /** Which documents kustomizations list as patches (judged only for what they set). */
  private readonly kustomizePatches = new KustomizePatches(() => this.relintAll());
  /** The layer (live mode) and what it added to each document, by URI, for the version it judged. */
  private layer: LintLayer | undefined;
  private readonly layered = new Map<string, { readonly version: number; readonly result: LayerResult }>();
  private readonly layerTimers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(ctx: Ctx) {
    this.ctx = ctx;
    this.subscriptions.push(
      vscode.workspace.onDidOpenTextDocument((document) => this.lintNow(document)),
      vscode.workspace.onDidChangeTextDocument((event) => this.schedule(event.document)),
      vscode.workspace.onDidCloseTextDocument((document) => this.forget(document.uri)),
      ctx.onDidChangeSettings(() => this.relintAll()),
      this.kustomizePatches,
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

  /** The patch files of the workspace's kustomizations, from a workspace lint. */
  setWorkspaceKustomizePatches(index: KustomizePatchIndex): void {
    this.kustomizePatches.setWorkspace(index);
  }

  /** Claims indexed by a workspace lint; open documents are linted again against them. */
  setWorkspaceClaims(claims: ClaimLookup): void {
    this.workspaceClaims = claims;
    this.relintAll();
  }

  private lintSafely(text: string, uri: vscode.Uri): LintResult {
    try {
      const kustomizePatch = this.kustomizePatches.roleOf(uri);
      return lintText(text, this.ctx.settings.lint, { claims: this.workspaceClaims, ...(kustomizePatch ? { kustomizePatch } : {}) });
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
    const lint: DocumentLint = { version: document.version, result, byDiagnostic, diagnostics };
    this.cache.set(document.uri.toString(), lint);
    this.diagnostics.set(document.uri, diagnostics);
    this.changed.fire(document.uri);
    this.scheduleLayer(document);
    return lint;
  }

  /** Sets the layer whose findings are merged after the static ones (one at a time); disposing removes it. */
  setLayer(layer: LintLayer): vscode.Disposable {
    this.layer = layer;
    const judgeAll = (): void => {
      for (const document of vscode.workspace.textDocuments) if (this.get(document)) this.scheduleLayer(document);
    };
    const subscription = layer.onDidChange(judgeAll);
    // Documents linted before the layer came (those open at activation) are judged now.
    judgeAll();
    return new vscode.Disposable(() => {
      subscription.dispose();
      if (this.layer !== layer) return;
      this.layer = undefined;
      for (const document of vscode.workspace.textDocuments) if (this.get(document)) this.scheduleLayer(document);
    });
  }

  /** What the layer added to this version of the document (nothing until it ran). */
  layerOf(document: vscode.TextDocument): LayerResult {
    const entry = this.layered.get(document.uri.toString());
    return entry && entry.version === document.version ? entry.result : EMPTY_LAYER;
  }

  /** Runs the layer on a later turn, once per burst: the static diagnostics are already out when it runs. */
  private scheduleLayer(document: vscode.TextDocument): void {
    const key = document.uri.toString();
    if (!this.layer && !this.layered.has(key)) return;
    if (this.layerTimers.has(key)) return;
    this.layerTimers.set(
      key,
      setTimeout(() => {
        this.layerTimers.delete(key);
        this.mergeLayer(document);
      }, 0),
    );
  }

  private mergeLayer(document: vscode.TextDocument): void {
    const key = document.uri.toString();
    const lint = this.get(document);
    if (!lint) return;
    let result = EMPTY_LAYER;
    try {
      if (this.layer) result = this.layer.judge(document, lint.result);
    } catch (error) {
      this.ctx.output.error(`The live findings of ${document.uri.toString(true)} failed: ${(error as Error).stack ?? String(error)}`);
    }
    const before = this.layered.get(key);
    if (result === EMPTY_LAYER) this.layered.delete(key);
    else this.layered.set(key, { version: document.version, result });
    if (!before && result === EMPTY_LAYER) return;
    const extra = result.findings.map((finding) => {
      const diagnostic = toDiagnostic(finding, (offset) => document.positionAt(offset), this.ctx);
      lint.byDiagnostic.set(diagnostic, finding);
      return diagnostic;
    });
    this.diagnostics.set(document.uri, [...lint.diagnostics, ...extra]);
    this.changed.fire(document.uri);
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
    this.layered.delete(key);
    const layerTimer = this.layerTimers.get(key);
    if (layerTimer) clearTimeout(layerTimer);
    this.layerTimers.delete(key);
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
    for (const timer of this.layerTimers.values()) clearTimeout(timer);
    for (const subscription of this.subscriptions) subscription.dispose();
    this.diagnostics.dispose();
    this.changed.dispose();
  }
}
