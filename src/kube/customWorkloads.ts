// The custom resources with pod templates whose pods the live matching can tell apart (KubeRay's RayCluster, RayJob
// and RayService; LeaderWorkerSet; Kubeflow's PyTorchJob, TFJob, MPIJob, XGBoostJob and PaddleJob; JobSet; Volcano's Job), and which of
// them this API server serves. Discovery is asked once per group and
// version: a 404 means the operator is not installed, which is normal and no failure; any other error is a note,
// and those kinds are left out. Read-only, with the client's deadline and cancellation.
import { CustomObjectsApi } from '@kubernetes/client-node';
import type { ConfigurationOptions } from '@kubernetes/client-node';
import type { ClusterClient } from './clusterClient.ts';
import { errorText } from './errorText.ts';
import { KubeRequestError } from './kubeRequestError.ts';

export interface CustomWorkload {
  readonly group: string;
  readonly version: string;
  /** The plural resource name: the URL segment and the RBAC resource. */
  readonly resource: string;
  readonly kind: string;
}

interface CustomPage {
  readonly items: unknown[];
  readonly metadata?: { readonly _continue?: string; readonly continue?: string; readonly resourceVersion?: string };
}

export const CUSTOM_WORKLOADS: readonly CustomWorkload[] = [
  { group: 'ray.io', version: 'v1', resource: 'rayclusters', kind: 'RayCluster' },
  { group: 'ray.io', version: 'v1', resource: 'rayjobs', kind: 'RayJob' },
  { group: 'ray.io', version: 'v1', resource: 'rayservices', kind: 'RayService' },
  { group: 'leaderworkerset.x-k8s.io', version: 'v1', resource: 'leaderworkersets', kind: 'LeaderWorkerSet' },
  // Kubeflow's training operator (kubeflow.org/v1).
  { group: 'kubeflow.org', version: 'v1', resource: 'pytorchjobs', kind: 'PyTorchJob' },
  { group: 'kubeflow.org', version: 'v1', resource: 'tfjobs', kind: 'TFJob' },
  { group: 'kubeflow.org', version: 'v1', resource: 'mpijobs', kind: 'MPIJob' },
  { group: 'kubeflow.org', version: 'v1', resource: 'xgboostjobs', kind: 'XGBoostJob' },
  { group: 'kubeflow.org', version: 'v1', resource: 'paddlejobs', kind: 'PaddleJob' },
  // kubernetes-sigs/jobset: its Jobs are batch/v1 Jobs owned by the JobSet, listed with the other Jobs.
  { group: 'jobset.x-k8s.io', version: 'v1alpha2', resource: 'jobsets', kind: 'JobSet' },
  // Volcano's Job: the same kind name as batch/v1's, told apart by its API group wherever a workload is keyed
  // (workloads.ts kindKey).
  { group: 'batch.volcano.sh', version: 'v1alpha1', resource: 'jobs', kind: 'Job' },
];

export interface ServedCustomWorkloads {
  readonly served: readonly CustomWorkload[];
  /** Discovery answers other than "served" or "not installed" (forbidden, unreachable…), one sentence each. */
  readonly notes: readonly string[];
}

/** Which of CUSTOM_WORKLOADS the API serves: one discovery request per group and version. */
export async function servedCustomWorkloads(client: ClusterClient, signal: AbortSignal): Promise<ServedCustomWorkloads> {
  const api = client.kubeConfig.makeApiClient(CustomObjectsApi);
  const served: CustomWorkload[] = [];
  const notes: string[] = [];
  const groupVersions = [...new Set(CUSTOM_WORKLOADS.map((one) => `${one.group}/${one.version}`))];
  for (const groupVersion of groupVersions) {
    const [group = '', version = ''] = groupVersion.split('/');
    try {
      const list = await client.call(
        { verb: 'get', resource: groupVersion },
        (options) => api.getAPIResources({ group, version }, options),
        { signal },
      );
      const names = new Set((list.resources ?? []).map((one) => one.name));
      for (const one of CUSTOM_WORKLOADS) if (`${one.group}/${one.version}` === groupVersion && names.has(one.resource)) served.push(one);
    } catch (error) {
      if (signal.aborted) throw error;
      // Not installed: the group's kinds are simply not read.
      if (error instanceof KubeRequestError && error.failure.kind === 'not-found') continue;
      notes.push(errorText(error, { context: client.context, action: `Discover ${groupVersion}` }));
    }
  }
  return { served, notes };
}

/** One page of a custom resource's list, in one namespace or (namespace undefined) all. */
export function listCustomPage(
  client: ClusterClient,
  workload: CustomWorkload,
  namespace: string | undefined,
  cont: string | undefined,
  options: ConfigurationOptions,
  limit: number,
): Promise<{ readonly items: unknown[]; readonly metadata?: { readonly _continue?: string; readonly resourceVersion?: string } }> {
  const api = client.kubeConfig.makeApiClient(CustomObjectsApi);
  const paging = { limit, ...(cont ? { _continue: cont } : {}) };
  const page: Promise<unknown> = namespace
    ? api.listNamespacedCustomObject(
        { group: workload.group, version: workload.version, namespace, plural: workload.resource, ...paging },
        options,
      )
    : api.listCustomObjectForAllNamespaces(
        { group: workload.group, version: workload.version, resourcePlural: workload.resource, ...paging },
        options,
      );
  // Custom objects come back as plain JSON: the continue token is `continue`, not the typed lists' `_continue`.
  return page.then((raw) => {
    const body = (raw ?? {}) as CustomPage;
    const next = body.metadata?._continue ?? body.metadata?.continue;
    const resourceVersion = body.metadata?.resourceVersion;
    return {
      items: Array.isArray(body.items) ? body.items : [],
      metadata: { ...(next ? { _continue: next } : {}), ...(resourceVersion ? { resourceVersion } : {}) },
    };
  });
}
