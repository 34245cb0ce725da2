// GPUReclaim, the Linux 7.1+ /proc/meminfo counter of GPU pages in the TTM reuse pools: reclaimable by the
// shrinker, yet left out of MemAvailable (Documentation/filesystems/proc.rst). A value above MemTotal has been
// seen in the field and is not used. The one place that reads it and says what it means; the accounting
// verdict, the kernel checks and the inspection report all take their words from here.
import { formatBytes } from '../../sizing.ts';
import type { NodeModel } from '../../probe/nodeModel.ts';

export type GpuReclaimCheck =
  | { readonly kind: 'absent' }
  | { readonly kind: 'plausible'; readonly bytes: number }
  | { readonly kind: 'implausible'; readonly bytes: number; readonly memTotal: number };

export function checkGpuReclaim(model: NodeModel): GpuReclaimCheck {
  const bytes = model.meminfo.get('GPUReclaim');
  if (bytes === undefined) return { kind: 'absent' };
  const memTotal = model.meminfo.get('MemTotal');
  if (memTotal !== undefined && bytes > memTotal) return { kind: 'implausible', bytes, memTotal };
  return { kind: 'plausible', bytes };
}

/** MemAvailable plus a plausible GPUReclaim: what is really available. */
export function availableWithReclaim(memAvailable: number | undefined, check: GpuReclaimCheck): number | undefined {
  return memAvailable === undefined ? undefined : memAvailable + (check.kind === 'plausible' ? check.bytes : 0);
}

/** Evidence lines for a verdict: what the counter says and whether it is used. */
export function gpuReclaimEvidence(check: GpuReclaimCheck, available: number | undefined): string[] {
  if (check.kind === 'absent') return [];
  if (check.kind === 'implausible')
    return [
      `GPUReclaim: ${check.bytes} (${formatBytes(check.bytes)}) is above MemTotal: an implausible counter, not counted as reclaimable`,
    ];
  return [
    `GPUReclaim: ${check.bytes} (${formatBytes(check.bytes)}) is reclaimable but not in MemAvailable: ${formatBytes(available ?? check.bytes)} is really available`,
  ];
}

/** The counter in a list of GPU counters, e.g. `GPUReclaim 1.2 GiB` (0 when the kernel does not print it). */
export function gpuReclaimShort(check: GpuReclaimCheck): string {
  return `GPUReclaim ${formatBytes(check.kind === 'absent' ? 0 : check.bytes)}`;
}

/** Rows of a memory table (label, value), the values written by the table's own byte formatter. */
export function gpuReclaimRows(
  check: GpuReclaimCheck,
  available: number | undefined,
  bytes: (value: number | undefined) => string,
): (readonly [string, string])[] {
  if (check.kind === 'plausible')
    return [
      ['GPUReclaim (7.1+, reclaimable)', bytes(check.bytes)],
      ['Available incl. GPUReclaim', bytes(available)],
    ];
  if (check.kind === 'implausible') return [['GPUReclaim (7.1+)', `${bytes(check.bytes)}, above MemTotal: not used`]];
  return [];
}
