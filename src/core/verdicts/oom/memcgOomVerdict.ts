// The verdict on a memory-cgroup OOM kill (`oom_memcg=`, `constraint=CONSTRAINT_MEMCG`, "Memory cgroup out of
// memory", or the older "Task in … killed as a result of limit of …"): a limit was hit, and the limit's cgroup
// names the level (container, pod, the whole pod tree, or a system slice) and so the remedy.
import type { Severity } from '../../findings.ts';
import type { OomEvent } from '../../probe/parsers/oomReportLines.ts';
import { isKubepodsPath, kubepodsLevel } from '../../probe/podCgroup.ts';
import type { MemcgLimitLevel, MemcgOomVerdict, OomVerdictFacts } from './oomVerdictTypes.ts';
import { invokerText, missingText, scopeEvidenceText } from './oomVerdictText.ts';
import type { OomVictim } from './oomVictim.ts';
import { containerLabel, podLabel, processLabel, qosLabel } from './oomVictim.ts';
import { formatKb, suggestedMemoryQuantity, withHeadroom } from '../../sizing.ts';

const NODE_SERVICE_CGROUP = /(?:^|\/)(?:system|podruntime|runtime)\.slice(?:\/|$)|kubelet|containerd|crio|dockerd/;

function memcgLevel(event: OomEvent): MemcgLimitLevel {
  const path = event.oomMemcg;
  if (path === undefined) return 'unknown';
  const level = kubepodsLevel(path);
  if (level !== undefined) return level;
  if (isKubepodsPath(path)) return 'unknown';
  return 'outside-kubepods';
}

export function memcgVerdict(
  event: OomEvent,
  victim: OomVictim,
  id: string,
  base: OomVerdictFacts,
  headroomPercent: number,
): MemcgOomVerdict {
  const level = memcgLevel(event);
  const usage = event.memcgUsage;
  const where = podLabel(victim) ?? (victim.placement.kind === 'pod-unnamed' ? 'a pod the log does not name' : undefined);
  const who = `The kernel killed ${processLabel(victim)}${where !== undefined ? ` in ${where}` : ''}`;
  const usageText = usage ? ` (usage ${formatKb(usage.usageKb)} of a ${formatKb(usage.limitKb)} limit)` : '';
  let title: string;
  let severity: Severity = 'warning';
  let remedy: string;
  const target = usage ? suggestedMemoryQuantity(withHeadroom(Math.max(usage.limitKb, usage.usageKb) * 1024, headroomPercent)) : undefined;
  const raiseTo =
    usage && target !== undefined
      ? ` to at least ${target} (${headroomPercent} % over the ${formatKb(usage.limitKb)} it hit)`
      : ` by ${headroomPercent} % over the observed peak`;
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
