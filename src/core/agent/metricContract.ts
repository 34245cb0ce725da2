// The agent's metric contract: every family `gpumem agent` serves, its type, unit, labels and where its value comes
// from. Names and labels are stable (docs/agent.md is checked against this list by a test); base units are bytes and
// seconds; every family carries `node`; no family has a pid or process label, so series are bounded by pods × GPUs.
export type MetricType = 'gauge' | 'counter';

export interface MetricFamily {
  readonly name: string;
  readonly type: MetricType;
  readonly help: string;
  /** Label names besides `node`, in the order they are written. */
  readonly labels: readonly string[];
  /** The node's file or command the value comes from (for docs/agent.md). */
  readonly source: string;
}

const POD = ['namespace', 'pod', 'uid'] as const;

export const METRIC_FAMILIES = [
  // The node.
  {
    name: 'gpumem_node_memory_total_bytes',
    type: 'gauge',
    help: 'MemTotal of the node.',
    labels: [],
    source: '/proc/meminfo MemTotal',
  },
  {
    name: 'gpumem_node_memory_available_bytes',
    type: 'gauge',
    help: 'MemAvailable of the node (the kernel does not count the reclaimable GPU pool in it).',
    labels: [],
    source: '/proc/meminfo MemAvailable',
  },
  {
    name: 'gpumem_node_gpu_active_bytes',
    type: 'gauge',
    help: 'GPU buffers in system RAM in use (Linux 7.1+; absent before).',
    labels: [],
    source: '/proc/meminfo GPUActive',
  },
  {
    name: 'gpumem_node_gpu_reclaim_bytes',
    type: 'gauge',
    help: 'GPU buffers in system RAM the driver pools and can give back (Linux 7.1+; absent before or when implausible).',
    labels: [],
    source: '/proc/meminfo GPUReclaim',
  },
  {
    name: 'gpumem_node_gtt_total_bytes',
    type: 'gauge',
    help: 'GTT size of a DRM card: how much system RAM the GPU may map.',
    labels: ['card'],
    source: '/sys/class/drm/<card>/device/mem_info_gtt_total',
  },
  {
    name: 'gpumem_node_gtt_used_bytes',
    type: 'gauge',
    help: 'GTT in use on a DRM card: system RAM that no memory cgroup is charged for.',
    labels: ['card'],
    source: '/sys/class/drm/<card>/device/mem_info_gtt_used',
  },
  {
    name: 'gpumem_node_vram_total_bytes',
    type: 'gauge',
    help: 'VRAM of a GPU (a DRM card, or an NVIDIA GPU index from nvidia-smi).',
    labels: ['card'],
    source: '/sys/class/drm/<card>/device/mem_info_vram_total; nvidia-smi --query-gpu memory.total',
  },
  {
    name: 'gpumem_node_vram_used_bytes',
    type: 'gauge',
    help: 'VRAM in use on a GPU.',
    labels: ['card'],
    source: '/sys/class/drm/<card>/device/mem_info_vram_used; nvidia-smi --query-gpu memory.used',
  },
  {
    name: 'gpumem_node_dmem_capacity_bytes',
    type: 'gauge',
    help: 'Size of a dmem cgroup region (e.g. drm/0000:c5:00.0/vram).',
    labels: ['region'],
    source: '/sys/fs/cgroup/dmem.capacity',
  },
  {
    name: 'gpumem_node_dmem_current_bytes',
    type: 'gauge',
    help: 'Use of a dmem region by all pods together (kubepods.slice).',
    labels: ['region'],
    source: '/sys/fs/cgroup/kubepods.slice/dmem.current',
  },
  // Pods.
  {
    name: 'gpumem_pod_cgroup_memory_bytes',
    type: 'gauge',
    help: "The pod cgroup's memory.current: what its memory limit sees.",
    labels: POD,
    source: '<pod cgroup>/memory.current (v1: memory.usage_in_bytes)',
  },
  {
    name: 'gpumem_pod_memory_limit_bytes',
    type: 'gauge',
    help: "The pod cgroup's memory.max (absent when unlimited).",
    labels: POD,
    source: '<pod cgroup>/memory.max (v1: memory.limit_in_bytes)',
  },
  {
    name: 'gpumem_pod_gtt_bytes',
    type: 'gauge',
    help: "GTT held by the pod's processes (each DRM client once).",
    labels: POD,
    source: '/proc/<pid>/fdinfo/<fd> drm-memory-gtt; amdgpu_gem_info where fdinfo has none',
  },
  {
    name: 'gpumem_pod_vram_bytes',
    type: 'gauge',
    help: "VRAM held by the pod's processes on a GPU.",
    labels: [...POD, 'gpu'],
    source: '/proc/<pid>/fdinfo/<fd> drm-memory-vram (gpu: drm-pdev); nvidia-smi --query-compute-apps used_memory (gpu: index)',
  },
  {
    name: 'gpumem_pod_unaccounted_bytes',
    type: 'gauge',
    help: "GPU memory in system RAM that the pod's processes hold and no cgroup counts (GTT; unified-memory NVIDIA: used_memory).",
    labels: POD,
    source: 'fdinfo drm-memory-gtt; nvidia-smi on a unified-memory GPU',
  },
  {
    name: 'gpumem_pod_true_footprint_bytes',
    type: 'gauge',
    help: "memory.current plus the pod's unaccounted GPU memory: what the node really spends on the pod.",
    labels: POD,
    source: 'memory.current + gpumem_pod_unaccounted_bytes',
  },
  {
    name: 'gpumem_pod_evicted_seconds_total',
    type: 'counter',
    help: "Time the pod's KFD processes' queues were evicted on a GPU, since each process started.",
    labels: [...POD, 'gpu'],
    source: '/sys/class/kfd/kfd/proc/<pid>/stats_<gpu_id>/evicted_ms (gpu: the KFD gpu_id)',
  },
  {
    name: 'gpumem_pod_unaccounted_max_bytes',
    type: 'gauge',
    help: "The maximum of gpumem_pod_unaccounted_bytes over the agent's looks in the last peak window (--peak-window): a spike between two scrapes.",
    labels: POD,
    source: 'full cycles, and the light sweeps the GPU watch triggers (--gpu-watch-interval)',
  },
  {
    name: 'gpumem_pod_true_footprint_max_bytes',
    type: 'gauge',
    help: 'The maximum over the last peak window of memory.current plus the unaccounted GPU memory, both read in the same look (never the sum of two separate maxima).',
    labels: POD,
    source: 'full cycles, and the light sweeps the GPU watch triggers',
  },
  {
    name: 'gpumem_pod_vram_max_bytes',
    type: 'gauge',
    help: 'The maximum of gpumem_pod_vram_bytes over the last peak window.',
    labels: [...POD, 'gpu'],
    source: 'full cycles, and the light sweeps the GPU watch triggers',
  },
  // Containers: the cgroups the API names (without API access, by container ID).
  {
    name: 'gpumem_container_memory_working_set_bytes',
    type: 'gauge',
    help: "A container cgroup's usage less its inactive file cache: cAdvisor's container_memory_working_set_bytes, the figure VPA and KRR size from.",
    labels: [...POD, 'container'],
    source: '<container cgroup>/memory.current less memory.stat inactive_file (v1: usage_in_bytes less total_inactive_file)',
  },
  {
    name: 'gpumem_container_memory_peak_bytes',
    type: 'gauge',
    help: "The kernel's high-water mark of the container cgroup since the container started, page cache included: an upper bound of what it needed.",
    labels: [...POD, 'container'],
    source: '<container cgroup>/memory.peak (Linux 5.19+; v1: memory.max_usage_in_bytes)',
  },
  {
    name: 'gpumem_container_unaccounted_bytes',
    type: 'gauge',
    help: "GPU memory in system RAM that the container's processes hold and no cgroup counts (each DRM client once).",
    labels: [...POD, 'container'],
    source: "/proc/<pid>/fdinfo/<fd> drm-memory-gtt, by the container of the process's cgroup; nvidia-smi on a unified-memory GPU",
  },
  {
    name: 'gpumem_container_unaccounted_max_bytes',
    type: 'gauge',
    help: 'The maximum of gpumem_container_unaccounted_bytes over the last peak window.',
    labels: [...POD, 'container'],
    source: 'full cycles, and the light sweeps the GPU watch triggers',
  },
  // OOM kills.
  {
    name: 'gpumem_oom_kills_total',
    type: 'counter',
    help: 'OOM kills the agent saw in the kernel log since it started, by scope and whether the kill carries the GPU (GTT) signature.',
    labels: ['scope', 'gpu_signature', ...POD],
    source: 'the kernel log (dmesg, journalctl -k): oom-kill lines with global_oom or oom_memcg',
  },
  {
    name: 'gpumem_oom_kill_last_timestamp_seconds',
    type: 'gauge',
    help: 'Unix time of the last OOM kill of these labels in the kernel log.',
    labels: ['scope', 'gpu_signature', ...POD],
    source: 'the kernel log timestamp, from boot time (/proc/uptime) when it is monotonic',
  },
  // HAMi.
  {
    name: 'gpumem_hami_enforcement',
    type: 'gauge',
    help: "1 for the state of a HAMi container's memory quota: enforced, bypassed, or unknown; 0 for the others.",
    labels: ['namespace', 'pod', 'container', 'state'],
    source: 'nvidia-smi used_memory against the quota (hami.quota-held / hami.quota-exceeded)',
  },
  {
    name: 'gpumem_hami_quota_bytes',
    type: 'gauge',
    help: "A HAMi container's memory quota on a GPU.",
    labels: ['namespace', 'pod', 'container', 'gpu'],
    source: 'hami.io/vgpu-devices-allocated; else CUDA_DEVICE_MEMORY_LIMIT_<i> from /proc/<pid>/environ; else the HAMi cache',
  },
  // The agent itself.
  {
    name: 'gpumem_probe_duration_seconds',
    type: 'gauge',
    help: "Wall time of the last cycle's node probe and analysis.",
    labels: [],
    source: 'the agent',
  },
  {
    name: 'gpumem_probe_errors_total',
    type: 'counter',
    help: 'Cycles that failed, by reason (probe-failed, probe-timeout, capture-unusable); the last good result is kept.',
    labels: ['reason'],
    source: 'the agent',
  },
  {
    name: 'gpumem_probe_input_unread',
    type: 'gauge',
    help: "1 when the last good cycle's probe could not read this input, so the verdicts it feeds are unknown (kernel-log: OOM kills go uncounted; fdinfo: other processes' GPU memory is unseen; capture: the capture was cut short); 0 when it was read.",
    labels: ['input'],
    source: 'the agent: what the probe could not read (docs/probes.md)',
  },
  {
    name: 'gpumem_probe_cycles_total',
    type: 'counter',
    help: 'Cycles run, good or failed.',
    labels: [],
    source: 'the agent',
  },
  {
    name: 'gpumem_probe_last_success_timestamp_seconds',
    type: 'gauge',
    help: 'Unix time of the last cycle that produced a result.',
    labels: [],
    source: 'the agent',
  },
  {
    name: 'gpumem_gpu_watch_sweeps_total',
    type: 'counter',
    help: "Light sweeps of the pods' GPU memory run between full cycles because the GPU watch saw the node's GPU memory rise.",
    labels: [],
    source: 'the agent',
  },
  {
    name: 'gpumem_kubernetes_api_up',
    type: 'gauge',
    help: "1 when the agent's watch of the pods on its node is current (pods have namespace and name labels); 0 when it is not, with the reason (no-credentials, forbidden, unreachable).",
    labels: ['reason'],
    source: 'the agent',
  },
  {
    name: 'gpumem_build_info',
    type: 'gauge',
    help: "Always 1: the agent's version and the node's kernel.",
    labels: ['version', 'kernel'],
    source: 'the agent; /proc/sys/kernel/osrelease',
  },
] as const satisfies readonly MetricFamily[];
