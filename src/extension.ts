// Wires gpumem's VS Code parts together; behaviour lives in src/vscode/ and src/core/. This is dist/extension.js:
// the linter, the inspector and the local commands. Kubernetes and SSH (dist/remote.js, src/remote.ts) load
// on first use through LazyRemote, so activating on a YAML file stays light.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pushAll } from './core/arrays.ts';
import * as vscode from 'vscode';
import { GpuCodeActionProvider } from './vscode/codeActions.ts';
import type { ClusterElement } from './vscode/clusters/clusterTree.ts';
import { CLUSTER_COMMANDS, CLUSTERS_VIEW } from './vscode/clusters/commandIds.ts';
import { MANIFEST_SCHEME } from './vscode/clusters/manifestScheme.ts';
import { GpuCodeLensProvider } from './vscode/codeLens.ts';
import { analyzeCapture } from './vscode/commands/analyzeCapture.ts';
import { applyFix } from './vscode/commands/applyFix.ts';
import { explainOomInEditor } from './vscode/commands/explainOom.ts';
import { inspectLocal } from './vscode/commands/inspectLocal.ts';
import { lintActiveFile } from './vscode/commands/lintActiveFile.ts';
import { lintWorkspace } from './vscode/commands/lintWorkspace.ts';
import { copyProbeScript } from './vscode/commands/probeScript.ts';
import { showRuleDocs } from './vscode/commands/showRuleDocs.ts';
import { COMMANDS } from './vscode/commandIds.ts';
import type { CommandId } from './vscode/commandIds.ts';
import { Ctx } from './vscode/ctx.ts';
import { GpuHoverProvider } from './vscode/hover.ts';
import { LazyClusterTree, LazyManifests, LazyRemote } from './vscode/lazyRemote.ts';
import type { RemoteModule } from './vscode/lazyRemote.ts';
import { extensionLifecycle } from './vscode/lifecycle.ts';
import type { WindowShutdown } from './vscode/lifecycle.ts';
import { LintService } from './vscode/lintService.ts';
import { SshHostsProvider } from './vscode/sshHosts.ts';
import * as transport from './core/probe/transport.ts';

const YAML_DOCUMENTS: vscode.DocumentSelector = [
  { language: 'yaml', scheme: 'file' },
  { language: 'yaml', scheme: 'untitled' },
  { language: 'helm', scheme: 'file' },
  { language: 'helm', scheme: 'untitled' },
];
/** Live pod manifests (read-only): diagnostics come from the LintService; hovers explain GPU fields. */
const LIVE_MANIFESTS: vscode.DocumentSelector = [...YAML_DOCUMENTS, { language: 'yaml', scheme: MANIFEST_SCHEME }];

/**
 * The modules whose identity dist/remote.js must share with this bundle: scripts/build.mjs points its imports
 * of them here. State lives in Ctx (passed to remote.js), so what is left is class identity: a transport made
 * in remote.js throws TransportError, and the inspection flow and live sampler here test it with instanceof.
 */
export const shared = { transport };

/** Commands whose code is in dist/remote.js. */
const REMOTE_COMMANDS: readonly CommandId[] = [...Object.values(CLUSTER_COMMANDS), COMMANDS.revealPod, COMMANDS.inspectSshHost];

function activateWindow(context: vscode.ExtensionContext): WindowShutdown {
  const started = performance.now();
  const ctx = new Ctx(context);
  const lint = new LintService(ctx);
  const sshHosts = new SshHostsProvider(ctx);
  // dist/remote.js sits beside this bundle; loaded through createRequire, so esbuild does not inline it.
  const remote = new LazyRemote(ctx, () => createRequire(__filename)(join(__dirname, 'remote.js')) as RemoteModule);
  const clusters = new LazyClusterTree(remote);
  const clustersView = vscode.window.createTreeView<ClusterElement>(CLUSTERS_VIEW, { treeDataProvider: clusters, showCollapseAll: true });
  remote.bindClustersView(clustersView);
  const manifests = new LazyManifests(remote);
  pushAll(context.subscriptions, [
    ctx,
    lint,
    sshHosts,
    remote,
    clusters,
    clustersView,
    manifests,
    ctx.reports.register(),
    ctx.inspections.register(),
    vscode.workspace.registerTextDocumentContentProvider(MANIFEST_SCHEME, manifests),
    ...REMOTE_COMMANDS.map((id) => vscode.commands.registerCommand(id, remote.command(id))),
    vscode.window.registerTreeDataProvider('gpumem.sshHosts', sshHosts),
    vscode.languages.registerCodeLensProvider(YAML_DOCUMENTS, new GpuCodeLensProvider(ctx, lint)),
    vscode.languages.registerCodeActionsProvider(YAML_DOCUMENTS, new GpuCodeActionProvider(ctx, lint), GpuCodeActionProvider.metadata),
    vscode.languages.registerHoverProvider(LIVE_MANIFESTS, new GpuHoverProvider(ctx, lint)),
    vscode.commands.registerCommand(COMMANDS.lintWorkspace, () => lintWorkspace(ctx, lint)),
    vscode.commands.registerCommand(COMMANDS.lintActiveFile, () => lintActiveFile(lint)),
    vscode.commands.registerCommand(COMMANDS.showRuleDocs, (ruleId?: unknown) => showRuleDocs(ctx, ruleId)),
    vscode.commands.registerCommand(COMMANDS.applyFix, applyFix),
    vscode.commands.registerCommand(COMMANDS.inspectLocal, () => inspectLocal(ctx)),
    vscode.commands.registerCommand(COMMANDS.refreshSshHosts, () => sshHosts.refresh()),
    vscode.commands.registerCommand(COMMANDS.analyzeCapture, (uri?: vscode.Uri) => analyzeCapture(ctx, uri)),
    vscode.commands.registerCommand(COMMANDS.copyProbeScript, () => copyProbeScript()),
    vscode.commands.registerCommand(COMMANDS.explainOom, () => explainOomInEditor(ctx)),
  ]);
  // The bundles this activation loaded: the e2e tier checks that a YAML file did not load remote.js.
  ctx.output.info(
    `activated in ${Math.round(performance.now() - started)} ms; loaded bundles: ${remote.loaded ? 'extension.js, remote.js' : 'extension.js'}`,
  );
  // Closes the inspector panels' transports and every node debug-pod transport still in flight (an Inspect Node
  // starting or running when the window closes): their pods are deleted (VS Code waits a few seconds for it).
  return async () => {
    await Promise.all([ctx.inspections.closeAll(), ctx.debugPods.closeAll()]);
  };
}

export const { activate, deactivate } = extensionLifecycle(activateWindow);
