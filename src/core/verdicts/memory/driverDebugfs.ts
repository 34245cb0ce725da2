// The driver's own books beside the kernel's (kernelMemory.ts): amdgpu's debugfs (parsers/amdgpuDebugfs.ts).
// - Per client GTT (amdgpu_gem_info) attributed to its process and pod: the second source next to DRM fdinfo, and
//   the only one on kernels whose fdinfo has no drm-memory-gtt / drm-resident-gtt.
// - Where both exist, they should agree: fdinfo sums the buffers mapped in the client's GPU VM
//   (amdgpu_vm_get_memory, amdgpu_vm.c), gem_info the buffers it holds handles to. A gap over 5 % is evidence.
// - The GTT manager's usage (amdgpu_gtt_mm) less what the clients hold is GTT that no process holds: the driver's
//   own buffers (rings, firmware, page tables) or buffers of clients that are gone but not yet freed.
// - The TTM page pool (ttm/page_pool) is freed GPU memory kept for reuse: RAM no cgroup and no process shows.
import { formatBytes } from '../../sizing.ts';
import type { NodeModel } from '../../probe/nodeModel.ts';
import type { AmdgpuDebugfs, GemBuffer } from '../../probe/parsers/amdgpuDebugfs.ts';
import { gemRegionBytes } from '../../probe/parsers/amdgpuDebugfs.ts';
import { gpuProcessesOfPod } from '../../probe/parsers/fdinfo.ts';
import { parsePodCgroup } from '../../probe/podCgroup.ts';
import type { PodAccounting } from './unaccountedMemory.ts';
import type { Verdict } from '../verdict.ts';

export interface DebugfsProcess {
  readonly pid: number;
  readonly command: string;
  readonly gtt: number;
  readonly vram: number;
  /** Bytes shared through dma-buf, also counted by their other holder. */
  readonly shared: number;
  readonly clients: number;
  readonly podUid: string | undefined;
  /** The same process's GTT from DRM fdinfo, when fdinfo reports GTT for it. */
  readonly fdinfoGtt: number | undefined;
}

export interface DriverDebugfs {
  readonly debugfs: AmdgpuDebugfs;
  /** Every client process with GPU memory, largest GTT first. */
  readonly processes: readonly DebugfsProcess[];
  /** Pod UID → the GTT its processes hold per amdgpu_gem_info. */
  readonly podGtt: ReadonlyMap<string, number>;
  /** Σ GTT of every client, when at least one device's gem_info was read. */
  readonly clientsGtt: number | undefined;
  /** Every device's gem_info was read in full. */
  readonly complete: boolean;
  /** Σ amdgpu_gtt_mm usage and Σ amdgpu_vram_mm usage. */
  readonly managerGtt: number | undefined;
  readonly managerVram: number | undefined;
  /** managerGtt − clientsGtt, when both are known, complete and the first is larger. */
  readonly unheldGtt: number | undefined;
  /** Pages in every TTM pool (ttm/page_pool's total). */
  readonly poolPages: number | undefined;
  readonly disagreements: readonly DebugfsProcess[];
  /** The node's largest buffers, largest first (at most 8). */
  readonly largest: readonly (GemBuffer & { readonly pid: number; readonly command: string })[];
  /** The node's /proc/cmdline (for `debugfs=`), bounded. */
  readonly cmdline: string | undefined;
}

/** fdinfo and gem_info further apart than this share of the larger figure (and 1 MiB) disagree. */
export const GTT_SOURCES_SHARE = 0.05;
const GTT_SOURCES_FLOOR = 1024 ** 2;
/** TTM counts pool pages; x86-64 and most arm64 nodes use 4 KiB pages. */
export const TTM_PAGE_BYTES = 4096;

/** The analysis of a capture's `debugfs` section; undefined when the probe did not look (no section). */
export function driverDebugfs(
  debugfs: AmdgpuDebugfs,
  model: NodeModel,
  kubepodsPids: ReadonlyMap<number, string>,
  cmdline: string | undefined,
): DriverDebugfs | undefined {
  if (debugfs.access.kind === 'not-probed') return undefined;
  const fdinfo = new Map<number, { gtt: number; cgroup: string | undefined }>();
  for (const process of model.gpuProcesses) {
    const reportsGtt = process.clients.some((client) => client.resident.has('gtt'));
    fdinfo.set(process.pid, { gtt: reportsGtt ? (process.byRegion.get('gtt') ?? 0) : Number.NaN, cgroup: process.cgroup });
  }
  const perPid = new Map<number, { command: string; gtt: number; vram: number; shared: number; clients: number }>();
  const largest: (GemBuffer & { pid: number; command: string })[] = [];
  let read = false;
  let complete = true;
  let managerGtt: number | undefined;
  let managerVram: number | undefined;
  for (const device of debugfs.devices) {
    if (device.gtt?.usage !== undefined) managerGtt = (managerGtt ?? 0) + device.gtt.usage;
    if (device.vram?.usage !== undefined) managerVram = (managerVram ?? 0) + device.vram.usage;
    if (device.gem?.kind !== 'read') {
      complete = false;
      continue;
    }
    read = true;
    if (!device.gem.complete) complete = false;
    for (const client of device.gem.clients) {
      const regions = gemRegionBytes(client);
      const sum = perPid.get(client.pid) ?? { command: client.command, gtt: 0, vram: 0, shared: 0, clients: 0 };
      sum.gtt += regions.get('gtt') ?? 0;
      sum.vram += regions.get('vram') ?? 0;
      for (const placement of client.placements.values()) sum.shared += placement.shared;
      sum.clients += 1;
      perPid.set(client.pid, sum);
      for (const buffer of client.largest) largest.push({ ...buffer, pid: client.pid, command: client.command });
    }
  }
  const processes: DebugfsProcess[] = [];
  for (const [pid, sum] of perPid) {
    if (sum.gtt === 0 && sum.vram === 0) continue;
    const fromFdinfo = fdinfo.get(pid);
    const cgroupPod = fromFdinfo?.cgroup !== undefined ? parsePodCgroup(fromFdinfo.cgroup)?.podUid : undefined;
    const fdinfoGtt = fromFdinfo !== undefined && !Number.isNaN(fromFdinfo.gtt) ? fromFdinfo.gtt : undefined;
    processes.push({ pid, ...sum, podUid: cgroupPod ?? kubepodsPids.get(pid), fdinfoGtt });
  }
  processes.sort((a, b) => b.gtt - a.gtt || a.pid - b.pid);
  const podGtt = new Map<string, number>();
  for (const process of processes)
    if (process.podUid !== undefined) podGtt.set(process.podUid, (podGtt.get(process.podUid) ?? 0) + process.gtt);
  const clientsGtt = read ? processes.reduce((total, process) => total + process.gtt, 0) : undefined;
  const disagreements = processes.filter((process) => {
    if (process.fdinfoGtt === undefined) return false;
    const gap = Math.abs(process.gtt - process.fdinfoGtt);
    return gap > GTT_SOURCES_FLOOR && gap > Math.max(process.gtt, process.fdinfoGtt) * GTT_SOURCES_SHARE;
  });
  const globalPages = debugfs.globalPool?.kind === 'table' ? debugfs.globalPool.allocatedPages : undefined;
  return {
    debugfs,
    processes,
    podGtt,
    clientsGtt,
    complete: read && complete,
    managerGtt,
    managerVram,
    unheldGtt:
      read && complete && managerGtt !== undefined && clientsGtt !== undefined && managerGtt > clientsGtt
        ? managerGtt - clientsGtt
        : undefined,
    poolPages: globalPages,
    disagreements,
    largest: largest.sort((a, b) => b.bytes - a.bytes).slice(0, 8),
    cmdline: cmdline?.slice(0, 4096),
  };
}

/**
 * Each pod's debugfs GTT next to its fdinfo figure; a pod whose processes report no GTT in fdinfo (an older kernel or
 * driver) takes its GTT, true footprint and headroom from gem_info instead.
 */
export function withDebugfsPods(pods: readonly PodAccounting[], driver: DriverDebugfs | undefined, model: NodeModel): PodAccounting[] {
  if (!driver || driver.clientsGtt === undefined) return [...pods];
  return pods.map((pod) => {
    const debugfsGtt = driver.podGtt.get(pod.podUid) ?? 0;
    const fdinfoReportsGtt = gpuProcessesOfPod(model.gpuProcesses, pod.podUid).some((process) =>
      process.clients.some((client) => client.resident.has('gtt')),
    );
    if (fdinfoReportsGtt || debugfsGtt === 0 || pod.gtt > 0) return { ...pod, debugfsGtt };
    const trueFootprint = pod.accounted === undefined ? undefined : pod.accounted + debugfsGtt;
    const known = new Set(pod.processes.map((process) => process.pid));
    const extra = driver.processes
      .filter((process) => process.podUid === pod.podUid && !known.has(process.pid))
      .map((process) => ({
        pid: process.pid,
        comm: process.command,
        gtt: process.gtt,
        vram: process.vram,
        sharedWith: [],
        evidence: `pid ${process.pid} (${process.command}): GTT ${process.gtt} (${formatBytes(process.gtt)}) from amdgpu_gem_info (its DRM fdinfo reports no GTT)`,
      }));
    return {
      ...pod,
      gtt: debugfsGtt,
      debugfsGtt,
      gttSource: 'debugfs' as const,
      trueFootprint,
      headroom: pod.limit !== undefined && trueFootprint !== undefined ? pod.limit - trueFootprint : undefined,
      processes: [
        ...pod.processes.map((process) => {
          const fromDebugfs = driver.processes.find((candidate) => candidate.pid === process.pid);
          return fromDebugfs
            ? {
                ...process,
                gtt: fromDebugfs.gtt,
                evidence: `pid ${process.pid} (${process.comm ?? fromDebugfs.command}): GTT ${fromDebugfs.gtt} (${formatBytes(fromDebugfs.gtt)}) from amdgpu_gem_info (its DRM fdinfo reports no GTT)`,
              }
            : process;
        }),
        ...extra,
      ],
    };
  });
}

function hasAmdgpu(model: NodeModel): boolean {
  return model.gpus.some((gpu) => gpu.driver === 'amdgpu' || gpu.vendorId === '0x1002');
}

/** Why the driver's books could not be read, and how to make them readable; none on a node without amdgpu. */
export function debugfsUnavailableVerdict(driver: DriverDebugfs | undefined, model: NodeModel): Verdict | undefined {
  if (!driver || !hasAmdgpu(model)) return undefined;
  const { access, lockdown } = driver.debugfs;
  const param = /(?:^|\s)(debugfs=(?:off|no-mount|on))(?=\s|$)/.exec(driver.cmdline ?? '')?.[1];
  const gemErrors = driver.debugfs.devices.flatMap((device) =>
    device.gem?.kind === 'error' ? [`dri/${device.minor}/amdgpu_gem_info: ${device.gem.message}`] : [],
  );
  const anyRead = driver.debugfs.devices.some((device) => device.gem?.kind === 'read');
  if (access.kind === 'mounted' && anyRead) return undefined;
  const lockedDown = lockdown === 'integrity' || lockdown === 'confidentiality';
  const base = {
    id: 'memory.debugfs-unavailable',
    severity: 'info' as const,
    explanation:
      'amdgpu’s debugfs lists every client’s buffers (amdgpu_gem_info) and the GTT and VRAM managers’ totals: the driver’s own ' +
      'books, to check DRM fdinfo against and the only per-client GTT where fdinfo has none. gpumem reads it when it can and never mounts it.',
  };
  const evidence = [
    `/sys/kernel/debug: ${access.kind === 'refused' ? `refused (${access.detail || 'no detail'})` : access.kind}`,
    ...(lockdown ? [`kernel lockdown: ${lockdown} (/sys/kernel/security/lockdown)`] : []),
    ...(param ? [`kernel command line: ${param}`] : []),
    ...gemErrors,
  ];
  if (access.kind === 'absent')
    return {
      ...base,
      title: 'The driver’s debugfs books could not be read: /sys/kernel/debug does not exist here',
      evidence,
      remedy:
        'The kernel needs CONFIG_DEBUG_FS=y. In a node debug pod the host’s /sys is under /host; if the node has debugfs mounted and it ' +
        'still does not show, run the probe over SSH or locally on the node.',
    };
  if (access.kind === 'unmounted')
    return {
      ...base,
      title: `The driver’s debugfs books could not be read: debugfs is not mounted${param ? ` (${param})` : ''}`,
      evidence,
      remedy: param
        ? `Remove ${param} from the kernel command line and reboot, then mount it: mount -t debugfs none /sys/kernel/debug.`
        : 'Mount it on the node if your policy allows: mount -t debugfs none /sys/kernel/debug (gpumem never mounts it).',
    };
  if (access.kind === 'refused' || gemErrors.some((line) => /Permission denied/.test(line)))
    return {
      ...base,
      title: 'The driver’s debugfs books could not be read: access refused',
      evidence,
      remedy:
        'debugfs is readable by root only (mode 0700): run the probe as root (the node debug pod does; a restricted debug profile or a ' +
        'non-root SSH user does not).',
    };
  if (gemErrors.length > 0)
    return {
      ...base,
      title: lockedDown
        ? `The driver’s debugfs books could not be read: kernel lockdown (${lockdown}) refuses them`
        : 'The driver’s debugfs books could not be read',
      evidence,
      remedy: lockedDown
        ? 'Kernel lockdown (Secure Boot) restricts debugfs; the per-client figures then come from DRM fdinfo only.'
        : 'Check the kernel log for amdgpu errors; the per-client figures come from DRM fdinfo only.',
    };
  return {
    ...base,
    title: 'debugfs is mounted but lists no amdgpu device',
    evidence,
    remedy: 'amdgpu creates dri/<minor>/amdgpu_gem_info only with CONFIG_DEBUG_FS; a kernel built without it shows none.',
  };
}

/** fdinfo and gem_info disagree about a process's GTT by more than 5 %. */
export function gttSourcesVerdict(
  driver: DriverDebugfs | undefined,
  podNames: ReadonlyMap<string, string> = new Map(),
): Verdict | undefined {
  if (!driver || driver.disagreements.length === 0) return undefined;
  const [first] = driver.disagreements;
  if (!first) return undefined;
  const pod = (process: DebugfsProcess) =>
    process.podUid !== undefined ? ` in ${podNames.get(process.podUid) ?? `pod ${process.podUid}`}` : '';
  const gapShare = (process: DebugfsProcess) => {
    const larger = Math.max(process.gtt, process.fdinfoGtt ?? 0);
    return larger > 0 ? Math.round((Math.abs(process.gtt - (process.fdinfoGtt ?? 0)) / larger) * 100) : 0;
  };
  const more = driver.disagreements.length - 1;
  return {
    id: 'memory.gtt-sources-disagree',
    severity: 'info',
    title: `DRM fdinfo and amdgpu_gem_info disagree about pid ${first.pid} (${first.command})${pod(first)}: ${formatBytes(first.fdinfoGtt ?? 0)} against ${formatBytes(first.gtt)} of GTT (${gapShare(first)} % apart)${more > 0 ? `, and ${more} more process${more === 1 ? '' : 'es'}` : ''}`,
    explanation:
      'fdinfo counts the buffers mapped in the client’s GPU address space; amdgpu_gem_info the buffers it holds handles to. ' +
      'Buffers allocated but not mapped, or mapped after their handle was closed, or imported from another device, make them differ; ' +
      'a large gap can also be a driver accounting bug. The larger figure is the safer footprint to size the pod by.',
    evidence: driver.disagreements
      .slice(0, 20)
      .map(
        (process) =>
          `pid ${process.pid} (${process.command})${pod(process)}: fdinfo GTT ${formatBytes(process.fdinfoGtt ?? 0)}, amdgpu_gem_info GTT ${formatBytes(process.gtt)} over ${process.clients} client${process.clients === 1 ? '' : 's'} (${gapShare(process)} % apart)`,
      ),
    remedy: 'Size the pod by the larger figure; if the gap keeps growing, report it with both files to the amdgpu developers.',
  };
}

/** Evidence lines for the kernel-allocations verdict: what the driver’s books add to /proc/meminfo’s view. */
export function driverEvidence(driver: DriverDebugfs | undefined): string[] {
  if (!driver) return [];
  const out: string[] = [];
  if (driver.clientsGtt !== undefined)
    out.push(
      `amdgpu_gem_info: ${driver.processes.length} process${driver.processes.length === 1 ? '' : 'es'} hold ${formatBytes(driver.clientsGtt)} of GTT${driver.complete ? '' : ' (listing incomplete)'}`,
    );
  if (driver.managerGtt !== undefined)
    out.push(
      `amdgpu_gtt_mm usage: ${formatBytes(driver.managerGtt)}${driver.unheldGtt !== undefined ? `, ${formatBytes(driver.unheldGtt)} of it held by no client (the driver’s own buffers, or clients not yet torn down)` : ''}`,
    );
  if (driver.poolPages !== undefined && driver.poolPages > 0)
    out.push(
      `ttm/page_pool: ${driver.poolPages} pages (${formatBytes(driver.poolPages * TTM_PAGE_BYTES)} at 4 KiB) freed GPU memory kept for reuse`,
    );
  return out;
}
