// What the node's own nvidia-smi says: its GPUs, its compute processes joined to their pods through
// /proc/<pid>/cgroup, and whether it could see the processes at all. From the CSV queries, else from the
// default table (older drivers, MIG). A memory value nvidia-smi printed as a placeholder stays unknown.
import { DEFAULT_UNIFIED_MEMORY_LABELS } from '../config.ts';
import { matchingRule } from '../analysis/unifiedMemory.ts';
import type { Capture } from './capture.ts';
import { sectionFiles, sectionText } from './capture.ts';
import { parseSmiApps, parseSmiGpus } from './parsers/nvidiaSmi.ts';
import type { SmiPidRecord } from './parsers/nvidiaSmiPids.ts';
import { parseSmiPids } from './parsers/nvidiaSmiPids.ts';
import { parseSmiTable } from './parsers/nvidiaSmiTable.ts';
import { parsePodCgroup } from './podCgroup.ts';

export interface NvidiaGpu {
  readonly index: number | undefined;
  readonly uuid: string | undefined;
  readonly name: string | undefined;
  readonly memoryTotalMiB: number | undefined;
  readonly memoryUsedMiB: number | undefined;
  /** memory.total is a placeholder and the product is a unified-memory one (GB10): its memory is system RAM. */
  readonly unifiedMemory: boolean;
  readonly migEnabled: boolean;
  /** The line nvidia-smi printed for it. */
  readonly evidence: string;
}

export interface NvidiaProcess {
  readonly pid: number;
  readonly gpuUuid: string | undefined;
  readonly gpuIndex: number | undefined;
  /** MIG GPU and compute instance, from the table only. */
  readonly gi: number | undefined;
  readonly ci: number | undefined;
  readonly processName: string | undefined;
  readonly comm: string | undefined;
  /** MiB as nvidia-smi printed it; undefined when it printed a placeholder (unknown, never 0). */
  readonly usedMiB: number | undefined;
  readonly podUid: string | undefined;
  readonly containerId: string | undefined;
  /** The process's record from the node (cgroup, comm, HAMi's limit variables), when the node has the pid. */
  readonly record: SmiPidRecord | undefined;
  readonly evidence: string;
}

/** Whether the processes nvidia-smi lists can be trusted to be all of them. */
export type NvidiaProcessView =
  | { readonly kind: 'listed' }
  /** nvidia-smi listed none. Either none runs, or it cannot see them (a containerised nvidia-smi without the host PID namespace). */
  | { readonly kind: 'none-listed'; readonly gpuMemoryUsedMiB: number | undefined }
  /** It listed pids this /proc does not have: it runs in another PID namespace. */
  | { readonly kind: 'other-namespace'; readonly absent: readonly number[] }
  /** The compute-apps query failed and no table lists the processes. */
  | { readonly kind: 'apps-failed'; readonly errors: readonly string[] };

export type NvidiaNode =
  | { readonly kind: 'absent'; readonly reason: string }
  | { readonly kind: 'failed'; readonly errors: readonly string[]; readonly rc: number | undefined }
  | {
      readonly kind: 'read';
      readonly source: 'query' | 'table';
      readonly driverVersion: string | undefined;
      readonly gpus: readonly NvidiaGpu[];
      readonly processes: readonly NvidiaProcess[];
      readonly view: NvidiaProcessView;
      readonly problems: readonly string[];
    };

const NVIDIA_PRODUCT_LABEL = 'nvidia.com/gpu.product';

/** GB10 and its kin, by the same rule the linter applies to GPU feature discovery's product label (config.ts). */
export function isUnifiedMemoryProduct(name: string | undefined): boolean {
  if (name === undefined) return false;
  return matchingRule(DEFAULT_UNIFIED_MEMORY_LABELS, NVIDIA_PRODUCT_LABEL, [name, name.split(' ').join('-')]) !== undefined;
}

export function buildNvidiaNode(capture: Capture): NvidiaNode {
  const gpuSection = capture.sections.get('nvidia-smi.gpu');
  if (!gpuSection) return { kind: 'absent', reason: 'the capture has no nvidia-smi section (an older probe)' };
  if (gpuSection.missing.includes('nvidia-smi')) return { kind: 'absent', reason: 'nvidia-smi is not on the node probe’s PATH' };
  const pidsSection = capture.sections.get('nvidia-smi.pids');
  const pids = parseSmiPids(sectionFiles(capture, 'nvidia-smi.pids'), pidsSection?.missing ?? []);
  const gpuText = sectionText(capture, 'nvidia-smi.gpu') ?? '';
  const appsSection = capture.sections.get('nvidia-smi.apps');
  const appsText = sectionText(capture, 'nvidia-smi.apps') ?? '';
  const queryGpus = parseSmiGpus(gpuText);
  const queryApps = parseSmiApps(appsText);
  const queryWorked = gpuSection.rc === 0 && queryGpus.rows.length > 0 && queryGpus.errors.length === 0;
  const appsWorked = appsSection?.rc === 0 && queryApps.errors.length === 0;
  const table = parseSmiTable(sectionText(capture, 'nvidia-smi.table') ?? '');
  const problems = [...queryGpus.problems, ...queryApps.problems];

  let gpus: NvidiaGpu[];
  let source: 'query' | 'table';
  if (queryWorked) {
    source = 'query';
    gpus = queryGpus.rows.map((row) => ({
      index: row.index,
      uuid: row.uuid,
      name: row.name,
      memoryTotalMiB: row.memoryTotalMiB,
      memoryUsedMiB: row.memoryUsedMiB,
      unifiedMemory: row.memoryUnreported && isUnifiedMemoryProduct(row.name),
      migEnabled: row.migMode === 'Enabled',
      evidence: `nvidia-smi --query-gpu: ${row.line.slice(0, 300)}`,
    }));
  } else if (table.gpus.length > 0) {
    source = 'table';
    gpus = table.gpus.map((gpu) => ({
      index: gpu.index,
      uuid: undefined,
      name: gpu.name,
      memoryTotalMiB: gpu.memoryTotalMiB,
      memoryUsedMiB: gpu.memoryUsedMiB,
      unifiedMemory: gpu.memoryUnavailable !== undefined && isUnifiedMemoryProduct(gpu.name),
      migEnabled: table.migDevices.some((device) => device.gpu === gpu.index),
      evidence: `nvidia-smi: ${gpu.line
        .split('\n')
        .map((line) => line.trim().slice(0, 200))
        .join(' ')}`,
    }));
  } else {
    return { kind: 'failed', errors: [...queryGpus.errors, ...queryGpus.otherLines].slice(0, 5), rc: gpuSection.rc };
  }

  const byUuid = new Map(gpus.flatMap((gpu) => (gpu.uuid !== undefined ? [[gpu.uuid, gpu] as const] : [])));
  const join = (pid: number) => {
    const record = pids.records.get(pid);
    const pod = record?.cgroup !== undefined ? parsePodCgroup(record.cgroup) : undefined;
    return { record, podUid: pod?.podUid, containerId: pod?.containerId, comm: record?.comm };
  };
  let processes: NvidiaProcess[];
  // MIG: the table is the one output with each process's GI/CI, and its usage per instance.
  const useTable = table.sawProcesses && (!appsWorked || gpus.some((gpu) => gpu.migEnabled));
  if (!useTable) {
    processes = queryApps.rows.flatMap((row): NvidiaProcess[] =>
      row.pid === undefined
        ? []
        : [
            {
              pid: row.pid,
              gpuUuid: row.gpuUuid,
              // One GPU: every process is on it, whatever UUID text the row carries (a pasted capture may elide it).
              gpuIndex:
                (row.gpuUuid !== undefined ? byUuid.get(row.gpuUuid)?.index : undefined) ??
                (gpus.length === 1 ? gpus[0]?.index : undefined),
              gi: undefined,
              ci: undefined,
              processName: row.processName,
              usedMiB: row.usedMemoryMiB,
              ...join(row.pid),
              evidence: `nvidia-smi --query-compute-apps: ${row.line.slice(0, 300)}`,
            },
          ],
    );
  } else {
    const byIndex = new Map(gpus.flatMap((gpu) => (gpu.index !== undefined ? [[gpu.index, gpu] as const] : [])));
    processes = table.processes
      .filter((row) => row.type.includes('C') || row.type === 'M')
      .map((row) => ({
        pid: row.pid,
        gpuUuid: byIndex.get(row.gpu)?.uuid,
        gpuIndex: row.gpu,
        gi: row.gi,
        ci: row.ci,
        processName: row.name,
        usedMiB: row.usedMemoryMiB,
        ...join(row.pid),
        evidence: `nvidia-smi: ${row.line.trim().slice(0, 300)}`,
      }));
  }
  let view: NvidiaProcessView;
  if (pids.absent.length > 0) view = { kind: 'other-namespace', absent: pids.absent };
  else if (!appsWorked && !useTable) view = { kind: 'apps-failed', errors: [...queryApps.errors, ...queryApps.otherLines].slice(0, 5) };
  else if (processes.length === 0) {
    const used = gpus.reduce<number | undefined>(
      (total, gpu) => (gpu.memoryUsedMiB === undefined ? total : (total ?? 0) + gpu.memoryUsedMiB),
      undefined,
    );
    view = { kind: 'none-listed', gpuMemoryUsedMiB: used };
  } else view = { kind: 'listed' };
  if (pids.truncated) problems.push('nvidia-smi.pids: more compute processes than the probe reads; the rest are not attributed');
  return { kind: 'read', source, driverVersion: queryGpus.rows[0]?.driverVersion ?? table.driverVersion, gpus, processes, view, problems };
}
