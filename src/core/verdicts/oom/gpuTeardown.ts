// The GPU teardown signature of a global OOM: the victim's resident set is tiny next to its virtual
// size, and right after the kill the amdgpu driver reports that the dying process's GPU VM still held
// memory ("VM memory stats for proc … is non-zero when fini", amdgpu_vm.c, amdgpu_vm_fini()). The
// memory the kill freed was GPU memory (GTT on an APU), which RSS and the memory cgroup never showed.

import type { AmdgpuVmFiniLine } from '../../probe/parsers/amdgpuVmFini.ts';
import { finiPids } from '../../probe/parsers/amdgpuVmFini.ts';
import type { OomEvent } from '../../probe/parsers/oomReportLines.ts';

/** RSS at most this share of total-vm counts as tiny (GPU runtimes map far more than they touch in RAM). */
const TINY_RSS_SHARE = 0.1;
/** The kernel's TASK_COMM_LEN minus its NUL: longer names are cut to this in both lines. */
const COMM_LENGTH = 15;
const MAX_QUOTE = 240;

export interface GpuTeardown {
  readonly fini: AmdgpuVmFiniLine;
  /** anon-rss + file-rss + shmem-rss of the victim, kB. */
  readonly rssKb: number;
  readonly totalVmKb: number;
}

/** pid → fini lines in log order. Built once per log: matching every event stays linear. */
export type FiniIndex = ReadonlyMap<number, readonly AmdgpuVmFiniLine[]>;

export function indexFiniLines(lines: readonly AmdgpuVmFiniLine[] | undefined): FiniIndex {
  const index = new Map<number, AmdgpuVmFiniLine[]>();
  for (const line of lines ?? []) {
    for (const pid of finiPids(line)) {
      const list = index.get(pid);
      if (list) list.push(line);
      else index.set(pid, [line]);
    }
  }
  return index;
}

function sameComm(a: string, b: string): boolean {
  return a.slice(0, COMM_LENGTH) === b.slice(0, COMM_LENGTH);
}

/**
 * The teardown line of this event's victim: same pid (and, when both lines name it, the same name),
 * after the kill line and before `beforeLine` (the next report), with the victim's RSS tiny next to
 * its total-vm. Undefined otherwise.
 */
export function gpuTeardownOf(event: OomEvent, index: FiniIndex, beforeLine: number): GpuTeardown | undefined {
  const killed = event.killed;
  if (!killed || killed.pid <= 0 || killed.totalVmKb === undefined || killed.anonRssKb === undefined) return undefined;
  const rssKb = killed.anonRssKb + (killed.fileRssKb ?? 0) + (killed.shmemRssKb ?? 0);
  if (killed.totalVmKb <= 0 || rssKb > killed.totalVmKb * TINY_RSS_SHARE) return undefined;
  for (const fini of index.get(killed.pid) ?? []) {
    if (fini.line <= killed.line) continue;
    if (fini.line >= beforeLine) break;
    const comm = killed.comm;
    const named = fini.procName !== '' || fini.taskName !== '';
    if (comm !== undefined && named && !sameComm(comm, fini.procName) && !sameComm(comm, fini.taskName)) continue;
    return { fini, rssKb, totalVmKb: killed.totalVmKb };
  }
  return undefined;
}

function kb(value: number): string {
  if (value >= 1024 * 1024) return `${(value / (1024 * 1024)).toFixed(1)} GiB`;
  if (value >= 1024) return `${Math.round(value / 1024)} MiB`;
  return `${value} KiB`;
}

/** One sentence for the verdict's explanation. */
export function gpuTeardownText(teardown: GpuTeardown): string {
  const share = ((teardown.rssKb / teardown.totalVmKb) * 100).toFixed(1);
  const line = teardown.fini.text.trim();
  const quoted = line.length > MAX_QUOTE ? `${line.slice(0, MAX_QUOTE)}…` : line;
  return `The victim's RSS was ${kb(teardown.rssKb)} of ${kb(teardown.totalVmKb)} total-vm (${share} %), and line ${teardown.fini.line} shows the amdgpu driver tearing down its GPU VM with memory still in it ("${quoted}"): the memory the kill freed was GPU memory, not in RSS and not counted by any memory cgroup.`;
}
