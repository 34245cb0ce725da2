// The verdict on a global OOM kill: the node ran out and no cgroup limit was hit (`global_oom`,
// `constraint=CONSTRAINT_NONE` or a cpuset/mempolicy constraint, "Out of memory"). A victim inside a pod was under
// its own limit: the words then weigh the GTT signature (gttSignature.ts); a victim outside any pod gets the
// node-sizing advice.
import type { OomEvent } from '../../probe/parsers/oomReportLines.ts';
import type { GpuTeardown } from './gpuTeardown.ts';
import { gpuTeardownText } from './gpuTeardown.ts';
import type { PodIndex } from './gttSignature.ts';
import { gttRemedy, gttSignature } from './gttSignature.ts';
import type { GlobalOomVerdict, GttSignature, OomContext, OomVerdictFacts } from './oomVerdictTypes.ts';
import { invokerText, missingText, scopeEvidenceText } from './oomVerdictText.ts';
import type { OomVictim } from './oomVictim.ts';
import { containerLabel, podLabel, processLabel, qosLabel } from './oomVictim.ts';
import { DEFAULT_HEADROOM_PERCENT, formatBytes } from '../../sizing.ts';
import type { NumaNodeMemory } from '../../probe/parsers/numaMeminfo.ts';
import { parseNodeList } from '../../probe/parsers/numaMeminfo.ts';

/** What a global verdict says; the verdict itself is built once from these (globalVerdict). */
interface GlobalWords {
  readonly title: string;
  readonly explanation: string;
  readonly remedy: string;
  /** Only for a victim inside a pod. */
  readonly gtt: GttSignature | undefined;
}

function inPodWords(
  event: OomEvent,
  victim: OomVictim,
  context: OomContext | undefined,
  pods: PodIndex,
  facts: OomVerdictFacts,
  teardown: GpuTeardown | undefined,
  lead: string,
): GlobalWords {
  const pod = victim.podUid === undefined ? undefined : pods.get(victim.podUid);
  const gtt = gttSignature(event, victim, pod, context, teardown);
  const where =
    podLabel(victim) ?? (victim.placement.kind === 'pod-unnamed' ? `a pod the log does not name (${victim.placement.why})` : 'a pod');
  const title =
    gtt.strength === 'possible'
      ? `The node ran out of memory and the kernel killed ${processLabel(victim)} in ${where}, which was under its own memory limit.`
      : `The node ran out of memory and the kernel killed ${processLabel(victim)} in ${where} while the pod was under its own limit: the signature of GPU (GTT) memory that no cgroup counts.`;
  const explanation =
    [
      lead,
      `The victim's cgroup is ${victim.taskMemcg ?? event.oomGroup ?? '(not in the log)'}${victim.qos !== undefined ? `, a ${qosLabel(victim.qos)} pod` : ''}${containerLabel(victim)}.`,
      ...gtt.factors,
      ...(gtt.against.length > 0 ? [`Against: ${gtt.against.join(' ')}`] : []),
      gtt.strength === 'possible'
        ? "The log alone cannot tell GPU memory outside the cgroup from ordinary node overcommit (pods whose usage exceeds their requests); the pod's memory.events and the report's gpu_active (Linux 7.1+) can."
        : "GTT pages are ordinary RAM taken from the TTM pool; no released kernel charges them to the pod's memory cgroup, so the pod looks small to the kubelet and the scheduler while the node fills up.",
    ].join(' ') + missingText(facts.missing);
  const headroomPercent = context?.headroomPercent ?? DEFAULT_HEADROOM_PERCENT;
  const remedy =
    gtt.strength === 'possible'
      ? `Set the memory requests of the pods on this node to their real peak use (Guaranteed QoS, requests = limits, for this one) so the node is not overcommitted and this pod is not the first victim, and reserve memory for the system (kube-reserved, system-reserved, evictionHard) so the kubelet evicts before the kernel kills. If the pod uses a GPU on a unified-memory node: ${gttRemedy(victim, pod, event, headroomPercent)}`
      : gttRemedy(victim, pod, event, headroomPercent);
  return { title, explanation, remedy, gtt };
}

function outsidePodWords(
  event: OomEvent,
  victim: OomVictim,
  facts: OomVerdictFacts,
  teardown: GpuTeardown | undefined,
  lead: string,
): GlobalWords {
  const known = victim.comm !== undefined || victim.pid !== undefined;
  // Only a whole cgroup path outside the pod tree says "outside any pod"; a cut or missing one leaves it unknown.
  const placement = victim.placement;
  const outside = placement.kind !== 'unknown';
  const unknownWhere = placement.kind === 'unknown' ? `; the log does not say whether it ran in a pod (${placement.why})` : '';
  const title = teardown
    ? `The node ran out of memory and the kernel killed ${processLabel(victim)}, ${outside ? 'a process outside any pod that' : 'which'} held GPU memory its RSS did not show${unknownWhere}.`
    : known
      ? `The node ran out of memory and the kernel killed ${processLabel(victim)}${outside ? ', a process outside any pod' : unknownWhere}.`
      : 'The node ran out of memory (a global OOM); the log does not say which process was killed.';
  const explanation =
    [
      lead,
      victim.taskMemcg !== undefined && placement.kind === 'outside-pods'
        ? `The victim's cgroup is ${victim.taskMemcg}, outside the kubelet's pod tree.`
        : '',
      victim.taskMemcg !== undefined && placement.kind === 'unknown'
        ? `The victim's cgroup as far as the log shows it: ${victim.taskMemcg}.`
        : '',
      teardown ? gpuTeardownText(teardown) : '',
      'Global OOMs happen when the sum of all memory on the node (pods over their requests, system daemons, kernel memory and GPU buffers that no cgroup counts) exceeds RAM.',
    ]
      .filter((part) => part !== '')
      .join(' ') +
    invokerText(event, victim) +
    missingText(facts.missing);
  const remedy = [
    'Reserve memory for the host with kube-reserved and system-reserved and set evictionHard (e.g. memory.available<500Mi) so the kubelet evicts pods before the kernel kills.',
    'Give every pod memory requests that match its real usage and limits (Guaranteed QoS for important pods).',
    'On GPU nodes, account for GPU memory outside the cgroups: declare it with `gpumem.io/gpu-memory` and keep GPU pods on dedicated nodes.',
  ].join(' ');
  return { title, explanation, remedy, gtt: undefined };
}

/** A kill confined to some NUMA nodes: `constraint=CONSTRAINT_CPUSET` or `CONSTRAINT_MEMORY_POLICY` (mm/oom_kill.c). */
interface NumaConstraint {
  readonly constraint: 'CONSTRAINT_CPUSET' | 'CONSTRAINT_MEMORY_POLICY';
  /** The NUMA nodes the task could allocate from: `nodemask=` for a mempolicy, else `mems_allowed=` (a list such as `1` or `0-1`). */
  readonly nodes: string | undefined;
}

function numaConstraintOf(event: OomEvent): NumaConstraint | undefined {
  const constraint = event.constraint;
  if (constraint !== 'CONSTRAINT_CPUSET' && constraint !== 'CONSTRAINT_MEMORY_POLICY') return undefined;
  const mask = event.summary?.nodemask;
  const nodemask = mask !== undefined && mask !== '(null)' && mask !== '' ? mask : undefined;
  return {
    constraint,
    nodes: constraint === 'CONSTRAINT_MEMORY_POLICY' ? (nodemask ?? event.memsAllowed) : (event.memsAllowed ?? nodemask),
  };
}

/**
 * The words for a NUMA-constrained kill. The kernel chose a victim because the NUMA nodes the allocating task may
 * use were full (its cpuset's mems, or its memory policy's nodemask), not because the whole node was: on GPU nodes
 * that is the kubelet's Memory Manager (Static policy) or a single-NUMA-node Topology Manager policy pinning a pod
 * to one node's memory. Node-wide remedies (reserve memory for the host, shrink other pods) miss it.
 */
function numaWords(numa: NumaConstraint, victim: OomVictim, nodeWide: GlobalWords, context: OomContext | undefined): GlobalWords {
  const nodes =
    numa.nodes !== undefined ? `NUMA node${isOneNode(numa.nodes) ? '' : 's'} ${numa.nodes}` : 'some NUMA nodes (not named in the log)';
  const by =
    numa.constraint === 'CONSTRAINT_CPUSET'
      ? "the allocating task's cpuset (cpuset.mems)"
      : "the allocating task's memory policy (mbind / set_mempolicy)";
  const title = `The memory of ${nodes} ran out, not the whole node's: the allocation was confined to ${nodes} by ${by} (${numa.constraint}), and the kernel killed ${processLabel(victim)}${victim.inKubepods ? ` in ${podLabel(victim) ?? 'a pod'}` : ''}.`;
  const measured = numaMemoryText(numa, victim, context?.numaNodes);
  const explanation = [
    nodeWide.explanation,
    ...(measured !== undefined ? [measured] : []),
    `With ${numa.constraint} the OOM killer only looks at ${nodes}: the node may still have free memory on its other NUMA nodes, so node-wide memory graphs and the kubelet's eviction thresholds (which see the whole node) did not predict this kill. On Kubernetes this comes from the kubelet's Memory Manager (Static policy) or a single-numa-node Topology Manager policy pinning the pod's memory to ${nodes}.`,
  ].join(' ');
  const remedy = [
    `Size the pods pinned to ${nodes} to that node's memory, not the machine's: with the Memory Manager (Static policy), the pod's memory request is what is reserved on its NUMA node, so set Guaranteed requests = limits at its real peak, and reserve memory per NUMA node for the system with --reserved-memory (it must add up to kube-reserved + system-reserved + the eviction threshold).`,
    `Compare /sys/devices/system/node/node*/meminfo (MemTotal and MemFree per node) with the pods placed there; if one NUMA node cannot hold the pod, let it span nodes (Topology Manager policy best-effort or restricted, or a pod without the exclusive CPUs that pin it).`,
    'GPU buffers that no cgroup counts (GTT on unified-memory nodes) are taken from the same NUMA node: leave headroom for them there.',
  ].join(' ');
  return { title, explanation, remedy, gtt: nodeWide.gtt };
}

/**
 * The verdict on one global kill. Its id names what it found (`idFor('global-gtt')` for the GTT signature or a
 * GPU teardown, `idFor('global')` otherwise), so the verdict is built once, with its final id.
 */
export function globalVerdict(
  event: OomEvent,
  victim: OomVictim,
  context: OomContext | undefined,
  pods: PodIndex,
  facts: OomVerdictFacts,
  teardown: GpuTeardown | undefined,
  idFor: (name: 'global-gtt' | 'global') => string,
): GlobalOomVerdict {
  const numa = numaConstraintOf(event);
  const constraintNote =
    event.constraint !== undefined && event.constraint !== 'CONSTRAINT_NONE' && numa === undefined
      ? ` The constraint ${event.constraint} means the allocation was limited to some memory nodes (cpuset or mempolicy), not by a memory cgroup.`
      : '';
  const lead = `${scopeEvidenceText(event)}${constraintNote}`;
  const nodeWide = victim.inKubepods
    ? inPodWords(event, victim, context, pods, facts, teardown, lead)
    : outsidePodWords(event, victim, facts, teardown, lead);
  const words = numa === undefined ? nodeWide : numaWords(numa, victim, nodeWide, context);
  const strong = teardown !== undefined || (words.gtt !== undefined && words.gtt.strength !== 'possible');
  return {
    ...facts,
    id: idFor(strong ? 'global-gtt' : 'global'),
    kind: 'global',
    severity: 'error',
    title: words.title,
    explanation: words.explanation,
    remedy: words.remedy,
    ...(event.constraint !== undefined ? { constraint: event.constraint } : {}),
    ...(words.gtt ? { gtt: words.gtt } : {}),
    ...(teardown ? { gpuTeardown: teardown } : {}),
  };
}

/**
 * The NUMA nodes the kill was confined to, against the machine, from the probe's per-node meminfo: how much of the
 * machine's memory those nodes hold, and the victim's resident memory against it. The figures are the probe's (when
 * it ran), not the kill's: a pod pinned there cannot use more than those nodes hold, whatever the node total says.
 */
function numaMemoryText(numa: NumaConstraint, victim: OomVictim, numaNodes: readonly NumaNodeMemory[] | undefined): string | undefined {
  if (numaNodes === undefined || numaNodes.length === 0) return undefined;
  const wanted = parseNodeList(numa.nodes);
  if (wanted === undefined) return undefined;
  const chosen = numaNodes.filter((node) => wanted.includes(node.node));
  if (chosen.length === 0 || chosen.some((node) => node.totalBytes === undefined)) return undefined;
  const total = chosen.reduce((sum, node) => sum + (node.totalBytes ?? 0), 0);
  const machine = numaNodes.reduce((sum, node) => sum + (node.totalBytes ?? 0), 0);
  const free = chosen.every((node) => node.freeBytes !== undefined)
    ? chosen.reduce((sum, node) => sum + (node.freeBytes ?? 0), 0)
    : undefined;
  const each = chosen
    .map(
      (node) =>
        `node ${node.node}: ${formatBytes(node.totalBytes ?? 0)}${node.freeBytes !== undefined ? `, ${formatBytes(node.freeBytes)} free` : ''}`,
    )
    .join('; ');
  const share =
    machine > 0 ? ` (${Math.round((total / machine) * 100)} % of the ${formatBytes(machine)} of all ${numaNodes.length} NUMA nodes)` : '';
  const rssKb = (victim.anonRssKb ?? 0) + (victim.fileRssKb ?? 0) + (victim.shmemRssKb ?? 0);
  const victimShare =
    rssKb > 0 && total > 0
      ? ` The victim held ${formatBytes(rssKb * 1024)} resident, ${Math.round(((rssKb * 1024) / total) * 100)} % of that.`
      : '';
  return `The NUMA node${chosen.length === 1 ? '' : 's'} the kill was confined to hold ${formatBytes(total)}${share} by the probe's per-node meminfo (/sys/devices/system/node/node*/meminfo, read when the probe ran, not at the kill: ${each}${free !== undefined && chosen.length > 1 ? `; ${formatBytes(free)} free in all` : ''}).${victimShare}`;
}

/** `1`, not `0-1` or `0,2`: digits only (no regex on log text). */
function isOneNode(list: string): boolean {
  for (const char of list) if (char < '0' || char > '9') return false;
  return list !== '';
}
