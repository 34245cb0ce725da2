// The Clusters feature as one unit: the cluster model, the view that renders it, the live-manifest provider
// and every Clusters command, wired to each other and to the settings that reset them.
import * as vscode from 'vscode';
import { OPEN_POD_COMMAND } from '../../core/inspector/openPod.ts';
import type { Ctx } from '../ctx.ts';
import { ClusterModel } from './clusterModel.ts';
import { CLUSTERS_VIEW, ClusterTreeProvider } from './clusterTree.ts';
import { registerClusterCommands } from './commands.ts';
import { affectsKubeSettings, readKubeSettings } from './kubeSettings.ts';
import { MANIFEST_SCHEME, PodManifestProvider } from './manifestProvider.ts';
import { revealPod } from './revealPod.ts';

export function registerClusters(ctx: Ctx): vscode.Disposable[] {
  const model = new ClusterModel({
    readSettings: readKubeSettings,
    unifiedMemoryLabels: () => ctx.settings.lint.unifiedMemoryNodeLabels,
    log: ctx.output,
  });
  const tree = new ClusterTreeProvider(model, ctx.output);
  const view = vscode.window.createTreeView(CLUSTERS_VIEW, { treeDataProvider: tree, showCollapseAll: true });
  tree.attach(view);
  const manifests = new PodManifestProvider(model);
  const disposables: vscode.Disposable[] = [
    model,
    tree,
    view,
    manifests,
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (affectsKubeSettings(event) || event.affectsConfiguration('gpumem.lint.unifiedMemoryNodeLabels')) model.refresh();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => model.refresh()),
    vscode.workspace.registerTextDocumentContentProvider(MANIFEST_SCHEME, manifests),
    vscode.commands.registerCommand(OPEN_POD_COMMAND, revealPod(model, (pod) => tree.reveal(pod, { select: true, focus: true, expand: false }))),
  ];
  for (const command of registerClusterCommands(ctx, model, manifests, () => tree.showAllContexts())) disposables.push(command);
  return disposables;
}
