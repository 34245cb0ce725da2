// One live workload as `kubectl get <kind> -o yaml` shows it (wire JSON, managedFields dropped), for the
// Recommendations section's Open live manifest: read-only, through the cluster client (its deadline, cancellation
// and credentials). Only the kinds right-sizing reads (readWorkloads.ts).
import { AppsV1Api, BatchV1Api } from '@kubernetes/client-node';
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import type { ConfigurationOptions } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import type { LiveWorkloadKind, WorkloadTarget } from '../core/rightsizing/liveKinds.ts';
import type { ClusterClient } from '../kube/clusterClient.ts';

interface Reader {
  readonly resource: string;
  readonly apiVersion: string;
  /** client-node's model type, for the wire form. */
  readonly type: string;
  readonly read: (client: ClusterClient, request: { name: string; namespace: string }, o: ConfigurationOptions) => Promise<unknown>;
}

const apps = (client: ClusterClient): AppsV1Api => client.kubeConfig.makeApiClient(AppsV1Api);
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
};

/** The workload's YAML; throws KubeRequestError (not found, forbidden, unreachable, a deadline). */
export async function readWorkloadYaml(client: ClusterClient, target: WorkloadTarget, signal?: AbortSignal): Promise<string> {
  const reader = READERS[target.kind];
  const object = await client.call(
    { verb: 'get', resource: reader.resource },
    (o) => reader.read(client, { name: target.name, namespace: target.namespace }, o),
    signal ? { signal } : {},
  );
  const wire = ObjectSerializer.serialize(object, reader.type, '') as Record<string, unknown>;
  const metadata = wire['metadata'] as Record<string, unknown> | undefined;
  if (metadata) delete metadata['managedFields'];
  return stringify({ apiVersion: reader.apiVersion, kind: target.kind, ...wire }, { lineWidth: 0 });
}
