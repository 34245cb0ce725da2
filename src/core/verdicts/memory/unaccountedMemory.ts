// How much GPU memory escapes the cgroups: per pod (cgroup-accounted vs GTT from DRM fdinfo vs limit)
// and per node (MemTotal vs pods' memory.current vs GTT in use vs GPUActive).
import { maxOf } from '../../arrays.ts';
import { DEFAULT_HEADROOM_PERCENT, formatBytes, leavesTooLittleHeadroom, suggestedMemoryQuantity, withHeadroom } from '../../sizing.ts';
import type { NodeModel, PodCgroup } from '../../probe/nodeModel.ts';
import { PCI_VENDORS, UNIFIED_MEMORY_DEVICES } from '../../probe/parsers/drm.ts';
import { gpuProcessesOfPod } from '../../probe/parsers/fdinfo.ts';
import type { GpuReclaimCheck } from './gpuReclaim.ts';
import { availableWithReclaim, checkGpuReclaim, gpuReclaimEvidence } from './gpuReclaim.ts';
import type { PodNvidiaMemory } from './podNvidiaMemory.ts';
import type { Verdict } from '../verdict.ts';

export interface PodAccounting {
  readonly podUid: string;
  readonly qos: string;
  readonly cgroupPath: string;
  /** memory.current (v2) or memory.usage_in_bytes (v1). */
  readonly accounted: number | undefined;
  readonly gtt: number;
  readonly vram: number;
  readonly limit: number | undefined;
  /** accounted + GTT: GTT pages are system RAM that no cgroup is charged for. */
  readonly trueFootprint: number | undefined;
  /** limit − true footprint. */
  readonly headroom: number | undefined;
  /** Each process's own view (all its clients); `sharedWith` names the earlier pids that hold the same DRM
   *  clients (a forked child inherits its parent's fd): those bytes are counted once in `gtt`/`vram`. */
  readonly processes: readonly {
    readonly pid: number;
    readonly comm: string | undefined;
    readonly gtt: number;
    readonly vram: number;
    readonly sharedWith: readonly number[];
    /** Where the numbers come from when not DRM fdinfo (nvidia-smi), as an evidence line. */
    readonly evidence?: string;
  }[];
  readonly events: ReadonlyMap<string, number>;
  /** Per-GPU memory from the node's nvidia-smi (nvidiaPodMemory.ts), on NVIDIA nodes. */
  readonly nvidia?: PodNvidiaMemory;
  /** The GTT its processes hold per amdgpu's debugfs (amdgpu_gem_info), when that was read (driverDebugfs.ts). */
  readonly debugfsGtt?: number;
  /** Where `gtt` comes from when not DRM fdinfo: debugfs, on kernels whose fdinfo reports no GTT. */
  readonly gttSource?: 'debugfs';
}

export interface NodeAccounting {
  readonly memTotal: number | undefined;
  readonly memAvailable: number | undefined;
  readonly podsAccounted: number;
  readonly gttUsed: number | undefined;
  readonly gttTotal: number | undefined;
  readonly vramUsed: number | undefined;
  readonly gpuActive: number | undefined;
  /** GPUReclaim when plausible (at most MemTotal); undefined when absent or implausible. */
  readonly gpuReclaim: number | undefined;
  /** The 7.1+ GPUReclaim counter as read: absent, plausible, or larger than MemTotal (seen in the field): not used. */
  readonly gpuReclaimCheck: GpuReclaimCheck;
  /** MemAvailable plus a plausible GPUReclaim: the kernel's MemAvailable does not count the reclaimable GPU pool. */
  readonly availableWithReclaim: number | undefined;
  /** GPU memory in RAM that no cgroup is charged for: the larger of GTT in use and GPUActive. */
  readonly unaccounted: number | undefined;
  readonly unifiedMemory: boolean;
  readonly gpuSummary: string;
  /** On a unified-memory NVIDIA GPU (GB10): the compute processes' memory nvidia-smi lists, in system RAM. */
  readonly nvidiaUnifiedUsed?: number;
}

export function podAccounting(model: NodeModel): PodAccounting[] {
  return model.pods.map((pod) => accountPod(model, pod)).sort((a, b) => (b.trueFootprint ?? 0) - (a.trueFootprint ?? 0));
}

function accountPod(model: NodeModel, pod: PodCgroup): PodAccounting {
  // A DRM client (drm-client-id on a device) shared by several processes of the pod (fork, fd passing)
  // is one set of buffers: count it once for the pod.
  const firstHolder = new Map<string, number>();
  let gtt = 0;
  let vram = 0;
  const processes = gpuProcessesOfPod(model.gpuProcesses, pod.podUid).map((process) => {
    const sharedWith = new Set<number>();
    for (const client of process.clients) {
      const key = client.clientId !== undefined ? `${client.pdev ?? ''}#${client.clientId}` : undefined;
      const holder = key !== undefined ? firstHolder.get(key) : undefined;
      if (holder !== undefined) {
        if (holder !== process.pid) sharedWith.add(holder);
        continue;
      }
      if (key !== undefined) firstHolder.set(key, process.pid);
      gtt += client.resident.get('gtt') ?? 0;
      vram += client.resident.get('vram') ?? 0;
    }
    return {
      pid: process.pid,
      comm: process.comm,
      gtt: process.byRegion.get('gtt') ?? 0,
      vram: process.byRegion.get('vram') ?? 0,
      sharedWith: [...sharedWith],
    };
  });
  const limit = pod.max?.kind === 'bytes' ? pod.max.bytes : undefined;
  const trueFootprint = pod.current === undefined ? undefined : pod.current + gtt;
  return {
    podUid: pod.podUid,
    qos: pod.qos,
    cgroupPath: pod.path,
    accounted: pod.current,
    gtt,
    vram,
    limit,
    trueFootprint,
    headroom: limit !== undefined && trueFootprint !== undefined ? limit - trueFootprint : undefined,
    processes,
    events: pod.events,
  };
}

export function nodeAccounting(model: NodeModel): NodeAccounting {
  const sum = (values: Array<number | undefined>) =>
    values.some((v) => v !== undefined) ? values.reduce<number>((total, v) => total + (v ?? 0), 0) : undefined;
  const gttUsed = sum(model.gpus.map((gpu) => gpu.gttUsed));
  const gpuActive = model.meminfo.get('GPUActive');
  const reclaim = checkGpuReclaim(model);
  const memAvailable = model.meminfo.get('MemAvailable');
  const candidates = [gttUsed, gpuActive].filter((value): value is number => value !== undefined);
  const unified = model.gpus.some((gpu) => gpu.deviceId !== undefined && gpu.deviceId in UNIFIED_MEMORY_DEVICES);
  const gpuSummary =
    model.gpus.length === 0
      ? 'no DRM GPU found'
      : model.gpus
          .map(
            (gpu) =>
              `${gpu.card}: ${PCI_VENDORS[gpu.vendorId ?? ''] ?? gpu.vendorId ?? '?'} ${gpu.deviceId ?? ''}${gpu.deviceId && UNIFIED_MEMORY_DEVICES[gpu.deviceId] ? ` (${UNIFIED_MEMORY_DEVICES[gpu.deviceId]})` : ''}`,
          )
          .join(', ');
  return {
    memTotal: model.meminfo.get('MemTotal'),
    memAvailable,
    podsAccounted: model.pods.reduce((total, pod) => total + (pod.current ?? 0), 0),
    gttUsed,
    gttTotal: sum(model.gpus.map((gpu) => gpu.gttTotal)),
    vramUsed: sum(model.gpus.map((gpu) => gpu.vramUsed)),
    gpuActive,
    gpuReclaim: reclaim.kind === 'plausible' ? reclaim.bytes : undefined,
    gpuReclaimCheck: reclaim,
    availableWithReclaim: availableWithReclaim(memAvailable, reclaim),
    unaccounted: candidates.length > 0 ? maxOf(candidates, 0) : undefined,
    unifiedMemory: unified,
    gpuSummary,
  };
}

export function unaccountedMemoryVerdicts(
  model: NodeModel,
  podNames: ReadonlyMap<string, string> = new Map(),
  accounted: { readonly node: NodeAccounting; readonly pods: readonly PodAccounting[] } = {
    node: nodeAccounting(model),
    pods: podAccounting(model),
  },
  headroomPercent: number = DEFAULT_HEADROOM_PERCENT,
): Verdict[] {
  const verdicts: Verdict[] = [];
  const node = accounted.node;
  const name = (uid: string) => podNames.get(uid) ?? `pod ${uid}`;
  for (const pod of accounted.pods) {
    if (pod.gtt === 0 || pod.accounted === undefined) continue;
    const evidence = [
      `${pod.cgroupPath}: memory ${model.cgroupMode === 'v2' ? 'current' : 'usage_in_bytes'} = ${pod.accounted} (${formatBytes(pod.accounted)})`,
      `${pod.cgroupPath}: limit = ${pod.limit ?? 'max'}${pod.limit !== undefined ? ` (${formatBytes(pod.limit)})` : ''}`,
      ...pod.processes.map(
        (process) =>
          process.evidence ??
          `pid ${process.pid} (${process.comm ?? '?'}): drm GTT resident ${process.gtt} (${formatBytes(process.gtt)})${process.vram ? `, VRAM ${formatBytes(process.vram)}` : ''}${process.sharedWith.length > 0 ? ` (DRM clients shared with pid ${process.sharedWith.join(', ')}: counted once)` : ''}`,
      ),
    ];
    const held = pod.nvidia?.unified ? 'unified GPU memory (nvidia-smi)' : 'GTT';
    const summary = `${name(pod.podUid)} holds ${formatBytes(pod.gtt)} of ${held} that its cgroup does not count: it accounts ${formatBytes(pod.accounted)}, its true footprint is ${formatBytes(pod.trueFootprint ?? 0)}`;
    if (pod.limit !== undefined && pod.headroom !== undefined && pod.headroom < 0) {
      verdicts.push({
        id: 'memory.pod-over-limit-in-reality',
        severity: 'error',
        title: `${summary}, above its ${formatBytes(pod.limit)} limit.`,
        explanation:
          'GTT pages are system RAM that the kernel does not charge to the memory cgroup, so the pod limit cannot stop this growth. When the node runs out of memory, the global OOM killer picks a victim instead of a clean cgroup OOM in this pod.',
        evidence,
        remedy: `Size the pod for its true footprint: set memory requests and limits to at least ${suggestedMemoryQuantity(withHeadroom(pod.trueFootprint ?? 0, headroomPercent)) ?? formatBytes(withHeadroom(pod.trueFootprint ?? 0, headroomPercent))} (true footprint + ${headroomPercent} %), and declare gpumem.io/gpu-memory so the linter checks it.`,
      });
    } else if (
      pod.limit !== undefined &&
      pod.headroom !== undefined &&
      pod.trueFootprint !== undefined &&
      leavesTooLittleHeadroom(pod.limit, pod.trueFootprint, headroomPercent)
    ) {
      // Rounded down: the share shown is always under the headroom asked for ("29 %", never "30 % … 30 % wanted").
      const over = pod.trueFootprint > 0 ? Math.floor((pod.headroom / pod.trueFootprint) * 100) : 0;
      verdicts.push({
        id: 'memory.pod-headroom-low',
        severity: 'warning',
        title: `${summary}; its ${formatBytes(pod.limit)} limit leaves only ${formatBytes(pod.headroom)}, ${over} % over that footprint, under the ${headroomPercent} % headroom.`,
        explanation: 'The cgroup sees only the accounted part; GTT growth eats the real headroom silently.',
        evidence,
        remedy: `Keep ${headroomPercent} % headroom over the true footprint (accounted + GTT) in both the memory request and limit.`,
      });
    } else {
      verdicts.push({
        id: 'memory.pod-gtt',
        severity: 'info',
        title: `${summary}${pod.limit === undefined ? ' and it has no memory limit.' : '.'}`,
        explanation:
          'GTT memory escapes the pod cgroup on every released kernel; only the node-wide GPUActive counter (7.1+) and DRM fdinfo see it.',
        evidence,
        remedy:
          pod.limit === undefined
            ? `Give the pod a memory limit and request that include its GTT footprint plus ${headroomPercent} % headroom.`
            : `Keep the request and limit above the true footprint with ${headroomPercent} % headroom.`,
      });
    }
  }
  if (node.unaccounted !== undefined && node.memTotal !== undefined && node.unaccounted > 0) {
    const share = node.unaccounted / node.memTotal;
    verdicts.push({
      id: 'memory.unaccounted-node',
      severity: share >= 0.25 ? 'warning' : 'info',
      title: `${formatBytes(node.unaccounted)} (${(share * 100).toFixed(0)} % of ${formatBytes(node.memTotal)} RAM) is held by the GPU and charged to no cgroup.`,
      explanation: `Pods' cgroups account ${formatBytes(node.podsAccounted)} in all. GPU memory in system RAM (GTT${node.gpuActive !== undefined ? ', counted by GPUActive' : ''}) is on top of that, invisible to the kubelet's eviction and to every pod limit.`,
      evidence: [
        `MemTotal: ${node.memTotal} (${formatBytes(node.memTotal)})`,
        ...(node.memAvailable !== undefined ? [`MemAvailable: ${node.memAvailable} (${formatBytes(node.memAvailable)})`] : []),
        ...gpuReclaimEvidence(node.gpuReclaimCheck, node.availableWithReclaim),
        ...(node.gttUsed !== undefined ? [`mem_info_gtt_used (sum of cards): ${node.gttUsed} (${formatBytes(node.gttUsed)})`] : []),
        ...(node.gpuActive !== undefined ? [`GPUActive: ${node.gpuActive} (${formatBytes(node.gpuActive)})`] : []),
        ...(node.nvidiaUnifiedUsed !== undefined
          ? [
              `nvidia-smi compute apps on a unified-memory GPU (sum of used_memory): ${node.nvidiaUnifiedUsed} (${formatBytes(node.nvidiaUnifiedUsed)})`,
            ]
          : []),
        `sum of pod memory.current: ${node.podsAccounted} (${formatBytes(node.podsAccounted)})`,
      ],
      remedy:
        "Reserve RAM for GPU memory: raise GPU pods' memory requests by their GTT footprint so the scheduler does not over-pack the node, and keep such pods on dedicated, tainted nodes.",
    });
  }
  return verdicts;
}
