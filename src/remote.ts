// The half of the extension that reaches clusters and SSH hosts (@kubernetes/client-node, ssh2), bundled to
// dist/remote.js and loaded by src/vscode/lazyRemote.ts the first time the Clusters view is resolved or one
// of these commands runs, so activating on a YAML file loads the linter only. Its inspections open through
// ctx.inspections (the panels of dist/inspect.js), so a panel opened from here is the one the extension tracks
// and closes; TransportError is dist/extension.js's (scripts/build.mjs), so instanceof holds across bundles.
import type * as vscode from 'vscode';
import type { ClusterElement } from './vscode/clusters/clusterTree.ts';
import { createClusters } from './vscode/clusters/createClusters.ts';
import { inspectSshHost } from './vscode/commands/inspectSsh.ts';
import type { Ctx } from './vscode/ctx.ts';
import type { SshHostItem } from './vscode/sshHosts.ts';

export interface Remote extends vscode.Disposable {
  readonly clusters: vscode.TreeDataProvider<ClusterElement>;
  readonly manifests: vscode.TextDocumentContentProvider;
  /** The command handlers by id; the extension registered the ids at activation. */
  readonly commands: ReadonlyMap<string, (arg?: unknown) => unknown>;
  /** A fleet panel restored after a window reload (src/extension.ts registers its serializer at activation). */
  readonly reviveFleetPanel: (panel: vscode.WebviewPanel, state: unknown) => void;
}

export function activateRemote(ctx: Ctx, clustersView: vscode.TreeView<ClusterElement>): Remote {
  const clusters = createClusters(ctx, clustersView);
  const commands = new Map(clusters.commands);
  commands.set('gpumem.inspectSshHost', (item?: unknown) => inspectSshHost(ctx, item as SshHostItem | undefined));
  return {
    clusters: clusters.tree,
    manifests: clusters.manifests,
    commands,
    reviveFleetPanel: clusters.reviveFleetPanel,
    dispose: () => clusters.dispose(),
  };
}
