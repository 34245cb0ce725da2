// The Kubernetes Event the agent posts (opt-in, `--events`) on a global OOM kill of a pod, so `kubectl describe pod`
// tells what `OOMKilled` hides: the node ran out of memory, not the pod's limit, with the GPU memory no cgroup
// counted. Pure: the name, the body and the merge patch of a repeat; src/agent/oomEvents.ts sends them.
import type { NodeInspection } from '../inspectionRun/analyze.ts';
import { DEFAULT_HEADROOM_PERCENT, formatBytes } from '../sizing.ts';
import type { OomVerdict } from '../verdicts/oom/oomVerdictTypes.ts';
import type { PodIdentity } from './nodeSamples.ts';

export const EVENT_REASON = 'GlobalOOMKill';
export const EVENT_COMPONENT = 'gpumem-agent';
/** What recorders keep of a message (client-go's event recorder truncates at 1 KiB too). */
export const MAX_EVENT_MESSAGE = 1024;

/** The kills an Event is posted for: global kills of a pod the API names. */
export function eventWorthy(kill: OomVerdict, identity: PodIdentity | undefined): identity is PodIdentity {
  return kill.kind === 'global' && kill.victim.podUid !== undefined && identity !== undefined;
}

/** The Event's text; its remedy adds `headroomPercent` (the agent's --headroom, default DEFAULT_HEADROOM_PERCENT). */
export function globalOomEventMessage(kill: OomVerdict, node: NodeInspection, headroomPercent = DEFAULT_HEADROOM_PERCENT): string {
  const pod = node.pods.find((candidate) => candidate.podUid === kill.victim.podUid);
  const who = `${kill.victim.comm ?? 'a process'}${kill.victim.pid !== undefined ? ` (pid ${kill.victim.pid})` : ''}`;
  const parts = [`gpumem: global OOM kill of ${who}: the node ran out of memory; this pod's memory limit was not what killed it.`];
  if (pod && pod.gtt > 0)
    parts.push(`${formatBytes(pod.gtt)} of GTT (GPU memory in system RAM) held by this pod is not charged to its cgroup.`);
  if (pod?.accounted !== undefined)
    parts.push(
      `memory.current ${formatBytes(pod.accounted)}${pod.limit !== undefined ? ` of its ${formatBytes(pod.limit)} limit` : ' (no limit)'}${pod.trueFootprint !== undefined && pod.trueFootprint !== pod.accounted ? `, true footprint ${formatBytes(pod.trueFootprint)}` : ''}.`,
    );
  if (kill.id.startsWith('oom.global-gtt:')) parts.push('The kill carries the GPU (GTT) signature.');
  parts.push(`Size the limit to cgroup memory plus GPU memory with ${headroomPercent} % headroom; see gpumem inspect.`);
  const message = parts.join(' ');
  return message.length <= MAX_EVENT_MESSAGE ? message : `${message.slice(0, MAX_EVENT_MESSAGE - 1)}…`;
}

/**
 * One Event per pod and agent run (`<pod>.gpumem-oom-<run>`): a later kill of the same pod patches its count and
 * message instead of creating another, so a crash-looping pod cannot flood the namespace.
 */
export function eventName(podName: string, run: string): string {
  const suffix = `.gpumem-oom-${run}`;
  return `${podName.slice(0, 253 - suffix.length)}${suffix}`;
}

export function eventBody(
  kill: OomVerdict,
  identity: PodIdentity,
  options: { readonly name: string; readonly nodeName: string; readonly message: string; readonly at: Date },
): Record<string, unknown> {
  // Dates, not strings: client-node serialises an Event's timestamps from Date objects.
  const at = options.at;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: options.name, namespace: identity.namespace },
    involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: identity.namespace, name: identity.name, uid: kill.victim.podUid },
    reason: EVENT_REASON,
    message: options.message,
    type: 'Warning',
    source: { component: EVENT_COMPONENT, host: options.nodeName },
    reportingComponent: 'gpumem.io/agent',
    reportingInstance: options.nodeName,
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
  };
}

export function eventRepeatPatch(count: number, message: string, at: Date): Record<string, unknown> {
  return { count, message, lastTimestamp: at.toISOString() };
}
