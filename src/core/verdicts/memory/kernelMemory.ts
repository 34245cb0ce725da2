// How much RAM the kernel itself holds, split into its parts from /proc/meminfo
// (Documentation/filesystems/proc.rst, "meminfo"), and how much of each the pods' cgroups are charged for (the
// kubepods cgroup's memory.stat, Documentation/admin-guide/cgroup-v2.rst: slab_unreclaimable, vmalloc, pagetables,
// kernel_stack, percpu). GPU buffers in system RAM (GTT, 7.1+ GPUActive) and the TTM reuse pools (GPUReclaim) are
// charged to no cgroup at all. Also Committed_AS against CommitLimit and what vm.overcommit_memory makes of it
// (Documentation/mm/overcommit-accounting.rst).
import { DEFAULT_HEADROOM_PERCENT, formatBytes } from '../../sizing.ts';
import type { CgroupMemory, NodeModel } from '../../probe/nodeModel.ts';
import type { DriverDebugfs } from './driverDebugfs.ts';
import { driverEvidence, TTM_PAGE_BYTES } from './driverDebugfs.ts';
import type { NodeAccounting } from './unaccountedMemory.ts';
import type { Verdict } from '../verdict.ts';

export type KernelPartKey = 'gpu' | 'gpu-reclaim' | 'slab-unreclaimable' | 'vmalloc' | 'page-tables' | 'kernel-stack' | 'percpu';

export interface KernelPart {
  readonly key: KernelPartKey;
  /** As the reports name it, e.g. `SUnreclaim` or `GTT in use`. */
  readonly label: string;
  readonly bytes: number;
  /** What the pods' cgroups are charged for of it (cgroup v2); undefined when not known (v1, no kubepods stat). */
  readonly chargedToPods: number | undefined;
  /** bytes − chargedToPods (at least 0), or bytes when the charge is not known. */
  readonly outsidePods: number;
  /** GPU buffers or the driver's bookkeeping of them, as opposed to what grows with processes. */
  readonly growsWithGpu: boolean;
  /** The lines it was read from, verbatim enough to check. */
  readonly evidence: string;
}

export interface KernelMemory {
  readonly memTotal: number;
  /** Largest first. */
  readonly parts: readonly KernelPart[];
  /** The sum of the parts' outsidePods: RAM the kernel holds that no pod's memory.current shows. */
  readonly outsidePods: number;
  /** The kubepods cgroup whose memory.stat gave the pods' charges, if one did. */
  readonly chargedFrom: string | undefined;
  /** What amdgpu's debugfs adds (clients' GTT, GTT held by no client, the TTM pool), as evidence lines. */
  readonly driverEvidence: readonly string[];
}

/** Kernel memory at or above this share of MemTotal, outside pods, is a warning: the scheduler does not see it. */
export const KERNEL_SHARE_WARNING = 0.25;

const METER: readonly {
  key: KernelPartKey;
  meminfo: readonly string[];
  stat: readonly string[];
  label: string;
  growsWithGpu: boolean;
}[] = [
  // The driver's objects (buffer objects, fences, DMA mappings) live in unreclaimable slab and vmalloc.
  { key: 'slab-unreclaimable', meminfo: ['SUnreclaim'], stat: ['slab_unreclaimable'], label: 'SUnreclaim', growsWithGpu: true },
  { key: 'vmalloc', meminfo: ['VmallocUsed'], stat: ['vmalloc'], label: 'VmallocUsed', growsWithGpu: true },
  {
    key: 'page-tables',
    meminfo: ['PageTables', 'SecPageTables'],
    stat: ['pagetables', 'sec_pagetables'],
    label: 'PageTables',
    growsWithGpu: false,
  },
  { key: 'kernel-stack', meminfo: ['KernelStack'], stat: ['kernel_stack'], label: 'KernelStack', growsWithGpu: false },
  { key: 'percpu', meminfo: ['Percpu'], stat: ['percpu'], label: 'Percpu', growsWithGpu: false },
];

export function kernelMemory(model: NodeModel, accounting: NodeAccounting, driver?: DriverDebugfs): KernelMemory | undefined {
  const memTotal = model.meminfo.get('MemTotal');
  if (memTotal === undefined || memTotal <= 0 || !model.meminfo.has('SUnreclaim')) return undefined;
  const kubepods = kubepodsRoot(model);
  const parts: KernelPart[] = [];
  const gpu = accounting.unaccounted;
  if (gpu !== undefined && gpu > 0) {
    const fromGtt = accounting.gttUsed !== undefined && accounting.gttUsed >= (accounting.gpuActive ?? 0);
    parts.push({
      key: 'gpu',
      label: fromGtt ? 'GTT in use' : 'GPUActive',
      bytes: gpu,
      chargedToPods: 0,
      outsidePods: gpu,
      growsWithGpu: true,
      evidence: fromGtt
        ? `GTT in use ${formatBytes(gpu)} (mem_info_gtt_used of the DRM devices): GPU buffers in system RAM, charged to no cgroup`
        : `GPUActive: ${formatBytes(gpu)} (/proc/meminfo, 7.1+): GPU buffers in system RAM, charged to no cgroup`,
    });
  }
  if (accounting.gpuReclaim !== undefined && accounting.gpuReclaim > 0)
    parts.push({
      key: 'gpu-reclaim',
      label: 'GPUReclaim',
      bytes: accounting.gpuReclaim,
      chargedToPods: 0,
      outsidePods: accounting.gpuReclaim,
      growsWithGpu: true,
      evidence: `GPUReclaim: ${formatBytes(accounting.gpuReclaim)} (/proc/meminfo, 7.1+): freed GPU pages kept in the TTM pools, reclaimable but not in MemAvailable`,
    });
  else if (driver?.poolPages !== undefined && driver.poolPages > 0) {
    // Before 7.1 no meminfo line counts the TTM pools; debugfs does.
    const bytes = driver.poolPages * TTM_PAGE_BYTES;
    parts.push({
      key: 'gpu-reclaim',
      label: 'TTM page pool',
      bytes,
      chargedToPods: 0,
      outsidePods: bytes,
      growsWithGpu: true,
      evidence: `TTM page pool: ${driver.poolPages} pages, ${formatBytes(bytes)} at 4 KiB (debugfs ttm/page_pool): freed GPU pages kept for reuse, in no cgroup and not in MemAvailable`,
    });
  }
  for (const meter of METER) {
    const values = meter.meminfo.map((key) => model.meminfo.get(key)).filter((value): value is number => value !== undefined);
    if (values.length === 0) continue;
    const bytes = values.reduce((total, value) => total + value, 0);
    if (bytes <= 0) continue;
    const charges = kubepods ? meter.stat.map((key) => kubepods.stat.get(key)).filter((value): value is number => value !== undefined) : [];
    const charged =
      charges.length > 0
        ? Math.min(
            bytes,
            charges.reduce((total, value) => total + value, 0),
          )
        : undefined;
    const outside = bytes - (charged ?? 0);
    parts.push({
      key: meter.key,
      label: meter.label,
      bytes,
      chargedToPods: charged,
      outsidePods: outside,
      growsWithGpu: meter.growsWithGpu,
      evidence:
        `${meter.meminfo.filter((key) => model.meminfo.has(key)).join(' + ')}: ${formatBytes(bytes)}` +
        (charged !== undefined && kubepods
          ? `, of which the pods' cgroups are charged ${formatBytes(charged)} (${meter.stat.join(' + ')} in ${kubepods.path}/memory.stat)`
          : ', the pods’ share not known (no cgroup v2 memory.stat for kubepods)'),
    });
  }
  parts.sort((a, b) => b.outsidePods - a.outsidePods);
  return {
    memTotal,
    parts,
    outsidePods: parts.reduce((total, part) => total + part.outsidePods, 0),
    chargedFrom: kubepods?.path,
    driverEvidence: driverEvidence(driver),
  };
}

/** The top kubepods cgroup (`/kubepods.slice` or `/kubepods`): its memory.stat sums every pod's charges. */
function kubepodsRoot(model: NodeModel): CgroupMemory | undefined {
  if (model.cgroupMode !== 'v2') return undefined;
  return model.kubepodsLevels.find((level) => level.path === '/kubepods.slice' || level.path === '/kubepods');
}

export function kernelMemoryVerdict(
  memory: KernelMemory | undefined,
  headroomPercent: number = DEFAULT_HEADROOM_PERCENT,
): Verdict | undefined {
  if (!memory || memory.outsidePods <= 0) return undefined;
  const share = memory.outsidePods / memory.memTotal;
  // Below the warning, it is worth saying only where GPU memory sits in RAM: elsewhere it is a normal node.
  if (share < KERNEL_SHARE_WARNING && !memory.parts.some((part) => part.key === 'gpu')) return undefined;
  const named = memory.parts.filter((part) => part.outsidePods >= memory.memTotal * 0.01).slice(0, 4);
  const listed = (named.length > 0 ? named : memory.parts.slice(0, 1)).map((part) => `${part.label} ${formatBytes(part.outsidePods)}`);
  const gpuShare = memory.parts.filter((part) => part.growsWithGpu).reduce((total, part) => total + part.outsidePods, 0);
  return {
    id: 'memory.kernel-allocations',
    severity: share >= KERNEL_SHARE_WARNING ? 'warning' : 'info',
    title: `${listed.join(' and ')}: ${formatBytes(memory.outsidePods)} that no pod's memory.current shows (${percent(share)} of RAM)`,
    explanation:
      `The kernel holds ${formatBytes(memory.outsidePods)} of the node's ${formatBytes(memory.memTotal)} outside every pod's memory cgroup. ` +
      `${formatBytes(gpuShare)} of it grows with GPU use: GPU buffers in system RAM (GTT), the TTM pools and the driver's ` +
      'own objects in unreclaimable slab and vmalloc; page tables, kernel stacks and per-CPU memory grow with processes. ' +
      'The scheduler and the pods’ limits do not see it, so a node that looks half empty can still run out of RAM.',
    evidence: [...memory.parts.map((part) => part.evidence), ...memory.driverEvidence, `MemTotal: ${formatBytes(memory.memTotal)}`],
    remedy:
      `Size GPU pods by their true footprint (memory.current + GTT) with ${headroomPercent} % headroom, and reserve the kernel’s share ` +
      'with the kubelet’s systemReserved. If SUnreclaim keeps growing, find the cache in /proc/slabinfo (slabtop): a growing ' +
      'amdgpu, drm or ttm cache points to a driver leak, fixed by a newer kernel or driver.',
  };
}

export type OvercommitMode = 'heuristic' | 'always' | 'never' | 'unknown';

export function overcommitMode(model: NodeModel): OvercommitMode {
  const value = model.vmSysctl.get('overcommit_memory');
  return value === 0 ? 'heuristic' : value === 1 ? 'always' : value === 2 ? 'never' : 'unknown';
}

/** In strict mode (2), Committed_AS at this share of CommitLimit is a warning: allocations start failing. */
export const COMMIT_SHARE_WARNING = 0.9;

export function overcommitVerdict(model: NodeModel): Verdict | undefined {
  const committed = model.meminfo.get('Committed_AS');
  const limit = model.meminfo.get('CommitLimit');
  if (committed === undefined || limit === undefined || limit <= 0) return undefined;
  const mode = overcommitMode(model);
  const ratio = committed / limit;
  const memTotal = model.meminfo.get('MemTotal');
  const swap = model.meminfo.get('SwapTotal') ?? 0;
  const evidence = [
    `Committed_AS: ${formatBytes(committed)}, CommitLimit: ${formatBytes(limit)} (${percent(ratio)})`,
    mode === 'unknown' ? 'vm.overcommit_memory: not read' : `vm.overcommit_memory = ${model.vmSysctl.get('overcommit_memory')} (${mode})`,
    ...(model.vmSysctl.has('overcommit_ratio') ? [`vm.overcommit_ratio = ${model.vmSysctl.get('overcommit_ratio')}`] : []),
    ...(model.vmSysctl.get('overcommit_kbytes') ? [`vm.overcommit_kbytes = ${model.vmSysctl.get('overcommit_kbytes')}`] : []),
    ...(memTotal !== undefined ? [`MemTotal: ${formatBytes(memTotal)}, SwapTotal: ${formatBytes(swap)}`] : []),
  ];
  const base = { id: 'memory.overcommit', evidence };
  if (mode === 'never')
    return {
      ...base,
      severity: ratio >= COMMIT_SHARE_WARNING ? 'warning' : 'info',
      title: `Strict overcommit: ${formatBytes(committed)} committed of a ${formatBytes(limit)} limit (${percent(ratio)})`,
      explanation:
        'With vm.overcommit_memory = 2 the kernel refuses an allocation (mmap, brk, fork) that would take Committed_AS past ' +
        'CommitLimit: a process gets ENOMEM long before any OOM kill, and a GPU runtime mapping large buffers is often the first to fail. ' +
        'GTT buffers are not counted in Committed_AS.',
      remedy:
        ratio >= COMMIT_SHARE_WARNING
          ? 'Raise vm.overcommit_ratio (or set vm.overcommit_kbytes), add swap, or move workloads off the node; or use mode 0 and rely on limits.'
          : 'Nothing to do now; keep Committed_AS well below CommitLimit as workloads grow.',
    };
  const over = memTotal !== undefined ? committed / (memTotal + swap) : undefined;
  // CommitLimit binds only in mode 2; otherwise the figure matters once the processes could touch more than RAM and swap.
  if (over === undefined || over <= 1) return undefined;
  return {
    ...base,
    severity: 'info',
    title:
      mode === 'unknown'
        ? `${formatBytes(committed)} committed, ${percent(ratio)} of CommitLimit (overcommit mode not read)`
        : `Overcommit ${mode === 'always' ? 'always allowed' : 'heuristic'}: ${formatBytes(committed)} committed${over !== undefined ? `, ${percent(over)} of RAM and swap` : ''}`,
    explanation:
      mode === 'unknown'
        ? 'CommitLimit only binds when vm.overcommit_memory is 2; the probe could not read it.'
        : 'CommitLimit is not enforced in this mode: the kernel grants address space freely and, when RAM runs out, the OOM killer ' +
          'is the backstop. Committed_AS above RAM and swap shows how much the processes could touch at once.',
    remedy:
      'No change needed for the mode itself; keep pod limits sized by the true footprint so that the OOM killer stays inside the pods.',
  };
}

function percent(share: number): string {
  return `${Math.round(share * 100)} %`;
}
