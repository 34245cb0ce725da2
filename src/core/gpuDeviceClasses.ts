// Which DRA device classes are GPUs: the classes the GPU DRA drivers install (their Helm charts' DeviceClass
// objects), and any other class or driver whose name says GPU as a word of its own (`gpu.example.com`, the class and
// driver of kubernetes-sigs/dra-example-driver and of the Kubernetes DRA docs; `tesla-gpu`, `vgpu.corp`). Other
// accelerators do not count: AWS Neuron, Ascend NPUs and TPUs hold their own device memory, which is none of the
// host-RAM GPU memory gpumem accounts for; Intel Gaudi is counted because Intel's GPU driver ships it as a GPU class.

/**
 * NVIDIA k8s-dra-driver-gpu (gpu, mig, vfio.gpu), AMD k8s-gpu-dra-driver, Intel intel-resource-drivers-for-kubernetes
 * (gpu, gpu-vfio, gaudi) and HAMi's DRA driver (hami-core-gpu.project-hami.io).
 */
export const DEFAULT_GPU_DEVICE_CLASSES: readonly string[] = [
  'gpu.nvidia.com',
  'mig.nvidia.com',
  'vfio.gpu.nvidia.com',
  'gpu.amd.com',
  'gpu.intel.com',
  'gpu-vfio.intel.com',
  'gaudi.intel.com',
  'hami-core-gpu',
  'hami-core-gpu.project-hami.io',
];

const GPU_WORDS = new Set(['gpu', 'gpus', 'vgpu', 'vgpus']);

/** A class or driver name with `gpu` as one of its dot, dash, underscore or slash separated words. */
export function nameSaysGpu(name: string): boolean {
  if (name.length > 253) return false;
  return name
    .toLowerCase()
    .split(/[./_-]/)
    .some((word) => GPU_WORDS.has(word));
}

/** Whether a device class gives GPUs: a GPU driver's own class, or a name that says GPU. */
export function isGpuDeviceClass(name: string, extra: ReadonlySet<string> = new Set()): boolean {
  return extra.has(name) || DEFAULT_GPU_DEVICE_CLASSES.includes(name) || nameSaysGpu(name);
}
