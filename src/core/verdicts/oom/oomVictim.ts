// Who an OOM report killed: the process, its cgroup and pod, and the words the verdicts name it with.
import type { OomEvent } from '../../probe/parsers/oomReportLines.ts';
import type { QosClass } from '../../kube/qos.ts';
import { isKubepodsPath, parsePodCgroup } from '../../probe/podCgroup.ts';

/**
 * Where the victim ran, as far as the log tells: in a named pod, in a pod the log does not name (its cgroup path is
 * cut short, or the report's other fields place it in one), outside the kubelet's pod tree (a whole cgroup path says
 * so), or unknown (the log does not hold the victim's cgroup, or holds only part of it). `why` is a clause for the
 * report.
 */
export type VictimPlacement =
  | { readonly kind: 'pod' }
  | { readonly kind: 'pod-unnamed'; readonly why: string }
  | { readonly kind: 'outside-pods' }
  | { readonly kind: 'unknown'; readonly why: string };

export interface OomVictim {
  readonly pid?: number;
  readonly comm?: string;
  readonly taskMemcg?: string;
  /** The task's cgroup is in the kubelet's pod tree (even when the path is cut short): placement pod or pod-unnamed. */
  readonly inKubepods: boolean;
  readonly placement: VictimPlacement;
  readonly podUid?: string;
  readonly podName?: string;
  readonly qos?: QosClass;
  readonly containerId?: string;
  readonly runtime?: string;
  readonly anonRssKb?: number;
  readonly fileRssKb?: number;
  readonly shmemRssKb?: number;
  readonly totalVmKb?: number;
  readonly oomScoreAdj?: number;
  readonly uid?: number;
}

/** Pod UID → display name (`namespace/name`). */
export type PodNames = ReadonlyMap<string, string> | Readonly<Record<string, string>>;

function lookupName(names: PodNames | undefined, uid: string | undefined): string | undefined {
  if (uid === undefined || names === undefined) return undefined;
  if (names instanceof Map) return names.get(uid);
  const record = names as Readonly<Record<string, string>>;
  return Object.prototype.hasOwnProperty.call(record, uid) ? record[uid] : undefined;
}

export function victimOf(event: OomEvent, podNames: PodNames | undefined): OomVictim {
  const killed = event.killed;
  const summary = event.summary;
  const pid =
    killed?.pid !== undefined && killed.pid >= 0
      ? killed.pid
      : (summary?.pid ?? (event.candidate && event.candidate.pid >= 0 ? event.candidate.pid : undefined));
  // The pre-5.0 candidate may not be the victim ("or sacrifice child"): borrow its name only for its own pid.
  const candidateComm = event.candidate && (killed === undefined || killed.pid === event.candidate.pid) ? event.candidate.comm : undefined;
  const summaryComm =
    summary?.task !== undefined && (killed === undefined || summary.pid === undefined || summary.pid === killed.pid)
      ? summary.task
      : undefined;
  const comm = killed?.comm ?? summaryComm ?? candidateComm;
  const taskMemcg = event.taskMemcg;
  // Where the task lives: its own cgroup, else the oom.group it was killed with, else (memcg kills)
  // the cgroup that ran out, which contains it.
  const candidates = [taskMemcg, event.oomGroup, event.scope === 'memcg' ? event.oomMemcg : undefined];
  let pod = undefined as ReturnType<typeof parsePodCgroup>;
  for (const path of candidates) {
    if (path === undefined) continue;
    pod = parsePodCgroup(path);
    if (pod) break;
  }
  const placement = placementOf(event, pod !== undefined, comm);
  const inKubepods = placement.kind === 'pod' || placement.kind === 'pod-unnamed';
  const podName = lookupName(podNames, pod?.podUid);
  return {
    ...(pid !== undefined ? { pid } : {}),
    ...(comm !== undefined ? { comm } : {}),
    ...(taskMemcg !== undefined ? { taskMemcg } : {}),
    inKubepods,
    placement,
    ...(pod ? { podUid: pod.podUid, qos: pod.qos } : {}),
    ...(pod?.containerId !== undefined ? { containerId: pod.containerId } : {}),
    ...(pod?.runtime !== undefined ? { runtime: pod.runtime } : {}),
    ...(podName !== undefined ? { podName } : {}),
    ...(killed?.anonRssKb !== undefined ? { anonRssKb: killed.anonRssKb } : {}),
    ...(killed?.fileRssKb !== undefined ? { fileRssKb: killed.fileRssKb } : {}),
    ...(killed?.shmemRssKb !== undefined ? { shmemRssKb: killed.shmemRssKb } : {}),
    ...(killed?.totalVmKb !== undefined ? { totalVmKb: killed.totalVmKb } : {}),
    ...(killed?.oomScoreAdj !== undefined ? { oomScoreAdj: killed.oomScoreAdj } : {}),
    ...((killed?.uid ?? summary?.uid) !== undefined ? { uid: killed?.uid ?? summary?.uid } : {}),
  };
}

/**
 * The kubelet's oom_score_adj for a pod's containers (kubernetes/kubernetes pkg/kubelet/qos/policy.go): -997 for
 * Guaranteed, 1000 for BestEffort, 2…999 for Burstable (from the memory request). The kubelet itself and the runtime
 * run at -999; host services usually at 0.
 */
const GUARANTEED_OOM_SCORE_ADJ = -997;

function kubeletScoreAdj(adj: number | undefined): 'guaranteed' | 'burstable-or-besteffort' | undefined {
  if (adj === GUARANTEED_OOM_SCORE_ADJ) return 'guaranteed';
  return adj !== undefined && adj >= 2 && adj <= 1000 ? 'burstable-or-besteffort' : undefined;
}

/** A CRI runtime's container scope (`cri-containerd-<id>.scope`, `crio-<id>.scope`): the cgroups of a pod's container. */
const CRI_SCOPE = /^(?:cri-containerd|crio)-[0-9a-f]{12,128}\.scope$/;

function placementOf(event: OomEvent, podNamed: boolean, victimComm: string | undefined): VictimPlacement {
  if (podNamed) return { kind: 'pod' };
  const cut = event.summary?.cut;
  const taskMemcgCut = cut !== undefined && (cut.lastKey === 'task_memcg' || event.summary?.taskMemcg === undefined);
  const paths = [event.taskMemcg, event.oomGroup, event.scope === 'memcg' ? event.oomMemcg : undefined];
  const kubepodsPath = paths.find((path) => isKubepodsPath(path));
  if (kubepodsPath !== undefined)
    return { kind: 'pod-unnamed', why: `its cgroup path is cut short in the log (${kubepodsPath}) before it names the pod` };
  if (event.taskMemcg !== undefined && !taskMemcgCut) return { kind: 'outside-pods' };
  const lost =
    event.taskMemcg !== undefined
      ? `its cgroup path is cut short in the log (${event.taskMemcg})`
      : cut !== undefined
        ? 'the summary line is cut short before its cgroup (task_memcg)'
        : 'the log does not hold its cgroup (no oom-kill: summary line)';
  // The cpuset is the allocating task's (cpuset_print_current_mems_allowed): the victim's when the two are one.
  const cpuset = event.cpuset;
  const sameTask = event.scope === 'memcg' || (victimComm !== undefined && event.invoker?.comm === victimComm);
  if (cpuset !== undefined && CRI_SCOPE.test(cpuset) && sameTask)
    return { kind: 'pod-unnamed', why: `${lost}, but its cpuset ${cpuset} is a Kubernetes container's` };
  const adj = event.killed?.oomScoreAdj;
  const kubelet = kubeletScoreAdj(adj);
  if (kubelet === 'guaranteed')
    return { kind: 'pod-unnamed', why: `${lost}, but its oom_score_adj ${adj} is the one the kubelet gives Guaranteed pods` };
  // A visible part of the path outside the pod tree makes the kubelet's scores a coincidence, not a hint.
  if (event.taskMemcg !== undefined) return { kind: 'unknown', why: lost };
  const hints = [
    ...(cpuset !== undefined && CRI_SCOPE.test(cpuset) ? [`the allocating task ran in the Kubernetes container cpuset ${cpuset}`] : []),
    ...(kubelet !== undefined ? [`its oom_score_adj ${adj} is in the range the kubelet gives Burstable and BestEffort pods`] : []),
  ];
  return { kind: 'unknown', why: hints.length > 0 ? `${lost}; it was probably in a pod: ${hints.join(', and ')}` : lost };
}

export function processLabel(victim: OomVictim): string {
  if (victim.comm !== undefined && victim.pid !== undefined) return `${victim.comm} (pid ${victim.pid})`;
  if (victim.comm !== undefined) return victim.comm;
  if (victim.pid !== undefined) return `pid ${victim.pid}`;
  return 'a process';
}

export function podLabel(victim: OomVictim): string | undefined {
  if (victim.podName !== undefined) return `pod ${victim.podName}`;
  if (victim.podUid !== undefined) return `pod ${victim.podUid}`;
  return undefined;
}

export function containerLabel(victim: OomVictim): string {
  if (victim.containerId === undefined) return '';
  return ` (container ${victim.containerId.slice(0, 12)}${victim.runtime !== undefined ? `, ${victim.runtime}` : ''})`;
}

export function qosLabel(qos: QosClass | undefined): string {
  return qos ?? 'unknown';
}
