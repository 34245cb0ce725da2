// The Clusters view's row for a GPU pod: its GPU requests, QoS, phase, restarts and OOM kills, and its HAMi
// allocation; and the order pods are listed in.
import type { ContainerRestarts, GpuPodSummary, GpuResourceRequest } from './pods.ts';
import { isHamiManaged } from './pods.ts';
import { markdownText, plainLabel } from '../text/escape.ts';
import type { IconSpec, TreeItemModel } from './treeItemModel.ts';
import { ageText, CONTEXT_VALUES, ERROR_COLOR, markdownBullet, markdownTooltip, plural, WARNING_COLOR } from './treeItemModel.ts';

function requestsText(resources: readonly GpuResourceRequest[]): string {
  let previousPrefix = '';
  return resources
    .filter((resource) => resource.amount !== undefined && resource.amount > 0)
    .map((resource) => {
      const slash = resource.name.indexOf('/');
      const prefix = slash >= 0 ? resource.name.slice(0, slash + 1) : '';
      const name = prefix !== '' && prefix === previousPrefix ? resource.name.slice(slash + 1) : resource.name;
      previousPrefix = prefix;
      return `${name} ${resource.request ?? resource.limit ?? '?'}`;
    })
    .join(', ');
}

/** "nvidia.com/gpu 1, gpumem 8192, gpucores 50" (several containers: "c1: …; c2: …"). */
export function podGpuRequestsText(pod: GpuPodSummary): string {
  if (pod.gpuContainers.length === 1) return requestsText(pod.gpuContainers[0]?.resources ?? []);
  return pod.gpuContainers.map((container) => `${container.container}: ${requestsText(container.resources)}`).join('; ');
}

/** "HAMi 8192 MiB, 50% cores on GPU-6f1d2c3b…" from the allocated annotation, plus the bind phase when not success. */
export function hamiAllocationText(pod: GpuPodSummary): string | undefined {
  const hami = pod.hami;
  if (!hami) return undefined;
  const entries = [...(hami.allocated ?? []), ...(hami.amdAllocated ?? [])];
  const devices = entries.flatMap((entry) => entry.devices);
  const parts: string[] = [];
  if (devices.length > 0) {
    const memory = devices.reduce((sum, device) => sum + device.usedMemMiB, 0);
    const cores = [...new Set(devices.map((device) => device.usedCores))];
    const ids = [...new Set(devices.map((device) => (device.uuid.length > 16 ? `${device.uuid.slice(0, 15)}…` : device.uuid)))];
    parts.push(`HAMi ${memory} MiB${cores.length === 1 ? `, ${cores[0]}% cores` : ''} on ${ids.join(', ')}`);
  } else if (hami.allocated !== undefined || hami.toAllocate !== undefined) {
    parts.push('HAMi: nothing allocated');
  }
  if (hami.bindPhase !== undefined && hami.bindPhase !== 'success') parts.push(`bind-phase ${hami.bindPhase}`);
  return parts.length > 0 ? parts.join(', ') : undefined;
}

function restartText(pod: GpuPodSummary, now: number): string | undefined {
  const oom = pod.restarts.filter((restart) => restart.oomKilled);
  if (pod.totalRestarts === 0 && oom.length === 0) return undefined;
  const when = oom.map((restart) => lastOomTime(restart)).find((time) => time !== undefined);
  const oomText = oom.length > 0 ? `, OOMKilled${when ? ` ${ageText(when, now) ?? ''}` : ''}`.trimEnd() : '';
  return `${plural(pod.totalRestarts, 'restart')}${oomText}`;
}

function lastOomTime(restart: ContainerRestarts): string | undefined {
  if (restart.current?.reason === 'OOMKilled') return restart.current.finishedAt;
  if (restart.lastTermination?.reason === 'OOMKilled') return restart.lastTermination.finishedAt;
  return undefined;
}

export function podTreeItem(pod: GpuPodSummary, now: number): TreeItemModel {
  const parts: string[] = [pod.namespace];
  const requests = podGpuRequestsText(pod);
  if (requests !== '') parts.push(requests);
  parts.push(pod.qosClass);
  if (pod.deleting) parts.push('Terminating');
  else if (pod.phase !== undefined && pod.phase !== 'Running') parts.push(pod.phase);
  const restarts = restartText(pod, now);
  if (restarts) parts.push(restarts);
  const hami = hamiAllocationText(pod);
  if (hami) parts.push(hami);

  const icon: IconSpec = pod.oomKilled
    ? { id: 'warning', color: WARNING_COLOR }
    : pod.phase === 'Failed'
      ? { id: 'error', color: ERROR_COLOR }
      : { id: 'package' };
  const lines: (string | undefined)[] = [];
  for (const restart of pod.restarts.filter((r) => r.oomKilled)) {
    const termination = restart.current?.reason === 'OOMKilled' ? restart.current : restart.lastTermination;
    lines.push(
      `⚠️ **OOMKilled:** container ${markdownText(restart.container)} (exit ${termination?.exitCode ?? '?'}${termination?.finishedAt ? `, ${markdownText(ageText(termination.finishedAt, now) ?? termination.finishedAt)}` : ''}). Run **Explain OOM Kills on Node** to see whether its cgroup limit or the whole node ran out.`,
      '',
    );
  }
  lines.push(
    markdownBullet('Namespace', markdownText(pod.namespace)),
    markdownBullet('Node', pod.nodeName ? markdownText(pod.nodeName) : undefined),
    markdownBullet('Phase', `${markdownText(pod.phase ?? 'Unknown')}${pod.deleting ? ' (terminating)' : ''}`),
    markdownBullet('QoS', `${pod.qosClass}${pod.qosSource === 'computed' ? ' (computed from the spec)' : ''}`),
    markdownBullet('Owner', pod.owner ? markdownText(pod.owner) : undefined),
    markdownBullet('Scheduler', pod.schedulerName ? markdownText(pod.schedulerName) : undefined),
    markdownBullet('Runtime class', pod.runtimeClassName ? markdownText(pod.runtimeClassName) : undefined),
    markdownBullet(
      'Privileged containers',
      pod.privilegedContainers.length > 0 ? markdownText(pod.privilegedContainers.join(', ')) : undefined,
    ),
  );
  for (const container of pod.gpuContainers) {
    lines.push(
      `- **GPU container ${markdownText(container.container)}**${container.role !== 'app' ? ` (${container.role})` : ''}: ${container.resources.map((r) => `${markdownText(r.name)} request ${markdownText(r.request ?? '—')} limit ${markdownText(r.limit ?? '—')}`).join('; ')}`,
    );
  }
  for (const restart of pod.restarts) {
    if (restart.restartCount === 0 && !restart.oomKilled) continue;
    const last = restart.lastTermination;
    lines.push(
      `- **Restarts of ${markdownText(restart.container)}:** ${restart.restartCount}${last ? `, last terminated ${markdownText(last.reason ?? '?')} (exit ${last.exitCode ?? '?'})` : ''}`,
    );
  }
  if (pod.hami) {
    const h = pod.hami;
    lines.push(
      markdownBullet('HAMi node', h.node ? markdownText(h.node) : undefined),
      markdownBullet('HAMi bind phase', h.bindPhase ? markdownText(h.bindPhase) : undefined),
    );
    for (const entry of h.allocated ?? []) {
      for (const device of entry.devices) {
        lines.push(
          `- **HAMi allocated${entry.container ? ` to ${markdownText(entry.container)}` : ''}:** ${markdownText(device.uuid)} (${markdownText(device.type)}), ${device.usedMemMiB} MiB, ${device.usedCores}% cores`,
        );
      }
    }
    for (const [key, value] of h.raw)
      lines.push(`- ${markdownText(key)}\\: ${markdownText(value.length > 200 ? `${value.slice(0, 200)}…` : value)}`);
    for (const problem of h.problems.slice(0, 5)) lines.push(`- problem: ${markdownText(problem)}`);
  }
  return {
    label: plainLabel(pod.name),
    description: plainLabel(parts.join(' · '), 240),
    tooltip: markdownTooltip(`Pod ${markdownText(pod.namespace)}/${markdownText(pod.name)}`, lines),
    icon,
    contextValue: isHamiManaged(pod) ? CONTEXT_VALUES.hamiPod : CONTEXT_VALUES.gpuPod,
    collapsible: false,
  };
}

/** GPU pods first by name; pods with an OOM kill are not reordered (the icon marks them). */
export function comparePods(a: GpuPodSummary, b: GpuPodSummary): number {
  return a.name.localeCompare(b.name, 'en', { numeric: true }) || a.namespace.localeCompare(b.namespace);
}
