// A tree view's data provider registered at activation whose real provider is made on the first call VS Code
// makes (the view shown), from a lazily loaded bundle: the SSH Hosts view reads ~/.ssh/config only then, and
// its code is in dist/inspect.js. From then on every call and change event is the real provider's.
import * as vscode from 'vscode';

type ProviderState<T> =
  | { readonly kind: 'not-created' }
  | {
      readonly kind: 'created';
      readonly provider: vscode.TreeDataProvider<T> & vscode.Disposable;
      readonly forwarding?: vscode.Disposable;
    };

export class LazyTree<T> implements vscode.TreeDataProvider<T>, vscode.Disposable {
  readonly #create: () => vscode.TreeDataProvider<T> & vscode.Disposable;
  readonly #changed = new vscode.EventEmitter<T | undefined>();
  readonly onDidChangeTreeData = this.#changed.event;
  #state: ProviderState<T> = { kind: 'not-created' };

  /** `create` runs once, on the first getChildren/getTreeItem/getParent; the provider it returns is disposed here. */
  constructor(create: () => vscode.TreeDataProvider<T> & vscode.Disposable) {
    this.#create = create;
  }

  get #provider(): vscode.TreeDataProvider<T> {
    if (this.#state.kind === 'created') return this.#state.provider;
    const provider = this.#create();
    const forwarding = provider.onDidChangeTreeData?.((element) =>
      this.#changed.fire(Array.isArray(element) ? undefined : (element ?? undefined)),
    );
    this.#state = { kind: 'created', provider, ...(forwarding ? { forwarding } : {}) };
    return provider;
  }

  /** Asks the view for its items again; made, the provider reads its source afresh then. */
  refresh(): void {
    this.#changed.fire(undefined);
  }

  getChildren(element?: T): vscode.ProviderResult<T[]> {
    return this.#provider.getChildren(element);
  }

  getParent(element: T): vscode.ProviderResult<T> {
    return this.#provider.getParent?.(element);
  }

  getTreeItem(element: T): vscode.TreeItem | Thenable<vscode.TreeItem> {
    return this.#provider.getTreeItem(element);
  }

  dispose(): void {
    if (this.#state.kind === 'created') {
      this.#state.forwarding?.dispose();
      this.#state.provider.dispose();
    }
    this.#changed.dispose();
  }
}
