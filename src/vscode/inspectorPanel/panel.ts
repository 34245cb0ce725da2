// The inspector panel's own view logic: one WebviewPanel per target (InspectionPanels in
// src/vscode/inspectionRun/show.ts keeps them and replaces a target's panel with its new inspection), the
// typed protocol (src/core/inspector/protocol.ts) and the exports. The webview plumbing is
// src/vscode/webview/host.ts, the live sampling src/vscode/inspectionRun/liveSampler.ts.
import * as vscode from 'vscode';
import type { Inspection } from '../../core/inspectionRun/analyze.ts';
import type { OpenPodArgs } from '../../core/inspectorPanel/openPod.ts';
import type {
  CopiedResult,
  HostNotification,
  InspectionSource,
  InspectorState,
  RequestResult,
  ResponseNotification,
  SavedResult,
  WebviewCommand,
  WebviewRequest,
  WebviewRequestMethod,
} from '../../core/inspector/protocol.ts';
import { errorResponse, notification, parseWebviewMessage, response } from '../../core/inspector/protocol.ts';
import { inspectionSource, reanalyzeSource } from '../../core/inspectorPanel/restore.ts';
import { serializeCapture } from '../../core/probe/captureWriter.ts';
import { INSPECTOR_VIEW_TYPE } from '../../core/inspectorPanel/viewType.ts';
import { verdictDocs } from '../../core/inspectorPanel/banner.ts';
import { podToMarkdown } from '../../core/inspectorPanel/podMarkdown.ts';
import { buildInspectorViewModel } from '../../core/inspectorPanel/viewModel.ts';
import type { InspectorViewModel } from '../../core/inspectorPanel/viewModelTypes.ts';
import type { Transport } from '../../core/probe/transport.ts';
import { inspectionToJson, inspectionToMarkdown } from '../../core/report/inspectionReport.ts';
import { COMMANDS } from '../commandIds.ts';
import { LiveSampler } from '../inspectionRun/liveSampler.ts';
import { webviewOptions, WebviewHost } from '../webview/host.ts';
import type { ReportView } from '../reportView.ts';
import { inspectorHtml } from './html.ts';
import { exportFileStem } from '../../core/text/exportFileStem.ts';
import { errorDetails, ExplainedError, reportFailure, reportSentence } from '../../core/failureReport.ts';

export interface ShowInspectionOptions {
  /** The transport the inspection ran on. Ownership passes to the panel (live sampling); it closes it. */
  readonly transport?: Transport;
  /** The capture text that was analysed (for "Save probe capture"); rebuilt from the parsed capture otherwise. */
  readonly captureText?: string;
}

/** What a panel needs from the window: the Ctx provides it (src/vscode/ctx.ts). */
export interface InspectorEnvironment {
  readonly output: vscode.LogOutputChannel;
  readonly extensionUri: vscode.Uri;
  /** A pod's numbers when no Clusters view context has the pod. */
  readonly reports: ReportView;
  /** gpumem.inspector.sampleSeconds (0 = off). */
  readonly sampleSeconds: () => number;
  readonly onDidChangeSampleSeconds: vscode.Event<unknown>;
  /** gpumem.lint.headroomPercent: a restored panel's capture is analysed again with it. */
  readonly headroomPercent: () => number;
}

/** What a panel tells the registry that keeps it. */
export interface PanelRegistry {
  readonly nextSourceId: () => string;
  readonly disposed: (panel: InspectorPanel) => void;
  readonly trackClosing: (closing: Promise<void>) => void;
}

const INSPECTOR_BUNDLE = { script: 'inspector.js', style: 'inspector.css', html: inspectorHtml } as const;

function fileStem(target: string): string {
  return exportFileStem('gpumem-', target.replace(/^capture\s+/, ''), 'inspection');
}

function title(target: string): string {
  const short = target.length > 48 ? `${target.slice(0, 47)}…` : target;
  return `gpumem: ${short}`;
}

export class InspectorPanel implements vscode.Disposable {
  readonly #env: InspectorEnvironment;
  readonly #registry: PanelRegistry;
  readonly #panel: vscode.WebviewPanel;
  readonly #host: WebviewHost<HostNotification>;
  readonly #sampler: LiveSampler;
  readonly #disposables: vscode.Disposable[] = [];
  #inspection: Inspection | undefined;
  #model: InspectorViewModel;
  #source: InspectionSource;
  /** The full capture text (the state copy may have been dropped for size). */
  #captureText: string | undefined;
  #disposed = false;

  /** A new panel for the inspection. Takes ownership of `options.transport`. */
  static create(
    env: InspectorEnvironment,
    registry: PanelRegistry,
    inspection: Inspection,
    options: ShowInspectionOptions,
  ): InspectorPanel {
    const prepared = InspectorPanel.#prepare(registry, inspection, options);
    const panel = vscode.window.createWebviewPanel(INSPECTOR_VIEW_TYPE, title(inspection.target), vscode.ViewColumn.Active, {
      ...webviewOptions(env.extensionUri),
      enableFindWidget: true,
    });
    const created = new InspectorPanel(env, registry, panel, prepared.model, prepared.source);
    created.#load(inspection, options, prepared);
    return created;
  }

  /** After a window reload: the webview renders from its saved state; exports work again from the saved capture. */
  static revive(env: InspectorEnvironment, registry: PanelRegistry, panel: vscode.WebviewPanel, state: InspectorState): InspectorPanel {
    panel.webview.options = webviewOptions(env.extensionUri);
    const revived = new InspectorPanel(env, registry, panel, state.model, state.source);
    if (state.source.captureText !== null) {
      try {
        revived.#inspection = reanalyzeSource(state.source, env.headroomPercent());
        revived.#captureText = state.source.captureText;
      } catch (error) {
        env.output.warn(`inspector: the restored capture of ${state.source.target} could not be analysed again: ${String(error)}`);
      }
    }
    revived.#sampler.load(revived.#inspection, undefined);
    revived.#host.render();
    return revived;
  }

  private constructor(
    env: InspectorEnvironment,
    registry: PanelRegistry,
    panel: vscode.WebviewPanel,
    model: InspectorViewModel,
    source: InspectionSource,
  ) {
    this.#env = env;
    this.#registry = registry;
    this.#panel = panel;
    this.#model = model;
    this.#source = source;
    this.#host = new WebviewHost<HostNotification>(panel, env.extensionUri, INSPECTOR_BUNDLE, {
      onMessage: (message) => this.#onMessage(message),
      log: (policy) => env.output.debug(`inspector: ${this.#source.target}: ${policy}`),
    });
    this.#sampler = new LiveSampler({
      output: env.output,
      everySeconds: env.sampleSeconds,
      isVisible: () => this.#panel.visible,
      onSample: (point) => this.#host.post(notification('sample', { point })),
      onState: (state) => this.#host.post(notification('liveState', { state })),
      trackClosing: registry.trackClosing,
    });
    panel.iconPath = vscode.Uri.joinPath(env.extensionUri, 'media', 'activity.svg');
    this.#disposables.push(
      this.#host,
      panel.onDidDispose(() => this.dispose()),
      panel.onDidChangeViewState(() => this.#sampler.schedule(0)),
      env.onDidChangeSampleSeconds(() => this.#sampler.schedule(0)),
    );
  }

  get target(): string {
    return this.#source.target;
  }

  get isDisposed(): boolean {
    return this.#disposed;
  }

  /** The target's new inspection in this panel, brought to the front. Takes ownership of `options.transport`. */
  update(inspection: Inspection, options: ShowInspectionOptions): void {
    this.#load(inspection, options);
    this.#panel.reveal(undefined, false);
  }

  static #prepare(
    registry: PanelRegistry,
    inspection: Inspection,
    options: ShowInspectionOptions,
  ): { model: InspectorViewModel; source: InspectionSource; captureText: string } {
    // Kept in the webview state: a revived panel re-analyses the capture with the same names and cluster facts.
    const captureText = options.captureText ?? serializeCapture(inspection.capture);
    const source = inspectionSource(inspection, registry.nextSourceId(), captureText);
    return { model: buildInspectorViewModel(inspection), source, captureText };
  }

  #load(
    inspection: Inspection,
    options: ShowInspectionOptions,
    prepared = InspectorPanel.#prepare(this.#registry, inspection, options),
  ): void {
    this.#inspection = inspection;
    this.#model = prepared.model;
    this.#captureText = prepared.captureText;
    this.#source = prepared.source;
    this.#sampler.load(inspection, options.transport);
    this.#panel.title = title(inspection.target);
    this.#host.render();
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
        this.#env.output.warn(
          `inspector: ignored a message from the webview that is not part of the protocol${parsed.id ? ` (request ${parsed.id}, answered with an error)` : ''}`,
        );
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
          if (this.#sampler.history.length > 0) this.#post(notification('samples', { points: this.#sampler.history }));
          this.#sampler.schedule(0);
          return;
        case 'openPod':
          await this.#openPod(message.params.podUid);
          return;
        case 'openDocs':
          await this.#openDocs(message.params.docsId);
          return;
        case 'setLive':
          this.#sampler.setPaused(!message.params.live);
          return;
      }
    } catch (error) {
      const report = reportFailure(`The inspector's ${message.method}`, error);
      this.#env.output.error(`${reportSentence(report, message.method)}\n${errorDetails(error)}`);
      this.#notice(reportSentence(report, message.method), 'error');
    }
  }

  /** One handler per request descriptor (REQUESTS); each returns its request's result type. */
  readonly #requestHandlers: { readonly [M in WebviewRequestMethod]: (request: WebviewRequest<M>) => Promise<RequestResult<M>> } = {
    copyMarkdown: () => this.#copy(inspectionToMarkdown(this.#requireInspection('copy the report'))),
    saveJson: () =>
      this.#save(
        'json',
        'Save JSON report',
        { 'JSON report': ['json'] },
        `${JSON.stringify(inspectionToJson(this.#requireInspection('save the JSON report')), null, 2)}\n`,
      ),
    saveCapture: () => {
      const text = this.#captureText ?? (this.#inspection ? serializeCapture(this.#inspection.capture) : undefined);
      if (text === undefined)
        throw new ExplainedError('The capture of this panel was too large to keep across a reload: run the inspection again to save it.');
      return this.#save('capture.txt', 'Save probe capture', { 'Probe captures': ['txt', 'capture', 'log'] }, text);
    },
    copyText: (request) => this.#copy(request.params.text),
  };

  /** Answers a request with exactly one response: its result, or the error that stopped it (shown next to its button). */
  async #onRequest<M extends WebviewRequestMethod>(message: WebviewRequest<M>): Promise<void> {
    let answer: ResponseNotification;
    try {
      const handler = this.#requestHandlers[message.method] as (request: WebviewRequest<M>) => Promise<RequestResult<M>>;
      answer = response(message, await handler(message));
    } catch (error) {
      // Shown next to the button that asked: one sentence; the log has the whole error.
      const report = reportFailure(`The inspector's ${message.method}`, error);
      this.#env.output.error(`${reportSentence(report, message.method)}\n${errorDetails(error)}`);
      answer = errorResponse(message.id, reportSentence(report, message.method));
    }
    this.#post(answer);
  }

  #requireInspection(what: string): Inspection {
    if (this.#inspection) return this.#inspection;
    throw new ExplainedError(`This panel was restored without its capture: run the inspection again to ${what}.`);
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
    this.#env.output.info(`inspector: ${title.toLowerCase()}: ${target.toString(true)}`);
    return { kind: 'saved', path: target.scheme === 'file' ? target.fsPath : target.toString(true) };
  }

  async #openPod(podUid: string): Promise<void> {
    const podName = this.#source.podNames[podUid];
    // The pod's row in the Clusters view when a context has it; otherwise its numbers as a report.
    const args: OpenPodArgs = { podUid, podName, target: this.#source.target };
    if (await vscode.commands.executeCommand<boolean>(COMMANDS.revealPod, args)) return;
    const markdown = podToMarkdown(this.#model, podUid);
    if (!markdown) return;
    await this.#env.reports.show(markdown, `gpumem pod ${podName ?? podUid}`);
  }

  async #openDocs(docsId: string): Promise<void> {
    const docs = verdictDocs(docsId);
    if (!docs) return;
    const uri = vscode.Uri.joinPath(this.#env.extensionUri, ...docs.file.split('/')).with({ fragment: docs.anchor });
    await vscode.commands.executeCommand('markdown.showPreview', uri);
  }

  #post(message: HostNotification): void {
    this.#host.post(message);
  }

  #notice(text: string, tone: 'info' | 'error' = 'info'): void {
    this.#post(notification('notice', { text, tone }));
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#registry.disposed(this);
    this.#sampler.dispose(this.#source.target);
    for (const disposable of this.#disposables.splice(0)) disposable.dispose();
    this.#panel.dispose();
  }
}
