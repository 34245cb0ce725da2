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

/** DRA driver names of GPUs, as CEL selectors name them (`device.driver == "gpu.nvidia.com"`). */
export const GPU_DRIVERS: readonly string[] = [
  'gpu.nvidia.com',
  'gpu.amd.com',
  'gpu.intel.com',
  'gaudi.intel.com',
  'hami-core-gpu.project-hami.io',
];

/** A DRA driver of GPUs: a GPU driver's own name, or a name that says GPU. */
export function isGpuDriver(driver: string): boolean {
  return GPU_DRIVERS.includes(driver) || nameSaysGpu(driver);
}

/** Why a device class gives GPUs, or that it does not. */
export type DeviceClassVerdict =
  | { readonly gpu: true; readonly by: 'setting' | 'name' }
  | { readonly gpu: true; readonly by: 'driver'; readonly driver: string }
  | { readonly gpu: false; readonly drivers: readonly string[] };

/**
 * Judges a device class. The CEL selectors of its DeviceClass object, when the linted files hold it, say which
 * drivers' devices it gives and outweigh its name: a class named for nothing in particular that selects
 * `gpu.nvidia.com` devices is a GPU class, one that selects only a NIC's or a Neuron driver's devices is none, whatever
 * it is called. A class in the user's own list is a GPU class whatever its selectors say. Without the object (or
 * without driver names in its selectors), the name decides as in `isGpuDeviceClass`.
 */
export function judgeDeviceClass(
  name: string,
  selectedDrivers: readonly string[] | undefined,
  configured: ReadonlySet<string> = new Set(),
): DeviceClassVerdict {
  if (configured.has(name) && !DEFAULT_GPU_DEVICE_CLASSES.includes(name)) return { gpu: true, by: 'setting' };
  if (selectedDrivers !== undefined && selectedDrivers.length > 0) {
    const driver = selectedDrivers.find(isGpuDriver);
    return driver !== undefined ? { gpu: true, by: 'driver', driver } : { gpu: false, drivers: selectedDrivers };
  }
  return isGpuDeviceClass(name, configured) ? { gpu: true, by: 'name' } : { gpu: false, drivers: [] };
}
