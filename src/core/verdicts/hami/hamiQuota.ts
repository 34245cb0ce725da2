// HAMi enforcement proven or refuted from the node, with no write and no exec into the tenant: for every
// pod HAMi manages on the node, its quota per GPU against the GPU memory its processes really hold, as the
// node's own nvidia-smi lists it (nvidiaPodMemory.ts). HAMi's troubleshooting page ("GPU Memory Enforcement:
// How It Works and How to Debug It") says a mapped libvgpu.so proves nothing; memory held past the quota,
// as the driver reports it, does prove a bypass. The quota comes from, in this order:
// - the pod's `hami.io/vgpu-devices-allocated` annotation (per device UUID, MiB; the API server's record),
// - HAMi's `CUDA_DEVICE_MEMORY_LIMIT_<i>` in the processes' environ (read on the node, filtered by the probe),
// - the limit HAMi-core wrote into the container's shared-region cache on the node.
// The comparison is per pod and GPU (summed over its containers); one pod's processes over quota on one GPU
// are a proven bypass whatever the rest of the checklist says.
import { formatBytes } from '../../sizing.ts';
import type { NvidiaProcess } from '../../probe/nvidiaNode.ts';
import type { HamiCache } from '../../probe/parsers/hamiCache.ts';
import { cacheLimit } from '../../probe/parsers/hamiCache.ts';
import type { Check } from './hamiCheck.ts';
import { isTrue, parseHamiLimit } from './hamiFacts.ts';
import type { NvidiaAccounting } from '../memory/nvidiaPodMemory.ts';
import { processEvidence } from '../memory/nvidiaPodMemory.ts';
import { quotaRemedy, quotaUnknownReason, quotaVerdictOf } from './hamiQuotaWording.ts';
import type { HamiPodQuota, HamiQuotaRow, QuotaSource, QuotaStatus } from './hamiQuotaRow.ts';
import type { Verdict } from '../verdict.ts';

export type { HamiPodQuota, HamiQuotaRow, QuotaSource, QuotaStatus };

const MiB = 1024 * 1024;

export interface HamiQuotaInput {
  readonly nvidia: NvidiaAccounting;
  /** Pod UID → its allocation, when the cluster is known. */
  readonly quotas?: ReadonlyMap<string, HamiPodQuota>;
  /** The node's HAMi shared-region caches (`hami.caches`). */
  readonly caches: readonly HamiCache[];
}

/** `…/containers/<pod uid>_<container>/<x>.cache` → the pod UID. */
export function cachePodUid(path: string): string | undefined {
  const at = path.lastIndexOf('/containers/');
  if (at < 0) return undefined;
  const uid = path.slice(at + '/containers/'.length, at + '/containers/'.length + 36);
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(uid) ? uid : undefined;
}

export function hamiQuotaRows(input: HamiQuotaInput): HamiQuotaRow[] {
  const { nvidia, quotas, caches } = input;
  const cachesByPod = new Map<string, HamiCache[]>();
  for (const cache of caches) {
    const uid = cachePodUid(cache.path);
    if (uid !== undefined) cachesByPod.set(uid, [...(cachesByPod.get(uid) ?? []), cache]);
  }
  const hamiPods = new Set<string>([...(quotas?.keys() ?? []), ...cachesByPod.keys()]);
  for (const [uid, memory] of nvidia.pods) {
    if (memory.gpus.some((row) => row.processes.some((process) => limitEntries(process).length > 0))) hamiPods.add(uid);
  }
  const rows: HamiQuotaRow[] = [];
  const blind = quotaUnknownReason(nvidia.node);
  for (const podUid of [...hamiPods].sort()) {
    const memory = nvidia.pods.get(podUid);
    if (!memory || memory.gpus.length === 0) {
      rows.push({
        podUid,
        gpu: '—',
        usedBytes: undefined,
        quotaBytes: undefined,
        quotaSource: undefined,
        status: blind !== undefined ? { kind: 'unknown', reason: blind } : { kind: 'idle' },
        processes: [],
        bypassEvidence: [],
      });
      continue;
    }
    for (const gpu of memory.gpus) {
      const quota = quotaFor(podUid, gpu.gpuUuid, memory.gpus.length, gpu.processes, quotas?.get(podUid), cachesByPod.get(podUid) ?? []);
      const used = gpu.usedBytes;
      let status: QuotaStatus;
      if (used === undefined) status = { kind: 'unknown', reason: 'nvidia-smi printed no number for the processes’ used memory' };
      else if (quota.bytes === undefined) status = { kind: 'unknown', reason: quota.reason };
      else if (used > quota.bytes) status = { kind: 'exceeded', over: used - quota.bytes };
      else status = { kind: 'held', margin: quota.bytes - used };
      rows.push({
        podUid,
        gpu: gpu.gpu,
        usedBytes: used,
        quotaBytes: quota.bytes,
        quotaSource: quota.source,
        status,
        processes: gpu.processes,
        bypassEvidence: gpu.processes.flatMap(bypassLines),
      });
    }
  }
  return rows;
}

interface QuotaFound {
  readonly bytes: number | undefined;
  readonly source: QuotaSource | undefined;
  readonly reason: string;
}

function quotaFor(
  podUid: string,
  gpuUuid: string | undefined,
  gpuCount: number,
  processes: readonly NvidiaProcess[],
  annotation: HamiPodQuota | undefined,
  caches: readonly HamiCache[],
): QuotaFound {
  if (annotation) {
    if (gpuUuid === undefined)
      return {
        bytes: undefined,
        source: undefined,
        reason: 'nvidia-smi gave no GPU UUID to match the hami.io/vgpu-devices-allocated devices',
      };
    const mib = annotation.devices.get(gpuUuid);
    if (mib === undefined)
      return {
        bytes: undefined,
        source: undefined,
        reason: `hami.io/vgpu-devices-allocated names no device ${gpuUuid}: the pod uses a GPU HAMi did not give it`,
      };
    if (mib > 0)
      return {
        bytes: mib * MiB,
        source: { kind: 'annotation', line: `pod ${podUid}: hami.io/vgpu-devices-allocated ${gpuUuid} ${mib} MiB` },
        reason: '',
      };
  }
  // The environ's limits are per device index inside the container; from the node, index i can be matched to a
  // host GPU only when the pod uses one GPU, or every index has the same limit.
  const entries = processes.flatMap((process) => limitEntries(process).map((entry) => ({ ...entry, pid: process.pid })));
  const values = new Set(entries.map((entry) => entry.bytes));
  const first =
    entries.find((entry) => entry.key === 'CUDA_DEVICE_MEMORY_LIMIT_0' || entry.key === 'CUDA_DEVICE_MEMORY_LIMIT') ?? entries[0];
  if (first && (gpuCount === 1 || values.size === 1)) {
    if (first.bytes > 0)
      return { bytes: first.bytes, source: { kind: 'environ', line: `pid ${first.pid} environ: ${first.key}=${first.value}` }, reason: '' };
    return {
      bytes: undefined,
      source: undefined,
      reason: `pid ${first.pid} environ: ${first.key}=${first.value} is no limit to HAMi-core (0)`,
    };
  }
  if (entries.length > 0)
    return {
      bytes: undefined,
      source: undefined,
      reason:
        'the pod uses several GPUs with different CUDA_DEVICE_MEMORY_LIMIT_<i>; which index is which host GPU is not visible from the node',
    };
  const cache = caches.find((candidate) => (cacheLimit(candidate, 0) ?? 0) > 0);
  const limit = cache ? cacheLimit(cache, 0) : undefined;
  if (cache && limit !== undefined && (gpuCount === 1 || caches.every((c) => cacheLimit(c, 0) === limit)))
    return { bytes: limit, source: { kind: 'cache', line: `${cache.path}: limit[0] = ${limit}` }, reason: '' };
  return {
    bytes: undefined,
    source: undefined,
    reason:
      'no quota found: no hami.io/vgpu-devices-allocated (cluster not known), no CUDA_DEVICE_MEMORY_LIMIT_<i> in the processes’ environ, no HAMi cache limit',
  };
}

function limitEntries(process: NvidiaProcess): { key: string; value: string; bytes: number }[] {
  const env = process.record?.env;
  if (!env) return [];
  return [...env]
    .filter(([key]) => key.startsWith('CUDA_DEVICE_MEMORY_LIMIT'))
    .map(([key, value]) => ({ key, value, bytes: parseHamiLimit(value) }));
}

function bypassLines(process: NvidiaProcess): string[] {
  const record = process.record;
  if (!record) return [`pid ${process.pid}: not in this node's /proc (no environ to read)`];
  const out: string[] = [];
  const disable = record.env?.get('CUDA_DISABLE_CONTROL');
  if (isTrue(disable))
    out.push(`pid ${process.pid} environ: CUDA_DISABLE_CONTROL=${disable}: HAMi's device plugin mounts no preload for it`);
  if (record.environUnreadable) out.push(`pid ${process.pid}: environ unreadable`);
  else if (record.env && limitEntries(process).length === 0)
    out.push(`pid ${process.pid} environ: no CUDA_DEVICE_MEMORY_LIMIT_<i>: not started with HAMi's environment`);
  return out;
}

/** One verdict per pod and GPU: exceeded (error), held (info: a pass), unknown (info); idle pods get none. */
export function hamiQuotaVerdicts(
  rows: readonly HamiQuotaRow[],
  podNames: ReadonlyMap<string, string>,
  hostChecks: readonly Check[] = [],
): Verdict[] {
  const hostFacts = hostChecks
    .filter((check) => check.status !== 'unknown')
    .map((check) => `node: ${check.title}: ${check.status} (${check.summary})`);
  return rows.flatMap((row): Verdict[] => {
    const name = podNames.get(row.podUid) ?? `pod ${row.podUid}`;
    const processes = row.processes.map((process) => processEvidence(process, false));
    const quotaLine = row.quotaSource ? [row.quotaSource.line] : [];
    const verdict = quotaVerdictOf(row, name);
    if (verdict === undefined) return [];
    return [
      {
        ...verdict,
        evidence: [...quotaLine, ...processes, ...row.bypassEvidence, ...(row.status.kind === 'exceeded' ? hostFacts : [])].slice(0, 40),
        remedy: quotaRemedy(row, name),
      },
    ];
  });
}

/** The pods' quota summary for the reports: `GPU 0: 12 GiB of 8 GiB (exceeded)`. */
export function quotaCell(row: HamiQuotaRow): string {
  const used = row.usedBytes === undefined ? 'unknown' : formatBytes(row.usedBytes);
  const quota = row.quotaBytes === undefined ? 'unknown quota' : `${formatBytes(row.quotaBytes)} quota`;
  return `${row.gpu}: ${used} of ${quota}`;
}
