// CUresult names for the codes the over-quota test can meet, from the CUDA driver API's `CUresult` enum
// (https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html). A code not listed is named by its
// number, never guessed.
const CU_RESULT_NAMES: ReadonlyMap<number, string> = new Map([
  [0, 'CUDA_SUCCESS'],
  [1, 'CUDA_ERROR_INVALID_VALUE'],
  [2, 'CUDA_ERROR_OUT_OF_MEMORY'],
  [3, 'CUDA_ERROR_NOT_INITIALIZED'],
  [4, 'CUDA_ERROR_DEINITIALIZED'],
  [5, 'CUDA_ERROR_PROFILER_DISABLED'],
  [34, 'CUDA_ERROR_STUB_LIBRARY'],
  [46, 'CUDA_ERROR_DEVICE_UNAVAILABLE'],
  [100, 'CUDA_ERROR_NO_DEVICE'],
  [101, 'CUDA_ERROR_INVALID_DEVICE'],
  [102, 'CUDA_ERROR_DEVICE_NOT_LICENSED'],
  [200, 'CUDA_ERROR_INVALID_IMAGE'],
  [201, 'CUDA_ERROR_INVALID_CONTEXT'],
  [216, 'CUDA_ERROR_CONTEXT_ALREADY_IN_USE'],
  [304, 'CUDA_ERROR_OPERATING_SYSTEM'],
  [400, 'CUDA_ERROR_INVALID_HANDLE'],
  [401, 'CUDA_ERROR_ILLEGAL_STATE'],
  [500, 'CUDA_ERROR_NOT_FOUND'],
  [600, 'CUDA_ERROR_NOT_READY'],
  [700, 'CUDA_ERROR_ILLEGAL_ADDRESS'],
  [800, 'CUDA_ERROR_NOT_PERMITTED'],
  [801, 'CUDA_ERROR_NOT_SUPPORTED'],
  [802, 'CUDA_ERROR_SYSTEM_NOT_READY'],
  [803, 'CUDA_ERROR_SYSTEM_DRIVER_MISMATCH'],
  [804, 'CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE'],
  [999, 'CUDA_ERROR_UNKNOWN'],
]);

export const CUDA_ERROR_OUT_OF_MEMORY = 2;

/** `CUDA_ERROR_OUT_OF_MEMORY (2)`, or `CUresult 12345` for a code this table does not name. */
export function cuResultName(code: number): string {
  const name = CU_RESULT_NAMES.get(code);
  return name === undefined ? `CUresult ${code}` : `${name} (${code})`;
}
