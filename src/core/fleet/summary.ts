// The fleet's answer on one screen: the verdict line, the nodes ranked by risk, the top pods by unaccounted memory
// and by true footprint over their limit, the OOM kills by scope, and the HAMi enforcement table. Pure and linear in
// the facts (a sort per list); every list that reaches a chart or a table is cut to `top`.
import { DEFAULT_HEADROOM_PERCENT, formatBytes } from '../sizing.ts';
import type { Severity } from '../findings.ts';
import type { FleetFacts, HamiFacts, KillFacts, NodeFacts, PodFacts } from './facts.ts';

/** A node whose cgroup memory plus GPU memory outside cgroups reaches this share of MemTotal is near full. */
export const NEAR_FULL_SHARE = 0.9;
/** An agent whose last good cycle is older than this is not reporting. */
export const STALE_AGENT_SECONDS = 300;
export const DEFAULT_TOP = 20;

export interface FleetVerdict {
  readonly id: string;
  readonly severity: Severity;
  readonly title: string;
  readonly remedy: string;
  readonly docs: string;
}

export interface RankedNode extends NodeFacts {
  /** (cgroup + unaccounted) / MemTotal, at the peak when known; undefined without MemTotal. */
  readonly risk: number | undefined;
  readonly free: number | undefined;
  readonly globalKills: number;
  readonly gpuKills: number;
  readonly stale: boolean;
}

export interface PodRow extends PodFacts {
  /** peak footprint − limit; positive when over. */
  readonly overBy: number | undefined;
}

export interface FleetSummary {
  readonly facts: FleetFacts;
  readonly verdicts: readonly FleetVerdict[];
  /** One sentence: what the fleet view's first line says. */
  readonly line: string;
  readonly worst: Severity | 'none';
  readonly nodes: readonly RankedNode[];
  readonly topUnaccounted: readonly PodRow[];
  readonly topOverLimit: readonly PodRow[];
  readonly kills: {
    readonly global: number;
    readonly globalGpu: number;
    readonly memcg: number;
    readonly unknown: number;
    readonly byPod: readonly KillFacts[];
  };
  readonly hami: readonly HamiFacts[];
  readonly hamiBypassed: number;
}

const DOCS = 'https://github.com/gpumem/gpumem/blob/main/docs/fleet.md#';

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

function rankNode(node: NodeFacts, kills: readonly KillFacts[], at: number): RankedNode {
  const used = node.peakUsed ?? node.cgroup + node.unaccounted;
  const risk = node.memTotal !== undefined && node.memTotal > 0 ? used / node.memTotal : undefined;
  const free = node.memTotal !== undefined ? Math.max(0, node.memTotal - node.cgroup - node.unaccounted) : undefined;
  let globalKills = 0;
  let gpuKills = 0;
  for (const kill of kills) {
    if (kill.node !== node.node || kill.scope !== 'global') continue;
    globalKills += kill.count;
    if (kill.gpuSignature) gpuKills += kill.count;
  }
  const stale = node.lastSeen === undefined || at - node.lastSeen > STALE_AGENT_SECONDS;
  return { ...node, risk, free, globalKills, gpuKills, stale };
}

/** Kills first, then the risk share: a node that already lost pods ranks above one that may. */
function compareNodes(a: RankedNode, b: RankedNode): number {
  return b.gpuKills - a.gpuKills || b.globalKills - a.globalKills || (b.risk ?? -1) - (a.risk ?? -1) || a.node.localeCompare(b.node);
}

function podRow(pod: PodFacts): PodRow {
  const peak = pod.peakFootprint ?? pod.footprint;
  return { ...pod, overBy: peak !== undefined && pod.limit !== undefined ? peak - pod.limit : undefined };
}

export function podName(pod: {
  readonly namespace?: string | undefined;
  readonly pod?: string | undefined;
  readonly uid?: string | undefined;
}): string {
  return pod.namespace && pod.pod ? `${pod.namespace}/${pod.pod}` : `pod ${pod.uid ?? '?'}`;
}

export function summarizeFleet(facts: FleetFacts, top = DEFAULT_TOP, headroomPercent = DEFAULT_HEADROOM_PERCENT): FleetSummary {
  const nodes = facts.nodes.map((node) => rankNode(node, facts.kills, facts.at)).sort(compareNodes);
  const rows = facts.pods.map(podRow);
  const topUnaccounted = rows
    .filter((row) => (row.unaccounted ?? 0) > 0)
    .sort((a, b) => (b.unaccounted ?? 0) - (a.unaccounted ?? 0) || a.uid.localeCompare(b.uid))
    .slice(0, top);
  const over = rows.filter((row) => row.overBy !== undefined && row.overBy > 0);
  const topOverLimit = [...over].sort((a, b) => (b.overBy ?? 0) - (a.overBy ?? 0) || a.uid.localeCompare(b.uid)).slice(0, top);
  const overLimit = Math.max(facts.podCounts.overLimit, over.length);
  let global = 0;
  let globalGpu = 0;
  let memcg = 0;
  let unknown = 0;
  for (const kill of facts.kills) {
    if (kill.scope === 'global') {
      global += kill.count;
      if (kill.gpuSignature) globalGpu += kill.count;
    } else if (kill.scope === 'memcg') memcg += kill.count;
    else unknown += kill.count;
  }
  const byPod = facts.kills
    .filter((kill) => kill.count > 0)
    .sort(
      (a, b) =>
        Number(b.scope === 'global') - Number(a.scope === 'global') || b.count - a.count || (a.uid ?? '').localeCompare(b.uid ?? ''),
    )
    .slice(0, top);
  const bypassed = facts.hami.filter((row) => row.state === 'bypassed');
  const hami = [...facts.hami]
    .sort(
      (a, b) => stateRank(b.state) - stateRank(a.state) || podName(a).localeCompare(podName(b)) || a.container.localeCompare(b.container),
    )
    .slice(0, Math.max(top, bypassed.length));
  const nearFull = nodes.filter((node) => node.risk !== undefined && node.risk >= NEAR_FULL_SHARE);
  const stale = nodes.filter((node) => node.stale);
  const when = killsWhen(facts);

  const verdicts: FleetVerdict[] = [];
  if (globalGpu > 0 || global > 0)
    verdicts.push({
      id: 'fleet.global-oom',
      severity: 'error',
      title: `${plural(global, 'global OOM kill')} ${when}${global > 0 ? `, ${globalGpu === global ? (global === 1 ? 'with' : 'all with') : `${globalGpu} with`} the GPU signature` : ''}`,
      remedy:
        'A global kill is the node running out of memory, not the pod reaching its limit, whatever OOMKilled says: size the pods to cgroup memory plus GPU memory, and keep unified-memory nodes for GPU pods.',
      docs: `${DOCS}fleetglobal-oom`,
    });
  if (bypassed.length > 0)
    verdicts.push({
      id: 'fleet.hami-bypassed',
      severity: 'error',
      title: `${plural(bypassed.length, 'HAMi container')} bypassing ${bypassed.length === 1 ? 'its' : 'their'} quota`,
      remedy:
        'Run gpumem hami-test on the container and gpumem inspect --pod: CUDA_DISABLE_CONTROL, a missing ld.so.preload, a static binary or DinD can bypass libvgpu.so.',
      docs: `${DOCS}fleethami-bypassed`,
    });
  if (overLimit > 0)
    verdicts.push({
      id: 'fleet.pods-over-limit',
      severity: 'warning',
      title: `${plural(overLimit, 'pod')} over ${overLimit === 1 ? 'its' : 'their'} limit once GPU memory is counted`,
      remedy: `Their cgroups cannot see the GPU memory, so the node runs out first: raise the limits to cgroup memory plus GPU memory with ${headroomPercent} % headroom.`,
      docs: `${DOCS}fleetpods-over-limit`,
    });
  if (nearFull.length > 0)
    verdicts.push({
      id: 'fleet.node-near-full',
      severity: 'warning',
      title: `${plural(nearFull.length, 'node')} within 10 % of MemTotal once GPU memory is counted`,
      remedy: 'Move GPU pods off them or lower their requests; the kubelet does not see GTT and will not evict before the kernel kills.',
      docs: `${DOCS}fleetnode-near-full`,
    });
  if (stale.length > 0 || facts.silentNodes.length > 0) {
    const count = stale.length + facts.silentNodes.length;
    verdicts.push({
      id: 'fleet.agents-silent',
      severity: 'warning',
      title: `${plural(count, 'GPU node')} without a current agent report`,
      remedy:
        'Check the gpumem-agent DaemonSet on those nodes (kubectl -n gpumem-system get pods -o wide) and its log; their numbers here are old or missing.',
      docs: `${DOCS}fleetagents-silent`,
    });
  }
  for (const problem of facts.problems.slice(0, 1))
    verdicts.push({
      id: 'fleet.read-problem',
      severity: 'info',
      title: problem,
      remedy: 'See the problems list.',
      docs: `${DOCS}problems`,
    });

  const parts = verdicts.filter((v) => v.id !== 'fleet.read-problem' && v.id !== 'fleet.agents-silent').map((v) => v.title);
  const line =
    parts.length > 0
      ? `${parts.join('; ')}.`
      : `${plural(nodes.length, 'GPU node')}, ${plural(facts.podCounts.total, 'pod')}: no pod over its limit once GPU memory is counted, no global OOM kill ${when}${facts.hami.length > 0 ? ', every HAMi quota held' : ''}.`;
  const worst = verdicts.some((v) => v.severity === 'error')
    ? 'error'
    : verdicts.some((v) => v.severity === 'warning')
      ? 'warning'
      : verdicts.length > 0
        ? 'info'
        : 'none';
  return {
    facts,
    verdicts,
    line,
    worst,
    nodes,
    topUnaccounted,
    topOverLimit,
    kills: { global, globalGpu, memcg, unknown, byPod },
    hami,
    hamiBypassed: bypassed.length,
  };
}

/** What the kill counts cover, in words. */
export function killsWhen(facts: Pick<FleetFacts, 'killsMeaning' | 'window'>): string {
  return facts.killsMeaning === 'window'
    ? `in ${facts.window.label}`
    : facts.killsMeaning === 'since-agent-start'
      ? 'since the agents started'
      : "in the nodes' kernel logs";
}

function stateRank(state: HamiFacts['state']): number {
  return state === 'bypassed' ? 2 : state === 'unknown' ? 1 : 0;
}

/** `12 GiB`, or `—` when unknown. */
export function bytesOrDash(value: number | undefined): string {
  return value === undefined ? '—' : formatBytes(value);
}
