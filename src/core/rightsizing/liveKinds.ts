// The kinds whose live objects right-sizing reads (src/rightsizing/readWorkloads.ts) and the editor can open as a
// live manifest: a small module of its own, so the light extension bundle can check a manifest address without the
// right-sizing code.
export const LIVE_WORKLOAD_KINDS = [
  'Deployment',
  'ReplicaSet',
  'StatefulSet',
  'DaemonSet',
  'Job',
  'CronJob',
  // Custom resources, read where the cluster serves them (src/kube/customWorkloads.ts).
  'RayCluster',
  'RayJob',
  'RayService',
  'LeaderWorkerSet',
  'PyTorchJob',
  'TFJob',
  'MPIJob',
  'XGBoostJob',
  'PaddleJob',
  'JobSet',
] as const;
export type LiveWorkloadKind = (typeof LIVE_WORKLOAD_KINDS)[number];

/** Which workload an action acts on: kind, namespace and name (whoever acts looks the rest up itself). */
export interface WorkloadTarget {
  readonly kind: LiveWorkloadKind;
  readonly namespace: string;
  readonly name: string;
}

export function isLiveWorkloadKind(kind: string): kind is LiveWorkloadKind {
  return (LIVE_WORKLOAD_KINDS as readonly string[]).includes(kind);
}
