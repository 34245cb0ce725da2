// The NVIDIA part of an inspection report: the node's GPUs as nvidia-smi lists them, GPU memory per pod and
// GPU, the node's own GPU processes, and the one table that answers "which HAMi pods on this node are
// really limited?" — as Markdown, plain text and JSON. Every string from the target is escaped.
import type { Inspection, NodeInspection } from '../inspectionRun/analyze.ts';
import type { NvidiaProcess } from '../probe/nvidiaNode.ts';
import { formatBytes } from '../sizing.ts';
import { markdownText, terminalSafe } from '../text/escape.ts';
import type { HamiQuotaRow } from '../verdicts/hami/hamiQuota.ts';
import { quotaCell } from '../verdicts/hami/hamiQuota.ts';
import { quotaUnknownReason } from '../verdicts/hami/hamiQuotaWording.ts';
import type { PodNvidiaMemory } from '../verdicts/memory/nvidiaPodMemory.ts';
import { gpuLabel } from '../verdicts/memory/nvidiaPodMemory.ts';

const MiB = 1024 * 1024;
const mib = (value: number | undefined) => (value === undefined ? 'unknown' : formatBytes(value * MiB));
const bytes = (value: number | undefined) => (value === undefined ? 'unknown' : formatBytes(value));

function statusWord(row: HamiQuotaRow): string {
  switch (row.status.kind) {
    case 'exceeded':
      return `exceeded by ${formatBytes(row.status.over)}`;
    case 'held':
      return `held, ${formatBytes(row.status.margin)} left`;
    case 'idle':
      return 'no GPU process';
    case 'unknown':
      return `unknown: ${row.status.reason}`;
  }
}

export function nvidiaMarkdown(inspection: Inspection): string[] {
  const node = inspection.node;
  if (!node || node.nvidia.node.kind === 'absent') return [];
  const name = (uid: string) => markdownText(inspection.podNames.get(uid) ?? uid);
  const out: string[] = ['## NVIDIA (nvidia-smi on the node)', ''];
  const smi = node.nvidia.node;
  if (smi.kind === 'failed') {
    out.push(`nvidia-smi failed${smi.errors[0] ? `: ${markdownText(smi.errors[0])}` : ''}.`, '');
  } else {
    out.push(`From the ${smi.source === 'query' ? 'CSV queries' : 'default table (the queries failed or MIG is on)'}.`, '');
    out.push('| GPU | Name | Memory used | Memory total |', '| --- | --- | --- | --- |');
    for (const gpu of smi.gpus)
      out.push(
        `| ${gpu.index ?? '?'} | ${markdownText(gpu.name ?? '?')} | ${mib(gpu.memoryUsedMiB)} | ${gpu.unifiedMemory ? 'unified memory (system RAM)' : mib(gpu.memoryTotalMiB)} |`,
      );
    out.push('');
    const seen = quotaUnknownReason(smi);
    if (seen) out.push(`Processes: ${markdownText(seen)}.`, '');
    const pods = [...node.nvidia.pods];
    if (pods.length > 0) {
      out.push('| Pod | GPU | Used | Processes |', '| --- | --- | --- | --- |');
      for (const [uid, memory] of pods)
        for (const row of memory.gpus)
          out.push(
            `| ${name(uid)} | ${markdownText(row.gpu)} | ${bytes(row.usedBytes)} | ${row.processes.map((p) => markdownText(processName(p))).join(', ')} |`,
          );
      out.push('');
    }
    if (node.nvidia.nodeProcesses.length > 0)
      out.push(
        `Node processes (in no pod): ${node.nvidia.nodeProcesses.map((p) => markdownText(`${processName(p)} ${mib(p.usedMiB)} on ${gpuLabel(p)}`)).join(', ')}.`,
        '',
      );
  }
  if (node.hamiQuotas.length > 0) {
    out.push(
      '## HAMi quotas on this node',
      '',
      '| Pod | GPU | Used | Quota | Quota from | Verdict | Bypass evidence |',
      '| --- | --- | --- | --- | --- | --- | --- |',
    );
    for (const row of node.hamiQuotas)
      out.push(
        `| ${name(row.podUid)} | ${markdownText(row.gpu)} | ${bytes(row.usedBytes)} | ${bytes(row.quotaBytes)} | ${row.quotaSource?.kind ?? '—'} | ${markdownText(statusWord(row))} | ${markdownText(row.bypassEvidence.join('; ') || '—')} |`,
      );
    out.push('');
  }
  return out;
}

export function nvidiaText(inspection: Inspection): string[] {
  const node = inspection.node;
  if (!node || node.nvidia.node.kind === 'absent') return [];
  const line = (text: string) => terminalSafe(text, 'single-line');
  const out: string[] = ['', 'NVIDIA (nvidia-smi on the node):'];
  const smi = node.nvidia.node;
  if (smi.kind === 'failed') out.push(`  failed${smi.errors[0] ? `: ${line(smi.errors[0])}` : ''}`);
  else {
    for (const gpu of smi.gpus)
      out.push(
        `  GPU ${gpu.index ?? '?'} ${line(gpu.name ?? '?')}: ${mib(gpu.memoryUsedMiB)} of ${gpu.unifiedMemory ? 'unified memory' : mib(gpu.memoryTotalMiB)}`,
      );
    for (const [uid, memory] of node.nvidia.pods)
      for (const row of memory.gpus) out.push(`  ${line(inspection.podNames.get(uid) ?? uid)} ${row.gpu}: ${bytes(row.usedBytes)}`);
  }
  if (node.hamiQuotas.length > 0) {
    out.push('', 'HAMi quotas on this node:');
    for (const row of node.hamiQuotas)
      out.push(`  ${line(inspection.podNames.get(row.podUid) ?? row.podUid)} ${line(quotaCell(row))}: ${line(statusWord(row))}`);
  }
  return out;
}

function processName(process: NvidiaProcess): string {
  return `${process.comm ?? process.processName ?? '?'} (${process.pid})`;
}

function processJson(process: NvidiaProcess): object {
  return {
    pid: process.pid,
    gpu: gpuLabel(process),
    gpuUuid: process.gpuUuid ?? null,
    processName: process.processName ?? null,
    comm: process.comm ?? null,
    usedMiB: process.usedMiB ?? null,
    podUid: process.podUid ?? null,
    containerId: process.containerId ?? null,
    hamiEnv: process.record?.env ? Object.fromEntries(process.record.env) : null,
  };
}

export function podNvidiaJson(memory: PodNvidiaMemory | undefined): object | null {
  if (!memory) return null;
  return {
    unified: memory.unified,
    usedBytes: memory.usedBytes ?? null,
    gpus: memory.gpus.map((row) => ({
      gpu: row.gpu,
      gpuUuid: row.gpuUuid ?? null,
      usedBytes: row.usedBytes ?? null,
      processes: row.processes.map(processJson),
    })),
  };
}

export function nvidiaJson(node: NodeInspection): { nvidia: object; hamiQuotas: object[] } {
  const smi = node.nvidia.node;
  const nvidia =
    smi.kind === 'read'
      ? {
          kind: smi.kind,
          source: smi.source,
          driverVersion: smi.driverVersion ?? null,
          gpus: smi.gpus,
          processesSeen: smi.view,
          nodeProcesses: node.nvidia.nodeProcesses.map(processJson),
        }
      : smi;
  return {
    nvidia,
    hamiQuotas: node.hamiQuotas.map((row) => ({
      podUid: row.podUid,
      gpu: row.gpu,
      usedBytes: row.usedBytes ?? null,
      quotaBytes: row.quotaBytes ?? null,
      quotaSource: row.quotaSource ?? null,
      status: row.status.kind,
      ...(row.status.kind === 'unknown' ? { reason: row.status.reason } : {}),
      ...(row.status.kind === 'exceeded' ? { overBytes: row.status.over } : {}),
      ...(row.status.kind === 'held' ? { marginBytes: row.status.margin } : {}),
      processes: row.processes.map(processJson),
      bypassEvidence: row.bypassEvidence,
    })),
  };
}
