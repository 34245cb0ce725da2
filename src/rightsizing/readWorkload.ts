// One live workload as `kubectl get <kind> -o yaml` shows it (wire JSON, managedFields dropped), for the
// Recommendations section's Open live manifest: read-only, through the cluster client (its deadline, cancellation
// and credentials). Only the kinds right-sizing reads (readWorkloads.ts).
import { AppsV1Api, BatchV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import type { ConfigurationOptions } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import type { LiveWorkloadKind, WorkloadTarget } from '../core/rightsizing/liveKinds.ts';
import type { ClusterClient } from '../kube/clusterClient.ts';
import { CUSTOM_WORKLOADS } from '../kube/customWorkloads.ts';
import type { CustomWorkload } from '../kube/customWorkloads.ts';

interface Reader {
  readonly resource: string;
  readonly apiVersion: string;
  /** client-node's model type, for the wire form; undefined for a custom resource, which comes as plain JSON. */
  readonly type: string | undefined;
  readonly read: (client: ClusterClient, request: { name: string; namespace: string }, o: ConfigurationOptions) => Promise<unknown>;
}

const apps = (client: ClusterClient): AppsV1Api => client.kubeConfig.makeApiClient(AppsV1Api);

function customReader(kind: string): Reader {
  const custom = CUSTOM_WORKLOADS.find((one) => one.kind === kind) as CustomWorkload;
  return {
    resource: custom.resource,
    apiVersion: `${custom.group}/${custom.version}`,
    type: undefined,
    read: (c, r, o) =>
      c.kubeConfig
        .makeApiClient(CustomObjectsApi)
        .getNamespacedCustomObject({ group: custom.group, version: custom.version, plural: custom.resource, ...r }, o),
  };
}
const batch = (client: ClusterClient): BatchV1Api => client.kubeConfig.makeApiClient(BatchV1Api);

const READERS: Readonly<Record<LiveWorkloadKind, Reader>> = {
  Deployment: {
    resource: 'deployments',
    apiVersion: 'apps/v1',
    type: 'V1Deployment',
    read: (c, r, o) => apps(c).readNamespacedDeployment(r, o),
  },
  ReplicaSet: {
    resource: 'replicasets',
    apiVersion: 'apps/v1',
    type: 'V1ReplicaSet',
    read: (c, r, o) => apps(c).readNamespacedReplicaSet(r, o),
  },
  StatefulSet: {
    resource: 'statefulsets',
    apiVersion: 'apps/v1',
    type: 'V1StatefulSet',
    read: (c, r, o) => apps(c).readNamespacedStatefulSet(r, o),
  },
  DaemonSet: {
    resource: 'daemonsets',
    apiVersion: 'apps/v1',
    type: 'V1DaemonSet',
    read: (c, r, o) => apps(c).readNamespacedDaemonSet(r, o),
  },
  Job: { resource: 'jobs', apiVersion: 'batch/v1', type: 'V1Job', read: (c, r, o) => batch(c).readNamespacedJob(r, o) },
  CronJob: { resource: 'cronjobs', apiVersion: 'batch/v1', type: 'V1CronJob', read: (c, r, o) => batch(c).readNamespacedCronJob(r, o) },
  RayCluster: customReader('RayCluster'),
  RayJob: customReader('RayJob'),
  RayService: customReader('RayService'),
  LeaderWorkerSet: customReader('LeaderWorkerSet'),
  PyTorchJob: customReader('PyTorchJob'),
  TFJob: customReader('TFJob'),
  MPIJob: customReader('MPIJob'),
  XGBoostJob: customReader('XGBoostJob'),
  PaddleJob: customReader('PaddleJob'),
  JobSet: customReader('JobSet'),
};

/** The workload's YAML; throws KubeRequestError (not found, forbidden, unreachable, a deadline). */
export async function readWorkloadYaml(client: ClusterClient, target: WorkloadTarget, signal?: AbortSignal): Promise<string> {
  const reader = READERS[target.kind];
  const object = await client.call(
    { verb: 'get', resource: reader.resource },
    (o) => reader.read(client, { name: target.name, namespace: target.namespace }, o),
    signal ? { signal } : {},
  );
  const wire = (reader.type === undefined ? structuredClone(object) : ObjectSerializer.serialize(object, reader.type, '')) as Record<
    string,
    unknown
  >;
  const metadata = wire['metadata'] as Record<string, unknown> | undefined;
  if (metadata) delete metadata['managedFields'];
  return stringify({ apiVersion: reader.apiVersion, kind: target.kind, ...wire }, { lineWidth: 0 });
}
