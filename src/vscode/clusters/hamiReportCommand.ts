// Copy HAMi Report: the HAMi issue bundle of a GPU pod (src/kube/hamiReport.ts reads it from the Kubernetes
// API, src/core/report/hamiIssueReport.ts writes it, secrets redacted), copied to the clipboard and opened in
// the read-only report view. Reads only (no exec, no write); cancellable while it reads.
import * as vscode from 'vscode';
import { hamiIssueMarkdown } from '../../core/report/hamiIssueReport.ts';
import { errorText } from '../../kube/errorText.ts';
import { collectHamiReport } from '../../kube/hamiReport.ts';
import type { Ctx } from '../ctx.ts';
import { reportError } from '../messages.ts';
import { requireTrust } from '../trust.ts';
import type { ClusterModel } from '../../clusters/clusterModel.ts';
import { podTarget } from './targets.ts';

export function copyHamiReport(ctx: Ctx, clusters: ClusterModel) {
  return async (arg?: unknown): Promise<void> => {
    if (!requireTrust('Copy HAMi Report')) return;
    const target = await podTarget(ctx, clusters, arg);
    if (!target) return;
    const { namespace, name } = target.summary;
    const context = target.context.info.name;
    const version = String((ctx.extension.extension.packageJSON as { version?: unknown }).version ?? 'unknown');
    type Outcome = { kind: 'done'; markdown: string; redacted: number } | { kind: 'cancelled' } | { kind: 'failed'; error: unknown };
    const outcome = await vscode.window.withProgress<Outcome>(
      { location: vscode.ProgressLocation.Notification, title: `gpumem: HAMi report of ${namespace}/${name}`, cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        const cancel = token.onCancellationRequested(() => controller.abort());
        try {
          progress.report({ message: 'reading the pod, its events, its node and the HAMi pods’ logs…' });
          const input = await collectHamiReport(target.client, { namespace, name }, { signal: controller.signal, toolVersion: version });
          return { kind: 'done', ...hamiIssueMarkdown(input) };
        } catch (error) {
          if (controller.signal.aborted) return { kind: 'cancelled' };
          return { kind: 'failed', error };
        } finally {
          cancel.dispose();
        }
      },
    );
    if (outcome.kind === 'cancelled') return;
    if (outcome.kind === 'failed') {
      const action = `Copy HAMi Report ${namespace}/${name}`;
      reportError(ctx.output, action, outcome.error, errorText(outcome.error, { context, namespace, action }));
      return;
    }
    await vscode.env.clipboard.writeText(outcome.markdown);
    ctx.output.info(`HAMi report of ${namespace}/${name} (context ${context}) copied; ${outcome.redacted} values redacted.`);
    await ctx.reports.show(outcome.markdown, `gpumem HAMi report ${namespace}/${name}`);
    void vscode.window.showInformationMessage(
      `gpumem: HAMi report copied (${outcome.redacted} value${outcome.redacted === 1 ? '' : 's'} redacted). Read it before posting.`,
    );
  };
}
