// Who an OOM report killed: the process, its cgroup and pod, and the words the verdicts name it with.
import type { OomEvent } from '../../probe/parsers/oomReportLines.ts';
import type { QosClass } from '../../kube/qos.ts';
import { isKubepodsPath, parsePodCgroup } from '../../probe/podCgroup.ts';

export interface OomVictim {
  readonly pid?: number;
  readonly comm?: string;
  readonly taskMemcg?: string;
  /** The task's cgroup is in the kubelet's pod tree (even when the path is cut short). */
  readonly inKubepods: boolean;
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
  const inKubepods = pod !== undefined || isKubepodsPath(taskMemcg) || isKubepodsPath(event.oomGroup);
  const podName = lookupName(podNames, pod?.podUid);
  return {
    ...(pid !== undefined ? { pid } : {}),
    ...(comm !== undefined ? { comm } : {}),
    ...(taskMemcg !== undefined ? { taskMemcg } : {}),
    inKubepods,
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
