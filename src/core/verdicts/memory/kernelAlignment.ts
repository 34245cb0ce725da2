// Does this kernel and driver protect GPU memory? GPUActive counters (7.1+), the dmem controller and
// its delegation down to pods, dmem protection, 7.3's TTM protection and reclaim, the TTM page limit
// versus RAM, and whether GTT is charged to memcg at all (it is not upstream).
import { DEFAULT_HEADROOM_PERCENT, formatBytes } from '../../sizing.ts';
import type { NodeModel } from '../../probe/nodeModel.ts';
import { kernelValue } from '../../probe/parsers/kernelNumber.ts';
import { kernelAtLeast } from '../../probe/parsers/keyValue.ts';
import { checkGpuReclaim, gpuReclaimShort } from './gpuReclaim.ts';
import type { KernelCheck } from '../verdict.ts';

const PAGE = 4096;

export function kernelAlignmentChecks(model: NodeModel, headroomPercent: number = DEFAULT_HEADROOM_PERCENT): KernelCheck[] {
  const checks: KernelCheck[] = [];
  const kernel = model.kernelVersion;
  const release = model.kernel ?? 'unknown kernel';
  const hasAmd = model.gpus.some((gpu) => gpu.vendorId === '0x1002');

  // 1. GPUActive / GPUReclaim counters.
  const gpuActive = model.meminfo.get('GPUActive');
  const gpuActiveStatus =
    gpuActive !== undefined ? 'pass' : kernelAtLeast(kernel, 7, 1) ? 'fail' : model.meminfo.size > 0 ? 'warn' : 'unknown';
  // Titles state the finding (issue #16); the detail gives the numbers.
  checks.push({
    id: 'kernel.gpu-active-counters',
    title: {
      pass: '/proc/meminfo counts GPU pages node-wide (GPUActive)',
      fail: `${release} is 7.1+ but /proc/meminfo has no GPUActive`,
      warn: `${release} predates 7.1: GPU pages are not counted node-wide`,
      // The detail says "predates 7.1" whenever the release is known; the title agrees with it.
      unknown:
        model.kernel !== undefined
          ? `${release} predates 7.1: GPU pages are not counted node-wide`
          : 'the kernel and /proc/meminfo were not captured: the GPU page counters are not known',
    }[gpuActiveStatus],
    status: gpuActiveStatus,
    detail:
      gpuActive !== undefined
        ? `GPUActive ${formatBytes(gpuActive)}, ${gpuReclaimShort(checkGpuReclaim(model))}, nr_gpu_active ${model.vmstat.get('nr_gpu_active') ?? '?'} pages.`
        : kernelAtLeast(kernel, 7, 1)
          ? `${release} should print GPUActive in /proc/meminfo but does not (an older distribution backport?).`
          : `${release} predates 7.1: system RAM used by GPU buffers is visible only per process (DRM fdinfo) and in amdgpu's mem_info_gtt_used.`,
    evidence: gpuActive !== undefined ? [`GPUActive: ${gpuActive / 1024} kB`] : [`kernel ${release}`],
    remedy: 'Run Linux 7.1 or later on GPU nodes to see GPU memory in /proc/meminfo and OOM reports.',
  });

  // 2. dmem controller present.
  const controllers = model.rootControllers;
  const dmemAvailable = controllers?.includes('dmem');
  checks.push({
    id: 'kernel.dmem-available',
    title: dmemAvailable
      ? 'the dmem cgroup controller is available'
      : model.cgroupMode === 'v1' || model.cgroupMode === 'hybrid'
        ? `no dmem controller: the node runs cgroup ${model.cgroupMode}`
        : controllers === undefined
          ? 'cgroup.controllers was not captured: whether dmem is available is not known'
          : 'the kernel has no dmem cgroup controller',
    status: dmemAvailable
      ? 'pass'
      : model.cgroupMode === 'v1' || model.cgroupMode === 'hybrid'
        ? 'fail'
        : controllers === undefined
          ? 'unknown'
          : 'fail',
    detail: dmemAvailable
      ? `cgroup.controllers lists dmem${model.dmemCapacity.size > 0 ? `; regions: ${[...model.dmemCapacity.entries()].map(([region, limit]) => `${region} ${limit.kind === 'bytes' ? formatBytes(limit.bytes) : 'max'}`).join(', ')}` : ''}.`
      : model.cgroupMode === 'v1' || model.cgroupMode === 'hybrid'
        ? `The node runs cgroup ${model.cgroupMode}; dmem exists only in the unified (v2) hierarchy.`
        : controllers === undefined
          ? 'The capture has no cgroup.controllers.'
          : `cgroup.controllers is "${controllers.join(' ')}" (needs Linux 6.14+ with CONFIG_CGROUP_DMEM; amdgpu registers its VRAM region from 6.15).`,
    evidence: controllers ? [`cgroup.controllers: ${controllers.join(' ')}`] : [],
    remedy: 'Use cgroup v2 and a 6.15+ kernel built with CONFIG_CGROUP_DMEM to cap and protect VRAM per cgroup.',
  });

  // 3. dmem enabled down to the pods.
  if (dmemAvailable) {
    const levels = [
      { path: '/', subtree: model.rootSubtreeControl },
      ...model.kubepodsLevels.map((level) => ({ path: level.path, subtree: level.subtreeControl })),
    ];
    const gap = levels.find((level) => level.subtree !== undefined && !level.subtree.includes('dmem'));
    checks.push({
      id: 'kernel.dmem-delegated',
      title: gap
        ? `dmem is not delegated below ${gap.path === '/' ? 'the root cgroup' : gap.path}: pods get no dmem files`
        : levels.some((level) => level.subtree !== undefined)
          ? 'dmem is delegated down to the pods'
          : 'no cgroup.subtree_control was captured: whether dmem reaches the pods is not known',
      status: gap ? 'fail' : levels.some((level) => level.subtree !== undefined) ? 'pass' : 'unknown',
      detail: gap
        ? `dmem is not in ${gap.path === '/' ? 'the root' : gap.path}'s cgroup.subtree_control, so pods below it get no dmem files; systemd and the kubelet do not enable it themselves.`
        : 'Every kubepods level delegates dmem.',
      evidence: levels
        .filter((level) => level.subtree !== undefined)
        .map((level) => `${level.path === '/' ? '' : level.path}/cgroup.subtree_control: ${level.subtree?.join(' ')}`),
      remedy:
        'Enable it at every level (echo +dmem > cgroup.subtree_control from the root down to kubepods), e.g. with a node DaemonSet or dmemcg-booster.',
    });
    const gpuPods = model.pods.filter((pod) => [...pod.dmem.current.values()].some((limit) => limit.kind === 'bytes' && limit.bytes > 0));
    const protectedPods = gpuPods.filter((pod) =>
      [...pod.dmem.min.values(), ...pod.dmem.low.values()].some((limit) => limit.kind === 'max' || limit.bytes > 0),
    );
    checks.push({
      id: 'kernel.dmem-protection',
      title:
        gpuPods.length === 0
          ? 'no pod is charged VRAM: dmem protection has nothing to check'
          : protectedPods.length === gpuPods.length
            ? `every pod that holds VRAM (${gpuPods.length}) has dmem.min or dmem.low`
            : `${gpuPods.length - protectedPods.length} of ${gpuPods.length} pods that hold VRAM have no dmem protection`,
      status: gpuPods.length === 0 ? 'unknown' : protectedPods.length === gpuPods.length ? 'pass' : 'warn',
      detail:
        gpuPods.length === 0
          ? 'No pod is charged dmem (no VRAM users, or dmem is not delegated).'
          : `${protectedPods.length} of ${gpuPods.length} pods that hold VRAM have dmem.min or dmem.low set.`,
      evidence: gpuPods.map(
        (pod) =>
          `${pod.path}: dmem.current ${[...pod.dmem.current.entries()].map(([r, v]) => `${r} ${v.kind === 'bytes' ? v.bytes : 'max'}`).join(', ')}; dmem.low ${[...pod.dmem.low.entries()].map(([r, v]) => `${r} ${v.kind === 'bytes' ? v.bytes : 'max'}`).join(', ') || 'unset'}`,
      ),
      remedy: 'Set dmem.low (or dmem.min) for latency-critical GPU pods so other workloads cannot evict their VRAM.',
    });
  }

  // 4. 7.3 TTM protection and reclaim.
  checks.push({
    id: 'kernel.ttm-protection',
    title: kernelAtLeast(kernel, 7, 3)
      ? `${release} honours dmem protection when TTM evicts (7.3+)`
      : kernel
        ? `${release} predates 7.3: TTM eviction ignores dmem protection`
        : 'the kernel version is not known: whether TTM honours dmem protection is not known',
    status: kernelAtLeast(kernel, 7, 3) ? 'pass' : kernel ? 'info' : 'unknown',
    detail: kernelAtLeast(kernel, 7, 3)
      ? `${release} has the 7.3 TTM changes: protected allocations evict unprotected buffers instead of falling back to GTT, and lowering dmem.max reclaims synchronously.`
      : `${release} predates 7.3: dmem.min/low are recorded but TTM eviction does not prefer protected buffers, and lowering dmem.max below usage silently fails.`,
    evidence: [`kernel ${release}`],
    remedy:
      'Linux 7.3 or later for VRAM protection that holds under contention. On APUs it matters less: most GPU memory there is GTT, which dmem does not cover.',
  });

  // 5. GTT size versus RAM.
  const memTotal = model.meminfo.get('MemTotal');
  const gttTotal = model.gpus.reduce<number | undefined>(
    (sum, gpu) => (gpu.gttTotal === undefined ? sum : (sum ?? 0) + gpu.gttTotal),
    undefined,
  );
  // A module parameter is one "%lu"; bounded, so a garbled value is no number rather than Infinity.
  const pagesText = model.moduleParams.get('ttm')?.get('pages_limit') ?? model.moduleParams.get('amdttm')?.get('pages_limit');
  const pagesLimit = (pagesText === undefined ? undefined : kernelValue(pagesText, 'pages_limit', undefined, { firstToken: true })) ?? NaN;
  const gttsize = model.moduleParams.get('amdgpu')?.get('gttsize');
  if (hasAmd || gttTotal !== undefined) {
    const share = gttTotal !== undefined && memTotal ? gttTotal / memTotal : undefined;
    checks.push({
      id: 'kernel.gtt-size',
      title:
        share === undefined
          ? 'GTT size or MemTotal was not captured: how much RAM the GPU may take is not known'
          : share > 0.9
            ? `GTT may take ${(share * 100).toFixed(0)} % of RAM before any limit applies`
            : `GTT is capped at ${(share * 100).toFixed(0)} % of RAM`,
      status: share === undefined ? 'unknown' : share > 0.9 ? 'warn' : 'pass',
      detail:
        share === undefined
          ? 'GTT size or MemTotal is unknown.'
          : `GTT can grow to ${formatBytes(gttTotal ?? 0)}, ${(share * 100).toFixed(0)} % of ${formatBytes(memTotal ?? 0)} RAM${Number.isFinite(pagesLimit) ? ` (ttm.pages_limit ${pagesLimit} = ${formatBytes(pagesLimit * PAGE)})` : ''}${gttsize && gttsize !== '-1' ? `; amdgpu.gttsize=${gttsize} MiB is deprecated in favour of ttm.pages_limit` : ''}. ${share > 0.9 ? 'One GPU workload can take almost all RAM before any limit applies.' : ''}`.trim(),
      evidence: [
        ...(gttTotal !== undefined ? [`mem_info_gtt_total: ${gttTotal}`] : []),
        ...(memTotal !== undefined ? [`MemTotal: ${memTotal / 1024} kB`] : []),
        ...(Number.isFinite(pagesLimit) ? [`ttm pages_limit: ${pagesLimit}`] : []),
        ...(gttsize !== undefined ? [`amdgpu gttsize: ${gttsize}`] : []),
      ],
      remedy:
        'Cap GTT with ttm.pages_limit (and amdttm.pages_limit with ROCm DKMS) so the GPU cannot take the RAM the node and its pods need; pages = GiB × 262144.',
    });
  }

  // 6. memcg charging of GTT.
  const charged = model.pods.some((pod) => pod.stat.has('gpu_active')) || model.moduleParams.get('ttm')?.has('ttm_memcg') === true;
  checks.push({
    id: 'kernel.gtt-memcg',
    title: charged
      ? 'GTT is charged to the pod memory cgroup'
      : 'GTT is not charged to the pod memory cgroup: pod limits miss GPU memory in RAM',
    status: charged ? 'pass' : 'fail',
    detail: charged
      ? 'memory.stat reports gpu_active, or ttm.ttm_memcg exists: this kernel carries the memcg charging series.'
      : 'No released kernel (through 7.3) charges TTM/GTT pages to memcg: the memcg series is not merged. GPU memory in RAM is invisible to pod limits.',
    evidence: charged
      ? ['memory.stat: gpu_active present']
      : [`kernel ${release}: no gpu_active in any pod's memory.stat, no ttm.ttm_memcg parameter`],
    remedy: `Until it lands, size GPU pods for memory.current plus GTT with ${headroomPercent} % headroom, and watch GTT per pod (DRM fdinfo).`,
  });
  // On a node without a TTM-managed GPU these are facts about the kernel, not problems. A DRM device is
  // not necessarily a GPU: servers have a BMC display adapter (ASPEED ast, Matrox mgag200) and VMs a
  // virtual one (virtio-gpu, bochs), all DRM cards without GPU memory.
  // dmem and TTM/GTT only concern GPUs whose driver uses TTM (amdgpu, radeon, xe, nouveau): NVIDIA's
  // proprietary and open kernel modules manage VRAM themselves, so on such a node they are facts too.
  const usesTtm = (gpu: NodeModel['gpus'][number]) =>
    gpu.vendorId === '0x1002' || ['amdgpu', 'radeon', 'xe', 'nouveau'].includes(gpu.driver ?? '') || gpu.gttTotal !== undefined;
  if (!model.gpus.some(usesTtm))
    return checks.map((check) => (check.status === 'fail' || check.status === 'warn' ? { ...check, status: 'info' } : check));
  return checks;
}
