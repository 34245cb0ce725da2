// activate() and deactivate() as one pair that shares the window's shutdown through a closure, so no module holds
// the activation in a mutable variable. VS Code calls deactivate() without arguments and awaits what it returns
// (then disposes context.subscriptions without awaiting them: extHostExtensionService.ts `_deactivate`,
// https://github.com/microsoft/vscode/blob/main/src/vs/workbench/api/common/extHostExtensionService.ts), so work
// the window must finish before it closes (deleting node debug pods) is what activation hands back here.
// No `vscode` import: the pairing is unit-tested on its own.

/** What the window must finish before it closes; resolves when done and never rejects. */
export type WindowShutdown = () => Promise<void>;

type LifecycleState = { readonly kind: 'inactive' } | { readonly kind: 'active'; readonly shutdown: WindowShutdown };

export interface ExtensionLifecycle<Context> {
  activate(context: Context): void;
  deactivate(): Promise<void>;
}

/** Pairs `activateWindow` (which wires the window up and returns its shutdown) with a deactivate that runs it once. */
export function extensionLifecycle<Context>(activateWindow: (context: Context) => WindowShutdown): ExtensionLifecycle<Context> {
  let state: LifecycleState = { kind: 'inactive' };
  return {
    activate(context) {
      state = { kind: 'active', shutdown: activateWindow(context) };
    },
    async deactivate() {
      const ending = state;
      state = { kind: 'inactive' };
      if (ending.kind === 'active') await ending.shutdown();
    },
  };
}
