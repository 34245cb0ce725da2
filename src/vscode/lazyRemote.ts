// Stands in for dist/remote.js (Kubernetes and SSH: src/remote.ts) until it is first needed, so activating on
// a YAML file loads the linter only. The Clusters view, the live-manifest scheme and the remote commands are
// registered at activation, as VS Code requires; the first getChildren of the view, the first manifest read
// or the first command loads the bundle (./lazyBundle.ts) and activates it once, and from then on everything
// is delegated to it.
import * as vscode from 'vscode';
import type { Remote } from '../remote.ts';
import type { ClusterElement } from '../clusters/clusterTreeContent.ts';
import type { Ctx } from './ctx.ts';
import type { LazyBundle } from './lazyBundle.ts';
import type { RemoteCommandId } from './remoteCommandIds.ts';

export interface RemoteModule {
  readonly activateRemote: (ctx: Ctx, clustersView: vscode.TreeView<ClusterElement>) => Remote;
}

type ActivationState = { readonly kind: 'inactive' } | { readonly kind: 'active'; readonly remote: Remote };

export class LazyRemote implements vscode.Disposable {
  private readonly ctx: Ctx;
  private readonly bundle: LazyBundle<RemoteModule>;
  private state: ActivationState = { kind: 'inactive' };
  private view: vscode.TreeView<ClusterElement> | undefined;
  private readonly loadedEmitter = new vscode.EventEmitter<Remote>();
  /** Fired once, right after the bundle was loaded and activated. */
  readonly onDidLoad = this.loadedEmitter.event;

  constructor(ctx: Ctx, bundle: LazyBundle<RemoteModule>) {
    this.ctx = ctx;
    this.bundle = bundle;
  }

  /** The Clusters view, created at activation; the remote half attaches its tree to it when loaded. */
  bindClustersView(view: vscode.TreeView<ClusterElement>): void {
    this.view = view;
  }

  /** Loads and activates dist/remote.js on first use (`reason` goes to the output channel). */
  get(reason: string): Remote {
    if (this.state.kind === 'active') return this.state.remote;
    if (!this.view) throw new Error('gpumem: the Clusters view was not created at activation');
    const remote = this.bundle.get(reason).activateRemote(this.ctx, this.view);
    this.state = { kind: 'active', remote };
    this.loadedEmitter.fire(remote);
    return remote;
  }

  /** A command handler that loads the bundle on its first call. */
  command(id: RemoteCommandId): (arg?: unknown) => unknown {
    return (arg?: unknown) => this.get(`command ${id}`).commands[id](arg);
  }

  dispose(): void {
    if (this.state.kind === 'active') this.state.remote.dispose();
    this.loadedEmitter.dispose();
  }
}

export class LazyClusterTree implements vscode.TreeDataProvider<ClusterElement>, vscode.Disposable {
  private readonly remote: LazyRemote;
  private readonly changed = new vscode.EventEmitter<ClusterElement | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(remote: LazyRemote) {
    this.remote = remote;
    this.subscriptions.push(
      remote.onDidLoad((loaded) => {
        const forwarding = loaded.clusters.onDidChangeTreeData?.((element) =>
          this.changed.fire(Array.isArray(element) ? undefined : (element ?? undefined)),
        );
        if (forwarding) this.subscriptions.push(forwarding);
      }),
    );
  }

  private get tree(): vscode.TreeDataProvider<ClusterElement> {
    return this.remote.get('the Clusters view').clusters;
  }

  getChildren(element?: ClusterElement): vscode.ProviderResult<ClusterElement[]> {
    return this.tree.getChildren(element);
  }

  getParent(element: ClusterElement): vscode.ProviderResult<ClusterElement> {
    return this.tree.getParent?.(element);
  }

  getTreeItem(element: ClusterElement): vscode.TreeItem | Thenable<vscode.TreeItem> {
    return this.tree.getTreeItem(element);
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
  }
}

/** Live pod manifests until remote.js is loaded: the first read (a restored editor, Open Manifest) loads it. */
export class LazyManifests implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly remote: LazyRemote;
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(remote: LazyRemote) {
    this.remote = remote;
    this.subscriptions.push(
      remote.onDidLoad((loaded) => {
        const forwarding = loaded.manifests.onDidChange?.((uri) => this.changed.fire(uri));
        if (forwarding) this.subscriptions.push(forwarding);
      }),
    );
  }

  provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): vscode.ProviderResult<string> {
    return this.remote.get('a live pod manifest').manifests.provideTextDocumentContent(uri, token);
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
  }
}
