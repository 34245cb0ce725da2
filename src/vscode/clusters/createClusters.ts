// The Clusters feature as one unit: the cluster model, the tree that renders it in the view, the live-manifest
// provider and the fleet panels, wired to each other and to the settings that reset them (the commands that act
// on them are src/remote.ts's table). The view, the command ids and the manifest scheme are registered at
// activation (src/extension.ts); this runs from dist/remote.js the first time one of them is used.
import * as vscode from 'vscode';
import type { Ctx } from '../ctx.ts';
import { ClusterModel } from '../../clusters/clusterModel.ts';
import type { ClusterElement } from '../../clusters/clusterTreeContent.ts';
import { ClusterTreeProvider } from './clusterTree.ts';
import { affectsKubeSettings, readKubeSettings } from './kubeSettings.ts';
import { PodManifestProvider } from './manifestProvider.ts';
import { createFleetPanels } from '../fleet/openFleetView.ts';
import type { FleetPanels } from '../fleet/panel.ts';

export interface Clusters extends vscode.Disposable {
  readonly model: ClusterModel;
  readonly tree: ClusterTreeProvider;
  readonly manifests: PodManifestProvider;
  readonly fleets: FleetPanels;
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
  const fleets = createFleetPanels(ctx, model, manifests, (element) => tree.reveal(element, { select: true, focus: true, expand: false }));
  disposables.push(fleets);
  return {
    model,
    tree,
    manifests,
    fleets,
    reviveFleetPanel: (panel, state) => fleets.revive(panel, state),
    dispose: () => {
      for (const disposable of disposables) disposable.dispose();
    },
  };
}
