// The pod commands of the Clusters view:
// - Inspect Pod: the container probe through pod exec (client-node's WebSocket, or kubectl with
//   gpumem.kubernetes.execMode = kubectl: execTransport.ts), in the container the user picks when several;
// - Run HAMi Checklist on Pod: the container probe plus the cluster-side HAMi checks, as a report.
import type { Inspection } from '../../core/inspectionRun/analyze.ts';
import type { FailurePlace } from '../../core/kube/failureMessages.ts';
import { hamiFactsFromPod } from '../../core/kube/pods.ts';
import { hamiClusterMarkdown } from '../../core/report/clusterReport.ts';
import type { HamiClusterSection } from '../../core/report/clusterReport.ts';
import { inspectionToMarkdown } from '../../core/report/inspectionReport.ts';
import { podHamiFacts } from '../../kube/explorer.ts';
import type { Ctx } from '../ctx.ts';
import { runInspection } from '../inspectionRun/run.ts';
import { requireTrust } from '../trust.ts';
import type { ClusterModel } from '../../clusters/clusterModel.ts';
import { podExecTransport } from './execTransport.ts';
import { errorText } from '../../kube/errorText.ts';
import { pickContainer, podTarget } from './targets.ts';
import type { PodTarget } from './targets.ts';

async function runPodProbe(ctx: Ctx, clusters: ClusterModel, target: PodTarget, action: string, hami: boolean): Promise<void> {
  const choice = await pickContainer(target.pod);
  if (!choice) return;
  const { namespace, name } = target.summary;
  const place: FailurePlace = { context: target.context.info.name, namespace, action: `${action} ${namespace}/${name}` };
  const transport = podExecTransport(clusters.kubeSettings, target.client, { namespace, pod: name, container: choice.container });
  let section: HamiClusterSection | undefined;
  await runInspection(ctx, transport, `${action} ${namespace}/${name}${choice.container ? ` (${choice.container})` : ''}`, {
    probe: { scope: 'container' },
    analysis: async (signal) => {
      if (!hami) return { hamiCluster: hamiFactsFromPod(target.pod, choice.container) };
      const facts = await podHamiFacts(target.client, target.pod, choice.container, { signal });
      section = facts.section;
      return { hamiCluster: facts.facts };
    },
    ...(hami
      ? {
          show: async (inspection: Inspection) => {
            const extra = section ? hamiClusterMarkdown(section) : '';
            await ctx.reports.show(`${inspectionToMarkdown(inspection)}\n${extra}`, `gpumem HAMi checklist ${namespace}/${name}`);
          },
        }
      : {}),
    explainError: (error) => errorText(error, place),
  });
}

export function inspectPod(ctx: Ctx, clusters: ClusterModel) {
  return async (arg?: unknown): Promise<void> => {
    if (!requireTrust('Inspect Pod')) return;
    const target = await podTarget(ctx, clusters, arg);
    if (target) await runPodProbe(ctx, clusters, target, 'Inspecting pod', false);
  };
}

export function hamiChecklistOnPod(ctx: Ctx, clusters: ClusterModel) {
  return async (arg?: unknown): Promise<void> => {
    if (!requireTrust('Run HAMi Checklist on Pod')) return;
    const target = await podTarget(ctx, clusters, arg);
    if (target) await runPodProbe(ctx, clusters, target, 'HAMi checklist on pod', true);
  };
}
