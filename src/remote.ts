// The half of the extension that reaches clusters and SSH hosts (@kubernetes/client-node, ssh2), bundled to
// dist/remote.js and loaded by src/vscode/lazyRemote.ts the first time the Clusters view is resolved or one
// of these commands runs, so activating on a YAML file loads the linter only. Its inspections open through
// ctx.inspections (the panels of dist/inspect.js), so a panel opened from here is the one the extension tracks
// and closes; TransportError is dist/extension.js's (scripts/build.mjs), so instanceof holds across bundles.
import type * as vscode from 'vscode';
import type { ClusterElement } from './clusters/clusterTreeContent.ts';
import { CLUSTER_COMMANDS } from './vscode/clusters/commandIds.ts';
import { copyProbeCommand, openPodManifest, refreshClusters } from './vscode/clusters/commands.ts';
import { createClusters } from './vscode/clusters/createClusters.ts';
import type { Clusters } from './vscode/clusters/createClusters.ts';
import { copyHamiReport } from './vscode/clusters/hamiReportCommand.ts';
import { testHamiEnforcement } from './vscode/clusters/hamiTestCommand.ts';
import { explainNodeOom, inspectNode } from './vscode/clusters/nodeCommands.ts';
import { hamiChecklistOnPod, inspectPod } from './vscode/clusters/podCommands.ts';
import { revealPod } from './vscode/clusters/revealPod.ts';
import { COMMANDS } from './vscode/commandIds.ts';
import { inspectSshHost } from './vscode/commands/inspectSsh.ts';
import type { Ctx } from './vscode/ctx.ts';
import { setPrometheusCredentials } from './vscode/fleet/credentials.ts';
import { openFleetView } from './vscode/fleet/openFleetView.ts';
import { rightSizeWorkloads } from './vscode/fleet/rightSizeCommand.ts';
import { remoteLive } from './vscode/live/remoteLive.ts';
import type { RemoteLive } from './vscode/live/remoteLive.ts';
import type { RemoteCommandHandlers } from './vscode/remoteCommandIds.ts';
import type { SshHostItem } from './vscode/sshHosts.ts';

export interface Remote extends vscode.Disposable {
  readonly clusters: vscode.TreeDataProvider<ClusterElement>;
  readonly manifests: vscode.TextDocumentContentProvider;
  /** The command handlers by id; the extension registered the ids at activation (REMOTE_COMMANDS). */
  readonly commands: RemoteCommandHandlers;
  /** A fleet panel restored after a window reload (src/extension.ts registers its serializer at activation). */
  readonly reviveFleetPanel: (panel: vscode.WebviewPanel, state: unknown) => void;
  /** Live mode's contexts and sources (src/vscode/live/). */
  readonly live: RemoteLive;
}

export function activateRemote(ctx: Ctx, clustersView: vscode.TreeView<ClusterElement>): Remote {
  const clusters = createClusters(ctx, clustersView);
  return {
    clusters: clusters.tree,
    manifests: clusters.manifests,
    commands: remoteCommands(ctx, clusters),
    reviveFleetPanel: clusters.reviveFleetPanel,
    live: remoteLive(clusters.model),
    dispose: () => clusters.dispose(),
  };
}

/** Every command of dist/remote.js by id: the one table, complete by its type. */
function remoteCommands(ctx: Ctx, clusters: Clusters): RemoteCommandHandlers {
  const { model, tree, manifests, fleets } = clusters;
  const reveal = (element: ClusterElement) => tree.reveal(element, { select: true, focus: true, expand: false });
  return {
    [CLUSTER_COMMANDS.refresh]: refreshClusters(model),
    [CLUSTER_COMMANDS.showAllContexts]: () => tree.showAllContexts(),
    [CLUSTER_COMMANDS.inspectNode]: inspectNode(ctx, model),
    [CLUSTER_COMMANDS.inspectPod]: inspectPod(ctx, model),
    [CLUSTER_COMMANDS.hamiChecklist]: hamiChecklistOnPod(ctx, model),
    [CLUSTER_COMMANDS.testHamiEnforcement]: testHamiEnforcement(ctx, model),
    [CLUSTER_COMMANDS.copyHamiReport]: copyHamiReport(ctx, model),
    [CLUSTER_COMMANDS.explainNodeOom]: explainNodeOom(ctx, model),
    [CLUSTER_COMMANDS.copyProbeCommand]: copyProbeCommand(ctx, model),
    [CLUSTER_COMMANDS.openManifest]: openPodManifest(ctx, model, manifests),
    [CLUSTER_COMMANDS.openFleetView]: openFleetView(model, fleets),
    [CLUSTER_COMMANDS.setPrometheusCredentials]: setPrometheusCredentials(ctx.extension.secrets, ctx.output),
    [CLUSTER_COMMANDS.rightSizeWorkloads]: rightSizeWorkloads(ctx, model, fleets),
    [COMMANDS.revealPod]: revealPod(model, reveal),
    [COMMANDS.inspectSshHost]: (item?: unknown) => inspectSshHost(ctx, item as SshHostItem | undefined),
  };
}
