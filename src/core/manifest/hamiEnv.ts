// The environment variables that decide a HAMi vGPU's limits: those HAMi-core reads (Project-HAMi/HAMi-core
// src/multiprocess/multiprocess_memory_limit.c, src/log_utils.c, src/libvgpu.c) and CUDA_DISABLE_CONTROL, which the
// device plugin reads from the pod spec to skip the /etc/ld.so.preload mount (Project-HAMi/HAMi
// pkg/device-plugin/nvidiadevice/nvinternal/plugin/server.go, Allocate). A manifest that sets one changes what the
// limit is or whether it is enforced at all, so the live comparison reports where the file and the cluster's
// template disagree on them.
const EXACT = new Set([
  'CUDA_DISABLE_CONTROL',
  'CUDA_DEVICE_MEMORY_SHARED_CACHE',
  'CUDA_OVERSUBSCRIBE',
  'CUDA_REDIRECT',
  'CUDA_TASK_PRIORITY',
  'GPU_CORE_UTILIZATION_POLICY',
  'LIBCUDA_LOG_LEVEL',
]);
const PREFIXES = ['CUDA_DEVICE_MEMORY_LIMIT', 'CUDA_DEVICE_SM_LIMIT'];

/** `CUDA_DEVICE_MEMORY_LIMIT`, `CUDA_DEVICE_MEMORY_LIMIT_<i>` (i < 16 in HAMi-core), the SM limits and the switches above. */
export function isHamiEnvName(name: string): boolean {
  if (EXACT.has(name)) return true;
  for (const prefix of PREFIXES) {
    if (name === prefix) return true;
    if (name.startsWith(`${prefix}_`)) {
      const index = name.slice(prefix.length + 1);
      if (index.length > 0 && index.length <= 2 && [...index].every((c) => c >= '0' && c <= '9')) return true;
    }
  }
  return false;
}
