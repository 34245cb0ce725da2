// The pod templates of a live workload, and which of them each of its pods runs. Most kinds have one template
// (`spec.template`); a KubeRay RayCluster has its head group and one template per worker group, a LeaderWorkerSet a
// leader and a worker template, a RayJob or RayService embeds a RayCluster spec, and a Kubeflow job has one template
// per replica type (`pytorchReplicaSpecs[Master]`, `[Worker]`), a JobSet one per replicated job
// (`replicatedJobs[workers]`), a Volcano Job one per task (`tasks[ps]`). Each template of a
// multi-template kind is named by the role the linter gives it (workloads.ts roleName: `headGroupSpec`,
// `workerGroupSpecs[gpu-group]`, `leaderTemplate`), so a row, the manifest's container and an edit all address the
// same template. Which template a pod runs is read from the labels its operator writes (POD_TEMPLATE_RULES). Pure.
import { asArray, asRecord, asString, path } from '../kube/json.ts';
import { roleName, workloadEntry } from '../manifest/workloads.ts';
import type { TemplatePath } from '../manifest/workloads.ts';

/** A key of a mapping or the index of a sequence item, from the object's root to one pod template. */
export type TemplateStep = string | number;

export interface TemplateSlot {
  /** The linter's role for the template; undefined for a kind with one template. */
  readonly role: string | undefined;
  readonly path: readonly TemplateStep[];
}

export type TemplateSlots =
  { readonly kind: 'slots'; readonly slots: readonly TemplateSlot[] } | { readonly kind: 'none'; readonly reason: string };

/** Which template of its workload a pod runs; `role` undefined for a kind with one template. */
export type PodTemplateOf =
  { readonly kind: 'template'; readonly role: string | undefined } | { readonly kind: 'none'; readonly reason: string };

// KubeRay labels every Ray pod with its cluster, node type and group (ray-project/kuberay
// ray-operator/controllers/ray/utils/constant.go: RayClusterLabelKey, RayNodeTypeLabelKey, RayNodeGroupLabelKey).
const RAY_CLUSTER = 'ray.io/cluster';
const RAY_NODE_TYPE = 'ray.io/node-type';
const RAY_GROUP = 'ray.io/group';
// LeaderWorkerSet labels its pods with the set's name and the pod's index in its group, 0 for the leader
// (kubernetes-sigs/lws api/leaderworkerset/v1/leaderworkerset_types.go: SetNameLabelKey, WorkerIndexLabelKey).
const LWS_NAME = 'leaderworkerset.sigs.k8s.io/name';
const LWS_WORKER_INDEX = 'leaderworkerset.sigs.k8s.io/worker-index';

// Kubeflow's training operator labels each pod of a job with the job's name and its replica type, lowercased
// (kubeflow/common pkg/apis/common/v1/constants.go: JobNameLabel, ReplicaTypeLabel; the operator sets
// strings.ToLower(rtype)).
const KUBEFLOW_JOB_NAME = 'training.kubeflow.org/job-name';
const KUBEFLOW_REPLICA_TYPE = 'training.kubeflow.org/replica-type';

// JobSet labels each child Job, and the pod template of each, with the JobSet's name and the replicated job's name
// (kubernetes-sigs/jobset api/jobset/v1alpha2/jobset_types.go: JobSetNameKey, ReplicatedJobNameKey; set by
// pkg/controllers/jobset_controller.go labelAndAnnotateObject). Its pods come through the Job: Pod → Job → JobSet.
const JOBSET_NAME = 'jobset.sigs.k8s.io/jobset-name';
const JOBSET_REPLICATED_JOB = 'jobset.sigs.k8s.io/replicatedjob-name';
// Volcano labels each pod of a Volcano Job with the job's name and its task's name (volcano-sh/apis
// pkg/apis/batch/v1alpha1/labels.go: JobNameKey, TaskSpecKey; set by volcano-sh/volcano
// pkg/controllers/job/job_controller_util.go createJobPod, the task name falling back to "default"). The job owns
// its pods directly.
const VOLCANO_JOB_NAME = 'volcano.sh/job-name';
const VOLCANO_TASK = 'volcano.sh/task-spec';

interface PodFacts {
  readonly labels: ReadonlyMap<string, string>;
  /** The kinds between the pod and its workload, nearest first (a RayJob's submitter pod comes through a Job). */
  readonly via: readonly string[];
}

type PodRule = (workload: unknown, pod: PodFacts) => PodTemplateOf;

function rayRole(pod: PodFacts): PodTemplateOf | undefined {
  const type = pod.labels.get(RAY_NODE_TYPE);
  if (type === 'head') return { kind: 'template', role: 'headGroupSpec' };
  if (type !== 'worker') return undefined;
  const group = pod.labels.get(RAY_GROUP);
  return group
    ? { kind: 'template', role: `workerGroupSpecs[${group}]` }
    : { kind: 'none', reason: `a Ray worker pod without the ${RAY_GROUP} label` };
}

const rayCluster: PodRule = (workload, pod) => {
  const name = asString(path(workload, 'metadata', 'name'));
  const cluster = pod.labels.get(RAY_CLUSTER);
  if (cluster !== name) return { kind: 'none', reason: `its ${RAY_CLUSTER} label is ${cluster ?? 'missing'}, not ${name ?? '?'}` };
  return rayRole(pod) ?? { kind: 'none', reason: `no ${RAY_NODE_TYPE} label (head or worker)` };
};

/** A RayJob's or RayService's RayCluster is generated (its name gets a suffix): the pod's owner chain says it is theirs. */
const rayOwner =
  (submitter: boolean): PodRule =>
  (_workload, pod) => {
    const role = rayRole(pod);
    if (role) return role;
    // The RayJob's submitter runs as a Job (the K8sJobMode default): its pod is the submitterPodTemplate's.
    if (submitter && pod.via[0] === 'Job') return { kind: 'template', role: 'submitterPodTemplate' };
    return { kind: 'none', reason: `no ${RAY_NODE_TYPE} label (head or worker)` };
  };

const leaderWorkerSet: PodRule = (workload, pod) => {
  const name = asString(path(workload, 'metadata', 'name'));
  if (pod.labels.get(LWS_NAME) !== name) return { kind: 'none', reason: `its ${LWS_NAME} label is not ${name ?? '?'}` };
  const index = pod.labels.get(LWS_WORKER_INDEX);
  if (index === undefined) return { kind: 'none', reason: `no ${LWS_WORKER_INDEX} label` };
  // The leader runs the leaderTemplate when there is one, else the workerTemplate.
  const hasLeaderTemplate = path(workload, 'spec', 'leaderWorkerTemplate', 'leaderTemplate') !== undefined;
  return { kind: 'template', role: index === '0' && hasLeaderTemplate ? 'leaderTemplate' : 'workerTemplate' };
};

/** A Kubeflow job's replica spec (`pytorchReplicaSpecs[Worker]`) from the pod's lowercased replica type. */
const kubeflowJob =
  (specs: string): PodRule =>
  (workload, pod) => {
    const name = asString(path(workload, 'metadata', 'name'));
    const job = pod.labels.get(KUBEFLOW_JOB_NAME);
    if (job !== undefined && job !== name) return { kind: 'none', reason: `its ${KUBEFLOW_JOB_NAME} label is ${job}, not ${name ?? '?'}` };
    const type = pod.labels.get(KUBEFLOW_REPLICA_TYPE);
    if (type === undefined) return { kind: 'none', reason: `no ${KUBEFLOW_REPLICA_TYPE} label` };
    const key = Object.keys(asRecord(path(workload, 'spec', specs)) ?? {}).find((one) => one.toLowerCase() === type);
    return key === undefined
      ? { kind: 'none', reason: `no ${specs} entry for replica type ${type}` }
      : { kind: 'template', role: `${specs}[${key}]` };
  };

/**
 * A template that is a named item of a list (a JobSet's replicated job, a Volcano Job's task): the pod carries its
 * workload's name and the item's `name` in two labels. Whether the live object still has that item is checked by
 * the caller (workloadPods.ts), so a removed item is reported, not guessed.
 */
const namedListItem =
  (workloadLabel: string, itemLabel: string, list: string): PodRule =>
  (workload, pod) => {
    const name = asString(path(workload, 'metadata', 'name'));
    const owner = pod.labels.get(workloadLabel);
    if (owner !== undefined && owner !== name)
      return { kind: 'none', reason: `its ${workloadLabel} label is ${owner}, not ${name ?? '?'}` };
    const item = pod.labels.get(itemLabel);
    return item === undefined ? { kind: 'none', reason: `no ${itemLabel} label` } : { kind: 'template', role: `${list}[${item}]` };
  };

/** Multi-template kinds whose pods say which template they run, by API group and kind. */
const POD_TEMPLATE_RULES: ReadonlyMap<string, PodRule> = new Map([
  ['ray.io/RayCluster', rayCluster],
  ['ray.io/RayJob', rayOwner(true)],
  ['ray.io/RayService', rayOwner(false)],
  ['leaderworkerset.x-k8s.io/LeaderWorkerSet', leaderWorkerSet],
  ['kubeflow.org/PyTorchJob', kubeflowJob('pytorchReplicaSpecs')],
  ['kubeflow.org/TFJob', kubeflowJob('tfReplicaSpecs')],
  ['kubeflow.org/MPIJob', kubeflowJob('mpiReplicaSpecs')],
  ['kubeflow.org/XGBoostJob', kubeflowJob('xgbReplicaSpecs')],
  ['kubeflow.org/PaddleJob', kubeflowJob('paddleReplicaSpecs')],
  ['jobset.x-k8s.io/JobSet', namedListItem(JOBSET_NAME, JOBSET_REPLICATED_JOB, 'replicatedJobs')],
  ['batch.volcano.sh/Job', namedListItem(VOLCANO_JOB_NAME, VOLCANO_TASK, 'tasks')],
]);

/**
 * Objects of these kinds owned by a workload of the kind on the left only carry its pods: a LeaderWorkerSet's
 * StatefulSets (the leaders', and the workers' owned by each leader pod), a RayJob's or RayService's RayCluster and
 * the RayJob's submitter Job. Their templates are the owner's, so they are no workloads of their own. (A JobSet's
 * Jobs need no entry: a batch Job with a controller is always a carrier, as a CronJob's are; workloadPods.ts.)
 */
export const CARRIERS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['LeaderWorkerSet', new Set(['StatefulSet'])],
  ['Pod', new Set(['StatefulSet'])],
  ['RayJob', new Set(['RayCluster', 'Job'])],
  ['RayService', new Set(['RayCluster'])],
]);

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** Whether the live matching can tell the templates of this kind apart (a rule for its pods), when it has several. */
export function isMultiTemplateLiveKind(kind: string, apiVersion: string): boolean {
  return POD_TEMPLATE_RULES.has(`${groupOf(apiVersion)}/${kind}`);
}

/** Which template of `workload` a pod runs. */
export function podTemplateOf(workload: unknown, labels: ReadonlyMap<string, string>, via: readonly string[]): PodTemplateOf {
  const kind = asString(path(workload, 'kind')) ?? '';
  const apiVersion = asString(path(workload, 'apiVersion')) ?? '';
  const rule = POD_TEMPLATE_RULES.get(`${groupOf(apiVersion)}/${kind}`);
  if (rule) return rule(workload, { labels, via });
  return { kind: 'template', role: undefined };
}

/**
 * The pod templates of an object of this kind: for a kind with one template its path (whether or not the object
 * holds it); for a multi-template kind each template the object holds, with its concrete path and role.
 */
export function templateSlots(kind: string, apiVersion: string, object: unknown): TemplateSlots {
  const entry = workloadEntry(kind, apiVersion);
  if (!entry) return { kind: 'none', reason: `${kind} is not a kind gpumem reads pod templates from` };
  if ((entry.shape?.layout ?? 'template') !== 'template')
    return { kind: 'none', reason: `${kind} has an inline pod spec: edit it by hand` };
  const [only, ...more] = entry.templates;
  const multiple = more.length > 0 || entry.templates.some((one) => one.includes('[]') || one.includes('{}'));
  if (only && !multiple) return { kind: 'slots', slots: [{ role: undefined, path: only.filter((step) => step !== '.') }] };
  const slots: TemplateSlot[] = [];
  for (const template of entry.templates) walk(object, template, 0, [], [], slots);
  return { kind: 'slots', slots };
}

function walk(node: unknown, template: TemplatePath, step: number, at: TemplateStep[], labels: string[], out: TemplateSlot[]): void {
  if (node === undefined || node === null || typeof node !== 'object') return;
  if (step === template.length) {
    if (!Array.isArray(node)) out.push({ role: roleName(template, labels), path: at });
    return;
  }
  const segment = template[step]!;
  if (segment === '.') walk(node, template, step + 1, at, labels, out);
  else if (segment === '[]') {
    asArray(node).forEach((item, index) => {
      const label = asString(path(item, 'groupName')) ?? asString(path(item, 'name')) ?? String(index);
      walk(item, template, step + 1, [...at, index], [...labels, label], out);
    });
  } else if (segment === '{}') {
    if (Array.isArray(node)) return;
    for (const [key, value] of Object.entries(node)) walk(value, template, step + 1, [...at, key], [...labels, key], out);
  } else if (!Array.isArray(node)) walk((node as Record<string, unknown>)[segment], template, step + 1, [...at, segment], labels, out);
}

/** The template of `role` in a live object (undefined role: the one template of a single-template kind). */
export function templateSlot(object: unknown, role: string | undefined): TemplateSlot | undefined {
  const slots = templateSlots(asString(path(object, 'kind')) ?? '', asString(path(object, 'apiVersion')) ?? '', object);
  return slots.kind === 'slots' ? slots.slots.find((slot) => slot.role === role) : undefined;
}

/** The value at a concrete template path of a JSON object. */
export function atPath(object: unknown, steps: readonly TemplateStep[]): unknown {
  let current = object;
  for (const step of steps) {
    if (typeof step === 'number') current = Array.isArray(current) ? current[step] : undefined;
    else
      current =
        current !== null && typeof current === 'object' && !Array.isArray(current) ? (current as Record<string, unknown>)[step] : undefined;
  }
  return current;
}

/**
 * The keys to a template of a multi-template kind that sits at a fixed place (a RayCluster's head, an LWS's leader
 * or worker template). A template inside a list (a Ray worker group, a JobSet's replicated job, a Volcano Job's
 * task) has none: a custom resource takes no strategic merge patch, and a merge patch replaces a list whole (even
 * JobSet's `replicatedJobs`, whose patchMergeKey only the built-in kinds' strategic merge would honour), so those
 * are edited with --apply on the manifests, which finds the item by its name.
 */
export function fixedTemplatePath(
  kind: string,
  apiVersion: string,
  role: string,
): { readonly kind: 'path'; readonly path: readonly string[] } | { readonly kind: 'none'; readonly reason: string } {
  const entry = workloadEntry(kind, apiVersion);
  // A map entry's key is in the role (`pytorchReplicaSpecs[Worker]`): a merge patch merges maps, so it has a path.
  const key = role.includes('[') && role.endsWith(']') ? role.slice(role.indexOf('[') + 1, -1) : undefined;
  for (const template of entry?.templates ?? []) {
    if (template.includes('[]')) continue;
    const maps = template.filter((step) => step === '{}').length;
    if (maps > 1 || (maps === 1 && key === undefined)) continue;
    if (roleName(template, maps === 1 && key !== undefined ? [key] : []) !== role) continue;
    return { kind: 'path', path: template.filter((step) => step !== '.').map((step) => (step === '{}' ? (key ?? step) : step)) };
  }
  return {
    kind: 'none',
    reason: `${role} sits in a list, which a merge patch of a custom resource replaces whole: use --apply on the manifests, or edit it by hand`,
  };
}
