// "Lint Rendered Kustomize Overlay": `kubectl kustomize DIR` (src/transports/kustomizeRender.ts: an argument vector,
// a timeout, output bounded by gpumem.lint.maxFileSizeKB) with a cancellable progress notification, in a trusted
// workspace only, and the rendered objects opened read-only (src/vscode/kustomizeScheme.ts), where the LintService
// lints them: every finding at its line in the rendered YAML. In dist/inspect.js, since it starts a process.
import * as vscode from 'vscode';
import { KUSTOMIZATION_FILE_NAMES } from '../../core/manifest/kustomization.ts';
import { renderedHeader } from '../../core/manifest/kustomizeRender.ts';
import { runKustomize } from '../../transports/kustomizeRender.ts';
import type { Ctx } from '../ctx.ts';
import { readSetting } from '../config.ts';
import type { RenderedOverlays } from '../kustomizeScheme.ts';
import { showFailure } from '../messages.ts';
import { requireTrust } from '../trust.ts';

const TITLE = 'Lint Rendered Kustomize Overlay';
/** Bytes kept for the header comment: its fixed words, a timestamp, and the directory's name. */
const HEADER_ROOM = 4096;

export async function lintRenderedOverlay(ctx: Ctx, overlays: RenderedOverlays, arg: unknown): Promise<void> {
  if (!requireTrust(TITLE)) return;
  const directory = await overlayDirectory(arg);
  if (directory === undefined) return;
  const kubectl = String(readSetting('gpumem.kubernetes.kubectlPath') ?? '').trim() || 'kubectl';
  // Room for the header line, so the document stays within the size the LintService lints as it opens.
  const maxBytes = Math.max(1024, ctx.settings.maxFileBytes - HEADER_ROOM);
  const outcome = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `gpumem: kubectl kustomize ${directory.fsPath}`, cancellable: true },
    async (_progress, token) => {
      const abort = new AbortController();
      const cancel = token.onCancellationRequested(() => abort.abort());
      try {
        return await runKustomize({ directory: directory.fsPath, maxBytes, cwd: directory.fsPath, kubectl, signal: abort.signal });
      } finally {
        cancel.dispose();
      }
    },
  );
  const where = directory.fsPath;
  switch (outcome.kind) {
    case 'rendered': {
      const uri = overlays.put(directory, renderedHeader(where, new Date()) + outcome.text);
      const document = await vscode.workspace.openTextDocument(uri);
      const yaml = document.languageId === 'yaml' ? document : await vscode.languages.setTextDocumentLanguage(document, 'yaml');
      await vscode.window.showTextDocument(yaml, { preview: false });
      ctx.output.info(`${TITLE}: ${where} rendered (${outcome.text.length} characters) with ${kubectl}`);
      return;
    }
    case 'cancelled':
      ctx.output.info(`${TITLE}: ${where}: cancelled`);
      return;
    case 'no-kubectl':
      return showFailure(
        ctx.output,
        `${where} was not rendered: kubectl could not be started (${outcome.detail}). Install kubectl, or set gpumem.kubernetes.kubectlPath to its full path.`,
      );
    case 'too-large':
      return showFailure(
        ctx.output,
        `${where} was not rendered: its output is larger than gpumem.lint.maxFileSizeKB (${ctx.settings.maxFileBytes / 1024} KiB), so it was stopped.`,
      );
    case 'failed':
      return showFailure(ctx.output, `${where} was not rendered: ${outcome.reason}`);
  }
}

/**
 * The overlay to render: the folder or kustomization file the menu was opened on, else the directory of the active
 * editor's file when it holds a kustomization, else a folder the user picks.
 */
async function overlayDirectory(arg: unknown): Promise<vscode.Uri | undefined> {
  if (arg instanceof vscode.Uri && arg.scheme === 'file') {
    const stat = await Promise.resolve(vscode.workspace.fs.stat(arg)).catch(() => undefined);
    return stat?.type === vscode.FileType.Directory ? arg : vscode.Uri.joinPath(arg, '..');
  }
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active?.scheme === 'file') {
    const directory = vscode.Uri.joinPath(active, '..');
    if (await holdsKustomization(directory)) return directory;
  }
  const picked = await vscode.window.showOpenDialog({
    canSelectFolders: true,
    canSelectFiles: false,
    canSelectMany: false,
    openLabel: 'Render and Lint',
    title: 'gpumem: the kustomize overlay to render (a folder with a kustomization.yaml)',
    ...(vscode.workspace.workspaceFolders?.[0] ? { defaultUri: vscode.workspace.workspaceFolders[0].uri } : {}),
  });
  return picked?.[0];
}

async function holdsKustomization(directory: vscode.Uri): Promise<boolean> {
  for (const name of KUSTOMIZATION_FILE_NAMES) {
    const stat = await Promise.resolve(vscode.workspace.fs.stat(vscode.Uri.joinPath(directory, name))).catch(() => undefined);
    if (stat?.type === vscode.FileType.File) return true;
  }
  return false;
}
