// Each HAMi pod's allocation from the API server, for the node-side quota check (verdicts/hami/hamiQuota.ts):
// `hami.io/vgpu-devices-allocated`, per device UUID, in MiB, summed over the pod's containers.
import type { HamiPodQuota } from '../verdicts/hami/hamiQuotaRow.ts';
import { summarizePod } from './pods.ts';

export function hamiPodQuotas(pods: readonly unknown[]): Map<string, HamiPodQuota> {
  const quotas = new Map<string, HamiPodQuota>();
  for (const pod of pods) {
    const summary = summarizePod(pod);
    const allocated = summary.hami?.allocated;
    if (summary.uid === undefined || allocated === undefined) continue;
    const devices = new Map<string, number>();
    for (const container of allocated)
      for (const device of container.devices) devices.set(device.uuid, (devices.get(device.uuid) ?? 0) + Math.max(0, device.usedMemMiB));
    quotas.set(summary.uid, { devices });
  }
  return quotas;
}
