// What the Clusters view shows for a kubeconfig context, a node and a GPU pod, as plain data: label,
// description, tooltip (Markdown), codicon and contextValue. Pure, so the tree's content is tested without
// VS Code against the simulator through the real client (test/integration/clusterTree.test.ts); the view
// (src/vscode/clusters/clusterTree.ts) only copies these fields into TreeItems.
//
// Everything from a cluster or a kubeconfig is untrusted text:
// - labels and descriptions are plain text (VS Code renders them as text); control characters become spaces
//   and very long values are cut, so a hostile name cannot break the row;
// - tooltips are Markdown (the view sets isTrusted=false, no HTML, no theme icons) in which every value goes
//   through markdownText(), which backslash-escapes all ASCII punctuation: no link, image, HTML, emphasis, table
//   or autolinked URL can come from a value.
import type { ContextState } from './contextState.ts';
import { describeContextState } from './contextState.ts';
import { explainForbidden } from './failureMessages.ts';
import type { NodeMemoryEvent } from './events.ts';
import type { HamiRegistration } from './hamiNodeAnnotations.ts';
import type { GpuNodeSummary, GpuResourceAmount } from './nodes.ts';
import type { ContainerRestarts, GpuPodSummary, GpuResourceRequest } from './pods.ts';
import { isHamiManaged } from './pods.ts';
import { formatBytes } from '../quantity.ts';
import { markdownText, plainLabel } from '../text/escape.ts';

export const CONTEXT_VALUES = {
  context: 'gpumem.context',
  node: 'gpumem.node',
  gpuPod: 'gpumem.gpuPod',
  hamiPod: 'gpumem.hamiPod',
  message: 'gpumem.message',
} as const;

export interface IconSpec {
  /** A codicon id, e.g. `circuit-board`, `warning`, `loading~spin`. */
  readonly id: string;
  /** A theme color id, e.g. `list.warningForeground`. */
  readonly color?: string;
}

export interface TreeItemModel {
  readonly label: string;
  readonly description: string;
  /** Markdown; every value from the cluster is escaped with markdownText(). */
  readonly tooltip: string;
  readonly icon: IconSpec;
  readonly contextValue: string;
  readonly collapsible: boolean;
}

const WARNING_COLOR = 'list.warningForeground';
const ERROR_COLOR = 'list.errorForeground';

/** "20m ago", "3h ago", "2d ago"; undefined without a parsable time. */
export function ageText(time: string | undefined, now: number): string | undefined {
  if (time === undefined) return undefined;
  const at = Date.parse(time);
  if (Number.isNaN(at)) return undefined;
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 90) return `${seconds}s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes}m ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours}h ago`;
  return `${Math.round(hours / 24)}d ago`;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function bullet(label: string, value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : `- **${label}:** ${value}`;
}

function tooltip(title: string, lines: readonly (string | undefined)[]): string {
  return [`**${title}**`, '', ...lines.filter((line): line is string => line !== undefined)].join('\n');
}

// ---------------------------------------------------------------------------------------------------
// Contexts

/** A kubeconfig context as read (src/kube/kubeconfig.ts adds the client-node KubeConfig to it). */
export interface ContextDescription {
  readonly name: string;
  readonly cluster: string;
  readonly user: string;
  readonly namespace: string | undefined;
  /** The API server URL, when the context's cluster exists. */
  readonly server: string | undefined;
  readonly proxyUrl: string | undefined;
  /** The user authenticates with an exec credential plugin (its command). */
  readonly execCommand: string | undefined;
  /** The file that defined the context. */
  readonly file: string;
  /** Why this context cannot be used (its cluster is missing…); undefined when it is complete. */
  readonly problem: string | undefined;
}

export interface ContextInfo extends ContextDescription {
  /** The kubeconfig's current-context (only shown: gpumem never changes it). */
  readonly current: boolean;
}

export interface ContextProgress {
  /** A probe or the node list is in flight. */
  readonly connecting: boolean;
  /** Set once the nodes are listed. */
  readonly nodes?: { readonly total: number; readonly gpu: number };
}

export function contextTreeItem(info: ContextInfo, state: ContextState, progress: ContextProgress): TreeItemModel {
  const view = describeContextState(state, `context "${info.name}"`);
  // describeContextState's can-i line would carry the quoted label: ours quotes the name for the shell.
  const action = state.kind === 'Forbidden' ? explainForbidden(state.verb, state.resource, { context: info.name }) : view.action;
  const parts: string[] = [];
  if (info.current) parts.push('current');
  let icon: IconSpec;
  if (progress.connecting) {
    parts.push('connecting…');
    icon = { id: 'loading~spin' };
  } else {
    switch (state.kind) {
      case 'Reachable':
        parts.push(state.version);
        if (progress.nodes) parts.push(`${plural(progress.nodes.total, 'node')}, ${progress.nodes.gpu} GPU`);
        icon = { id: 'vm-active', color: 'charts.green' };
        break;
      case 'Forbidden':
        parts.push(view.label);
        icon = { id: 'lock', color: WARNING_COLOR };
        break;
      case 'Unreachable':
        parts.push(view.label);
        icon = { id: 'debug-disconnect', color: ERROR_COLOR };
        break;
      case 'Unknown':
        parts.push(info.execCommand ? 'expand to connect' : 'not checked');
        icon = { id: 'vm-outline' };
        break;
    }
  }
  const lines = [
    state.kind === 'Unknown' ? undefined : markdownText(view.message),
    action ? `\n${markdownText(action)}\n` : undefined,
    bullet('Cluster', markdownText(info.cluster)),
    bullet('Server', info.server ? markdownText(info.server) : undefined),
    bullet('User', markdownText(info.user)),
    bullet('Namespace', info.namespace ? markdownText(info.namespace) : undefined),
    bullet('Proxy', info.proxyUrl ? markdownText(info.proxyUrl) : undefined),
    bullet(
      'Credentials',
      info.execCommand ? `exec plugin ${markdownText(info.execCommand)} (runs when the context is expanded)` : undefined,
    ),
    bullet('Defined in', markdownText(info.file)),
    info.problem ? bullet('Problem', markdownText(info.problem)) : undefined,
    info.current ? "\nThe kubeconfig's current context. gpumem shows every context and never changes the kubeconfig." : undefined,
  ];
  return {
    label: plainLabel(info.name),
    description: plainLabel(parts.join(' · ')),
    tooltip: tooltip(`Context ${markdownText(info.name)}`, lines),
    icon,
    contextValue: CONTEXT_VALUES.context,
    collapsible: true,
  };
}

// ---------------------------------------------------------------------------------------------------
// Nodes

/** Events seen within this window count as recent (the API server keeps events for 1 h by default). */
export const RECENT_EVENT_MS = 24 * 3600 * 1000;

export function recentEvents(events: readonly NodeMemoryEvent[], now: number, windowMs = RECENT_EVENT_MS): NodeMemoryEvent[] {
  return events.filter((event) => {
    const at = event.lastTime === undefined ? Number.NaN : Date.parse(event.lastTime);
    return Number.isNaN(at) || now - at <= windowMs;
  });
}

function amountText(resource: GpuResourceAmount): string {
  const cap = resource.capacity ?? '?';
  const alloc = resource.allocatable ?? '?';
  return cap === alloc ? `${resource.name} ${cap}` : `${resource.name} ${alloc}/${cap} allocatable`;
}

function registrationText(registration: HamiRegistration): string {
  if (registration.format === 'empty') return `HAMi ${registration.vendor}: empty registration`;
  if (registration.format === 'invalid') return `HAMi ${registration.vendor}: unreadable registration`;
  const devices = registration.devices;
  const memory = devices.reduce((sum, device) => sum + device.devmemMiB, 0);
  const splits = [...new Set(devices.map((device) => device.count))];
  const unhealthy = devices.filter((device) => !device.health).length;
  const parts = [`HAMi ${plural(devices.length, 'GPU')}`, formatBytes(memory * 2 ** 20)];
  if (splits.length === 1 && (splits[0] ?? 0) > 1) parts.push(`split ${splits[0]}`);
  if (unhealthy > 0) parts.push(`${unhealthy} unhealthy`);
  return `${parts.join(', ')} (${registration.format === 'json' ? 'JSON, HAMi ≥ 2.8' : 'CSV, HAMi ≤ 2.7'})`;
}

/** One-line summary of the HAMi registrations, or undefined when the node has none. */
export function hamiRegistrationSummary(node: GpuNodeSummary): string | undefined {
  const registrations = node.hami?.registrations ?? [];
  if (registrations.length === 0) return node.hami ? 'HAMi annotations, no device registration' : undefined;
  return registrations.map(registrationText).join('; ');
}

export function nodeTreeItem(node: GpuNodeSummary, events: readonly NodeMemoryEvent[], now: number): TreeItemModel {
  const systemOoms = recentEvents(
    events.filter((event) => event.kind === 'SystemOOM'),
    now,
  );
  const oomCount = systemOoms.reduce((sum, event) => sum + event.count, 0);
  const pressure = node.memoryPressure?.status === 'True';
  const notReady = node.ready !== undefined && node.ready.status !== 'True';
  const parts: string[] = [];
  if (node.vendors.length > 0) parts.push(node.vendors.join('/'));
  else if (!node.isGpuNode) parts.push('no GPU');
  if (node.unifiedMemory.unified) parts.push('unified memory');
  for (const resource of node.gpuResources) if (resource.role === 'count' || resource.role === 'memory') parts.push(amountText(resource));
  const hami = hamiRegistrationSummary(node);
  if (hami) parts.push(hami);
  if (notReady) parts.push('NotReady');
  if (pressure) parts.push('MemoryPressure');
  if (node.unschedulable) parts.push('cordoned');
  if (node.taints.length > 0) parts.push(plural(node.taints.length, 'taint'));
  if (oomCount > 0) parts.push(`${oomCount} SystemOOM`);

  const icon: IconSpec =
    pressure || notReady || oomCount > 0
      ? { id: 'warning', color: WARNING_COLOR }
      : node.isGpuNode
        ? { id: 'circuit-board' }
        : { id: 'server' };

  const lines: (string | undefined)[] = [];
  if (pressure)
    lines.push(
      `⚠️ **MemoryPressure** since ${markdownText(node.memoryPressure?.lastTransitionTime ?? '?')}: ${markdownText(node.memoryPressure?.message ?? node.memoryPressure?.reason ?? '')}`,
      '',
    );
  if (notReady)
    lines.push(
      `⚠️ **Not ready** (${markdownText(node.ready?.reason ?? node.ready?.status ?? '?')}): ${markdownText(node.ready?.message ?? '')}`,
      '',
    );
  lines.push(
    bullet('GPU vendors', node.vendors.length > 0 ? markdownText(node.vendors.join(', ')) : 'none seen'),
    bullet('GPU product', node.product ? markdownText(node.product) : undefined),
    bullet(
      'Unified memory',
      node.unifiedMemory.unified ? `yes: GPU memory is system RAM (${markdownText(node.unifiedMemory.evidence ?? '')})` : undefined,
    ),
  );
  for (const resource of node.gpuResources) {
    lines.push(
      `- **${markdownText(resource.name)}:** capacity ${markdownText(resource.capacity ?? '—')}, allocatable ${markdownText(resource.allocatable ?? '—')}${resource.hamiOnly ? ' (HAMi)' : ''}`,
    );
  }
  if (node.memoryCapacityBytes !== undefined) {
    lines.push(
      bullet(
        'Memory',
        `capacity ${formatBytes(node.memoryCapacityBytes)}, allocatable ${node.memoryAllocatableBytes === undefined ? '—' : formatBytes(node.memoryAllocatableBytes)}`,
      ),
    );
  }
  for (const registration of node.hami?.registrations ?? []) {
    lines.push(`- **${markdownText(registration.annotation)}** (${registration.format}): ${markdownText(registrationText(registration))}`);
    for (const device of registration.devices.slice(0, 16)) {
      lines.push(
        `  - ${markdownText(device.id)}: ${markdownText(device.type)}, ${formatBytes(device.devmemMiB * 2 ** 20)}, split ${device.count}, ${device.devcore}% cores, ${device.health ? 'healthy' : 'UNHEALTHY'}${device.mode ? `, ${markdownText(device.mode)}` : ''}`,
      );
    }
    for (const problem of registration.problems.slice(0, 5)) lines.push(`  - problem: ${markdownText(problem)}`);
  }
  for (const handshake of node.hami?.handshakes ?? [])
    lines.push(`- **${markdownText(handshake.annotation)}:** ${markdownText(handshake.value)}`);
  if ((node.hami?.cordonedDevices.length ?? 0) > 0)
    lines.push(bullet('HAMi cordoned devices', markdownText(node.hami?.cordonedDevices.join(', ') ?? '')));
  for (const taint of node.taints)
    lines.push(
      `- **Taint:** ${markdownText(taint.key)}${taint.value !== undefined ? `\\=${markdownText(taint.value)}` : ''}\\:${markdownText(taint.effect)}`,
    );
  if (node.unschedulable) lines.push('- **Cordoned** (spec.unschedulable)');
  for (const event of systemOoms.slice(0, 5)) {
    const victim =
      event.victim !== undefined
        ? `${markdownText(event.victim)}${event.pid !== undefined ? ` (pid ${event.pid})` : ''}`
        : 'no process named';
    lines.push(
      `- **SystemOOM** ${markdownText(ageText(event.lastTime, now) ?? event.lastTime ?? '')}${event.count > 1 ? ` ×${event.count}` : ''}: global OOM kill of ${victim}`,
    );
  }
  lines.push(
    bullet('Kernel', node.kernelVersion ? markdownText(node.kernelVersion) : undefined),
    bullet('OS', node.osImage ? markdownText(node.osImage) : undefined),
    bullet('Runtime', node.containerRuntimeVersion ? markdownText(node.containerRuntimeVersion) : undefined),
    bullet('Kubelet', node.kubeletVersion ? markdownText(node.kubeletVersion) : undefined),
    bullet(
      'Addresses',
      node.addresses.length > 0 ? node.addresses.map((a) => `${markdownText(a.type)} ${markdownText(a.address)}`).join(', ') : undefined,
    ),
  );
  return {
    label: plainLabel(node.name),
    description: plainLabel(parts.join(' · '), 240),
    tooltip: tooltip(`Node ${markdownText(node.name)}`, lines),
    icon,
    contextValue: CONTEXT_VALUES.node,
    collapsible: true,
  };
}

// ---------------------------------------------------------------------------------------------------
// Pods

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
    bullet('Namespace', markdownText(pod.namespace)),
    bullet('Node', pod.nodeName ? markdownText(pod.nodeName) : undefined),
    bullet('Phase', `${markdownText(pod.phase ?? 'Unknown')}${pod.deleting ? ' (terminating)' : ''}`),
    bullet('QoS', `${pod.qosClass}${pod.qosSource === 'computed' ? ' (computed from the spec)' : ''}`),
    bullet('Owner', pod.owner ? markdownText(pod.owner) : undefined),
    bullet('Scheduler', pod.schedulerName ? markdownText(pod.schedulerName) : undefined),
    bullet('Runtime class', pod.runtimeClassName ? markdownText(pod.runtimeClassName) : undefined),
    bullet('Privileged containers', pod.privilegedContainers.length > 0 ? markdownText(pod.privilegedContainers.join(', ')) : undefined),
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
      bullet('HAMi node', h.node ? markdownText(h.node) : undefined),
      bullet('HAMi bind phase', h.bindPhase ? markdownText(h.bindPhase) : undefined),
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
    tooltip: tooltip(`Pod ${markdownText(pod.namespace)}/${markdownText(pod.name)}`, lines),
    icon,
    contextValue: isHamiManaged(pod) ? CONTEXT_VALUES.hamiPod : CONTEXT_VALUES.gpuPod,
    collapsible: false,
  };
}

/** GPU pods first by name; pods with an OOM kill are not reordered (the icon marks them). */
export function comparePods(a: GpuPodSummary, b: GpuPodSummary): number {
  return a.name.localeCompare(b.name, 'en', { numeric: true }) || a.namespace.localeCompare(b.namespace);
}

// ---------------------------------------------------------------------------------------------------
// Placeholders and errors

export type MessageKind = 'connecting' | 'loading' | 'empty' | 'error' | 'forbidden' | 'info';

export function messageTreeItem(kind: MessageKind, text: string, detail?: string): TreeItemModel {
  const icon: IconSpec =
    kind === 'connecting' || kind === 'loading'
      ? { id: 'loading~spin' }
      : kind === 'error'
        ? { id: 'error', color: ERROR_COLOR }
        : kind === 'forbidden'
          ? { id: 'lock', color: WARNING_COLOR }
          : { id: 'info' };
  return {
    label: plainLabel(text),
    description: '',
    tooltip: detail ? markdownText(detail) : markdownText(text),
    icon,
    contextValue: CONTEXT_VALUES.message,
    collapsible: false,
  };
}

/** The item under a node that has no GPU pods. */
export function noGpuPodsItem(otherPods: number): TreeItemModel {
  return messageTreeItem('empty', otherPods === 0 ? 'No pods' : `No GPU pods (${plural(otherPods, 'other pod')})`);
}

/** The last item under a node with GPU pods, when it also runs other pods. */
export function otherPodsItem(otherPods: number): TreeItemModel {
  return messageTreeItem(
    'info',
    `${plural(otherPods, 'pod')} without GPUs`,
    'Pods that request no GPU resource and carry no HAMi allocation are not listed.',
  );
}
