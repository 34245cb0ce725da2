// The live objects `gpumem recommend` matches: Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs
// and pods of the chosen namespaces (or all), and the RayClusters, RayJobs, RayServices and LeaderWorkerSets when
// the API serves them (customWorkloads.ts: one discovery request per group; not installed is no failure), listed
// page by page through the cluster client (its deadline, cancellation and credentials). Read-only. A list the user
// may not read is a note, not a failure of the others.
import { AppsV1Api, BatchV1Api } from '@kubernetes/client-node';
import type { ConfigurationOptions } from '@kubernetes/client-node';
import type { ClusterClient } from '../kube/clusterClient.ts';
import { pushAll } from '../core/arrays.ts';
import { errorText } from '../kube/errorText.ts';
import { listCustomPage, servedCustomWorkloads } from '../kube/customWorkloads.ts';

interface Page {
  readonly items: unknown[];
  readonly metadata?: { readonly _continue?: string };
}

type ListPage = (namespace: string | undefined, cont: string | undefined, o: ConfigurationOptions) => Promise<Page>;

interface Lister {
  readonly kind: string;
  readonly apiVersion: string;
  readonly list: ListPage;
}

const PAGE = 500;

function listers(client: ClusterClient): Record<string, Lister> {
  const apps = client.kubeConfig.makeApiClient(AppsV1Api);
  const batch = client.kubeConfig.makeApiClient(BatchV1Api);
  const core = client.core;
  const paging = (cont: string | undefined) => ({ limit: PAGE, ...(cont ? { _continue: cont } : {}) });
  return {
    deployments: {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      list: (ns, cont, o) =>
        ns ? apps.listNamespacedDeployment({ namespace: ns, ...paging(cont) }, o) : apps.listDeploymentForAllNamespaces(paging(cont), o),
    },
    replicasets: {
      kind: 'ReplicaSet',
      apiVersion: 'apps/v1',
      list: (ns, cont, o) =>
        ns ? apps.listNamespacedReplicaSet({ namespace: ns, ...paging(cont) }, o) : apps.listReplicaSetForAllNamespaces(paging(cont), o),
    },
    statefulsets: {
      kind: 'StatefulSet',
      apiVersion: 'apps/v1',
      list: (ns, cont, o) =>
        ns ? apps.listNamespacedStatefulSet({ namespace: ns, ...paging(cont) }, o) : apps.listStatefulSetForAllNamespaces(paging(cont), o),
    },
    daemonsets: {
      kind: 'DaemonSet',
      apiVersion: 'apps/v1',
      list: (ns, cont, o) =>
        ns ? apps.listNamespacedDaemonSet({ namespace: ns, ...paging(cont) }, o) : apps.listDaemonSetForAllNamespaces(paging(cont), o),
    },
    jobs: {
      kind: 'Job',
      apiVersion: 'batch/v1',
      list: (ns, cont, o) =>
        ns ? batch.listNamespacedJob({ namespace: ns, ...paging(cont) }, o) : batch.listJobForAllNamespaces(paging(cont), o),
    },
    cronjobs: {
      kind: 'CronJob',
      apiVersion: 'batch/v1',
      list: (ns, cont, o) =>
        ns ? batch.listNamespacedCronJob({ namespace: ns, ...paging(cont) }, o) : batch.listCronJobForAllNamespaces(paging(cont), o),
    },
    pods: {
      kind: 'Pod',
      apiVersion: 'v1',
      list: (ns, cont, o) =>
        ns ? core.listNamespacedPod({ namespace: ns, ...paging(cont) }, o) : core.listPodForAllNamespaces(paging(cont), o),
    },
  };
}

export interface LiveWorkloads {
  readonly objects: readonly unknown[];
  readonly pods: readonly unknown[];
  readonly notes: readonly string[];
  /** How many lists the API server answered: none means the cluster could not be read at all. */
  readonly listsRead: number;
}

/** `namespaces` empty: every namespace. Items of a typed list carry no kind/apiVersion; they are set here. */
export async function readWorkloads(client: ClusterClient, namespaces: readonly string[], signal: AbortSignal): Promise<LiveWorkloads> {
  const objects: unknown[] = [];
  const pods: unknown[] = [];
  const notes: string[] = [];
  let listsRead = 0;
  const read = (resource: string, entry: Lister) => listAll(client, resource, entry, namespaces, signal, { objects, pods, notes });
  for (const [resource, entry] of Object.entries(listers(client))) if (await read(resource, entry)) listsRead++;
  // Custom workloads once the cluster answered: an unreachable one is said once, by the lists above.
  if (listsRead === 0) return { objects, pods, notes, listsRead };
  const custom = await servedCustomWorkloads(client, signal);
  pushAll(notes, custom.notes);
  for (const one of custom.served) {
    const entry: Lister = {
      kind: one.kind,
      apiVersion: `${one.group}/${one.version}`,
      list: (ns, cont, o) => listCustomPage(client, one, ns, cont, o, PAGE),
    };
    if (await read(one.resource, entry)) listsRead++;
  }
  return { objects, pods, notes, listsRead };
}

/** Every page of one resource in the namespaces (or all); false, with a note, when it could not be read. */
async function listAll(
  client: ClusterClient,
  resource: string,
  entry: Lister,
  namespaces: readonly string[],
  signal: AbortSignal,
  into: { objects: unknown[]; pods: unknown[]; notes: string[] },
): Promise<boolean> {
  const { objects, pods, notes } = into;
  let read = false;
  for (const namespace of namespaces.length > 0 ? namespaces : [undefined]) {
    try {
      let cont: string | undefined;
      do {
        const page = await client.call(
          { verb: 'list', resource, ...(namespace ? { namespace } : {}) },
          (o) => entry.list(namespace, cont, o),
          { signal },
        );
        for (const item of page.items) {
          const typed = { ...(item as Record<string, unknown>), kind: entry.kind, apiVersion: entry.apiVersion };
          (entry.kind === 'Pod' ? pods : objects).push(typed);
        }
        cont = page.metadata?._continue || undefined;
      } while (cont !== undefined);
      read = true;
    } catch (error) {
      if (signal.aborted) throw error;
      notes.push(errorText(error, { context: client.context, namespace: namespace ?? 'every namespace', action: `List ${resource}` }));
    }
  }
  return read;
}
