// The fleet panel of one kubeconfig context: the webview (WebviewHost: the bundle, the CSP, a nonce per render),
// the typed protocol (src/core/fleet/fleetProtocol.ts, on src/core/webviewIpc/), reading the fleet (read.ts) on open, Refresh and a window
// change, and the exports through the save dialog. What a click on a node or pod does is the environment's
// (navigate.ts). The summary is held only while the panel is open. After a window reload the serializer (registered
// at activation, src/extension.ts) brings the panel back from its saved identity (context and window) and the
// fleet is read again. The Recommendations section (gpumem: Right-Size Workloads…, rightSizeCommand.ts) is set on
// the panel of its context and kept while the panel is open; its Copy patch copies the host's patch (copyPatch.ts).
import * as vscode from 'vscode';
import type {
  FleetCommand,
  FleetExportFormat,
  FleetExportResult,
  FleetNotification,
  FleetNotificationParams,
  FleetPanelState,
  FleetWindowChoice,
} from '../../core/fleet/fleetProtocol.ts';
import { FLEET_PROTOCOL, parseFleetPanelState } from '../../core/fleet/fleetProtocol.ts';
import type { ResponseNotification } from '../../core/webviewIpc/protocol.ts';
import { fleetPodsCsv, fleetToJson, fleetToMarkdown } from '../../core/fleet/fleetReport.ts';
import { FLEET_VIEW_TYPE } from '../../core/fleet/viewType.ts';
import type { FleetViewModel } from '../../core/fleet/fleetViewModel.ts';
import { buildFleetViewModel } from '../../core/fleet/fleetViewModel.ts';
import type { FleetFacts } from '../../core/fleet/facts.ts';
import type { FleetSummary } from '../../core/fleet/summary.ts';
import { summarizeFleet } from '../../core/fleet/summary.ts';
import type { FleetSettings } from '../../core/settings.ts';
import type { ClusterClient } from '../../kube/clusterClient.ts';
import { errorText } from '../../kube/errorText.ts';
import { webviewOptions, WebviewHost } from '../webview/host.ts';
import { reportError, showFailure } from '../messages.ts';
import { reportSentence } from '../../core/failureReport.ts';
import { fleetHtml } from './html.ts';
import { NoAgentsError } from '../../fleet/readFleet.ts';
import { requireTrust } from '../trust.ts';
import { FleetReadCancelled, readContextFleet } from './read.ts';
import { exportFileStem } from '../../core/text/exportFileStem.ts';
import type { WorkloadTarget } from '../../core/rightsizing/liveKinds.ts';
import type { PatchResult } from '../../core/rightsizing/patch.ts';
import type { RecommendationsViewModel } from '../../core/rightsizing/recommendationsView.ts';
import { copyWorkloadPatch } from './copyPatch.ts';

const FLEET_BUNDLE = { script: 'fleet.js', style: 'fleet.css', html: fleetHtml } as const;

export interface FleetEnvironment {
  readonly output: vscode.LogOutputChannel;
  readonly extensionUri: vscode.Uri;
  readonly secrets: vscode.SecretStorage;
  readonly settings: () => FleetSettings;
  readonly client: (context: string) => Promise<ClusterClient | undefined>;
  readonly openNode: (context: string, node: string) => Promise<void>;
  readonly openPod: (context: string, pod: { namespace: string; pod: string; uid: string; node: string }) => Promise<void>;
  /** Open live manifest of a Recommendations row's workload, read-only. */
  readonly openWorkload: (context: string, target: WorkloadTarget) => Promise<void>;
  /** Where a scan's debug pods go (gpumem.kubernetes.debugNamespace, debugImage). */
  readonly scanPods: () => { readonly namespace: string; readonly image: string };
}

const EXPORTS: Readonly<Record<FleetExportFormat, { readonly extension: string; readonly filter: string; readonly title: string }>> = {
  markdown: { extension: 'md', filter: 'Markdown', title: 'Save fleet summary (Markdown)' },
  json: { extension: 'json', filter: 'JSON', title: 'Save fleet summary (JSON)' },
  csv: { extension: 'csv', filter: 'CSV', title: 'Save fleet pods (CSV)' },
};

/** What Right-Size Workloads read for a context: the section's view model and each workload's patch. */
export interface PanelRecommendations {
  readonly model: RecommendationsViewModel;
  readonly patches: ReadonlyMap<string, PatchResult>;
}

function fileStem(context: string): string {
  return exportFileStem('gpumem-fleet-', context, 'cluster');
}

export class FleetPanel implements vscode.Disposable {
  readonly context: string;
  readonly #env: FleetEnvironment;
  readonly #panel: vscode.WebviewPanel;
  readonly #host: WebviewHost<FleetNotification | ResponseNotification>;
  readonly #onDisposed: () => void;
  #window: FleetWindowChoice;
  #summary: FleetSummary | undefined;
  #model: FleetViewModel | undefined;
  #reading: Promise<void> | undefined;
  #recommendations: PanelRecommendations | undefined;
  #disposed = false;

  /** A new panel, or (`restored`) the one the serializer got back after a window reload, with its saved state. */
  constructor(
    env: FleetEnvironment,
    target: Pick<FleetPanelState, 'context' | 'window'>,
    onDisposed: () => void,
    restored?: vscode.WebviewPanel,
  ) {
    this.#env = env;
    this.context = target.context;
    this.#onDisposed = onDisposed;
    this.#window = target.window;
    const short = target.context.length > 40 ? `${target.context.slice(0, 39)}…` : target.context;
    const title = `gpumem fleet: ${short}`;
    if (restored) {
      restored.webview.options = webviewOptions(env.extensionUri);
      restored.title = title;
    }
    this.#panel =
      restored ??
      vscode.window.createWebviewPanel(FLEET_VIEW_TYPE, title, vscode.ViewColumn.Active, {
        ...webviewOptions(env.extensionUri),
        enableFindWidget: true,
      });
    this.#host = new WebviewHost<FleetNotification | ResponseNotification>(this.#panel, env.extensionUri, FLEET_BUNDLE, {
      onMessage: (message) => void this.#receive(message),
      log: (line) => env.output.debug(`fleet webview CSP: ${line}`),
    });
    this.#panel.onDidDispose(() => this.dispose());
    this.#host.render();
  }

  reveal(): void {
    this.#panel.reveal(undefined, false);
  }

  /** Shows (or replaces) the Recommendations section. */
  setRecommendations(recommendations: PanelRecommendations): void {
    this.#recommendations = recommendations;
    this.#notify('recommendations', { viewModel: recommendations.model });
  }

  /** Reads the fleet again (one read at a time: a second request waits for the first). */
  refresh(): Promise<void> {
    this.#reading ??= this.#read(undefined).finally(() => (this.#reading = undefined));
    return this.#reading;
  }

  /**
   * The one-shot scan, offered when no agent runs: it creates a pod on every ready GPU node, so it needs a trusted
   * workspace and a modal that says what it creates, where and with which image. Never started by a read.
   */
  async #scan(): Promise<void> {
    if (!requireTrust('Scan the fleet with debug pods')) return;
    if (this.#reading) return this.#reading;
    const pods = this.#env.scanPods();
    const concurrency = this.#env.settings().scanConcurrency;
    const choice = await vscode.window.showWarningMessage(
      `Scan the GPU nodes of ${this.context} with debug pods?`,
      {
        modal: true,
        detail:
          `gpumem creates a short-lived pod on each ready GPU node, ${concurrency} at a time, in namespace ${pods.namespace} ` +
          `with image ${pods.image}: hostPID and the node's root read-only at /host, running the read-only node probe. ` +
          'Each pod is deleted once its node is read, and on error and cancel. It needs create, get, list, watch and ' +
          `delete on pods and create on pods/exec in ${pods.namespace}. Installing the gpumem agent (deploy/agent) avoids scans.`,
      },
      'Scan',
    );
    if (choice !== 'Scan' || this.#disposed) return;
    this.#reading = this.#read(pods).finally(() => (this.#reading = undefined));
    return this.#reading;
  }

  async #receive(raw: unknown): Promise<void> {
    const parsed = FLEET_PROTOCOL.parseWebviewMessage(raw);
    switch (parsed.kind) {
      case 'invalid':
        this.#env.output.warn('fleet: ignored a message from the webview that is not in the protocol');
        if (parsed.id !== undefined) this.#host.post(FLEET_PROTOCOL.errorResponse(parsed.id, 'The request is not one this panel knows.'));
        return;
      case 'request': {
        const request = parsed.message;
        if (request.method === 'copyPatch') {
          const copied = await copyWorkloadPatch(this.#env.output, this.#recommendations?.patches, request.params);
          this.#host.post(
            copied.kind === 'failed' ? FLEET_PROTOCOL.errorResponse(request.id, copied.reason) : FLEET_PROTOCOL.response(request, copied),
          );
          return;
        }
        const outcome = await this.#export(request.params.format);
        this.#host.post(
          outcome.kind === 'failed' ? FLEET_PROTOCOL.errorResponse(request.id, outcome.reason) : FLEET_PROTOCOL.response(request, outcome),
        );
        return;
      }
      case 'command':
        return this.#command(parsed.message);
    }
  }

  async #command(message: FleetCommand): Promise<void> {
    switch (message.method) {
      case 'ready':
        // A webview (re-)created on show or restored: it gets its identity and the last state, or waits for the read.
        this.#postIdentity();
        if (this.#recommendations) this.#notify('recommendations', { viewModel: this.#recommendations.model });
        if (this.#model) this.#notify('state', { viewModel: this.#model });
        else if (!this.#reading) void this.refresh();
        return;
      case 'refresh':
        return this.refresh();
      case 'scan':
        return this.#scan();
      case 'setWindow':
        this.#window = message.params.window;
        this.#postIdentity();
        return this.refresh();
      case 'openNode':
        return this.#env.openNode(this.context, message.params.node);
      case 'openPod':
        return this.#env.openPod(this.context, message.params);
      case 'openWorkload':
        return this.#env.openWorkload(this.context, message.params);
    }
  }

  #notify<M extends FleetNotification['method']>(method: M, params: FleetNotificationParams<M>): void {
    this.#host.post(FLEET_PROTOCOL.notification(method, params) as unknown as FleetNotification);
  }

  #postIdentity(): void {
    this.#notify('panel', { state: { version: 1, context: this.context, window: this.#window } });
  }

  async #read(scan: { readonly namespace: string; readonly image: string } | undefined): Promise<void> {
    const env = this.#env;
    // A panel restored in Restricted Mode (the commands that open one check trust first): nothing reaches the cluster.
    if (!vscode.workspace.isTrusted) {
      this.#notify('error', { message: 'Reading the fleet reaches the cluster: trust the workspace, then Refresh.' });
      return;
    }
    const client = await env.client(this.context);
    if (this.#disposed) return;
    if (!client) {
      this.#fail(`no kubeconfig context ${this.context}`);
      return;
    }
    try {
      const read = await readContextFleet({
        context: this.context,
        client,
        window: this.#window,
        settings: env.settings(),
        secrets: env.secrets,
        log: (line) => env.output.info(line),
        progress: (text) => this.#notify('progress', { text }),
        ...(scan ? { scan, partial: (facts: FleetFacts) => this.#showPartial(facts) } : {}),
      });
      if (this.#disposed) return;
      this.#summary = read.summary;
      this.#model = buildFleetViewModel(read.summary, { context: this.context, notes: read.notes });
      for (const note of read.notes) env.output.warn(`fleet ${this.context}: ${note}`);
      env.output.info(`fleet ${this.context}: ${read.summary.line}`);
      this.#notify('state', { viewModel: this.#model });
    } catch (error) {
      if (error instanceof FleetReadCancelled) {
        this.#notify('error', { message: 'Reading the fleet was cancelled. Refresh to read it again.' });
        return;
      }
      if (error instanceof NoAgentsError) {
        // Not a failure to report: the cluster has no agent yet. The view offers the scan; the log says why.
        env.output.info(`fleet ${this.context}: ${error.message}`);
        this.#notify('error', {
          message: `${error.message}. A one-shot scan reads every ready GPU node with a debug pod instead.`,
          offerScan: true,
        });
        return;
      }
      const report = reportError(
        env.output,
        `Read the fleet of ${this.context}`,
        error,
        errorText(error, { context: this.context, namespace: 'gpumem-system', action: `Read the fleet of ${this.context}` }),
      );
      this.#notify('error', { message: reportSentence(report, 'Reading the fleet') });
    }
  }

  /** A scan's fleet so far: shown, not kept (the exports and a re-created webview wait for the whole fleet). */
  #showPartial(facts: FleetFacts): void {
    if (this.#disposed) return;
    const { top, headroomPercent } = this.#env.settings();
    this.#notify('state', { viewModel: buildFleetViewModel(summarizeFleet(facts, top, headroomPercent), { context: this.context }) });
  }

  #fail(text: string): void {
    this.#notify('error', { message: text });
    void showFailure(this.#env.output, `fleet of ${this.context}: ${text}`);
  }

  /** Where the export went, or why it did not (the webview's request is answered with it). */
  async #export(format: FleetExportFormat): Promise<FleetExportResult | { readonly kind: 'failed'; readonly reason: string }> {
    const summary = this.#summary;
    if (!summary) return { kind: 'failed', reason: 'the fleet was not read yet' };
    const spec = EXPORTS[format];
    const top = this.#env.settings().top;
    const content =
      format === 'markdown'
        ? fleetToMarkdown(summary, top)
        : format === 'json'
          ? `${JSON.stringify(fleetToJson(summary), null, 2)}\n`
          : fleetPodsCsv(summary);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    try {
      const target = await vscode.window.showSaveDialog({
        title: spec.title,
        saveLabel: 'Save',
        filters: { [spec.filter]: [spec.extension] },
        ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, `${fileStem(this.context)}.${spec.extension}`) } : {}),
      });
      if (!target) return { kind: 'cancelled' };
      await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(content));
      const where = target.scheme === 'file' ? target.fsPath : target.toString(true);
      this.#env.output.info(`fleet ${this.context}: ${spec.title.toLowerCase()}: ${where}`);
      return { kind: 'saved', path: where };
    } catch (error) {
      const report = reportError(this.#env.output, spec.title, error);
      return { kind: 'failed', reason: reportSentence(report, spec.title) };
    }
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#summary = undefined;
    this.#model = undefined;
    this.#recommendations = undefined;
    this.#host.dispose();
    this.#panel.dispose();
    this.#onDisposed();
  }
}

/** The fleet panels of this window, one per context. */
export class FleetPanels implements vscode.Disposable {
  readonly #env: FleetEnvironment;
  readonly #panels = new Map<string, FleetPanel>();

  constructor(env: FleetEnvironment) {
    this.#env = env;
  }

  /** Opens the context's panel (or shows it again and reads the fleet again). */
  show(context: string): FleetPanel {
    const existing = this.#panels.get(context);
    if (existing) {
      existing.reveal();
      void existing.refresh();
      return existing;
    }
    return this.#create(context);
  }

  /** The context's panel (opened if needed, its fleet read as on open) with the Recommendations section set. */
  showRecommendations(context: string, recommendations: PanelRecommendations): FleetPanel {
    const panel = this.#panels.get(context) ?? this.#create(context);
    panel.reveal();
    panel.setRecommendations(recommendations);
    return panel;
  }

  #create(context: string): FleetPanel {
    const target = { context, window: this.#env.settings().window };
    const panel: FleetPanel = new FleetPanel(this.#env, target, () => this.#forget(context, panel));
    this.#panels.set(context, panel);
    return panel;
  }

  /** A panel the serializer got back after a window reload: it shows the same fleet, read again. */
  revive(panel: vscode.WebviewPanel, rawState: unknown): void {
    const state = parseFleetPanelState(rawState);
    if (!state) {
      this.#env.output.warn('fleet: a panel restored without a usable state was closed; open the fleet view again');
      panel.dispose();
      return;
    }
    this.#panels.get(state.context)?.dispose();
    const revived = new FleetPanel(this.#env, state, () => this.#forget(state.context, revived), panel);
    this.#panels.set(state.context, revived);
  }

  #forget(context: string, panel: FleetPanel): void {
    if (this.#panels.get(context) === panel) this.#panels.delete(context);
  }

  dispose(): void {
    for (const panel of [...this.#panels.values()]) panel.dispose();
    this.#panels.clear();
  }
}
