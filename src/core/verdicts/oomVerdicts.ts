// Verdict 1, OOM root cause: why was this process OOM-killed, and what should change?
//
// Each kill is classified from the kernel's own words (mm/oom_kill.c: dump_oom_summary's `oom-kill:` line, dump_header):
// - memory cgroup: `oom_memcg=`, `constraint=CONSTRAINT_MEMCG`, "Memory cgroup out of memory", or the
//   older "Task in … killed as a result of limit of …". A limit was hit; the limit names the level
//   (container, pod, the whole pod tree, or a system slice).
// - global: `global_oom`, `constraint=CONSTRAINT_NONE` (or a cpuset/mempolicy constraint), "Out of memory".
//   The node ran out; no cgroup limit was hit.
//
// The GTT signature: a global kill of a task inside a pod. The pod was under its own limit, yet the
// node ran out. On unified-memory APUs the usual cause is GPU memory (GTT) that the pod allocated and no
// memory cgroup counts. It grows stronger when the pod's `memory.events` shows `oom_kill` > 0 while
// `max` and `oom` stay 0, and when the report's per-node `gpu_active` (Linux 7.1+) is large.

import type { Severity } from '../findings.ts';
import type { AmdgpuMemoryLine } from '../probe/parsers/amdgpuBoot.ts';
import type { EvidenceLine, OomEvent } from '../probe/parsers/oomReportLines.ts';
import { isKubepodsPath, kubepodsLevel } from '../probe/podCgroup.ts';
import type { AmdgpuVmFiniLine } from '../probe/parsers/amdgpuVmFini.ts';
import type { GpuTeardown } from './gpuTeardown.ts';
import { gpuTeardownOf, gpuTeardownText, indexFiniLines } from './gpuTeardown.ts';
import type { PodCgroupData } from './oomPodCgroups.ts';
import type { OomVictim, PodNames } from './oomVictim.ts';
import { containerLabel, formatBytes, formatKb, podLabel, processLabel, qosLabel, quantityKb, victimOf } from './oomVictim.ts';
import type { Verdict } from './verdict.ts';
import type { WorkBudget } from '../workBudget.ts';
import { BudgetExhausted } from '../workBudget.ts';

/** What the node probe adds to the log. */
export interface OomContext {
  /** Per-pod cgroup data, e.g. from podCgroupDataFromFiles (oomPodCgroups.ts). */
  readonly pods?: Iterable<PodCgroupData>;
  /** Pod UID → display name (`namespace/name`). */
  readonly podNames?: PodNames;
  /** amdgpu boot lines (GTT size), from the same kernel log. */
  readonly amdgpu?: readonly AmdgpuMemoryLine[];
  /** amdgpu "VM memory stats … non-zero when fini" lines, from the same kernel log. */
  readonly amdgpuVmFini?: readonly AmdgpuVmFiniLine[];
}

export type GttStrength = 'possible' | 'likely' | 'strong';

export interface GttSignature {
  readonly strength: GttStrength;
  /** What supports the signature, in words. */
  readonly factors: readonly string[];
  /** What speaks against it. */
  readonly against: readonly string[];
  readonly gpuActiveKb?: number;
  readonly memoryEvents?: Readonly<Record<string, number>>;
  /** GTT size from the amdgpu boot lines, MiB. */
  readonly gttMiB?: number;
}

/** The level of the cgroup whose limit a memory-cgroup kill hit. */
export type MemcgLimitLevel = 'container' | 'pod' | 'qos' | 'kubepods' | 'outside-kubepods' | 'unknown';

interface OomVerdictBase extends Verdict {
  /** `oom.global-gtt:<line>`, `oom.global:<line>`, `oom.memcg:<line>`, `oom.unclassified:<line>` (the report's first line). */
  readonly id: string;
  readonly severity: Severity;
  /** One sentence. */
  readonly title: string;
  readonly explanation: string;
  /** The log lines the verdict rests on, verbatim. */
  readonly evidence: readonly string[];
  /** The same lines with their 1-based line numbers. */
  readonly evidenceLines: readonly EvidenceLine[];
  readonly remedy: string;
  readonly timestamp?: string;
  readonly victim: OomVictim;
  /** Parts of the kernel report that were not in the log. */
  readonly missing: readonly string[];
  readonly event: OomEvent;
}

export interface GlobalOomVerdict extends OomVerdictBase {
  readonly kind: 'global';
  readonly constraint?: string;
  /** Present when the victim was in a pod: a pod under its own limit died in a global OOM. */
  readonly gtt?: GttSignature;
  /** The victim's RSS was tiny and amdgpu tore down its GPU VM with memory in it (in a pod or not). */
  readonly gpuTeardown?: GpuTeardown;
}

export interface MemcgOomVerdict extends OomVerdictBase {
  readonly kind: 'memcg';
  readonly oomMemcg?: string;
  readonly limitLevel: MemcgLimitLevel;
  readonly usageKb?: number;
  readonly limitKb?: number;
}

export interface UnclassifiedOomVerdict extends OomVerdictBase {
  readonly kind: 'unknown';
}

export type OomVerdict = GlobalOomVerdict | MemcgOomVerdict | UnclassifiedOomVerdict;

/** `gpu_active` above this (1 GiB) in a global OOM report is worth naming. */
const LARGE_GPU_ACTIVE_KB = 1024 * 1024;
const HEADROOM = 1.3;
const NODE_SERVICE_CGROUP = /(?:^|\/)(?:system|podruntime|runtime)\.slice(?:\/|$)|kubelet|containerd|crio|dockerd/;

/** Pod UID → its cgroup data, built once per explanation: a lookup per report must not walk every pod. */
type PodIndex = ReadonlyMap<string, PodCgroupData>;

function indexPods(context: OomContext | undefined): PodIndex {
  const index = new Map<string, PodCgroupData>();
  // The first record of a UID wins, as the linear search it replaces did.
  if (context?.pods) for (const pod of context.pods) if (!index.has(pod.podUid)) index.set(pod.podUid, pod);
  return index;
}

export function gttSizeMiB(amdgpu: readonly AmdgpuMemoryLine[] | undefined): number | undefined {
  if (!amdgpu) return undefined;
  let size: number | undefined;
  for (const line of amdgpu) if (line.kind === 'gtt-ready' || line.kind === 'gtt-cap') size = line.mib;
  return size;
}

function scopeEvidenceText(event: OomEvent): string {
  switch (event.scopeSource) {
    case 'summary':
      return event.scope === 'memcg'
        ? `The summary line names the cgroup that ran out: oom_memcg=${event.oomMemcg ?? '?'} (constraint=${event.constraint ?? '?'}).`
        : `The summary line says global_oom (constraint=${event.constraint ?? '?'}): no cgroup limit was involved.`;
    case 'constraint':
      return `The summary line says constraint=${event.constraint ?? '?'}.`;
    case 'reason':
      return event.scope === 'memcg'
        ? 'The kernel gave the reason "Memory cgroup out of memory".'
        : 'The kernel gave the reason "Out of memory" (the global OOM killer).';
    case 'legacy-task-in':
      return 'The older "Task in … killed as a result of limit of …" line (kernels before 4.19) is printed only for memory-cgroup kills.';
    case 'memcg-usage':
      return 'The report prints a "memory: usage …, limit …" line, which only memory-cgroup kills have.';
    case 'call-trace':
      return event.scope === 'memcg'
        ? 'Only the call trace is left: it goes through mem_cgroup_out_of_memory, the memory-cgroup path (a weak hint).'
        : 'Only the call trace is left: it goes through the page allocator without mem_cgroup_out_of_memory, the global path (a weak hint).';
    default:
      return '';
  }
}

function invokerText(event: OomEvent, victim: OomVictim): string {
  if (!event.invoker || victim.comm !== undefined || victim.pid !== undefined) return '';
  return ` The report was started by ${event.invoker.comm} asking for memory (gfp_mask=${event.invoker.gfpMask ?? '?'}, order=${event.invoker.order ?? '?'}); the log ends before it names the victim.`;
}

function missingText(missing: readonly string[]): string {
  return missing.length > 0 ? ` Not in the log: ${missing.join('; ')}.` : '';
}

function gttSignature(
  event: OomEvent,
  victim: OomVictim,
  pod: PodCgroupData | undefined,
  context: OomContext | undefined,
  teardown: GpuTeardown | undefined,
): GttSignature {
  const factors: string[] = [
    'A global OOM killed a process inside a pod: no cgroup limit was reached, so the pod was under its own memory limit while the node ran out.',
  ];
  const against: string[] = [];
  let strong = 0;
  const events = pod?.memoryEvents;
  if (events) {
    const oomKill = events.oom_kill ?? 0;
    const max = events.max ?? 0;
    const oom = events.oom ?? 0;
    const file = pod?.cgroupVersion === 1 ? 'memory.oom_control / memory.failcnt' : 'memory.events';
    if (oomKill > 0 && max === 0 && oom === 0) {
      factors.push(
        `The pod's ${file} shows oom_kill ${oomKill} while max and oom are 0: its processes were killed without the pod ever reaching its limit.`,
      );
      strong++;
    } else {
      if (max > 0 || oom > 0)
        against.push(
          `The pod's ${file} shows max ${max} and oom ${oom}: the pod has reached its own limit at some point (the counters cover the pod's whole life).`,
        );
      if (oomKill === 0)
        against.push(`The pod's ${file} shows oom_kill 0: the capture may predate the kill, or the pod was recreated since.`);
    }
  }
  const limitBytes = pod?.memoryMax?.kind === 'bytes' ? pod.memoryMax.bytes : undefined;
  if (pod?.memoryCurrent !== undefined && limitBytes !== undefined && limitBytes > 0) {
    factors.push(
      `memory.current is ${formatBytes(pod.memoryCurrent)} of a ${formatBytes(limitBytes)} limit (${Math.round((pod.memoryCurrent / limitBytes) * 100)} %).`,
    );
  }
  if (event.gpuActiveKb !== undefined) {
    if (event.gpuActiveKb >= LARGE_GPU_ACTIVE_KB) {
      factors.push(
        `The report's Mem-Info shows gpu_active:${event.gpuActiveKb}kB (${formatKb(event.gpuActiveKb)}) of system memory held by GPU buffers, which no memory cgroup counts.`,
      );
      strong++;
    } else {
      against.push(`gpu_active is only ${formatKb(event.gpuActiveKb)}: GPU buffers did not hold much system memory at the time.`);
    }
  }
  const gttMiB = gttSizeMiB(context?.amdgpu);
  if (gttMiB !== undefined) factors.push(`The node has an amdgpu GPU with ${gttMiB} MiB of GTT (system memory the GPU can map).`);
  if (pod?.gttBytes !== undefined && pod.gttBytes > 0) {
    factors.push(`DRM fdinfo attributes ${formatBytes(pod.gttBytes)} of GTT to the pod's processes.`);
    strong++;
  }
  if (victim.anonRssKb !== undefined && event.gpuActiveKb !== undefined && event.gpuActiveKb > victim.anonRssKb * 4) {
    factors.push(
      `The victim's own anon-rss (${formatKb(victim.anonRssKb)}) is small next to gpu_active: killing it frees GPU memory the cgroup never saw.`,
    );
  }
  if (teardown) {
    factors.push(gpuTeardownText(teardown));
    strong++;
  }
  const strength: GttStrength = strong >= 2 ? 'strong' : strong === 1 ? 'likely' : 'possible';
  return {
    strength,
    factors,
    against,
    ...(event.gpuActiveKb !== undefined ? { gpuActiveKb: event.gpuActiveKb } : {}),
    ...(events ? { memoryEvents: events } : {}),
    ...(gttMiB !== undefined ? { gttMiB } : {}),
  };
}

function gttRemedy(victim: OomVictim, pod: PodCgroupData | undefined, event: OomEvent): string {
  const where = podLabel(victim) ?? 'the pod';
  const cgroupKb = pod?.memoryCurrent !== undefined ? pod.memoryCurrent / 1024 : victim.anonRssKb;
  const gttKb = pod?.gttBytes !== undefined ? pod.gttBytes / 1024 : event.gpuActiveKb;
  let sizing = `Size the memory request and limit of ${where} to its cgroup memory plus its GTT use, with 25–30 % headroom: limit ≥ 1.3 × (cgroup memory + GTT).`;
  if (cgroupKb !== undefined && gttKb !== undefined) {
    const total = (cgroupKb + gttKb) * HEADROOM;
    sizing = `Size the memory request and limit of ${where} to its cgroup memory plus its GTT use, with 25–30 % headroom: about ${formatKb(cgroupKb)} + ${formatKb(gttKb)}${pod?.gttBytes === undefined ? ' (gpu_active, node-wide: an upper bound for this pod)' : ''} → requests and limits of at least ${quantityKb(total)}.`;
  }
  return [
    sizing,
    'Declare the GPU memory with the `gpumem.io/gpu-memory` annotation so the scheduler-side checks and gpumem account for memory the cgroup does not see.',
    'Make the pod Guaranteed (requests = limits for memory and CPU) so the kernel picks it last in a global OOM.',
    'Run GPU pods on dedicated (tainted) unified-memory nodes, so pods that do not know about GTT cannot be scheduled into the memory it takes.',
  ].join(' ');
}

function globalVerdict(
  event: OomEvent,
  victim: OomVictim,
  context: OomContext | undefined,
  pods: PodIndex,
  id: string,
  base: Omit<OomVerdictBase, 'id' | 'severity' | 'title' | 'explanation' | 'remedy'>,
  teardown: GpuTeardown | undefined,
): GlobalOomVerdict {
  const constraintNote =
    event.constraint !== undefined && event.constraint !== 'CONSTRAINT_NONE'
      ? ` The constraint ${event.constraint} means the allocation was limited to some memory nodes (cpuset or mempolicy), not by a memory cgroup.`
      : '';
  const scopeText = scopeEvidenceText(event);
  if (victim.inKubepods) {
    const pod = victim.podUid === undefined ? undefined : pods.get(victim.podUid);
    const gtt = gttSignature(event, victim, pod, context, teardown);
    const where = podLabel(victim) ?? 'a pod (the cgroup path is cut short in the log)';
    const title =
      gtt.strength === 'possible'
        ? `The node ran out of memory and the kernel killed ${processLabel(victim)} in ${where}, which was under its own memory limit.`
        : `The node ran out of memory and the kernel killed ${processLabel(victim)} in ${where} while the pod was under its own limit: the signature of GPU (GTT) memory that no cgroup counts.`;
    const explanation =
      [
        `${scopeText}${constraintNote}`,
        `The victim's cgroup is ${victim.taskMemcg ?? event.oomGroup ?? '(not in the log)'}${victim.qos !== undefined ? `, a ${qosLabel(victim.qos)} pod` : ''}${containerLabel(victim)}.`,
        ...gtt.factors,
        ...(gtt.against.length > 0 ? [`Against: ${gtt.against.join(' ')}`] : []),
        gtt.strength === 'possible'
          ? "The log alone cannot tell GPU memory outside the cgroup from ordinary node overcommit (pods whose usage exceeds their requests); the pod's memory.events and the report's gpu_active (Linux 7.1+) can."
          : "GTT pages are ordinary RAM taken from the TTM pool; no released kernel charges them to the pod's memory cgroup, so the pod looks small to the kubelet and the scheduler while the node fills up.",
      ].join(' ') + missingText(base.missing);
    const remedy =
      gtt.strength === 'possible'
        ? `Set the memory requests of the pods on this node to their real peak use (Guaranteed QoS, requests = limits, for this one) so the node is not overcommitted and this pod is not the first victim, and reserve memory for the system (kube-reserved, system-reserved, evictionHard) so the kubelet evicts before the kernel kills. If the pod uses a GPU on a unified-memory node: ${gttRemedy(victim, pod, event)}`
        : gttRemedy(victim, pod, event);
    return {
      ...base,
      id,
      kind: 'global',
      severity: 'error',
      title,
      explanation,
      remedy,
      ...(event.constraint !== undefined ? { constraint: event.constraint } : {}),
      gtt,
      ...(teardown ? { gpuTeardown: teardown } : {}),
    };
  }
  const known = victim.comm !== undefined || victim.pid !== undefined;
  const title = teardown
    ? `The node ran out of memory and the kernel killed ${processLabel(victim)}, a process outside any pod that held GPU memory its RSS did not show.`
    : known
      ? `The node ran out of memory and the kernel killed ${processLabel(victim)}, a process outside any pod.`
      : 'The node ran out of memory (a global OOM); the log does not say which process was killed.';
  const explanation =
    [
      `${scopeText}${constraintNote}`,
      victim.taskMemcg !== undefined ? `The victim's cgroup is ${victim.taskMemcg}, outside the kubelet's pod tree.` : '',
      teardown ? gpuTeardownText(teardown) : '',
      'Global OOMs happen when the sum of all memory on the node (pods over their requests, system daemons, kernel memory and GPU buffers that no cgroup counts) exceeds RAM.',
    ]
      .filter((part) => part !== '')
      .join(' ') +
    invokerText(event, victim) +
    missingText(base.missing);
  const remedy = [
    'Reserve memory for the host with kube-reserved and system-reserved and set evictionHard (e.g. memory.available<500Mi) so the kubelet evicts pods before the kernel kills.',
    'Give every pod memory requests that match its real usage and limits (Guaranteed QoS for important pods).',
    'On GPU nodes, account for GPU memory outside the cgroups: declare it with `gpumem.io/gpu-memory` and keep GPU pods on dedicated nodes.',
  ].join(' ');
  return {
    ...base,
    id,
    kind: 'global',
    severity: 'error',
    title,
    explanation,
    remedy,
    ...(event.constraint !== undefined ? { constraint: event.constraint } : {}),
    ...(teardown ? { gpuTeardown: teardown } : {}),
  };
}

function memcgLevel(event: OomEvent): MemcgLimitLevel {
  const path = event.oomMemcg;
  if (path === undefined) return 'unknown';
  const level = kubepodsLevel(path);
  if (level !== undefined) return level;
  if (isKubepodsPath(path)) return 'unknown';
  return 'outside-kubepods';
}

function memcgVerdict(
  event: OomEvent,
  victim: OomVictim,
  id: string,
  base: Omit<OomVerdictBase, 'id' | 'severity' | 'title' | 'explanation' | 'remedy'>,
): MemcgOomVerdict {
  const level = memcgLevel(event);
  const usage = event.memcgUsage;
  const where = podLabel(victim);
  const who = `The kernel killed ${processLabel(victim)}${where !== undefined ? ` in ${where}` : ''}`;
  const usageText = usage ? ` (usage ${formatKb(usage.usageKb)} of a ${formatKb(usage.limitKb)} limit)` : '';
  let title: string;
  let severity: Severity = 'warning';
  let remedy: string;
  const raiseTo = usage
    ? ` to at least ${quantityKb(Math.max(usage.limitKb, usage.usageKb) * HEADROOM)} (25–30 % over the ${formatKb(usage.limitKb)} it hit)`
    : ' by 25–30 % over the observed peak';
  switch (level) {
    case 'container':
      title = `${who} because its container reached its memory limit${usageText}.`;
      remedy = `Raise resources.limits.memory of the container${containerLabel(victim)}${raiseTo}, and its request with it; or cut the process's memory use (heap sizes such as -Xmx or MaxRAMPercentage, worker counts, caches). If the container uses a GPU on a unified-memory node, declare that memory with \`gpumem.io/gpu-memory\` too.`;
      break;
    case 'pod':
      title = `${who} because the pod reached its pod-level memory limit${usageText}.`;
      remedy = `Raise the memory limits of the pod's containers (their sum, plus any pod overhead, is the pod's limit)${raiseTo}; or find which container grew.`;
      break;
    case 'qos':
    case 'kubepods':
      severity = 'error';
      title = `${who} because all pods together reached the node's allocatable memory (the ${event.oomMemcg ?? 'kubepods'} cgroup limit)${usageText}.`;
      remedy =
        'The pods on this node use more than the node allocates to pods: lower the overcommit (requests that match real usage, limits close to requests), move pods to other nodes, or revisit kube-reserved and system-reserved. GPU memory that no cgroup counts makes this worse on unified-memory nodes: declare it with `gpumem.io/gpu-memory`.';
      break;
    case 'outside-kubepods': {
      const oomMemcg = event.oomMemcg ?? '';
      // The node's own services (kubelet, container runtime) live in system slices: losing them hurts every pod.
      if (NODE_SERVICE_CGROUP.test(oomMemcg)) severity = 'error';
      title = `${who} because the cgroup ${oomMemcg} reached its memory limit; it is not a pod.`;
      remedy = `Raise the memory limit of ${oomMemcg} (MemoryMax= of a systemd unit or slice, --memory of a Docker container, or the reservation the kubelet enforces for its own slice)${raiseTo}.`;
      break;
    }
    default:
      title = `${who} because a memory cgroup reached its limit${usageText}.`;
      remedy = `Raise the memory limit of the cgroup that ran out${raiseTo}; the log does not say which one (the path is missing or cut short).`;
      break;
  }
  const explanation =
    [
      scopeEvidenceText(event),
      event.oomMemcg !== undefined ? `The cgroup that ran out: ${event.oomMemcg}.` : '',
      victim.taskMemcg !== undefined
        ? `The victim's cgroup: ${victim.taskMemcg}${victim.qos !== undefined ? `, a ${qosLabel(victim.qos)} pod` : ''}${containerLabel(victim)}.`
        : '',
      usage
        ? `At the kill the cgroup used ${usage.usageKb} kB of ${usage.limitKb} kB (failcnt ${usage.failcnt}: times the limit was hit).`
        : '',
      event.candidate && event.killed && event.candidate.pid !== event.killed.pid
        ? `The kernel chose ${event.candidate.comm ?? 'a process'} (pid ${event.candidate.pid}) and killed its child pid ${event.killed.pid} instead ("sacrifice child", kernels before 5.0).`
        : '',
      event.groupKills.length > 0 ? `memory.oom.group killed ${event.groupKills.length} more process(es) with it.` : '',
      'A memory-cgroup kill is the limit doing its job: the node itself had memory.',
    ]
      .filter((part) => part !== '')
      .join(' ') +
    invokerText(event, victim) +
    missingText(base.missing);
  return {
    ...base,
    id,
    kind: 'memcg',
    severity,
    title,
    explanation,
    remedy,
    ...(event.oomMemcg !== undefined ? { oomMemcg: event.oomMemcg } : {}),
    limitLevel: level,
    ...(usage ? { usageKb: usage.usageKb, limitKb: usage.limitKb } : {}),
  };
}

function unknownVerdict(
  event: OomEvent,
  victim: OomVictim,
  id: string,
  base: Omit<OomVerdictBase, 'id' | 'severity' | 'title' | 'explanation' | 'remedy'>,
): UnclassifiedOomVerdict {
  const who = victim.comm !== undefined || victim.pid !== undefined ? ` (${processLabel(victim)})` : '';
  const invoker = event.invoker
    ? ` It starts with ${event.invoker.comm} invoking the OOM killer (gfp_mask=${event.invoker.gfpMask ?? '?'}, order=${event.invoker.order ?? '?'}).`
    : '';
  return {
    ...base,
    id,
    kind: 'unknown',
    severity: 'warning',
    title: `An OOM report${who} is too incomplete to tell a global kill from a memory-cgroup kill.`,
    explanation: `The log holds part of an OOM killer report but none of the lines that classify it (the oom-kill: summary, the reason line, "Task in …", "memory: usage …").${invoker}${missingText(base.missing)}`,
    remedy:
      'Collect the full kernel log around this time (dmesg, or journalctl -k when dmesg is restricted; the report is rate-limited, so an earlier copy may be complete) and explain it again.',
  };
}

/** Explain OOM events: one verdict per event, in log order. */
export function explainOomKills(events: readonly OomEvent[], context?: OomContext): OomVerdict[] {
  return explainWithinBudget(events, context, undefined).verdicts;
}

export interface BudgetedVerdicts {
  readonly verdicts: OomVerdict[];
  readonly outcome: 'complete' | 'stopped-at-budget';
}

/** The verdicts, stopping (and saying so) when the budget runs out. */
export function explainWithinBudget(
  events: readonly OomEvent[],
  context: OomContext | undefined,
  budget: WorkBudget | undefined,
): BudgetedVerdicts {
  const verdicts: OomVerdict[] = [];
  const seen = new Map<string, number>();
  const finiIndex = indexFiniLines(context?.amdgpuVmFini);
  const pods = indexPods(context);
  for (let at = 0; at < events.length; at++) {
    const event = events[at] as OomEvent;
    try {
      // One step per evidence line: the work of a verdict is proportional to its report, whatever the pod count.
      budget?.spend(1 + event.evidence.length);
    } catch (error) {
      if (error instanceof BudgetExhausted) return { verdicts, outcome: 'stopped-at-budget' };
      throw error;
    }
    const victim = victimOf(event, context?.podNames);
    const firstLine = event.evidence[0]?.line ?? 0;
    const nextLine = events[at + 1]?.evidence[0]?.line ?? Number.POSITIVE_INFINITY;
    const teardown = event.scope === 'global' ? gpuTeardownOf(event, finiIndex, nextLine) : undefined;
    const evidenceLines = teardown ? [...event.evidence, { line: teardown.fini.line, text: teardown.fini.text }] : event.evidence;
    const base = {
      evidence: evidenceLines.map((line) => line.text),
      evidenceLines,
      ...(event.timestamp !== undefined ? { timestamp: event.timestamp } : {}),
      victim,
      missing: event.missing,
      event,
    };
    const unique = (name: string): string => {
      let id = `oom.${name}:${firstLine}`;
      const count = seen.get(id) ?? 0;
      seen.set(id, count + 1);
      if (count > 0) id = `${id}.${count}`;
      return id;
    };
    if (event.scope === 'global') {
      const verdict = globalVerdict(event, victim, context, pods, '', base, teardown);
      const strong = teardown !== undefined || (verdict.gtt !== undefined && verdict.gtt.strength !== 'possible');
      verdicts.push({ ...verdict, id: unique(strong ? 'global-gtt' : 'global') });
    } else if (event.scope === 'memcg') verdicts.push(memcgVerdict(event, victim, unique('memcg'), base));
    else verdicts.push(unknownVerdict(event, victim, unique('unclassified'), base));
  }
  return { verdicts, outcome: 'complete' };
}
