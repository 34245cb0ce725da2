// Node events about memory, from Event objects (core/v1, JSON or client-node CoreV1Event).
//
// The kubelet's OOM watcher (pkg/kubelet/oom/oom_watcher_linux.go) records a Warning event with reason
// `SystemOOM` on the Node for every OOM kill it sees in the root cgroup ("/"), i.e. a kill by the GLOBAL OOM
// killer, with the message `System OOM encountered, victim process: <comm>, pid: <pid>` (plain
// `System OOM encountered` when cAdvisor did not give a process, as older kubelets always wrote). The events
// land in the `default` namespace because a Node reference has no namespace. Seen in the wild, e.g.
// `System OOM encountered, victim process: stress, pid: 16713` and
// `System OOM encountered, victim process: prometheus, pid: 967770`.
// node-problem-detector reports kernel OOM kills as `OOMKilling` ("Out of memory: Kill process …"); the kubelet's
// eviction manager reports `EvictionThresholdMet` and the condition change `NodeHasInsufficientMemory`.
import { asNumber, asString, asTime, identity, path } from './json.ts';

export type NodeMemoryEventKind = 'SystemOOM' | 'OOMKilling' | 'EvictionThresholdMet' | 'NodeHasInsufficientMemory';

export interface NodeMemoryEvent {
  readonly kind: NodeMemoryEventKind;
  readonly node: string;
  readonly message: string;
  /** SystemOOM only: the killed process's comm and pid, when the kubelet gave them. */
  readonly victim: string | undefined;
  readonly pid: number | undefined;
  /** How many times the event was seen (events are deduplicated by the recorder). */
  readonly count: number;
  readonly firstTime: string | undefined;
  readonly lastTime: string | undefined;
  readonly source: string | undefined;
}

const KINDS = new Set<string>(['SystemOOM', 'OOMKilling', 'EvictionThresholdMet', 'NodeHasInsufficientMemory']);
const SYSTEM_OOM = /^System OOM encountered(?:, victim process: (.*), pid: (\d+))?\s*$/s;

/** The victim of a `SystemOOM` event message; undefined when the message is not the kubelet's. */
export function parseSystemOomMessage(message: string): { victim: string | undefined; pid: number | undefined } | undefined {
  const match = SYSTEM_OOM.exec(message);
  if (!match) return undefined;
  return { victim: match[1], pid: match[2] !== undefined ? Number(match[2]) : undefined };
}

/**
 * The memory events about Nodes (optionally only `node`), most recent first. Events about other objects and
 * other reasons are ignored.
 */
export function nodeMemoryEvents(events: readonly unknown[], node?: string): NodeMemoryEvent[] {
  const out: NodeMemoryEvent[] = [];
  for (const event of events) {
    const reason = asString(path(event, 'reason'));
    if (reason === undefined || !KINDS.has(reason)) continue;
    const kind = asString(path(event, 'involvedObject', 'kind')) ?? asString(path(event, 'regarding', 'kind'));
    const name = asString(path(event, 'involvedObject', 'name')) ?? asString(path(event, 'regarding', 'name'));
    if (kind !== 'Node' || name === undefined || (node !== undefined && name !== node)) continue;
    const message = asString(path(event, 'message')) ?? asString(path(event, 'note')) ?? '';
    const parsed = reason === 'SystemOOM' ? parseSystemOomMessage(message) : undefined;
    const lastTime =
      asTime(path(event, 'series', 'lastObservedTime')) ??
      asTime(path(event, 'lastTimestamp')) ??
      asTime(path(event, 'eventTime')) ??
      identity(event).creationTimestamp;
    out.push({
      kind: reason as NodeMemoryEventKind,
      node: name,
      message,
      victim: parsed?.victim,
      pid: parsed?.pid,
      count: asNumber(path(event, 'series', 'count')) ?? asNumber(path(event, 'count')) ?? 1,
      firstTime: asTime(path(event, 'firstTimestamp')) ?? asTime(path(event, 'eventTime')) ?? lastTime,
      lastTime,
      source: asString(path(event, 'source', 'component')) ?? asString(path(event, 'reportingComponent')),
    });
  }
  const time = (text: string | undefined): number => (text === undefined ? 0 : Date.parse(text) || 0);
  return out.sort((a, b) => time(b.lastTime) - time(a.lastTime));
}

/** Only the kubelet's `SystemOOM` events (global OOM kills), most recent first. */
export function systemOomEvents(events: readonly unknown[], node?: string): NodeMemoryEvent[] {
  return nodeMemoryEvents(events, node).filter((event) => event.kind === 'SystemOOM');
}
