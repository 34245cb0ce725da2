// Each pod's memory.current against the resident memory of its processes
// (/proc/<pid>/status VmRSS = RssAnon + RssFile + RssShmem, Documentation/filesystems/proc.rst). The two differ
// by design (memory.current also holds page cache, tmpfs and kernel memory charged to the pod; RSS counts shared
// file pages that another cgroup may have been charged for), so only a large gap is evidence, with its numbers.
import { formatBytes } from '../../sizing.ts';
import type { Capture } from '../../probe/capture.ts';
import { sectionFiles } from '../../probe/capture.ts';
import { parseBatchedProcCgroups, parsePodCgroup } from '../../probe/podCgroup.ts';
import type { PodAccounting } from './unaccountedMemory.ts';
import type { Verdict } from '../verdict.ts';

export interface PodResident {
  readonly podUid: string;
  readonly processes: number;
  readonly rss: number;
  readonly anon: number;
  readonly file: number;
  readonly shmem: number;
}

const STATUS_LINE = /^(\d{1,10})\/status:(VmRSS|RssAnon|RssFile|RssShmem):\s{0,64}(\d{1,15}) kB\s*$/;

/** The `pod-rss` section's batched cgroups → the pod UID of every kubepods process it lists. */
export function kubepodsPids(capture: Capture): Map<number, string> {
  let cgroups: string | undefined;
  for (const [path, body] of sectionFiles(capture, 'pod-rss')) if (path.endsWith('/proc/pod-cgroups')) cgroups = body;
  const podOf = new Map<number, string>();
  for (const [pid, path] of parseBatchedProcCgroups(cgroups ?? '')) {
    const pod = path !== undefined ? parsePodCgroup(path) : undefined;
    if (pod) podOf.set(pid, pod.podUid);
  }
  return podOf;
}

/** The probe's `pod-rss` section → per pod, the summed resident memory of its processes. */
export function podResidentMemory(capture: Capture): Map<string, PodResident> {
  let status: string | undefined;
  for (const [path, body] of sectionFiles(capture, 'pod-rss')) if (path.endsWith('/proc/pod-status')) status = body;
  const podOf = kubepodsPids(capture);
  const perPid = new Map<number, Map<string, number>>();
  for (const line of (status ?? '').split('\n')) {
    const match = STATUS_LINE.exec(line);
    if (!match?.[1] || !match[2] || !match[3]) continue;
    const pid = Number(match[1]);
    if (!podOf.has(pid)) continue;
    const bytes = Number(match[3]) * 1024;
    if (!Number.isSafeInteger(bytes)) continue;
    let fields = perPid.get(pid);
    if (!fields) {
      fields = new Map();
      perPid.set(pid, fields);
    }
    fields.set(match[2], bytes);
  }
  const out = new Map<string, { processes: number; rss: number; anon: number; file: number; shmem: number }>();
  for (const [pid, fields] of perPid) {
    const podUid = podOf.get(pid);
    const rss = fields.get('VmRSS');
    if (podUid === undefined || rss === undefined) continue;
    const sum = out.get(podUid) ?? { processes: 0, rss: 0, anon: 0, file: 0, shmem: 0 };
    sum.processes += 1;
    sum.rss += rss;
    sum.anon += fields.get('RssAnon') ?? 0;
    sum.file += fields.get('RssFile') ?? 0;
    sum.shmem += fields.get('RssShmem') ?? 0;
    out.set(podUid, sum);
  }
  return new Map([...out].map(([podUid, sum]) => [podUid, { podUid, ...sum }]));
}

/** A gap this large (and at least this share of the larger figure) is evidence; smaller ones are normal. */
export const RSS_GAP_BYTES = 1024 ** 3;
export const RSS_GAP_SHARE = 0.5;

export function podRssVerdicts(
  pods: readonly PodAccounting[],
  resident: ReadonlyMap<string, PodResident>,
  podNames: ReadonlyMap<string, string> = new Map(),
): Verdict[] {
  const out: Verdict[] = [];
  for (const pod of pods) {
    const res = resident.get(pod.podUid);
    if (!res || pod.accounted === undefined) continue;
    const gap = pod.accounted - res.rss;
    const larger = Math.max(pod.accounted, res.rss);
    if (Math.abs(gap) < RSS_GAP_BYTES || Math.abs(gap) < larger * RSS_GAP_SHARE) continue;
    const name = podNames.get(pod.podUid) ?? `pod ${pod.podUid}`;
    const charged = gap > 0;
    out.push({
      id: 'memory.rss-divergence',
      severity: 'info',
      title: charged
        ? `${name}: memory.current ${formatBytes(pod.accounted)} is ${formatBytes(gap)} above its processes' resident memory (${formatBytes(res.rss)})`
        : `${name}: its processes' resident memory ${formatBytes(res.rss)} is ${formatBytes(-gap)} above memory.current (${formatBytes(pod.accounted)})`,
      explanation: charged
        ? 'The cgroup is charged for memory no process of the pod maps: page cache of the files it read or wrote, tmpfs and /dev/shm, and kernel memory. Page cache is reclaimed under pressure; tmpfs and kernel memory are not.'
        : 'The processes map pages charged to another cgroup (shared libraries, files another pod read first, shared memory), so the pod looks smaller than what it touches; when that other cgroup goes away, the charge does not follow.',
      evidence: [
        `memory.current: ${formatBytes(pod.accounted)} (${pod.cgroupPath})`,
        `VmRSS of ${res.processes} process${res.processes === 1 ? '' : 'es'}: ${formatBytes(res.rss)} (RssAnon ${formatBytes(res.anon)}, RssFile ${formatBytes(res.file)}, RssShmem ${formatBytes(res.shmem)})`,
      ],
      remedy: charged
        ? 'Look at the pod cgroup’s memory.stat (file, shmem, slab): a large shmem or tmpfs share needs room in the limit; page cache does not.'
        : 'Size the limit by what the processes touch, not by memory.current alone; keep shared data in one pod.',
    });
  }
  return out;
}
