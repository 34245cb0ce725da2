// The Clusters view's row for a node: its GPU vendors and resources, HAMi registrations, pressure, readiness,
// taints and recent SystemOOM events.
import type { NodeMemoryEvent } from './events.ts';
import type { HamiRegistration } from './hamiNodeAnnotations.ts';
import type { GpuNodeSummary, GpuResourceAmount } from './nodes.ts';
import { formatBytes } from '../sizing.ts';
import { markdownText, plainLabel } from '../text/escape.ts';
import type { IconSpec, TreeItemModel } from './treeItemModel.ts';
import { ageText, CONTEXT_VALUES, markdownBullet, markdownTooltip, plural, WARNING_COLOR } from './treeItemModel.ts';

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
    markdownBullet('GPU vendors', node.vendors.length > 0 ? markdownText(node.vendors.join(', ')) : 'none seen'),
    markdownBullet('GPU product', node.product ? markdownText(node.product) : undefined),
    markdownBullet(
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
      markdownBullet(
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
    lines.push(markdownBullet('HAMi cordoned devices', markdownText(node.hami?.cordonedDevices.join(', ') ?? '')));
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
    markdownBullet('Kernel', node.kernelVersion ? markdownText(node.kernelVersion) : undefined),
    markdownBullet('OS', node.osImage ? markdownText(node.osImage) : undefined),
    markdownBullet('Runtime', node.containerRuntimeVersion ? markdownText(node.containerRuntimeVersion) : undefined),
    markdownBullet('Kubelet', node.kubeletVersion ? markdownText(node.kubeletVersion) : undefined),
    markdownBullet(
      'Addresses',
      node.addresses.length > 0 ? node.addresses.map((a) => `${markdownText(a.type)} ${markdownText(a.address)}`).join(', ') : undefined,
    ),
  );
  return {
    label: plainLabel(node.name),
    description: plainLabel(parts.join(' · '), 240),
    tooltip: markdownTooltip(`Node ${markdownText(node.name)}`, lines),
    icon,
    contextValue: CONTEXT_VALUES.node,
    collapsible: true,
  };
}
