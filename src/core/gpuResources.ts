// Which extended resources are GPUs, whose they are, and what they mean.
// Sources: HAMi charts/hami/values.yaml and device backends (Project-HAMi/HAMi pkg/device/*/device.go), vendor
// device plugins: AliyunContainerService/gpushare-scheduler-extender (docs/userguide.md: aliyun.com/gpu-mem in GiB),
// Volcano docs/user-guide/how_to_use_gpu_sharing.md (volcano.sh/gpu-memory in MiB) and how_to_use_vgpu.md,
// HabanaAI/habanalabs-k8s-device-plugin (habana.ai/gaudi), NVIDIA/k8s-device-plugin MIG strategies
// (nvidia.com/mig-<profile>), tkestack/gpu-manager (tencent.com/vcuda-memory in 256 MiB units).
import { isGpuDeviceClass } from './gpuDeviceClasses.ts';

export type GpuResourceRole =
  | 'count' // a whole device or vGPU slice
  | 'memory' // a memory quota
  | 'memory-percentage' // a share of the device's memory, 1–100
  | 'cores' // a compute share in percent
  | 'other';

export interface GpuResourceInfo {
  readonly vendor: string;
  readonly role: GpuResourceRole;
  /** Only HAMi (or HAMi-core based) schedulers define this resource, so requesting it means HAMi manages the container. */
  readonly hamiOnly: boolean;
  /** The unit of a memory quota, when known: HAMi's gpumem-style resources count MiB, Alibaba gpushare GiB. */
  readonly memoryUnit?: MemoryUnit;
  /**
   * HAMi accepts this memory or core share without a device count (the vendor backend's MutateAdmission admits
   * the container on it alone), so a missing count is not a conflict.
   */
  readonly countOptional?: boolean;
  readonly meaning: string;
}

export type MemoryUnit = 'MiB' | 'GiB' | '256MiB' | 'quantity';

const MIB = 1024 * 1024;

/** Bytes per unit of a memory quota; 'quantity' values are already bytes. */
export function memoryUnitBytes(unit: MemoryUnit | undefined): number {
  switch (unit) {
    case 'MiB':
      return MIB;
    case 'GiB':
      return 1024 * MIB;
    case '256MiB':
      return 256 * MIB;
    default:
      return 1;
  }
}

interface Entry extends GpuResourceInfo {
  readonly match: RegExp;
}

const TABLE: readonly Entry[] = [
  {
    match: /^nvidia\.com\/gpu$/,
    vendor: 'NVIDIA',
    role: 'count',
    hamiOnly: false,
    meaning: 'whole GPUs (NVIDIA device plugin) or vGPUs (HAMi)',
  },
  {
    match: /^nvidia\.com\/gpu\.shared$/,
    vendor: 'NVIDIA',
    role: 'count',
    hamiOnly: false,
    meaning: 'time-sliced GPU replicas (NVIDIA device plugin with renamed shared resources)',
  },
  // Mixed MIG strategy: one resource per profile, e.g. mig-1g.5gb, mig-3g.40gb, mig-1g.10gb+me (media extensions).
  {
    match: /^nvidia\.com\/mig-\d+g\.\d+gb(\+[a-z]+)*$/,
    vendor: 'NVIDIA',
    role: 'count',
    hamiOnly: false,
    meaning: 'MIG instances of one profile (hardware-isolated memory)',
  },
  {
    match: /^nvidia\.com\/mig-.+$/s,
    vendor: 'NVIDIA',
    role: 'count',
    hamiOnly: false,
    meaning: 'MIG instances (hardware-isolated memory)',
  },
  {
    match: /^nvidia\.com\/gpumem$/,
    vendor: 'NVIDIA',
    role: 'memory',
    hamiOnly: true,
    memoryUnit: 'MiB',
    meaning: 'HAMi vGPU memory quota per GPU, in MiB',
  },
  {
    match: /^nvidia\.com\/gpumem-percentage$/,
    vendor: 'NVIDIA',
    role: 'memory-percentage',
    hamiOnly: true,
    meaning: 'HAMi vGPU memory quota as a percentage of each GPU (1–100)',
  },
  {
    match: /^nvidia\.com\/gpucores$/,
    vendor: 'NVIDIA',
    role: 'cores',
    hamiOnly: true,
    meaning: 'HAMi vGPU compute share per GPU, in percent',
  },
  { match: /^amd\.com\/gpu$/, vendor: 'AMD', role: 'count', hamiOnly: false, meaning: 'AMD GPUs (ROCm device plugin) or vGPUs (HAMi)' },
  {
    match: /^amd\.com\/gpumem$/,
    vendor: 'AMD',
    role: 'memory',
    hamiOnly: true,
    memoryUnit: 'MiB',
    countOptional: true,
    meaning: 'HAMi AMD GPU memory quota, in MiB',
  },
  {
    match: /^amd\.com\/gpucores$/,
    vendor: 'AMD',
    role: 'cores',
    hamiOnly: true,
    countOptional: true,
    meaning: 'HAMi AMD compute-unit share',
  },
  {
    match: /^gpu\.intel\.com\/memory\.max$/,
    vendor: 'Intel',
    role: 'memory',
    hamiOnly: false,
    memoryUnit: 'quantity',
    meaning: 'Intel GPU plugin memory quota',
  },
  { match: /^gpu\.intel\.com\/millicores$/, vendor: 'Intel', role: 'cores', hamiOnly: false, meaning: 'Intel GPU plugin compute share' },
  { match: /^gpu\.intel\.com\/.+$/s, vendor: 'Intel', role: 'count', hamiOnly: false, meaning: 'Intel GPUs (i915 / xe)' },
  {
    match: /^cambricon\.com\/(mlu\d*\.)?smlu\.vmemory$/,
    vendor: 'Cambricon',
    role: 'memory',
    hamiOnly: true,
    meaning: 'HAMi Cambricon MLU memory',
  },
  {
    match: /^cambricon\.com\/(mlu\d*\.)?smlu\.vcore$/,
    vendor: 'Cambricon',
    role: 'cores',
    hamiOnly: true,
    meaning: 'HAMi Cambricon MLU cores',
  },
  { match: /^cambricon\.com\/(vmlu|mlu.*)$/s, vendor: 'Cambricon', role: 'count', hamiOnly: false, meaning: 'Cambricon MLUs' },
  {
    match: /^hygon\.com\/dcumem$/,
    vendor: 'Hygon',
    role: 'memory',
    hamiOnly: true,
    memoryUnit: 'MiB',
    meaning: 'HAMi Hygon DCU memory, in MiB',
  },
  { match: /^hygon\.com\/dcucores$/, vendor: 'Hygon', role: 'cores', hamiOnly: true, meaning: 'HAMi Hygon DCU cores' },
  { match: /^hygon\.com\/dcunum$/, vendor: 'Hygon', role: 'count', hamiOnly: true, meaning: 'HAMi Hygon DCUs' },
  { match: /^metax-tech\.com\/vmemory$/, vendor: 'MetaX', role: 'memory', hamiOnly: true, meaning: 'HAMi MetaX sGPU memory' },
  { match: /^metax-tech\.com\/vcore$/, vendor: 'MetaX', role: 'cores', hamiOnly: true, meaning: 'HAMi MetaX sGPU cores' },
  { match: /^metax-tech\.com\/(sgpu|gpu)$/, vendor: 'MetaX', role: 'count', hamiOnly: false, meaning: 'MetaX GPUs' },
  {
    match: /^enflame\.com\/gcu-memory$/,
    vendor: 'Enflame',
    role: 'memory',
    hamiOnly: true,
    countOptional: true,
    meaning: 'HAMi Enflame GCU memory (HAMi picks the profile from memory and cores alone)',
  },
  {
    match: /^enflame\.com\/gcu-core$/,
    vendor: 'Enflame',
    role: 'cores',
    hamiOnly: true,
    countOptional: true,
    meaning: 'HAMi Enflame GCU cores',
  },
  { match: /^enflame\.com\/(drs-gcu|gcu|vgcu)$/, vendor: 'Enflame', role: 'count', hamiOnly: false, meaning: 'Enflame GCUs' },
  { match: /^kunlunxin\.com\/vxpu-memory$/, vendor: 'Kunlunxin', role: 'memory', hamiOnly: true, meaning: 'HAMi Kunlunxin vXPU memory' },
  { match: /^kunlunxin\.com\/v?xpu$/, vendor: 'Kunlunxin', role: 'count', hamiOnly: false, meaning: 'Kunlunxin XPUs' },
  {
    match: /^mthreads\.com\/sgpu-memory$/,
    vendor: 'Moore Threads',
    role: 'memory',
    hamiOnly: true,
    meaning: 'HAMi Moore Threads sGPU memory',
  },
  { match: /^mthreads\.com\/sgpu-core$/, vendor: 'Moore Threads', role: 'cores', hamiOnly: true, meaning: 'HAMi Moore Threads sGPU cores' },
  { match: /^mthreads\.com\/(vgpu|gpu)$/, vendor: 'Moore Threads', role: 'count', hamiOnly: false, meaning: 'Moore Threads GPUs' },
  { match: /^vastaitech\.com\/va$/, vendor: 'Vastai', role: 'count', hamiOnly: false, meaning: 'Vastai accelerators' },
  { match: /^birentech\.com\/gpu$/, vendor: 'Biren', role: 'count', hamiOnly: false, meaning: 'Biren GPUs' },
  {
    match: /^aws\.amazon\.com\/(neuron|neuroncore|neurondevice)$/,
    vendor: 'AWS Neuron',
    role: 'count',
    hamiOnly: false,
    meaning: 'AWS Inferentia/Trainium devices or cores',
  },
  {
    match: /^huawei\.com\/Ascend[0-9A-Za-z]*-memory$/,
    vendor: 'Huawei Ascend',
    role: 'memory',
    hamiOnly: true,
    meaning: 'HAMi Ascend NPU memory',
  },
  {
    match: /^huawei\.com\/Ascend[0-9A-Za-z]*-core$/,
    vendor: 'Huawei Ascend',
    role: 'cores',
    hamiOnly: true,
    meaning: 'HAMi Ascend NPU cores',
  },
  { match: /^huawei\.com\/Ascend[0-9A-Za-z]*$/, vendor: 'Huawei Ascend', role: 'count', hamiOnly: false, meaning: 'Ascend NPUs' },
  { match: /^iluvatar\.ai\/.+\.vMem$/, vendor: 'Iluvatar', role: 'memory', hamiOnly: true, meaning: 'HAMi Iluvatar GPU memory' },
  { match: /^iluvatar\.ai\/.+\.vCore$/, vendor: 'Iluvatar', role: 'cores', hamiOnly: true, meaning: 'HAMi Iluvatar GPU cores' },
  { match: /^iluvatar\.ai\/.+-vgpu$/, vendor: 'Iluvatar', role: 'count', hamiOnly: true, meaning: 'HAMi Iluvatar vGPUs' },
  {
    match: /^volcano\.sh\/vgpu-memory$/,
    vendor: 'Volcano vGPU',
    role: 'memory',
    hamiOnly: true,
    memoryUnit: 'MiB',
    meaning: 'Volcano vGPU memory (HAMi-core enforced), in MiB',
  },
  { match: /^volcano\.sh\/vgpu-cores$/, vendor: 'Volcano vGPU', role: 'cores', hamiOnly: true, meaning: 'Volcano vGPU compute share' },
  {
    match: /^volcano\.sh\/vgpu-number$/,
    vendor: 'Volcano vGPU',
    role: 'count',
    hamiOnly: true,
    meaning: 'Volcano vGPUs (HAMi-core enforced)',
  },
  {
    match: /^volcano\.sh\/vgpu-memory-percentage$/,
    vendor: 'Volcano vGPU',
    role: 'memory-percentage',
    hamiOnly: true,
    meaning: 'Volcano vGPU memory as a percentage of each GPU (HAMi-core enforced)',
  },
  {
    match: /^volcano\.sh\/vgpu-.+$/s,
    vendor: 'Volcano vGPU',
    role: 'other',
    hamiOnly: true,
    meaning: 'a Volcano vGPU setting (HAMi-core enforced)',
  },
  // Volcano's older gpu-share plugin: memory is a scheduling share only, nothing enforces it in the container.
  {
    match: /^volcano\.sh\/gpu-memory$/,
    vendor: 'Volcano gpu-share',
    role: 'memory',
    hamiOnly: false,
    memoryUnit: 'MiB',
    meaning: 'Volcano gpu-share memory, in MiB (scheduling only, not enforced)',
  },
  {
    match: /^volcano\.sh\/gpu-number$/,
    vendor: 'Volcano gpu-share',
    role: 'count',
    hamiOnly: false,
    meaning: 'whole GPUs through Volcano gpu-share',
  },
  // Alibaba gpushare-scheduler-extender: memory in GiB by default (the extender's memory unit can be set to MiB).
  {
    match: /^aliyun\.com\/gpu-mem$/,
    vendor: 'Alibaba gpushare',
    role: 'memory',
    hamiOnly: false,
    memoryUnit: 'GiB',
    meaning: 'Alibaba gpushare GPU memory, in GiB (scheduling only unless cGPU isolates it)',
  },
  {
    match: /^aliyun\.com\/gpu-count$/,
    vendor: 'Alibaba gpushare',
    role: 'count',
    hamiOnly: false,
    meaning: 'GPUs the gpushare memory is spread over',
  },
  {
    match: /^aliyun\.com\/gpu-core\.percentage$/,
    vendor: 'Alibaba gpushare',
    role: 'cores',
    hamiOnly: false,
    meaning: 'Alibaba cGPU compute share, in percent',
  },
  { match: /^habana\.ai\/gaudi\d*$/, vendor: 'Intel Gaudi', role: 'count', hamiOnly: false, meaning: 'Habana/Intel Gaudi accelerators' },
  {
    match: /^tencent\.com\/vcuda-memory$/,
    vendor: 'Tencent vCUDA',
    role: 'memory',
    hamiOnly: false,
    memoryUnit: '256MiB',
    meaning: 'TKE gpu-manager vGPU memory, in units of 256 MiB',
  },
  {
    match: /^tencent\.com\/vcuda-core$/,
    vendor: 'Tencent vCUDA',
    role: 'cores',
    hamiOnly: false,
    meaning: 'TKE gpu-manager vGPU compute share (100 = one GPU)',
  },
  {
    match: /^k8s\.amazonaws\.com\/vgpu$/,
    vendor: 'AWS virtual GPU',
    role: 'count',
    hamiOnly: false,
    meaning: 'time-shared GPU slots (AWS virtual GPU device plugin)',
  },
  {
    match: /^[a-z0-9.-]+\/gpu$/,
    vendor: 'other',
    role: 'count',
    hamiOnly: false,
    meaning: 'GPUs from a device plugin gpumem does not know by name',
  },
];

const cache = new Map<string, GpuResourceInfo | null>();

const DRA_EXTENDED_PREFIX = 'deviceclass.resource.kubernetes.io/';

/**
 * A DRA device class requested as an extended resource (Kubernetes 1.34+, KEP-5004: every DeviceClass answers to
 * `deviceclass.resource.kubernetes.io/<class>`): a GPU count when the class is a GPU class (gpuDeviceClasses.ts),
 * null when it is another device; undefined for any other name.
 */
function draExtendedResource(name: string): GpuResourceInfo | null | undefined {
  if (!name.startsWith(DRA_EXTENDED_PREFIX)) return undefined;
  const deviceClass = name.slice(DRA_EXTENDED_PREFIX.length);
  if (!isGpuDeviceClass(deviceClass)) return null;
  return {
    vendor: 'DRA',
    role: 'count',
    hamiOnly: false,
    meaning: `GPUs of the DRA device class ${deviceClass}, requested as an extended resource`,
  };
}

/** Classifies a resource name; undefined for anything that is not a GPU resource (cpu, memory, hugepages…). */
export function classifyGpuResource(name: string): GpuResourceInfo | undefined {
  const cached = cache.get(name);
  if (cached !== undefined) return cached ?? undefined;
  const dra = draExtendedResource(name);
  if (dra !== undefined) {
    if (cache.size < 1000) cache.set(name, dra);
    return dra ?? undefined;
  }
  const entry = name.includes('/') ? TABLE.find((candidate) => candidate.match.test(name)) : undefined;
  const info: GpuResourceInfo | null = entry
    ? {
        vendor: entry.vendor,
        role: entry.role,
        hamiOnly: entry.hamiOnly,
        meaning: entry.meaning,
        ...(entry.memoryUnit ? { memoryUnit: entry.memoryUnit } : {}),
        ...(entry.countOptional ? { countOptional: true } : {}),
      }
    : null;
  if (cache.size < 1000) cache.set(name, info);
  return info ?? undefined;
}

/** Resources whose presence on a container makes HAMi-core's user-space enforcement the thing that limits it. */
export function isHamiFamily(name: string): boolean {
  const info = classifyGpuResource(name);
  if (!info) return false;
  return info.hamiOnly || name === 'nvidia.com/gpu' || name === 'amd.com/gpu';
}
