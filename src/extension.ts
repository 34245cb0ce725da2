// Wires gpumem's VS Code parts together; behaviour lives in src/vscode/ and src/core/. This is dist/extension.js:
// the linter and the registrations. The inspector and the local inspection commands (dist/inspect.js,
// src/inspect.ts) and Kubernetes and SSH (dist/remote.js, src/remote.ts) load on first use through
// LazyBundle, so activating on a YAML file loads the lint core only (issue 16).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pushAll } from './core/arrays.ts';
import * as vscode from 'vscode';
import type * as inspectExports from './inspect.ts';
import { GpuCodeActionProvider } from './vscode/codeActions.ts';
import type { ClusterElement } from './clusters/clusterTreeContent.ts';
import { CLUSTERS_VIEW } from './vscode/clusters/commandIds.ts';
import { MANIFEST_SCHEME } from './vscode/clusters/manifestScheme.ts';
import { GpuCodeLensProvider } from './vscode/codeLens.ts';
import { applyFix } from './vscode/commands/applyFix.ts';
import { lintActiveFile } from './vscode/commands/lintActiveFile.ts';
import { lintWorkspace } from './vscode/commands/lintWorkspace.ts';
import { showRuleDocs } from './vscode/commands/showRuleDocs.ts';
import { COMMANDS } from './vscode/commandIds.ts';
import type { CommandId } from './vscode/commandIds.ts';
import { Ctx } from './vscode/ctx.ts';
import { GpuHoverProvider } from './vscode/hover.ts';
import { KUSTOMIZE_SCHEME, RenderedOverlays } from './vscode/kustomizeScheme.ts';
import { INSPECT_BUNDLE, LazyBundle, loadedBundles, REMOTE_BUNDLE } from './vscode/lazyBundle.ts';
import { LazyClusterTree, LazyManifests, LazyRemote } from './vscode/lazyRemote.ts';
import type { RemoteModule } from './vscode/lazyRemote.ts';
import { LazyTree } from './vscode/lazyTree.ts';
import { extensionLifecycle } from './vscode/lifecycle.ts';
import type { WindowShutdown } from './vscode/lifecycle.ts';
import { LintService } from './vscode/lintService.ts';
import { chooseLiveContext } from './vscode/live/chooseContext.ts';
import { LiveMode } from './vscode/live/liveMode.ts';
import type { SshHostItem } from './vscode/sshHosts.ts';
import * as transport from './core/probe/transport.ts';
import { FLEET_VIEW_TYPE } from './core/fleet/viewType.ts';
import { REMOTE_COMMANDS } from './vscode/remoteCommandIds.ts';

const YAML_DOCUMENTS: vscode.DocumentSelector = [
  { language: 'yaml', scheme: 'file' },
  { language: 'yaml', scheme: 'untitled' },
  { language: 'helm', scheme: 'file' },
  { language: 'helm', scheme: 'untitled' },
];
/** Live pod manifests and rendered kustomize overlays (read-only): diagnostics from the LintService, CodeLenses and hovers as in files. */
const LIVE_MANIFESTS: vscode.DocumentSelector = [
  ...YAML_DOCUMENTS,
  { language: 'yaml', scheme: MANIFEST_SCHEME },
  { language: 'yaml', scheme: KUSTOMIZE_SCHEME },
];

/**
 * The modules whose identity dist/inspect.js and dist/remote.js must share with this bundle: scripts/build.mjs
 * points their imports of them here. State lives in Ctx (passed to them), so what is left is class identity: a
 * transport made in remote.js throws TransportError, and the inspection flow and live sampler test it with
 * instanceof.
 */
export const shared = { transport };

/** dist/inspect.js's exports (src/inspect.ts). */
type InspectModule = typeof inspectExports;
type InspectCommand = (inspect: InspectModule, ctx: Ctx, arg: unknown) => unknown;

/** Commands whose code is in dist/inspect.js, each run with that bundle's exports. */
const INSPECT_COMMANDS = new Map<CommandId, InspectCommand>([
  [COMMANDS.inspectLocal, (inspect, ctx) => inspect.inspectLocal(ctx)],
  [COMMANDS.analyzeCapture, (inspect, ctx, uri) => inspect.analyzeCapture(ctx, uri instanceof vscode.Uri ? uri : undefined)],
  [COMMANDS.copyProbeScript, (inspect) => inspect.copyProbeScript()],
  [COMMANDS.explainOom, (inspect, ctx) => inspect.explainOomInEditor(ctx)],
]);

/** A file of dist/, beside this bundle; required through createRequire, so esbuild does not inline it. */
function requireBundle(file: string): unknown {
  return createRequire(__filename)(join(__dirname, file));
}

function activateWindow(context: vscode.ExtensionContext): WindowShutdown {
  const started = performance.now();
  const output = vscode.window.createOutputChannel('gpumem', { log: true });
  const inspect = new LazyBundle<InspectModule>(output, INSPECT_BUNDLE, requireBundle);
  const ctx = new Ctx(context, output, (env, reason) => new (inspect.get(reason).InspectionPanels)(env));
  const lint = new LintService(ctx);
  const sshHosts = new LazyTree<SshHostItem>(() => new (inspect.get('the SSH Hosts view').SshHostsProvider)(ctx));
  const remoteBundle = new LazyBundle<RemoteModule>(output, REMOTE_BUNDLE, requireBundle);
  const remote = new LazyRemote(ctx, remoteBundle);
  const clusters = new LazyClusterTree(remote);
  const clustersView = vscode.window.createTreeView<ClusterElement>(CLUSTERS_VIEW, { treeDataProvider: clusters, showCollapseAll: true });
  remote.bindClustersView(clustersView);
  const manifests = new LazyManifests(remote);
  const live = new LiveMode(ctx, remote);
  const overlays = new RenderedOverlays();
  pushAll(context.subscriptions, [
    ctx,
    lint,
    sshHosts,
    remote,
    clusters,
    clustersView,
    manifests,
    live,
    lint.setLayer(live),
    ctx.reports.register(),
    ctx.inspections.register(),
    // A fleet panel comes back after a window reload through dist/remote.js, loaded then (the fleet is read again).
    vscode.window.registerWebviewPanelSerializer(FLEET_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel, state) => remote.get('a restored fleet panel').reviveFleetPanel(panel, state),
    }),
    vscode.workspace.registerTextDocumentContentProvider(MANIFEST_SCHEME, manifests),
    overlays,
    overlays.register(),
    // Runs kubectl, so its code is dist/inspect.js's.
    vscode.commands.registerCommand(COMMANDS.lintRenderedOverlay, (arg?: unknown) =>
      inspect.get(`command ${COMMANDS.lintRenderedOverlay}`).lintRenderedOverlay(ctx, overlays, arg),
    ),
    ...REMOTE_COMMANDS.map((id) => vscode.commands.registerCommand(id, remote.command(id))),
    ...Array.from(INSPECT_COMMANDS, ([id, run]) =>
      vscode.commands.registerCommand(id, (arg?: unknown) => run(inspect.get(`command ${id}`), ctx, arg)),
    ),
    vscode.window.registerTreeDataProvider('gpumem.sshHosts', sshHosts),
    vscode.languages.registerCodeLensProvider(LIVE_MANIFESTS, new GpuCodeLensProvider(ctx, lint)),
    vscode.languages.registerCodeActionsProvider(YAML_DOCUMENTS, new GpuCodeActionProvider(ctx, lint), GpuCodeActionProvider.metadata),
    vscode.languages.registerHoverProvider(LIVE_MANIFESTS, new GpuHoverProvider(ctx, lint)),
    vscode.commands.registerCommand(COMMANDS.lintWorkspace, () => lintWorkspace(ctx, lint)),
    vscode.commands.registerCommand(COMMANDS.lintActiveFile, () => lintActiveFile(lint)),
    vscode.commands.registerCommand(COMMANDS.showRuleDocs, (ruleId?: unknown) => showRuleDocs(ctx, ruleId)),
    vscode.commands.registerCommand(COMMANDS.applyFix, applyFix),
    vscode.commands.registerCommand(COMMANDS.refreshSshHosts, () => sshHosts.refresh()),
    vscode.commands.registerCommand(COMMANDS.chooseLiveContext, () => chooseLiveContext(ctx, live, remote)),
    vscode.commands.registerCommand(COMMANDS.refreshLiveData, () => live.refresh()),
  ]);
  // The bundles this activation loaded: the e2e tier checks that a YAML file loaded dist/extension.js alone.
  ctx.output.info(`activated in ${Math.round(performance.now() - started)} ms; loaded bundles: ${loadedBundles([inspect, remoteBundle])}`);
  // Closes the inspector panels' transports and every node debug-pod transport still in flight (an Inspect Node
  // starting or running when the window closes): their pods are deleted (VS Code waits a few seconds for it).
  return async () => {
    await Promise.all([ctx.inspections.closeAll(), ctx.debugPods.closeAll()]);
  };
}

export const { activate, deactivate } = extensionLifecycle(activateWindow);
