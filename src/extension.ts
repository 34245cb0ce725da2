// Wires gpumem's VS Code parts together; behaviour lives in src/vscode/ and src/core/.
import { pushAll } from './core/arrays.ts';
import * as vscode from 'vscode';
import { GpuCodeActionProvider } from './vscode/codeActions.ts';
import { MANIFEST_SCHEME } from './vscode/clusters/manifestProvider.ts';
import { registerClusters } from './vscode/clusters/registerClusters.ts';
import { GpuCodeLensProvider } from './vscode/codeLens.ts';
import { analyzeCapture } from './vscode/commands/analyzeCapture.ts';
import { APPLY_FIX_COMMAND, applyFix } from './vscode/commands/applyFix.ts';
import { explainOomInEditor } from './vscode/commands/explainOom.ts';
import { inspectLocal } from './vscode/commands/inspectLocal.ts';
import { inspectSshHost } from './vscode/commands/inspectSsh.ts';
import { lintActiveFile } from './vscode/commands/lintActiveFile.ts';
import { lintWorkspace } from './vscode/commands/lintWorkspace.ts';
import { copyProbeScript } from './vscode/commands/probeScript.ts';
import { showRuleDocs } from './vscode/commands/showRuleDocs.ts';
import { Ctx } from './vscode/ctx.ts';
import { GpuHoverProvider } from './vscode/hover.ts';
import { InspectorPanel } from './vscode/inspector/panel.ts';
import { registerInspector } from './vscode/inspector/serializer.ts';
import { LintService } from './vscode/lintService.ts';
import { registerReportStore } from './vscode/reportView.ts';
import { SshHostsProvider } from './vscode/sshHosts.ts';
import type { SshHostItem } from './vscode/sshHosts.ts';

const YAML_DOCUMENTS: vscode.DocumentSelector = [
  { language: 'yaml', scheme: 'file' },
  { language: 'yaml', scheme: 'untitled' },
  { language: 'helm', scheme: 'file' },
  { language: 'helm', scheme: 'untitled' },
];
/** Live pod manifests (read-only): diagnostics come from the LintService; hovers explain GPU fields. */
const LIVE_MANIFESTS: vscode.DocumentSelector = [...YAML_DOCUMENTS, { language: 'yaml', scheme: MANIFEST_SCHEME }];

/** The window's state, for deactivate(). */
let activeCtx: Ctx | undefined;

export function activate(context: vscode.ExtensionContext) {
  const ctx = new Ctx(context);
  activeCtx = ctx;
  const lint = new LintService(ctx);
  const sshHosts = new SshHostsProvider();
  pushAll(context.subscriptions, [
    ctx,
    lint,
    sshHosts,
    registerReportStore(),
    registerInspector(ctx),
    ...registerClusters(ctx),
    vscode.window.registerTreeDataProvider('gpumem.sshHosts', sshHosts),
    vscode.languages.registerCodeLensProvider(YAML_DOCUMENTS, new GpuCodeLensProvider(ctx, lint)),
    vscode.languages.registerCodeActionsProvider(YAML_DOCUMENTS, new GpuCodeActionProvider(ctx, lint), GpuCodeActionProvider.metadata),
    vscode.languages.registerHoverProvider(LIVE_MANIFESTS, new GpuHoverProvider(ctx, lint)),
    vscode.commands.registerCommand('gpumem.lintWorkspace', () => lintWorkspace(ctx, lint)),
    vscode.commands.registerCommand('gpumem.lintActiveFile', () => lintActiveFile(lint)),
    vscode.commands.registerCommand('gpumem.showRuleDocs', (ruleId?: unknown) => showRuleDocs(ctx, ruleId)),
    vscode.commands.registerCommand(APPLY_FIX_COMMAND, applyFix),
    vscode.commands.registerCommand('gpumem.inspectLocal', () => inspectLocal(ctx)),
    vscode.commands.registerCommand('gpumem.inspectSshHost', (item?: SshHostItem) => inspectSshHost(ctx, item)),
    vscode.commands.registerCommand('gpumem.refreshSshHosts', () => sshHosts.refresh()),
    vscode.commands.registerCommand('gpumem.analyzeCapture', (uri?: vscode.Uri) => analyzeCapture(ctx, uri)),
    vscode.commands.registerCommand('gpumem.copyProbeScript', () => copyProbeScript()),
    vscode.commands.registerCommand('gpumem.explainOom', () => explainOomInEditor()),
  ]);
}

/**
 * Closes the inspector panels' transports and every node debug-pod transport still in flight (an Inspect Node
 * starting or running when the window closes): their pods are deleted (VS Code waits a few seconds for it).
 */
export async function deactivate(): Promise<void> {
  const pods = activeCtx?.debugPods;
  activeCtx = undefined;
  await Promise.all([InspectorPanel.disposeAll(), pods?.closeAll()]);
}
