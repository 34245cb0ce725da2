// The API objects of the workloads in rightsizingSeries.ts, as `kubectl get -o json` returns them: each pod with its
// controller ownerReference, ReplicaSets and Jobs owned by their Deployment and CronJob.
const ns = 'ml';
function owned(apiVersion: string, kind: string, name: string, uid: string): Record<string, unknown>[] {
  return [{ apiVersion, kind, name, uid, controller: true }];
}
function container(name: string, memory: string | undefined, gpu = false): Record<string, unknown> {
  const resources: Record<string, Record<string, string | number>> = {};
  if (memory) resources['requests'] = { memory };
  if (memory || gpu) resources['limits'] = { ...(memory ? { memory } : {}), ...(gpu ? { 'amd.com/gpu': '1' } : {}) };
  return { name, image: 'example', resources };
}
function deployment(name: string, uid: string, containers: Record<string, unknown>[]): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns, uid, annotations: { 'deployment.kubernetes.io/revision': '1' } },
    spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers } } },
  };
}
function replicaSet(name: string, uid: string, owner: string, ownerUid: string): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      namespace: ns,
      uid,
      annotations: { 'deployment.kubernetes.io/revision': '1' },
      ownerReferences: owned('apps/v1', 'Deployment', owner, ownerUid),
    },
    spec: { template: { spec: { containers: [] } } },
  };
}
function pod(name: string, node: string, labels: Record<string, string>, owner: Record<string, unknown>[]): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, uid: `uid-${name}`, labels, ownerReferences: owner },
    spec: { nodeName: node },
  };
}

export function clusterObjects(): { objects: unknown[]; pods: unknown[] } {
  const objects: unknown[] = [
    deployment('llm', 'd-llm', [container('server', '8Gi', true), container('proxy', '256Mi')]),
    replicaSet('llm-7d9f', 'rs-llm', 'llm', 'd-llm'),
    {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: ns, uid: 's-db' },
      spec: { selector: { matchLabels: { app: 'db' } }, template: { spec: { containers: [container('postgres', '4Gi')] } } },
    },
    {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'batch', namespace: ns, uid: 'c-batch' },
      spec: { jobTemplate: { spec: { template: { spec: { containers: [container('work', '2Gi')] } } } } },
    },
    {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'batch-29001', namespace: ns, uid: 'j-batch', ownerReferences: owned('batch/v1', 'CronJob', 'batch', 'c-batch') },
      spec: { template: { spec: { containers: [container('work', '2Gi')] } } },
    },
    deployment('web', 'd-web', [container('web', '4Gi')]),
    replicaSet('web-5c', 'rs-web', 'web', 'd-web'),
    deployment('fresh', 'd-fresh', [container('fresh', '1Gi')]),
    replicaSet('fresh-1', 'rs-fresh', 'fresh', 'd-fresh'),
  ];
  const pods = [
    pod('llm-7d9f-a', 'apu-1', { app: 'llm' }, owned('apps/v1', 'ReplicaSet', 'llm-7d9f', 'rs-llm')),
    pod('llm-7d9f-b', 'apu-1', { app: 'llm' }, owned('apps/v1', 'ReplicaSet', 'llm-7d9f', 'rs-llm')),
    pod('db-0', 'cpu-1', { app: 'db' }, owned('apps/v1', 'StatefulSet', 'db', 's-db')),
    pod('batch-29001-x', 'cpu-2', {}, owned('batch/v1', 'Job', 'batch-29001', 'j-batch')),
    pod('web-5c-q', 'cpu-1', { app: 'web' }, owned('apps/v1', 'ReplicaSet', 'web-5c', 'rs-web')),
    pod('fresh-1-z', 'cpu-1', { app: 'fresh' }, owned('apps/v1', 'ReplicaSet', 'fresh-1', 'rs-fresh')),
  ];
  return { objects, pods };
}
