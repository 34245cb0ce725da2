// "Lint Workspace Manifests": every *.yaml / *.yml of the workspace, with progress and cancellation.
import * as vscode from 'vscode';
import { indexClaims, mayUseClaims } from '../../core/crossFile.ts';
import type { Finding } from '../../core/findings.ts';
import { internalErrorFinding } from '../../core/internalError.ts';
import { lintBytes } from '../../core/lint.ts';
import { skippedFinding } from '../../core/lintNotices.ts';
import { INPUT_LIMITS } from '../../files/boundedRead.ts';
import type { BoundedRead } from '../../files/boundedRead.ts';
import { ClaimIndex } from '../../core/manifest/draClaims.ts';
import { KustomizePatchIndex, isKustomizationFileName } from '../../core/manifest/kustomization.ts';
import type { Ctx } from '../ctx.ts';
import type { LintService } from '../lintService.ts';
import { linkLeavesWorkspace, readUriBounded } from '../readUri.ts';

/** Workspace scans may read larger files than live linting, but never unbounded ones: the CLI's default. */
const WORKSPACE_SCAN_MAX_BYTES = INPUT_LIMITS.manifest.limitBytes;

export interface WorkspaceLintSummary {
  readonly files: number;
  readonly filesWithFindings: number;
  readonly findings: number;
  readonly cancelled: boolean;
}

/**
 * files.exclude (enabled entries) plus gpumem.lint.exclude, as one glob: passing our own exclude to findFiles drops files.exclude
 * otherwise.
 */
function excludeGlob(ctx: Ctx): string | undefined {
  const filesExclude = vscode.workspace.getConfiguration('files').get<Record<string, unknown>>('exclude', {});
  const globs = [
    ...Object.entries(filesExclude)
      .filter(([, enabled]) => enabled === true)
      .map(([glob]) => glob),
    ...ctx.settings.exclude,
  ];
  const flat = globs.filter((glob) => !glob.includes('{') && !glob.includes('}'));
  return flat.length > 0 ? `{${flat.join(',')}}` : undefined;
}

async function readWorkspaceFile(uri: vscode.Uri): Promise<BoundedRead> {
  const outside = await linkLeavesWorkspace(uri);
  if (outside !== undefined) return { kind: 'refused', cause: 'not-regular', reason: outside };
  return readUriBounded(uri, { kind: 'manifest', limitBytes: WORKSPACE_SCAN_MAX_BYTES });
}

export async function lintWorkspace(ctx: Ctx, lint: LintService): Promise<WorkspaceLintSummary | undefined> {
  if (!vscode.workspace.workspaceFolders?.length) {
    void vscode.window.showInformationMessage('gpumem: open a folder to lint its manifests.');
    return undefined;
  }
  const summary = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'gpumem: linting workspace manifests', cancellable: true },
    async (progress, token) => {
      const uris = await vscode.workspace.findFiles('**/*.{yaml,yml}', excludeGlob(ctx), undefined, token);
      // Kustomizations first: they say which of the files are patches, judged only for what they set.
      const patches = new KustomizePatchIndex();
      const kustomizations = [
        ...uris.filter((uri) => isKustomizationFileName(uri.path.slice(uri.path.lastIndexOf('/') + 1))),
        ...(await vscode.workspace.findFiles('**/Kustomization', excludeGlob(ctx), undefined, token)),
      ];
      for (const uri of kustomizations) {
        const read = await readWorkspaceFile(uri);
        if (read.kind === 'read' && read.bytes.length <= INPUT_LIMITS.config.limitBytes)
          patches.add(uri.path, new TextDecoder().decode(read.bytes), vscode.workspace.asRelativePath(uri));
      }
      lint.setWorkspaceKustomizePatches(patches);
      let files = 0;
      let filesWithFindings = 0;
      let findings = 0;
      // DRA claims resolve across the workspace: files whose pods use claims wait until every file's claims are indexed.
      const claims = new ClaimIndex();
      const deferred: { uri: vscode.Uri; bytes: Uint8Array; text: string }[] = [];
      const publish = (uri: vscode.Uri, fileFindings: readonly Finding[], text: string) => {
        lint.publishForFile(uri, fileFindings, text);
        files++;
        const counted = fileFindings.filter(
          (finding) =>
            finding.ruleId !== 'manifest-skipped' &&
            finding.ruleId !== 'analysis-budget' &&
            finding.ruleId !== 'helm-template' &&
            finding.ruleId !== 'unrendered-template',
        ).length;
        if (counted > 0) filesWithFindings++;
        findings += counted;
      };
      // One file's failure is one finding on that file; the scan goes on with the others.
      const failed = (uri: vscode.Uri, error: unknown) => {
        ctx.output.warn(`Could not lint ${uri.toString(true)}: ${(error as Error).stack ?? String(error)}`);
        publish(uri, [internalErrorFinding({ kind: 'file', file: vscode.workspace.asRelativePath(uri) }, error)], '');
      };
      const lintOne = (uri: vscode.Uri, bytes: Uint8Array, text: string) => {
        try {
          const kustomizePatch = patches.roleOf(uri.path);
          publish(
            uri,
            lintBytes(bytes, ctx.settings.lint, WORKSPACE_SCAN_MAX_BYTES, { claims, ...(kustomizePatch ? { kustomizePatch } : {}) })
              .findings,
            text,
          );
        } catch (error) {
          failed(uri, error);
        }
      };
      for (const uri of uris) {
        if (token.isCancellationRequested) return { files, filesWithFindings, findings, cancelled: true };
        progress.report({ message: vscode.workspace.asRelativePath(uri), increment: 100 / uris.length });
        try {
          const read = await readWorkspaceFile(uri);
          if (read.kind !== 'read') {
            // Not read (a device, a FIFO, a link out of the folder, past the limit): a notice on the file, and on.
            publish(uri, [skippedFinding(`Skipped: ${read.reason}.`)], '');
            await new Promise((resolve) => setImmediate(resolve));
            continue;
          }
          const bytes = read.bytes;
          const text = new TextDecoder().decode(bytes);
          if (bytes.length <= WORKSPACE_SCAN_MAX_BYTES) indexClaims(text, claims, vscode.workspace.asRelativePath(uri));
          if (mayUseClaims(text)) deferred.push({ uri, bytes, text });
          else lintOne(uri, bytes, text);
        } catch (error) {
          failed(uri, error);
        }
        // Let the extension host breathe between files.
        await new Promise((resolve) => setImmediate(resolve));
      }
      // Open editors resolve their claims in this index too from now on.
      lint.setWorkspaceClaims(claims);
      for (const { uri, bytes, text } of deferred) {
        if (token.isCancellationRequested) return { files, filesWithFindings, findings, cancelled: true };
        lintOne(uri, bytes, text);
        await new Promise((resolve) => setImmediate(resolve));
      }
      return { files, filesWithFindings, findings, cancelled: false };
    },
  );
  const message = `gpumem: ${summary.cancelled ? 'cancelled after' : 'linted'} ${summary.files} manifest file${summary.files === 1 ? '' : 's'}: ${summary.findings} finding${summary.findings === 1 ? '' : 's'} in ${summary.filesWithFindings} file${summary.filesWithFindings === 1 ? '' : 's'}.`;
  ctx.output.info(message);
  void vscode.window.showInformationMessage(message, 'Show Problems').then((choice) => {
    if (choice) void vscode.commands.executeCommand('workbench.actions.view.problems');
  });
  return summary;
}
