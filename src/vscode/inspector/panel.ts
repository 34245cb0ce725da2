// The inspector panel's host side: one WebviewPanel per target (a new inspection of the same target
// replaces the old one), the typed protocol (src/core/inspector/protocol.ts), the exports, and live
// sampling.
//
// Live sampling: while the panel lives it owns the transport the inspection ran on, when the command handed
// it over (inspectWithTransport's `liveSampling`: the SSH connection stays open, a local transport holds
// nothing, Inspect Node's debug pod is kept: see src/kube/debugPodTransport.ts, lifetime `retained`) and re-runs the light probe (src/core/probe/scripts/lightScript.ts)
// every `gpumem.inspector.sampleSeconds` (0 = off): one exec per sample, never two at once. It stops while
// the panel is hidden (the webview is not kept alive: no retainContextWhenHidden, so the data lives here and
// is sent again when the panel shows), after the user pauses it, after three failures in a row, and for good
// when the panel closes, which also closes the transport (deletes the debug pod); deactivate waits for that
// (disposeAll). Each sample is logged to the gpumem output channel ("inspector: live sample N …"), which is
// how the e2e tests count execs.
import * as vscode from 'vscode';
import type { Inspection } from '../../core/inspection/analyze.ts';
import { analyzeCaptureText } from '../../core/inspection/analyze.ts';
import type { OpenPodArgs } from '../../core/inspector/openPod.ts';
import type { CopiedResult, InspectionSource, LiveState, ResponseNotification, SavedResult, WebviewCommand, WebviewRequest } from '../../core/inspector/protocol.ts';
import { errorResponse, INSPECTOR_VIEW_TYPE, MAX_STATE_CAPTURE_CHARS, notification, parseInspectorState, parseWebviewMessage, response } from '../../core/inspector/protocol.ts';
import { serializeCapture } from '../../core/inspector/rawCapture.ts';
import type { SamplePoint } from '../../core/inspector/sample.ts';
import { appendBounded, MAX_SAMPLES, sampleFromCapture } from '../../core/inspector/sample.ts';
import type { InspectorViewModel } from '../../core/inspector/viewModel.ts';
import { buildInspectorViewModel, podToMarkdown, verdictDocs } from '../../core/inspector/viewModel.ts';
import { newNonce } from '../../core/probe/script.ts';
import { buildLightProbeScript } from '../../core/probe/scripts/lightScript.ts';
import type { Transport } from '../../core/probe/transport.ts';
import { TransportError } from '../../core/probe/transport.ts';
import { inspectionToJson, inspectionToMarkdown } from '../../core/report/inspectionReport.ts';
import { COMMANDS } from '../commandIds.ts';
import type { Ctx } from '../ctx.ts';
import { showMarkdownReport } from '../reportView.ts';
import { contentSecurityPolicy, inspectorHtml, newCspNonce } from './html.ts';

export interface ShowInspectionOptions {
  /** The transport the inspection ran on. Ownership passes to the panel (live sampling); it closes it. */
  readonly transport?: Transport;
  /** The capture text that was analysed (for "Save probe capture"); rebuilt from the parsed capture otherwise. */
  readonly captureText?: string;
}

const MAX_FAILURES = 3;
const LIGHT_PROBE_MAX_OUTPUT = 16 * 1024 * 1024;

function sampleSeconds(): number {
  const value = vscode.workspace.getConfiguration('gpumem.inspector').get<number>('sampleSeconds', 5);
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.min(3600, Math.max(1, value)) : 0;
}

function fileStem(target: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, '').replace('T', '-');
  const name = target.replace(/^capture\s+/, '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'inspection';
  return `gpumem-${name}-${stamp}`;
}

let sourceCounter = 0;

export class InspectorPanel implements vscode.Disposable {
  private static readonly panels = new Map<string, InspectorPanel>();
  /** Transports being closed (a debug pod being deleted), so that deactivate can wait for them. */
  private static readonly closing = new Set<Promise<void>>();

  readonly #ctx: Ctx;
  readonly #panel: vscode.WebviewPanel;
  readonly #disposables: vscode.Disposable[] = [];
  #inspection: Inspection | undefined;
  #model: InspectorViewModel;
  #source: InspectionSource;
  /** The full capture text (the state copy may have been dropped for size). */
  #captureText: string | undefined;
  #transport: Transport | undefined;
  #history: SamplePoint[] = [];
  #samples = 0;
  #failures = 0;
  #userPaused = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #inFlight: AbortController | undefined;
  #lastError = '';
  #disposed = false;

  /** Opens (or updates) the panel of the inspection's target. Takes ownership of `options.transport`. */
  static show(ctx: Ctx, inspection: Inspection, options: ShowInspectionOptions = {}): InspectorPanel {
    const existing = InspectorPanel.panels.get(inspection.target);
    if (existing && !existing.#disposed) {
      existing.#load(inspection, options);
      existing.#panel.reveal(undefined, false);
      return existing;
    }
    const prepared = InspectorPanel.#prepare(inspection, options);
    const panel = vscode.window.createWebviewPanel(INSPECTOR_VIEW_TYPE, InspectorPanel.#title(inspection.target), vscode.ViewColumn.Active, {
      ...InspectorPanel.webviewOptions(ctx),
      enableFindWidget: true,
    });
    const created = new InspectorPanel(ctx, panel, prepared.model, prepared.source);
    created.#load(inspection, options, prepared);
    return created;
  }

  /** After a window reload: the webview renders from its saved state; exports work again from the saved capture. */
  static revive(ctx: Ctx, panel: vscode.WebviewPanel, rawState: unknown): void {
    const state = parseInspectorState(rawState);
    if (!state) {
      ctx.output.warn('inspector: a panel restored without a usable state was closed; run the inspection again');
      panel.dispose();
      return;
    }
    panel.webview.options = InspectorPanel.webviewOptions(ctx);
    const revived = new InspectorPanel(ctx, panel, state.model, state.source);
    if (state.source.captureText !== null) {
      try {
        revived.#inspection = analyzeCaptureText(state.source.captureText, { target: state.source.target, podNames: new Map(Object.entries(state.source.podNames)) });
        revived.#captureText = state.source.captureText;
      } catch (error) {
        ctx.output.warn(`inspector: the restored capture of ${state.source.target} could not be analysed again: ${String(error)}`);
      }
    }
    InspectorPanel.panels.get(state.source.target)?.dispose();
    InspectorPanel.panels.set(state.source.target, revived);
    revived.#render();
  }

  static webviewOptions(ctx: Ctx): vscode.WebviewOptions {
    return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(ctx.extension.extensionUri, 'dist', 'webview')] };
  }

  static #title(target: string): string {
    const short = target.length > 48 ? `${target.slice(0, 47)}…` : target;
    return `gpumem: ${short}`;
  }

  private constructor(ctx: Ctx, panel: vscode.WebviewPanel, model: InspectorViewModel, source: InspectionSource) {
    this.#ctx = ctx;
    this.#panel = panel;
    this.#model = model;
    this.#source = source;
    panel.iconPath = vscode.Uri.joinPath(ctx.extension.extensionUri, 'media', 'activity.svg');
    this.#disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((message: unknown) => this.#onMessage(message)),
      panel.onDidChangeViewState(() => this.#schedule(0)),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('gpumem.inspector.sampleSeconds')) this.#schedule(0);
      }),
    );
  }

  static #prepare(inspection: Inspection, options: ShowInspectionOptions): { model: InspectorViewModel; source: InspectionSource; captureText: string } {
    // Kept in the webview state: a revived panel re-analyses the capture with them.
    const podNames = Object.fromEntries(inspection.podNames);
    const captureText = options.captureText ?? serializeCapture(inspection.capture);
    const source: InspectionSource = {
      id: `${Date.now().toString(36)}-${++sourceCounter}`,
      target: inspection.target,
      captureText: captureText.length <= MAX_STATE_CAPTURE_CHARS ? captureText : null,
      podNames,
    };
    return { model: buildInspectorViewModel(inspection), source, captureText };
  }

  #load(inspection: Inspection, options: ShowInspectionOptions, prepared = InspectorPanel.#prepare(inspection, options)): void {
    this.#inspection = inspection;
    this.#model = prepared.model;
    this.#captureText = prepared.captureText;
    this.#source = prepared.source;
    if (this.#transport && this.#transport !== options.transport) void this.#closeTransport();
    this.#transport = inspection.scope === 'node' ? options.transport : undefined;
    if (options.transport && !this.#transport) void options.transport.close();
    this.#history = [];
    this.#failures = 0;
    this.#userPaused = false;
    this.#lastError = '';
    this.#panel.title = InspectorPanel.#title(inspection.target);
    InspectorPanel.panels.set(inspection.target, this);
    this.#render();
  }

  /** A fresh HTML (and nonce); the webview then says `ready` and gets the data. */
  #render(): void {
    const webview = this.#panel.webview;
    const base = vscode.Uri.joinPath(this.#ctx.extension.extensionUri, 'dist', 'webview');
    const nonce = newCspNonce();
    webview.html = inspectorHtml({
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(base, 'inspector.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(base, 'inspector.css')).toString(),
      nonce,
    });
    this.#ctx.output.debug(`inspector: ${this.#source.target}: ${contentSecurityPolicy(webview.cspSource, nonce)}`);
  }

  #onMessage(message: unknown): void {
    const parsed = parseWebviewMessage(message);
    switch (parsed.kind) {
      case 'command':
        void this.#onCommand(parsed.message);
        return;
      case 'request':
        void this.#onRequest(parsed.message);
        return;
      case 'invalid':
        this.#ctx.output.warn(`inspector: ignored a message from the webview that is not part of the protocol${parsed.id ? ` (request ${parsed.id}, answered with an error)` : ''}`);
        // A request with a usable id gets an answer, so the webview does not wait for its timeout.
        if (parsed.id) this.#post(errorResponse(parsed.id, 'This request is not one this version of gpumem knows.'));
        return;
    }
  }

  async #onCommand(message: WebviewCommand): Promise<void> {
    try {
      switch (message.method) {
        case 'ready':
          this.#post(notification('update', { model: this.#model, source: this.#source }));
          if (this.#history.length > 0) this.#post(notification('samples', { points: this.#history }));
          this.#postLiveState();
          this.#schedule(0);
          return;
        case 'openPod':
          await this.#openPod(message.params.podUid);
          return;
        case 'openDocs':
          await this.#openDocs(message.params.docsId);
          return;
        case 'setLive':
          this.#userPaused = !message.params.live;
          this.#schedule(0);
          return;
      }
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.#ctx.output.error(`inspector: ${message.method} failed: ${text}`);
      this.#notice(`${message.method} failed: ${text}`, 'error');
    }
  }

  /** Answers a request with exactly one response: its result, or the error that stopped it (shown next to its button). */
  async #onRequest(message: WebviewRequest): Promise<void> {
    let answer: ResponseNotification;
    try {
      switch (message.method) {
        case 'copyMarkdown':
          answer = response(message, await this.#copy(inspectionToMarkdown(this.#requireInspection('copy the report'))));
          break;
        case 'saveJson':
          answer = response(message, await this.#save('json', 'Save JSON report', { 'JSON report': ['json'] }, `${JSON.stringify(inspectionToJson(this.#requireInspection('save the JSON report')), null, 2)}\n`));
          break;
        case 'saveCapture': {
          const text = this.#captureText ?? (this.#inspection ? serializeCapture(this.#inspection.capture) : undefined);
          if (text === undefined) throw new Error('The capture of this panel was too large to keep across a reload: run the inspection again to save it.');
          answer = response(message, await this.#save('capture.txt', 'Save probe capture', { 'Probe captures': ['txt', 'capture', 'log'] }, text));
          break;
        }
        case 'copyText':
          answer = response(message, await this.#copy(message.params.text));
          break;
      }
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.#ctx.output.error(`inspector: ${message.method} failed: ${text}`);
      answer = errorResponse(message.id, text);
    }
    this.#post(answer);
  }

  #requireInspection(what: string): Inspection {
    if (this.#inspection) return this.#inspection;
    throw new Error(`This panel was restored without its capture: run the inspection again to ${what}.`);
  }

  async #copy(text: string): Promise<CopiedResult> {
    await vscode.env.clipboard.writeText(text);
    return { kind: 'copied' };
  }

  async #save(extension: string, title: string, filters: Record<string, string[]>, content: string): Promise<SavedResult> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const name = `${fileStem(this.#source.target)}.${extension}`;
    const target = await vscode.window.showSaveDialog({
      title,
      saveLabel: 'Save',
      filters,
      ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, name) } : {}),
    });
    if (!target) return { kind: 'cancelled' };
    await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(content));
    this.#ctx.output.info(`inspector: ${title.toLowerCase()}: ${target.toString(true)}`);
    return { kind: 'saved', path: target.scheme === 'file' ? target.fsPath : target.toString(true) };
  }

  async #openPod(podUid: string): Promise<void> {
    const podName = this.#source.podNames[podUid];
    // The pod's row in the Clusters view when a context has it; otherwise its numbers as a report.
    const args: OpenPodArgs = { podUid, podName, target: this.#source.target };
    if (await vscode.commands.executeCommand<boolean>(COMMANDS.revealPod, args)) return;
    const markdown = podToMarkdown(this.#model, podUid);
    if (!markdown) return;
    await showMarkdownReport(markdown, `gpumem pod ${podName ?? podUid}`);
  }

  async #openDocs(docsId: string): Promise<void> {
    const docs = verdictDocs(docsId);
    if (!docs) return;
    const uri = vscode.Uri.joinPath(this.#ctx.extension.extensionUri, ...docs.file.split('/')).with({ fragment: docs.anchor });
    await vscode.commands.executeCommand('markdown.showPreview', uri);
  }

  #post(message: ReturnType<typeof notification>): void {
    if (this.#disposed) return;
    void this.#panel.webview.postMessage(message);
  }

  #notice(text: string, tone: 'info' | 'error' = 'info'): void {
    this.#post(notification('notice', { text, tone }));
  }

  // ---- live sampling -------------------------------------------------------------------------------------

  #liveState(): LiveState {
    const every = sampleSeconds();
    const base = { everySeconds: every, samples: this.#samples };
    if (!this.#transport) {
      const why = this.#inspection?.scope !== 'node' && this.#inspection !== undefined
        ? 'Live sampling needs a node inspection.'
        : 'No open connection for live sampling: a saved capture or a panel restored after a window reload has none. Run Inspect Local Machine, Inspect SSH Host… or Inspect Node again to sample live.';
      return { ...base, status: 'unavailable', detail: why };
    }
    if (every === 0) return { ...base, status: 'off', detail: 'Live sampling is off (gpumem.inspector.sampleSeconds is 0).' };
    if (this.#failures >= MAX_FAILURES) return { ...base, status: 'error', detail: `Live sampling stopped after ${MAX_FAILURES} failures: ${this.#lastError}` };
    if (this.#userPaused) return { ...base, status: 'paused', detail: `Paused after ${this.#samples} samples.` };
    if (!this.#panel.visible) return { ...base, status: 'hidden', detail: 'Paused while the panel is hidden.' };
    return { ...base, status: 'running', detail: `Sampling ${this.#transport.target} every ${every} s: ${this.#samples} samples${this.#lastError ? ` (last error: ${this.#lastError})` : ''}.` };
  }

  #postLiveState(): void {
    this.#post(notification('liveState', { state: this.#liveState() }));
  }

  /** (Re)arms the timer when sampling should run; stops it otherwise. */
  #schedule(delayMs: number): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#disposed) return;
    const state = this.#liveState();
    this.#postLiveState();
    if (state.status !== 'running' || this.#inFlight) return;
    this.#timer = setTimeout(() => void this.#sample(), delayMs);
  }

  async #sample(): Promise<void> {
    this.#timer = undefined;
    const transport = this.#transport;
    if (this.#disposed || !transport || this.#liveState().status !== 'running' || this.#inFlight) return;
    const every = sampleSeconds();
    const controller = new AbortController();
    this.#inFlight = controller;
    const started = Date.now();
    try {
      const script = buildLightProbeScript({ nonce: newNonce(), hostRoot: this.#inspection?.capture.root ?? '' });
      const result = await transport.run({ script, timeoutMs: Math.max(10_000, every * 3000), maxOutputBytes: LIGHT_PROBE_MAX_OUTPUT, signal: controller.signal });
      if (this.#disposed) return;
      this.#samples++;
      const point = sampleFromCapture(result.stdout, Date.now());
      appendBounded(this.#history, point, MAX_SAMPLES);
      this.#failures = 0;
      this.#lastError = point.problems[0] ?? '';
      this.#ctx.output.info(`inspector: live sample ${this.#samples} of ${transport.target} in ${Date.now() - started} ms (${point.pods.length} pods)`);
      this.#post(notification('sample', { point }));
    } catch (error) {
      if (this.#disposed || (error instanceof TransportError && error.failure.kind === 'cancelled')) return;
      this.#samples++;
      this.#failures++;
      this.#lastError = error instanceof Error ? error.message : String(error);
      this.#ctx.output.warn(`inspector: live sample ${this.#samples} of ${transport.target} failed (${this.#failures}/${MAX_FAILURES}): ${this.#lastError}`);
    } finally {
      if (this.#inFlight === controller) this.#inFlight = undefined;
    }
    this.#schedule(Math.max(250, every * 1000 - (Date.now() - started)));
  }

  async #closeTransport(): Promise<void> {
    const transport = this.#transport;
    this.#transport = undefined;
    this.#inFlight?.abort();
    if (!transport) return;
    const closing = transport.close().catch((error: unknown) => this.#ctx.output.warn(`inspector: closing ${transport.target}: ${String(error)}`));
    InspectorPanel.closing.add(closing);
    try {
      await closing;
    } finally {
      InspectorPanel.closing.delete(closing);
    }
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (InspectorPanel.panels.get(this.#source.target) === this) InspectorPanel.panels.delete(this.#source.target);
    if (this.#transport) this.#ctx.output.info(`inspector: panel of ${this.#source.target} closed after ${this.#samples} live samples; closing the connection`);
    void this.#closeTransport();
    for (const disposable of this.#disposables.splice(0)) disposable.dispose();
    this.#panel.dispose();
  }

  /** Disposes every panel; resolves once their transports are closed (debug pods deleted). deactivate returns it. */
  static async disposeAll(): Promise<void> {
    for (const panel of [...InspectorPanel.panels.values()]) panel.dispose();
    await Promise.all([...InspectorPanel.closing]);
  }
}
