// The Clusters feature as one unit: the cluster model, the tree that renders it in the view, the live-manifest
// provider and every Clusters command, wired to each other and to the settings that reset them. The view,
// the command ids and the manifest scheme are registered at activation (src/extension.ts); this runs from
// dist/remote.js the first time one of them is used.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds.ts';
import type { Ctx } from '../ctx.ts';
import { ClusterModel } from './clusterModel.ts';
import type { ClusterElement } from './clusterTree.ts';
import { ClusterTreeProvider } from './clusterTree.ts';
import { clusterCommandHandlers } from './commands.ts';
import { affectsKubeSettings, readKubeSettings } from './kubeSettings.ts';
import { PodManifestProvider } from './manifestProvider.ts';
import { revealPod } from './revealPod.ts';
import { setPrometheusCredentials } from '../fleet/credentials.ts';
import { createFleetPanels, openFleetView } from '../fleet/openFleetView.ts';

export interface Clusters extends vscode.Disposable {
  readonly tree: ClusterTreeProvider;
  readonly manifests: PodManifestProvider;
  readonly commands: ReadonlyMap<string, (arg?: unknown) => unknown>;
  /** Brings back a fleet panel after a window reload (the serializer is registered at activation). */
  readonly reviveFleetPanel: (panel: vscode.WebviewPanel, state: unknown) => void;
}

export function createClusters(ctx: Ctx, view: vscode.TreeView<ClusterElement>): Clusters {
  const model = new ClusterModel({
    readSettings: readKubeSettings,
    unifiedMemoryLabels: () => ctx.settings.lint.unifiedMemoryNodeLabels,
    log: ctx.output,
  });
  const tree = new ClusterTreeProvider(model, ctx.output);
  tree.attach(view);
  const manifests = new PodManifestProvider(model);
  const disposables: vscode.Disposable[] = [
    model,
    tree,
    manifests,
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (affectsKubeSettings(event) || event.affectsConfiguration('gpumem.lint.unifiedMemoryNodeLabels')) model.refresh();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => model.refresh()),
  ];
  const commands = new Map(clusterCommandHandlers(ctx, model, manifests, () => tree.showAllContexts()));
  commands.set(
    COMMANDS.revealPod,
    revealPod(model, (pod) => tree.reveal(pod, { select: true, focus: true, expand: false })),
  );
  const fleets = createFleetPanels(ctx, model, (element) => tree.reveal(element, { select: true, focus: true, expand: false }));
  disposables.push(fleets);
  commands.set(COMMANDS.openFleetView, openFleetView(model, fleets));
  commands.set(COMMANDS.setPrometheusCredentials, setPrometheusCredentials(ctx.extension.secrets, ctx.output));
  return {
    tree,
    manifests,
    commands,
    reviveFleetPanel: (panel, state) => fleets.revive(panel, state),
    dispose: () => {
      for (const disposable of disposables) disposable.dispose();
    },
  };
}
