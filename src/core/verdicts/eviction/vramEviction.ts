// VRAM over-commit and eviction ping-pong on AMD GPUs, and whether dmem protects the pods that suffer it.
// - vram.overcommitted: a card's VRAM (mem_info_vram_used / _total, amdgpu_vram_mgr.c) near full while clients
//   that want VRAM hold buffers elsewhere (fdinfo `amd-evicted-vram`, amdgpu_fdinfo.c: buffers whose preferred
//   domain is VRAM but that sit in GTT or system RAM).
// - vram.eviction-thrashing: two or more processes on one GPU whose KFD evicted time (evicted_ms) grows above
//   EVICTION_RATE_THRESHOLD in the same window: they evict each other, and the GPU moves memory instead of computing.
// - dmem.protection: for each pod whose processes were evicted, its dmem.low / dmem.min on the region
//   `drm/<BDF>/vram` (kernel/cgroup/dmem.c), and whether the kernel's TTM honours them (7.3+).
import { maxOf } from '../../arrays.ts';
import type { NodeModel, PodCgroup } from '../../probe/nodeModel.ts';
import type { CgroupLimit } from '../../probe/parsers/cgroupMemory.ts';
import { gpuProcessesOfPod } from '../../probe/parsers/fdinfo.ts';
import { parsePodCgroup } from '../../probe/podCgroup.ts';
import { formatBytes } from '../../sizing.ts';
import type { KfdEvictions, ProcessEviction } from './kfdEviction.ts';
import { formatEvictedMs, formatRate } from './kfdEviction.ts';
import type { Verdict } from '../verdict.ts';

/** VRAM used at this share of the total is "near full": the next placement that does not fit evicts. */
export const VRAM_FULL_SHARE = 0.95;

/**
 * 20 ms evicted per second (2 % of the time). An evicted KFD process waits about PROCESS_RESTORE_TIME_MS (100 ms,
 * kfd_priv.h) before its buffers are validated back and its queues restart, so each eviction stops it for at least
 * 100 ms: 20 ms/s is one such eviction every 5 s or more often. The evictions of a process's start (its first
 * allocations, a model load) spread over its lifetime fall far below it; two processes both above it on one GPU in
 * the same window are evicting each other, which the user sees as a slow first token, not as a few lost ms.
 */
export const EVICTION_RATE_THRESHOLD = 20;

function podLabel(podUid: string | undefined, names: ReadonlyMap<string, string>): string {
  if (podUid === undefined) return 'no pod';
  return names.get(podUid) ?? `pod ${podUid}`;
}

function processLabel(row: ProcessEviction, names: ReadonlyMap<string, string>): string {
  return `${row.comm ?? '?'} (pid ${row.pid}, ${podLabel(row.podUid, names)})`;
}

export function vramOvercommittedVerdict(model: NodeModel, names: ReadonlyMap<string, string> = new Map()): Verdict | undefined {
  const full = model.gpus.filter(
    (card) =>
      card.vramTotal !== undefined &&
      card.vramUsed !== undefined &&
      card.vramTotal > 0 &&
      card.vramUsed >= card.vramTotal * VRAM_FULL_SHARE,
  );
  if (full.length === 0) return undefined;
  const wanting: {
    pid: number;
    comm: string | undefined;
    podUid: string | undefined;
    evicted: number;
    requested: number | undefined;
    pdev: string | undefined;
  }[] = [];
  for (const process of model.gpuProcesses) {
    let evicted = 0;
    let requested: number | undefined;
    let pdev: string | undefined;
    for (const client of process.clients) {
      if (client.amdEvictedVram !== undefined && client.amdEvictedVram > 0) {
        evicted += client.amdEvictedVram;
        pdev = client.pdev;
      }
      if (client.amdRequestedVram !== undefined) requested = (requested ?? 0) + client.amdRequestedVram;
    }
    if (evicted > 0)
      wanting.push({
        pid: process.pid,
        comm: process.comm,
        podUid: process.cgroup !== undefined ? parsePodCgroup(process.cgroup)?.podUid : undefined,
        evicted,
        requested,
        pdev,
      });
  }
  if (wanting.length === 0) return undefined;
  wanting.sort((a, b) => b.evicted - a.evicted || a.pid - b.pid);
  const total = wanting.reduce((sum, row) => sum + row.evicted, 0);
  return {
    id: 'vram.overcommitted',
    severity: 'warning',
    title: `VRAM over-committed: ${full.map((card) => `${card.card} ${percent((card.vramUsed ?? 0) / (card.vramTotal ?? 1))} full`).join(', ')}, and ${wanting.length} GPU client${wanting.length === 1 ? '' : 's'} hold ${formatBytes(total)} that wants VRAM elsewhere`,
    explanation:
      'The GPU’s VRAM is nearly all in use, and buffers their owners placed in VRAM sit in GTT or system RAM (amdgpu’s ' +
      'amd-evicted-vram): they were evicted, or never fitted. Each access to them crosses PCIe, and each new VRAM ' +
      'allocation evicts another buffer: workloads sharing the GPU move memory instead of computing.',
    evidence: [
      ...full.map(
        (card) =>
          `${card.card}: mem_info_vram_used ${formatBytes(card.vramUsed ?? 0)} of mem_info_vram_total ${formatBytes(card.vramTotal ?? 0)} (${percent((card.vramUsed ?? 0) / (card.vramTotal ?? 1))})`,
      ),
      ...wanting
        .slice(0, 10)
        .map(
          (row) =>
            `${row.comm ?? '?'} (pid ${row.pid}, ${podLabel(row.podUid, names)}${row.pdev ? `, ${row.pdev}` : ''}): amd-evicted-vram ${formatBytes(row.evicted)}${row.requested !== undefined ? ` of amd-requested-vram ${formatBytes(row.requested)}` : ''}`,
        ),
      ...(wanting.length > 10 ? [`… and ${wanting.length - 10} more clients`] : []),
    ],
    remedy:
      'Schedule fewer VRAM users per GPU (request the GPU whole, or cap each share), shrink the models or batch sizes ' +
      'that do not fit, and give the workload that must stay in VRAM dmem.low or dmem.min on the GPU’s VRAM region (Linux 7.3+).',
  };
}

export function evictionThrashingVerdicts(evictions: KfdEvictions, names: ReadonlyMap<string, string> = new Map()): Verdict[] {
  const byGpu = new Map<number, ProcessEviction[]>();
  for (const row of evictions.processes) {
    if (row.ratePerSecond === undefined || row.ratePerSecond < EVICTION_RATE_THRESHOLD) continue;
    byGpu.set(row.gpuId, [...(byGpu.get(row.gpuId) ?? []), row]);
  }
  const out: Verdict[] = [];
  for (const [gpuId, rows] of [...byGpu].sort(([a], [b]) => a - b)) {
    if (new Set(rows.map((row) => row.pid)).size < 2) continue;
    rows.sort((a, b) => (b.ratePerSecond ?? 0) - (a.ratePerSecond ?? 0) || a.pid - b.pid);
    const gpu = `GPU ${gpuId}${rows[0]?.gpuName ? ` (${rows[0].gpuName})` : ''}`;
    const lifetime = evictions.window === 'lifetime';
    const [first, second] = rows;
    out.push({
      id: 'vram.eviction-thrashing',
      severity: 'warning',
      title: `Eviction ping-pong on ${gpu}: ${first ? processLabel(first, names) : ''} and ${second ? processLabel(second, names) : ''}${rows.length > 2 ? ` and ${rows.length - 2} more` : ''} are evicted at ${formatRate(first?.ratePerSecond)} and ${formatRate(second?.ratePerSecond)}`,
      explanation:
        `Each of these processes had its GPU queues stopped while its buffers were moved out of VRAM and back for at least ` +
        `${EVICTION_RATE_THRESHOLD} ms per second (2 % of the time; one eviction costs at least the 100 ms KFD waits before restoring), ` +
        `${lifetime ? 'on average over its lifetime, and they run at the same time' : 'between the two samples'}: they evict each other, ` +
        'so the GPU spends its time copying memory (SDMA), and inference answers late.',
      evidence: [
        ...rows.map(
          (row) =>
            `${processLabel(row, names)}: evicted_ms ${row.evictedMs} (${formatEvictedMs(row.windowMs ?? row.evictedMs)} in ${row.seconds !== undefined ? `${Math.round(row.seconds)} s` : 'an unknown time'}${lifetime ? ' since it started' : ' between the samples'}), ${formatRate(row.ratePerSecond)}${row.vramBytes !== undefined ? `, VRAM ${formatBytes(row.vramBytes)}` : ''}${row.reset ? ', counter restarted' : ''}`,
        ),
        ...(lifetime && !evictions.clockTicksRead
          ? [
              `start times read at ${evictions.clockTicks} ticks per second (getconf CLK_TCK was not available; USER_HZ is 100 on x86 and arm64)`,
            ]
          : []),
      ],
      remedy:
        'Give each of these workloads its own GPU, or make them fit together (smaller models, batches or KV cache); protect the ' +
        'one that must not be evicted with dmem.low on the GPU’s VRAM region (Linux 7.3+). memory.high or memory.low do not help: ' +
        'they protect RAM, not VRAM.',
    });
  }
  return out;
}

function isSet(limit: CgroupLimit | undefined): boolean {
  return limit !== undefined && (limit.kind === 'max' || limit.bytes > 0);
}

function limitText(limit: CgroupLimit | undefined): string {
  return limit === undefined
    ? 'unset'
    : limit.kind === 'max'
      ? 'max'
      : limit.bytes === 0
        ? '0'
        : `${limit.bytes} (${formatBytes(limit.bytes)})`;
}

/** The VRAM regions of the pod's GPUs: its processes' drm-pdev (fdinfo), else the node's dmem.capacity regions. */
function vramRegions(model: NodeModel, podUid: string): string[] {
  const pdevs = new Set<string>();
  for (const process of gpuProcessesOfPod(model.gpuProcesses, podUid)) {
    for (const client of process.clients)
      if (client.pdev && /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/.test(client.pdev)) pdevs.add(client.pdev);
  }
  if (pdevs.size > 0) return [...pdevs].sort().map((pdev) => `drm/${pdev}/vram`);
  return [...model.dmemCapacity.keys()].filter((region) => region.startsWith('drm/') && region.endsWith('/vram')).sort();
}

export function dmemProtectionVerdicts(
  model: NodeModel,
  evictions: KfdEvictions,
  names: ReadonlyMap<string, string> = new Map(),
): Verdict[] {
  const evicted = evictions.pods.filter((pod) => pod.evictedMs > 0);
  if (evicted.length === 0) return [];
  const release = model.kernelVersion;
  const honoured = release !== undefined && (release.major > 7 || (release.major === 7 && release.minor >= 3));
  const kernel = model.kernel ?? 'the kernel';
  const available = model.rootControllers?.includes('dmem') === true;
  const levels = [model.rootSubtreeControl, ...model.kubepodsLevels.map((level) => level.subtreeControl)];
  const gap = levels.some((subtree) => subtree !== undefined && !subtree.includes('dmem'));
  const cgroups = new Map<string, PodCgroup>(model.pods.map((pod) => [pod.podUid, pod]));
  const out: Verdict[] = [];
  for (const pod of evicted) {
    const cgroup = cgroups.get(pod.podUid);
    const name = podLabel(pod.podUid, names);
    const regions = vramRegions(model, pod.podUid);
    const shown = regions.length > 0 ? regions : ['drm/<BDF>/vram'];
    const region = shown[0] ?? 'drm/<BDF>/vram';
    const hasFiles =
      cgroup !== undefined && [cgroup.dmem.current, cgroup.dmem.min, cgroup.dmem.low, cgroup.dmem.max].some((map) => map.size > 0);
    const protectedRegions = shown.filter((r) => isSet(cgroup?.dmem.low.get(r)) || isSet(cgroup?.dmem.min.get(r)));
    const delegated = available && !gap && hasFiles;
    const evidence = [
      `${name}: KFD evicted_ms ${formatEvictedMs(pod.evictedMs)} in total (${pod.processes} process${pod.processes === 1 ? '' : 'es'})${pod.ratePerSecond !== undefined ? `, ${formatRate(pod.ratePerSecond)}` : ''}`,
      `kernel ${kernel}: ${honoured ? 'TTM eviction honours dmem.min/dmem.low (7.3+)' : release ? 'before 7.3, TTM eviction ignores dmem.min/dmem.low' : 'version not known'}`,
      `dmem controller: ${available ? 'available' : model.rootControllers === undefined ? 'not known' : 'not available'}${available ? (gap ? ', not delegated down to the pods' : ', delegated') : ''}`,
      ...(cgroup
        ? shown.map(
            (r) =>
              `${cgroup.path}: dmem.low ${limitText(cgroup.dmem.low.get(r))}, dmem.min ${limitText(cgroup.dmem.min.get(r))}, dmem.current ${limitText(cgroup.dmem.current.get(r))} on ${r}`,
          )
        : [`${name}: its cgroup was not captured`]),
    ];
    const bytes = maxOf(
      [
        pod.vramBytes,
        ...shown.map((r) => {
          const current = cgroup?.dmem.current.get(r);
          return current?.kind === 'bytes' ? current.bytes : 0;
        }),
      ],
      0,
    );
    const howTo =
      `Write "${region} <bytes>" to the pod cgroup's dmem.low (or dmem.min for a hard floor), e.g. ` +
      `echo "${region} ${bytes > 0 ? bytes : '<bytes>'}" > ${cgroup ? `/sys/fs/cgroup${cgroup.path}` : '<pod cgroup>'}/dmem.low, from a node agent when the pod starts ` +
      '(the kubelet sets no dmem files); dmem must be enabled in cgroup.subtree_control from the root down to kubepods. ' +
      'memory.high and memory.low do not protect VRAM: they act on RAM.';
    const base = { id: 'dmem.protection', evidence };
    if (!honoured) {
      out.push({
        ...base,
        severity: 'info',
        title: `${name} is evicted from VRAM, and ${release ? `${kernel} predates 7.3: dmem protection exists but TTM eviction ignores it` : 'the kernel version is not known'}`,
        explanation:
          'dmem.min and dmem.low are recorded by the dmem cgroup controller, but before Linux 7.3 TTM evicts without looking at them: ' +
          'a pod cannot keep its VRAM against another one. From 7.3, protected buffers evict unprotected ones instead.',
        remedy: `Linux 7.3 or later; then ${howTo}`,
      });
    } else if (!delegated) {
      out.push({
        ...base,
        severity: 'warning',
        title: `${name} is evicted from VRAM and cannot be protected: ${available ? 'dmem is not delegated down to its cgroup' : 'the dmem controller is not available'}`,
        explanation: `${kernel} honours dmem protection when TTM evicts, but ${available ? 'the pod has no dmem files: some level between the root and the pod does not enable dmem' : 'the node has no dmem controller (cgroup v2 and CONFIG_CGROUP_DMEM are needed)'}.`,
        remedy: available
          ? `echo +dmem > cgroup.subtree_control at the root and every kubepods level; then ${howTo}`
          : `cgroup v2 with the dmem controller; then ${howTo}`,
      });
    } else if (protectedRegions.length === 0) {
      out.push({
        ...base,
        severity: 'warning',
        title: `${name} is evicted from VRAM and has no dmem.low or dmem.min on ${shown.join(', ')}`,
        explanation: `${kernel} would keep its VRAM when another workload needs space, if the pod had dmem.low or dmem.min on the GPU’s VRAM region; it has neither, so TTM may evict it first.`,
        remedy: `If this workload must not be evicted: ${howTo}`,
      });
    } else {
      out.push({
        ...base,
        severity: 'info',
        title: `${name} has dmem protection on ${protectedRegions.join(', ')} and is still evicted`,
        explanation:
          'Its dmem.low or dmem.min is set and the kernel honours it; it is evicted anyway when its usage is above the protection, ' +
          'or when protected pods together ask for more VRAM than the GPU has.',
        remedy:
          'Raise its dmem.low to what it really holds (dmem.current), or make sure the protections on the GPU add up to less than its VRAM.',
      });
    }
  }
  return out;
}

function percent(share: number): string {
  return `${Math.round(share * 100)} %`;
}
