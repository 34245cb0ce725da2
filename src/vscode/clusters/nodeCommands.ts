// The node commands of the Clusters view:
// - Inspect Node: the node probe through the node's gpumem agent pod when it runs there (an exec, no pod
//   created; gpumem.kubernetes.useAgentPod), else in a debug pod (or over SSH to the node's address with
//   gpumem.kubernetes.nodeProbe = ssh; the route is src/kube/nodeProbe.ts's), with the node's pod names and
//   HAMi device-plugin pods for the report; the inspector panel keeps the debug pod (or the SSH connection)
//   for live sampling and deletes it when it closes;
// - Explain OOM Kills on Node: the node probe's kernel log plus the node's SystemOOM events, as a report.
import type { Inspection } from '../../core/inspectionRun/analyze.ts';
import type { FailurePlace } from '../../core/kube/failureMessages.ts';
import type { Transport } from '../../core/probe/transport.ts';
import { nodeEventsMarkdown } from '../../core/report/clusterReport.ts';
import { markdownText } from '../../core/text/escape.ts';
import { oomToMarkdown } from '../../core/report/oomReport.ts';
import { nodeMemoryEventsOf } from '../../kube/explorer.ts';
import { nodeAnalysisInputs, resolveNodeProbeRoute } from '../../kube/nodeProbe.ts';
import type { Ctx } from '../ctx.ts';
import { runInspection } from '../inspectionRun/run.ts';
import { showFailure } from '../messages.ts';
import { vscodeSshOptions } from '../commands/inspectSsh.ts';
import { requireTrust } from '../trust.ts';
import type { ClusterModel } from '../../clusters/clusterModel.ts';
import { debugPodExec, podExecTransport } from './execTransport.ts';
import { errorText } from '../../kube/errorText.ts';
import { nodeTarget, showError } from './targets.ts';
import type { NodeTarget } from './targets.ts';

/** Runs the node probe (debug pod or SSH) with the cluster's pod names; `show` presents the result. */
async function runNodeProbe(
  ctx: Ctx,
  clusters: ClusterModel,
  target: NodeTarget,
  action: string,
  show?: (inspection: Inspection) => Promise<void>,
): Promise<Inspection | undefined> {
  const settings = clusters.kubeSettings;
  const name = target.node.name;
  // The route (debug pod or SSH to the node's address) is src/kube/nodeProbe.ts's; the SSH prompts are VS Code's.
  const exec = debugPodExec(settings, target.client); // gpumem.kubernetes.execMode: kubectl
  const route = await resolveNodeProbeRoute(target.client, target.node, settings, {
    useAgent: settings.useAgentPod,
    // gpumem.kubernetes.execMode kubectl: the exec into the agent pod is kubectl's too.
    ...(settings.execMode.kind === 'kubectl' ? { agentExec: (agent) => podExecTransport(settings, target.client, agent) } : {}),
    ssh: vscodeSshOptions(ctx),
    debugPod: {
      ...(exec ? { exec } : {}),
      registry: ctx.debugPods,
      log: (line) => ctx.output.info(line),
      // Inspect Node keeps its debug pod for the panel's live sampling (the panel deletes it); a report does not.
      ...(show
        ? {}
        : ({
            lifetime: { kind: 'retained', idleMs: settings.liveDebugPodIdleMs },
            activeDeadlineSeconds: settings.liveDebugPodDeadlineSeconds,
          } as const)),
      onCleanupFailure: (message) => void showFailure(ctx.output, message, 'warning'),
    },
  });
  if (route.kind === 'unreachable') {
    showError(ctx, `${action} ${name}: ${route.reason} (gpumem.kubernetes.nodeProbe is "ssh").`);
    return undefined;
  }
  const transport: Transport = route.transport;
  const place: FailurePlace = {
    context: target.context.info.name,
    ...(route.kind === 'debug-pod' || route.kind === 'agent' ? { namespace: route.namespace } : {}),
    action: `${action} ${name}`,
  };
  // Which path the probe took, in the log and in the progress title (the report's target names it too).
  if (route.kind === 'agent') ctx.output.info(`${action} ${name}: through the ${transport.target}, no debug pod`);
  if (route.kind === 'debug-pod' && route.agentSkipped) ctx.output.info(`${action} ${name}: ${route.agentSkipped}; using a debug pod`);
  const via = route.kind === 'agent' ? ', through its gpumem agent pod' : '';
  const inspection = await runInspection(ctx, transport, `${action} ${name}${via} (context ${target.context.info.name})`, {
    probe: { scope: 'node', hostRoot: route.hostRoot },
    analysis: (signal) => nodeAnalysisInputs(target.client, target.node, { signal }),
    // Inspect Node: the panel keeps the transport (the debug pod or the SSH connection) for live sampling.
    ...(show ? { show } : { liveSampling: true }),
    explainError: (error) => errorText(error, place),
  });
  return inspection;
}

export function inspectNode(ctx: Ctx, clusters: ClusterModel) {
  return async (arg?: unknown): Promise<void> => {
    if (!requireTrust('Inspect Node')) return;
    const target = await nodeTarget(ctx, clusters, arg);
    if (target) await runNodeProbe(ctx, clusters, target, 'Inspecting node');
  };
}

export function explainNodeOom(ctx: Ctx, clusters: ClusterModel) {
  return async (arg?: unknown): Promise<void> => {
    if (!requireTrust('Explain OOM Kills on Node')) return;
    const target = await nodeTarget(ctx, clusters, arg);
    if (!target) return;
    const name = target.node.name;
    // The node's events are read while the probe runs.
    const events = nodeMemoryEventsOf(target.client, name).then(
      (list) => ({ list, problem: undefined as string | undefined }),
      (error: unknown) => ({
        list: [],
        problem: errorText(error, { context: target.context.info.name, namespace: 'default', action: 'Node events' }),
      }),
    );
    await runNodeProbe(ctx, clusters, target, 'Explaining OOM kills on node', async (inspection) => {
      const { list, problem } = await events;
      const source = `kernel log of node ${name} (${inspection.target})`;
      const oom = inspection.node?.oom;
      const head = oom
        ? oomToMarkdown(oom, source)
        : `# OOM kills explained: ${markdownText(source)}\n\nNo kernel log was readable on the node (dmesg needs CAP_SYSLOG; /var/log/kern.log may be absent).\n`;
      await ctx.reports.show(`${head}\n${nodeEventsMarkdown(name, list, problem)}`, `gpumem OOM kills ${name}`);
    });
  };
}
