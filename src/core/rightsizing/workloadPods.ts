// Which live pods belong to which workload: each pod's controller ownerReferences followed up to the top owner the
// recording holds (Pod → ReplicaSet → Deployment, Pod → Job → CronJob, Pod → StatefulSet / DaemonSet, Pod →
// RayCluster, Pod → StatefulSet → Pod → StatefulSet → LeaderWorkerSet for an LWS's workers, and any other kind the
// linter reads pod templates from), then checked against the workload's selector; for a kind with several pod
// templates, which one the pod runs (podTemplates.ts). A pod whose owner is missing (a workload renamed or deleted),
// whose labels the selector does not match or whose template cannot be told is reported, not guessed.
import { asArray, asBoolean, asString, identity, path } from '../kube/json.ts';
import { kindKey, workloadEntry } from '../manifest/workloads.ts';
import { matchSelector } from './labelSelector.ts';
import { CARRIERS, podTemplateOf, templateSlots } from './podTemplates.ts';

export interface WorkloadRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

export interface MatchedPod {
  readonly name: string;
  readonly uid: string;
  readonly node: string | undefined;
  /** A Deployment's pod from a ReplicaSet other than the current one (an older pod template). */
  readonly oldTemplate: boolean;
  /** Which of the workload's templates it runs (podTemplates.ts); undefined for a kind with one template. */
  readonly template?: string;
}

export interface MatchedWorkload {
  readonly ref: WorkloadRef;
  /** The live object, for today's resources and its pod template. */
  readonly object: unknown;
  readonly pods: readonly MatchedPod[];
}

export interface UnmatchedPod {
  readonly namespace: string;
  readonly name: string;
  readonly reason: string;
}

export interface PodMatching {
  readonly workloads: readonly MatchedWorkload[];
  readonly unmatched: readonly UnmatchedPod[];
}

/** Kinds that only carry pods for a parent: a ReplicaSet of a Deployment, a Job of a CronJob (by kindKey: not Volcano's Job). */
const INTERMEDIATE = new Set(['ReplicaSet', 'Job']);
const REVISION = 'deployment.kubernetes.io/revision';
const MAX_OWNER_DEPTH = 8;

function refOf(object: unknown): WorkloadRef {
  const meta = identity(object);
  return {
    apiVersion: asString(path(object, 'apiVersion')) ?? '',
    kind: asString(path(object, 'kind')) ?? '',
    namespace: meta.namespace ?? '',
    name: meta.name,
    uid: meta.uid ?? '',
  };
}

function controllerOf(object: unknown): { kind: string; name: string; uid: string } | undefined {
  const refs = asArray(path(object, 'metadata', 'ownerReferences'));
  const ref = refs.find((candidate) => asBoolean(path(candidate, 'controller')) === true);
  if (!ref) return undefined;
  return { kind: asString(path(ref, 'kind')) ?? '', name: asString(path(ref, 'name')) ?? '', uid: asString(path(ref, 'uid')) ?? '' };
}

/** Every object with pod templates the recording holds (workloads, ReplicaSets, Jobs) and the pods. */
export function matchPods(objects: readonly unknown[], pods: readonly unknown[]): PodMatching {
  const byUid = new Map<string, unknown>();
  for (const object of objects) {
    const ref = refOf(object);
    if (ref.uid && workloadEntry(ref.kind, ref.apiVersion)) byUid.set(ref.uid, object);
  }
  // Pods can be owners too: an LWS's worker StatefulSet is owned by its group's leader pod.
  const podsByUid = new Map<string, unknown>();
  for (const pod of pods) {
    const uid = identity(pod).uid;
    if (uid) podsByUid.set(uid, pod);
  }
  const found = new Map<string, MatchedPod[]>();
  const unmatched: UnmatchedPod[] = [];
  for (const pod of pods) {
    const meta = identity(pod);
    const where = { namespace: meta.namespace ?? '', name: meta.name };
    const top = topOwner(pod, byUid, podsByUid);
    if (top.kind === 'none') {
      unmatched.push({ ...where, reason: top.reason });
      continue;
    }
    const owner = refOf(top.object);
    const selected = matchSelector(path(top.object, 'spec', 'selector'), meta.labels);
    if (selected.kind !== 'match') {
      unmatched.push({ ...where, reason: `owned by ${owner.kind} ${owner.name}, whose selector does not select it (${selected.reason})` });
      continue;
    }
    const template = templateOfPod(top.object, meta.labels, top.chain);
    if (template.kind === 'none') {
      unmatched.push({
        ...where,
        reason: `owned by ${owner.kind} ${owner.name}, but which of its templates it runs is unknown: ${template.reason}`,
      });
      continue;
    }
    const list = found.get(owner.uid) ?? [];
    list.push({
      name: meta.name,
      uid: meta.uid ?? '',
      node: asString(path(pod, 'spec', 'nodeName')),
      oldTemplate: top.via !== undefined && isOldReplicaSet(top.via, top.object),
      ...(template.role === undefined ? {} : { template: template.role }),
    });
    found.set(owner.uid, list);
  }
  const workloads: MatchedWorkload[] = [];
  for (const [uid, object] of byUid) {
    const ref = refOf(object);
    const controller = controllerOf(object);
    // A carrier (an LWS's StatefulSet) stands for its owner while the owner is read; without it (the CRD not
    // readable), it is a workload of its own, as it was before gpumem read its owner's kind.
    const carried =
      controller && CARRIERS.get(controller.kind)?.has(ref.kind) && (byUid.has(controller.uid) || podsByUid.has(controller.uid));
    if (controller && (INTERMEDIATE.has(kindKey(ref.kind, ref.apiVersion)) || carried)) continue;
    workloads.push({ ref, object, pods: found.get(uid) ?? [] });
  }
  return { workloads, unmatched };
}

/** The pod's template, which must be one the live workload holds (a worker group since removed is not guessed). */
function templateOfPod(workload: unknown, labels: ReadonlyMap<string, string>, chain: readonly string[]) {
  const template = podTemplateOf(workload, labels, chain);
  if (template.kind === 'none' || template.role === undefined) return template;
  const ref = refOf(workload);
  const slots = templateSlots(ref.kind, ref.apiVersion, workload);
  if (slots.kind === 'slots' && slots.slots.some((slot) => slot.role === template.role)) return template;
  return { kind: 'none' as const, reason: `it runs ${template.role}, which the live ${ref.kind} does not have` };
}

type TopOwner =
  | {
      readonly kind: 'owner';
      readonly object: unknown;
      /** The owner just below the top (a Deployment's ReplicaSet). */
      readonly via: unknown;
      /** The kinds between the pod and the top, nearest first. */
      readonly chain: readonly string[];
    }
  | { readonly kind: 'none'; readonly reason: string };

function topOwner(pod: unknown, byUid: ReadonlyMap<string, unknown>, podsByUid: ReadonlyMap<string, unknown>): TopOwner {
  let owner = controllerOf(pod);
  if (!owner) return { kind: 'none', reason: 'no controller: a bare pod' };
  let object: unknown;
  let via: unknown;
  const chain: string[] = [];
  for (let depth = 0; owner && depth < MAX_OWNER_DEPTH; depth++) {
    // A pod in the middle of a chain (an LWS leader owning its workers' StatefulSet) is followed, never a workload.
    const next = byUid.get(owner.uid) ?? (controllerOf(podsByUid.get(owner.uid)) ? podsByUid.get(owner.uid) : undefined);
    if (!next) {
      return object === undefined
        ? {
            kind: 'none',
            reason: `its ${owner.kind} ${owner.name} is not in the cluster (renamed or deleted), or is not a kind gpumem reads`,
          }
        : {
            kind: 'none',
            reason: `its ${refOf(object).kind}'s owner ${owner.kind} ${owner.name} is not in the cluster (renamed or deleted)`,
          };
    }
    if (object !== undefined) {
      via = object;
      chain.push(refOf(object).kind);
    }
    object = next;
    owner = controllerOf(next);
  }
  if (refOf(object).kind === 'Pod')
    return { kind: 'none', reason: `its owners end at pod ${refOf(object).name}, whose owner is not in the cluster` };
  return { kind: 'owner', object, via, chain };
}

function isOldReplicaSet(via: unknown, deployment: unknown): boolean {
  if (asString(path(via, 'kind')) !== 'ReplicaSet') return false;
  const current = identity(deployment).annotations.get(REVISION);
  const own = identity(via).annotations.get(REVISION);
  return current !== undefined && own !== undefined && current !== own;
}
