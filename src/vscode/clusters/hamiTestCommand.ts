// "Test HAMi Enforcement…" on a HAMi pod (src/core/hamiTest, docs/hami-test.md): never automatic, trusted
// workspaces only, refused on a pod HAMi does not manage; a modal names the pod, the container, the GPU, the
// quota and the amount, and that code runs in the container; then one bounded, cancellable exec (the same exec
// transport as Inspect Pod) and the result in the report view.
import * as vscode from 'vscode';
import { confirmationText, describeRefusal, planHamiTest } from '../../core/hamiTest/plan.ts';
import { hamiTestMarkdown } from '../../core/hamiTest/report.ts';
import { runHamiTest } from '../../core/hamiTest/run.ts';
import { hamiTestArgv } from '../../core/hamiTest/script.ts';
import { terminalSafe } from '../../core/text/escape.ts';
import { errorText } from '../../kube/errorText.ts';
import type { Ctx } from '../ctx.ts';
import { requireTrust } from '../trust.ts';
import type { ClusterModel } from '../../clusters/clusterModel.ts';
import { podExecTransport } from './execTransport.ts';
import { pickContainer, podTarget } from './targets.ts';
import { reportError } from '../messages.ts';

const ACTION = 'Test HAMi Enforcement';
const RUN = 'Run the Test';

export function testHamiEnforcement(ctx: Ctx, clusters: ClusterModel) {
  return async (arg?: unknown): Promise<void> => {
    if (!requireTrust(ACTION)) return;
    const target = await podTarget(ctx, clusters, arg);
    if (!target) return;
    const choice = await pickContainer(target.pod);
    if (!choice) return;
    const planned = planHamiTest(target.pod, choice.container);
    if (planned.kind === 'refused') {
      void vscode.window.showWarningMessage(`gpumem: ${terminalSafe(describeRefusal(planned.target, planned.refusal))}`);
      return;
    }
    const plan = planned.plan;
    // Modal text is plain: the same control-character escaping as the terminal keeps a pod's strings inert.
    const { title, detail } = confirmationText(plan);
    const answer = await vscode.window.showWarningMessage(terminalSafe(title), { modal: true, detail: terminalSafe(detail) }, RUN);
    if (answer !== RUN) return;
    const where = `${plan.namespace}/${plan.pod} (${plan.container})`;
    const transport = podExecTransport(clusters.kubeSettings, target.client, {
      namespace: plan.namespace,
      pod: plan.pod,
      container: plan.container,
      command: hamiTestArgv(plan.attemptBytes),
    });
    try {
      const outcome = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `gpumem: testing HAMi enforcement in ${where}`, cancellable: true },
        async (_progress, token) => {
          const controller = new AbortController();
          const subscription = token.onCancellationRequested(() => controller.abort());
          try {
            return await runHamiTest(transport, plan, { signal: controller.signal });
          } finally {
            subscription.dispose();
          }
        },
      );
      if (outcome.kind === 'cancelled') {
        ctx.output.info(`${ACTION} ${where}: cancelled; the program in the container ends itself within its own deadline`);
        return;
      }
      if (outcome.stderr.trim()) ctx.output.info(`${ACTION} ${where}: the program wrote to stderr:\n${terminalSafe(outcome.stderr)}`);
      await ctx.reports.show(hamiTestMarkdown(plan, outcome.verdict), `gpumem HAMi enforcement test ${plan.namespace}/${plan.pod}`);
    } catch (error) {
      reportError(
        ctx.output,
        `${ACTION} ${where}`,
        error,
        errorText(error, { context: target.context.info.name, namespace: plan.namespace, action: `${ACTION} ${where}` }),
      );
    } finally {
      await transport.close();
    }
  };
}
