// The words of the node-side HAMi quota verdicts (hamiQuota.ts): titles, explanations, remedies, and why
// the node's nvidia-smi cannot show the processes when it cannot.
import { formatBytes } from '../../sizing.ts';
import type { NvidiaNode } from '../../probe/nvidiaNode.ts';
import type { HamiQuotaRow } from './hamiQuotaRow.ts';
import type { Verdict } from '../verdict.ts';

export const QUOTA_IDS = {
  exceeded: 'hami.quota-exceeded',
  held: 'hami.quota-held',
  unknown: 'hami.quota-unknown',
} as const;

const WHY =
  "HAMi limits GPU memory in user space: libvgpu.so, preloaded into the container's processes, refuses allocations past CUDA_DEVICE_MEMORY_LIMIT_<i>. The node's nvidia-smi asks the driver, which HAMi does not hook, so it shows what the processes really hold (the CUDA context included, which HAMi-core also charges).";

/** Why nvidia-smi on the node cannot show the compute processes; undefined when it shows them. */
export function quotaUnknownReason(node: NvidiaNode): string | undefined {
  if (node.kind === 'absent') return `no nvidia-smi on the node (${node.reason})`;
  if (node.kind === 'failed') return `nvidia-smi failed${node.errors[0] ? `: ${node.errors[0]}` : ''}`;
  if (node.view.kind === 'other-namespace')
    return `nvidia-smi lists pids this /proc does not have (${node.view.absent.slice(0, 5).join(', ')}): it runs in another PID namespace`;
  if (node.view.kind === 'apps-failed')
    return `nvidia-smi --query-compute-apps failed${node.view.errors[0] ? `: ${node.view.errors[0]}` : ''}`;
  if (node.view.kind === 'none-listed')
    return `nvidia-smi lists no compute process${node.view.gpuMemoryUsedMiB ? ` although ${node.view.gpuMemoryUsedMiB} MiB of GPU memory is in use` : ''}; a containerised nvidia-smi without the host PID namespace lists none`;
  return undefined;
}

export function quotaVerdictOf(row: HamiQuotaRow, name: string): Omit<Verdict, 'evidence' | 'remedy'> | undefined {
  const used = row.usedBytes === undefined ? 'unknown' : formatBytes(row.usedBytes);
  const quota = row.quotaBytes === undefined ? 'unknown' : formatBytes(row.quotaBytes);
  switch (row.status.kind) {
    case 'exceeded':
      return {
        id: QUOTA_IDS.exceeded,
        severity: 'error',
        title: `${name} uses ${used} of its ${quota} quota on ${row.gpu}: HAMi does not enforce it (${formatBytes(row.status.over)} over).`,
        explanation: `${WHY} A pod above its quota got past libvgpu.so: enforcement is bypassed for it.`,
      };
    case 'held':
      return {
        id: QUOTA_IDS.held,
        severity: 'info',
        title: `${name} uses ${used} of its ${quota} quota on ${row.gpu}: within it, ${formatBytes(row.status.margin)} left.`,
        explanation: `${WHY} Within the quota now is not yet proof that allocation past it would be refused; only an allocation past it proves that.`,
      };
    case 'unknown':
      return {
        id: QUOTA_IDS.unknown,
        severity: 'info',
        title: `${name}: its HAMi quota${row.gpu === '—' ? '' : ` on ${row.gpu}`} cannot be checked from the node: ${row.status.reason}.`,
        explanation: WHY,
      };
    case 'idle':
      return undefined;
  }
}

export function quotaRemedy(row: HamiQuotaRow, name: string): string {
  switch (row.status.kind) {
    case 'exceeded':
      return `Find the way around libvgpu.so in ${name}: run the HAMi checklist on it (Check HAMi Enforcement, or gpumem inspect --pod), remove CUDA_DISABLE_CONTROL, make /etc/ld.so.preload name libvgpu.so, then recreate the pod. Until then the GPU's other tenants have no memory guarantee.`;
    case 'held':
      return 'Nothing to do now.';
    case 'idle':
      return 'Nothing to check until the pod runs CUDA work.';
    case 'unknown':
      if (row.status.reason.startsWith('no nvidia-smi'))
        return 'Probe the node with nvidia-smi on the PATH: over SSH to the host, or a debug image that has it.';
      if (row.status.reason.includes('PID namespace'))
        return "Run the node probe in the host PID namespace (gpumem's node debug pod does; so does SSH to the host).";
      if (row.status.reason.startsWith('nvidia-smi failed') || row.status.reason.startsWith('nvidia-smi --query-compute-apps failed'))
        return 'Fix the driver (nvidia-smi on the host must work), then probe again.';
      return 'Probe the node with the cluster known (Inspect Node from the Clusters view, or gpumem inspect --node), so the quota comes from hami.io/vgpu-devices-allocated.';
  }
}
