// The "VRAM evictions (KFD)" part of the inspection reports: per pod, the evicted time of its KFD processes in total
// and as a rate (ms per second of each process's lifetime), with the processes behind it. Strings are escaped.
import type { Inspection } from '../inspectionRun/analyze.ts';
import { formatBytes } from '../sizing.ts';
import { markdownText, terminalSafe } from '../text/escape.ts';
import type { KfdEvictions } from '../verdicts/eviction/kfdEviction.ts';
import { formatEvictedMs, formatRate } from '../verdicts/eviction/kfdEviction.ts';

const MAX_ROWS = 20;

function evictionsOf(inspection: Inspection): KfdEvictions | undefined {
  const kfd = inspection.node?.kfd;
  return kfd && kfd.processes.length > 0 ? kfd : undefined;
}

function windowText(kfd: KfdEvictions): string {
  return kfd.window === 'lifetime'
    ? `rates over each process's lifetime (start time from /proc/<pid>/stat${kfd.clockTicksRead ? '' : `, ${kfd.clockTicks} ticks/s assumed: getconf CLK_TCK was not available`})`
    : 'rates between two samples';
}

export function evictionMarkdown(inspection: Inspection): string[] {
  const kfd = evictionsOf(inspection);
  if (!kfd) return [];
  const name = (uid: string | undefined) => markdownText(uid === undefined ? 'no pod' : (inspection.podNames.get(uid) ?? uid));
  const out = ['## VRAM evictions (KFD)', '', markdownText(`evicted_ms of each KFD process, ${windowText(kfd)}.`), ''];
  if (kfd.pods.length > 0) {
    out.push('| Pod | processes | evicted in total | evicted ms/s | KFD VRAM |', '| --- | --- | --- | --- | --- |');
    for (const pod of kfd.pods.slice(0, MAX_ROWS))
      out.push(
        `| ${name(pod.podUid)} | ${pod.processes} | ${formatEvictedMs(pod.evictedMs)} | ${formatRate(pod.ratePerSecond)} | ${formatBytes(pod.vramBytes)} |`,
      );
    out.push('');
  }
  out.push('| Process | pod | GPU | evicted_ms | evicted ms/s |', '| --- | --- | --- | --- | --- |');
  for (const row of kfd.processes.slice(0, MAX_ROWS))
    out.push(
      `| ${markdownText(`${row.comm ?? '?'} (${row.pid})`)} | ${name(row.podUid)} | ${row.gpuId}${row.gpuName ? ` ${markdownText(row.gpuName)}` : ''} | ${row.evictedMs} | ${formatRate(row.ratePerSecond)} |`,
    );
  if (kfd.processes.length > MAX_ROWS) out.push('', `… and ${kfd.processes.length - MAX_ROWS} more processes`);
  out.push('');
  return out;
}

export function evictionText(inspection: Inspection): string[] {
  const kfd = evictionsOf(inspection);
  if (!kfd) return [];
  const line = (text: string) => terminalSafe(text, 'single-line');
  const out = ['', line(`VRAM evictions (KFD), ${windowText(kfd)}:`)];
  for (const pod of kfd.pods.slice(0, MAX_ROWS))
    out.push(
      `  ${line(inspection.podNames.get(pod.podUid) ?? pod.podUid)}: ${formatEvictedMs(pod.evictedMs)} evicted, ${formatRate(pod.ratePerSecond)} (${pod.processes} process${pod.processes === 1 ? '' : 'es'})`,
    );
  return out;
}

/** The JSON's `node.kfdEvictions`: the window, every process row and the per-pod sums (rates null when unknown). */
export function evictionJson(inspection: Inspection): object | null {
  const kfd = inspection.node?.kfd;
  if (!kfd || !kfd.present) return null;
  return {
    window: kfd.window,
    clockTicks: kfd.clockTicks,
    clockTicksRead: kfd.clockTicksRead,
    processes: kfd.processes.map((row) => ({
      ...row,
      ratePerSecond: row.ratePerSecond ?? null,
      seconds: row.seconds ?? null,
      podName: row.podUid ? (inspection.podNames.get(row.podUid) ?? null) : null,
    })),
    pods: kfd.pods.map((pod) => ({
      ...pod,
      ratePerSecond: pod.ratePerSecond ?? null,
      podName: inspection.podNames.get(pod.podUid) ?? null,
    })),
  };
}
