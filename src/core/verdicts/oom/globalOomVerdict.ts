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
import { DEFAULT_HEADROOM_PERCENT } from '../../sizing.ts';

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
  const where = podLabel(victim) ?? 'a pod (the cgroup path is cut short in the log)';
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
  const title = teardown
    ? `The node ran out of memory and the kernel killed ${processLabel(victim)}, a process outside any pod that held GPU memory its RSS did not show.`
    : known
      ? `The node ran out of memory and the kernel killed ${processLabel(victim)}, a process outside any pod.`
      : 'The node ran out of memory (a global OOM); the log does not say which process was killed.';
  const explanation =
    [
      lead,
      victim.taskMemcg !== undefined ? `The victim's cgroup is ${victim.taskMemcg}, outside the kubelet's pod tree.` : '',
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
  const constraintNote =
    event.constraint !== undefined && event.constraint !== 'CONSTRAINT_NONE'
      ? ` The constraint ${event.constraint} means the allocation was limited to some memory nodes (cpuset or mempolicy), not by a memory cgroup.`
      : '';
  const lead = `${scopeEvidenceText(event)}${constraintNote}`;
  const words = victim.inKubepods
    ? inPodWords(event, victim, context, pods, facts, teardown, lead)
    : outsidePodWords(event, victim, facts, teardown, lead);
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
