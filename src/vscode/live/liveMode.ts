// Live mode: this workspace's manifests compared with one cluster context. It holds the choice (workspace state), the
// LiveSource of that context (created in dist/remote.js: list+watch, figures on an interval), the status-bar item, and it is the
// LintService's layer (src/vscode/lintLayer.ts): after each static lint it judges the document against the source's
// last snapshot, synchronously and without a request. A read that fails drops the live findings and says why in the
// status bar; a snapshot older than the stale limit is kept and marked. Nothing is read in an untrusted workspace.
import * as vscode from 'vscode';
import { errorMessage } from '../../core/errorMessage.ts';
import type { LintResult } from '../../core/lint.ts';
import type { LiveLayerInput } from '../../core/live/liveLayerModel.ts';
import type { LiveModeState } from '../../core/live/livePresentation.ts';
import { offerLenses } from '../../core/live/livePresentation.ts';
import type { LiveSnapshot } from '../../core/live/liveSnapshot.ts';
import { parseLiveSettings } from '../../core/live/liveSettings.ts';
import type { LiveSettings } from '../../core/live/liveSettings.ts';
import type { LiveSource, LiveState } from '../../live/liveSource.ts';
import { COMMANDS } from '../commandIds.ts';
import { readSetting } from '../config.ts';
import type { Ctx } from '../ctx.ts';
import type { LazyRemote } from '../lazyRemote.ts';
import { EMPTY_LAYER } from '../lintLayer.ts';
import type { LayerResult, LintLayer } from '../lintLayer.ts';
import type { LiveChoice } from './liveChoice.ts';
import { readLiveChoice, writeLiveChoice } from './liveChoice.ts';
import { LiveStatusBar } from './liveStatusBar.ts';
import { namespacesOf } from './namespaces.ts';

type Connection =
  | { readonly kind: 'none' }
  | { readonly kind: 'connecting'; readonly context: string; readonly generation: number }
  | { readonly kind: 'connected'; readonly source: LiveSource; readonly subscription: { dispose(): void } }
  | { readonly kind: 'failed'; readonly context: string; readonly reason: string };

export class LiveMode implements LintLayer, vscode.Disposable {
  readonly #ctx: Ctx;
  readonly #remote: LazyRemote;
  readonly #status = new LiveStatusBar();
  readonly #changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.#changed.event;
  readonly #subscriptions: vscode.Disposable[] = [];
  #settings: LiveSettings;
  #choice: LiveChoice;
  #connection: Connection = { kind: 'none' };
  #generation = 0;
  #namespaces = new Set<string>();
  #namespaceRead: ReturnType<typeof setTimeout> | undefined;

  constructor(ctx: Ctx, remote: LazyRemote) {
    this.#ctx = ctx;
    this.#remote = remote;
    this.#settings = this.#readSettings();
    this.#choice = readLiveChoice(ctx.extension.workspaceState);
    this.#subscriptions.push(
      ctx.onDidChangeSettings((change) => {
        if (!change.affects('gpumem.live') && !change.affects('gpumem.lint.headroomPercent')) return;
        this.#settings = this.#readSettings();
        this.#connect();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.#connect()),
    );
    this.#connect();
  }

  get choice(): LiveChoice {
    return this.#choice;
  }

  /** The choice of the context pick: saved for this workspace, then the source is replaced. */
  async choose(choice: LiveChoice): Promise<void> {
    this.#choice = choice;
    await writeLiveChoice(this.#ctx.extension.workspaceState, choice);
    this.#connect();
  }

  /** Reads the chosen context again now (gpumem: Refresh Live Data), with progress in the status bar. */
  async refresh(): Promise<void> {
    const connection = this.#connection;
    if (connection.kind !== 'connected') {
      this.#connect();
      return;
    }
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `gpumem: reading ${connection.source.context}`, cancellable: false },
      () => connection.source.refresh(),
    );
  }

  judge(document: vscode.TextDocument, lint: LintResult): LayerResult {
    if (!vscode.workspace.isTrusted) return EMPTY_LAYER;
    if (this.#choice.kind === 'never-chosen')
      return { findings: [], lenses: offerLenses(lint.containers, COMMANDS.chooseLiveContext), hovers: [] };
    const connection = this.#connection;
    const snapshot = connection.kind === 'connected' ? connection.source.snapshot() : undefined;
    if (!snapshot) return EMPTY_LAYER;
    this.#noteNamespaces(lint, snapshot.defaultNamespace);
    // Connected: dist/remote.js is loaded.
    return this.#remote.get('live mode').live.judge(document.getText(), lint.containers, this.#input(snapshot), Date.now());
  }

  #input(snapshot: LiveSnapshot): LiveLayerInput {
    return {
      snapshot,
      headroomPercent: this.#ctx.settings.lint.headroomPercent,
      rules: this.#ctx.settings.lint.rules,
      staleAfterMs: this.#settings.staleAfterMs,
      commentOnFix: this.#settings.commentOnFix,
      inspectPodCommand: COMMANDS.inspectPod,
    };
  }

  /** Namespaces the open manifests name that the source does not read yet: read again, once, a second later. */
  #noteNamespaces(lint: LintResult, defaultNamespace: string): void {
    const fresh = namespacesOf(lint.containers, defaultNamespace).filter((one) => !this.#namespaces.has(one));
    if (fresh.length === 0) return;
    for (const namespace of fresh) this.#namespaces.add(namespace);
    if (this.#namespaceRead) clearTimeout(this.#namespaceRead);
    this.#namespaceRead = setTimeout(() => {
      this.#namespaceRead = undefined;
      const connection = this.#connection;
      if (connection.kind !== 'connected') return;
      connection.source.setNamespaces([...this.#namespaces]);
      void connection.source.refresh();
    }, 1000);
  }

  #readSettings(): LiveSettings {
    const settings = parseLiveSettings(readSetting);
    for (const problem of settings.problems) this.#ctx.output.warn(`Ignoring invalid setting ${problem}`);
    return settings;
  }

  /** Replaces the source by one of the chosen context (or none), and starts its reads. */
  #connect(): void {
    this.#disconnect();
    const generation = ++this.#generation;
    const choice = this.#choice;
    // The offer comes and goes with the choice: every open document is judged again.
    this.#changed.fire();
    if (choice.kind !== 'context' || !vscode.workspace.isTrusted) return this.#show();
    this.#connection = { kind: 'connecting', context: choice.context, generation };
    this.#show();
    void this.#open(choice.context, generation);
  }

  async #open(context: string, generation: number): Promise<void> {
    let source: LiveSource | string;
    try {
      source = await this.#remote.get('live mode').live.createSource({
        context,
        window: this.#settings.window,
        headroomPercent: this.#ctx.settings.lint.headroomPercent,
        staleAfterMs: this.#settings.staleAfterMs,
        refreshMs: this.#settings.refreshMs,
      });
    } catch (error) {
      source = errorMessage(error);
    }
    if (generation !== this.#generation) {
      if (typeof source !== 'string') source.dispose();
      return;
    }
    if (typeof source === 'string') {
      this.#fail(context, source);
      return;
    }
    const subscription = source.onDidChange((state) => this.#sourceChanged(state));
    this.#connection = { kind: 'connected', source, subscription };
    this.#show();
    // Starts the watches and the first read of the figures (the source then reads them on its interval).
    source.setNamespaces([...this.#namespaces]);
  }

  #sourceChanged(state: LiveState): void {
    if (state.kind === 'failed') {
      this.#ctx.output.warn(`Live mode: ${state.reason}`);
      vscode.window.setStatusBarMessage(`$(warning) gpumem: live findings dropped: ${state.reason}`, 15_000);
    }
    this.#show();
    // The findings change with the snapshot (and go away on failure): every open document is judged again.
    if (state.kind !== 'reading') this.#changed.fire();
  }

  #fail(context: string, reason: string): void {
    this.#connection = { kind: 'failed', context, reason };
    this.#ctx.output.warn(`Live mode: ${reason}`);
    this.#show();
    this.#changed.fire();
  }

  #state(): LiveModeState {
    const choice = this.#choice;
    if (choice.kind !== 'context') return { kind: 'off' };
    if (!vscode.workspace.isTrusted) return { kind: 'untrusted', context: choice.context };
    const connection = this.#connection;
    if (connection.kind === 'failed') return { kind: 'failed', context: connection.context, reason: connection.reason };
    if (connection.kind !== 'connected') return { kind: 'reading', context: choice.context };
    const state = connection.source.state();
    if (state.kind === 'failed') return { kind: 'failed', context: choice.context, reason: state.reason };
    const snapshot = connection.source.snapshot();
    if (!snapshot) return { kind: 'reading', context: choice.context };
    return {
      kind: 'ready',
      context: choice.context,
      fetchedAtMs: snapshot.fetchedAtMs,
      workloads: snapshot.workloads.size,
      source: snapshot.source,
    };
  }

  #show(): void {
    this.#status.show(this.#state(), Date.now(), this.#settings.staleAfterMs);
  }

  #disconnect(): void {
    const connection = this.#connection;
    if (connection.kind === 'connected') {
      connection.subscription.dispose();
      connection.source.dispose();
    }
    this.#connection = { kind: 'none' };
  }

  dispose(): void {
    this.#disconnect();
    if (this.#namespaceRead) clearTimeout(this.#namespaceRead);
    for (const subscription of this.#subscriptions) subscription.dispose();
    this.#status.dispose();
    this.#changed.dispose();
  }
}
