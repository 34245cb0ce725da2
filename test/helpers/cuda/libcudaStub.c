/*
 * TEST DOUBLE of NVIDIA's CUDA driver library (libcuda.so.1), for gpumem's HAMi over-quota test
 * (test/helpers/hamiTestRoot.ts builds it with gcc into chroot fixture roots). It is NOT a driver: it
 * implements only the five calls the test makes, with the CUDA driver API's signatures and CUresult codes
 * (https://docs.nvidia.com/cuda/cuda-driver-api/), on one pretend device whose size is configurable:
 *
 *   GPUMEM_STUB_DEVICE_MIB      device memory in MiB (default 81559, an 80 GB H100's)
 *   GPUMEM_STUB_INIT_ERROR      a CUresult for cuInit to return (e.g. 100, CUDA_ERROR_NO_DEVICE)
 *   GPUMEM_STUB_ALLOC_SLEEP_S   cuMemAlloc_v2 sleeps this long first (a call that hangs: cancel tests)
 *
 * Allocations past the device size return CUDA_ERROR_OUT_OF_MEMORY (2), as a full GPU does.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef unsigned long long CUdeviceptr;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_INVALID_DEVICE 101
#define CUDA_ERROR_INVALID_CONTEXT 201
#define MAX_ALLOCATIONS 64

static int initialized;
static int has_context;
static unsigned long long used_bytes;
static CUdeviceptr next_address = 0x7f0000000000ULL;
static struct {
  CUdeviceptr address;
  size_t size;
} allocations[MAX_ALLOCATIONS];

static unsigned long long env_number(const char *name, unsigned long long fallback) {
  const char *text = getenv(name);
  if (text == NULL || *text == '\0') return fallback;
  return strtoull(text, NULL, 10);
}

static unsigned long long device_bytes(void) { return env_number("GPUMEM_STUB_DEVICE_MIB", 81559) * 1024ULL * 1024ULL; }

CUresult cuInit(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  CUresult forced = (CUresult)env_number("GPUMEM_STUB_INIT_ERROR", 0);
  if (forced != CUDA_SUCCESS) return forced;
  initialized = 1;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (device == NULL) return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult cuCtxCreate_v2(CUcontext *context, unsigned int flags, CUdevice device) {
  (void)flags;
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (context == NULL) return CUDA_ERROR_INVALID_VALUE;
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  has_context = 1;
  *context = (CUcontext)&has_context;
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t size) {
  unsigned long long sleep_s = env_number("GPUMEM_STUB_ALLOC_SLEEP_S", 0);
  if (sleep_s > 0) sleep((unsigned int)sleep_s);
  if (!has_context) return CUDA_ERROR_INVALID_CONTEXT;
  if (pointer == NULL || size == 0) return CUDA_ERROR_INVALID_VALUE;
  if (size > device_bytes() - used_bytes) return CUDA_ERROR_OUT_OF_MEMORY;
  for (int i = 0; i < MAX_ALLOCATIONS; i++) {
    if (allocations[i].size != 0) continue;
    allocations[i].address = next_address;
    allocations[i].size = size;
    next_address += (size + 0xfffffULL) & ~0xfffffULL;
    used_bytes += size;
    *pointer = allocations[i].address;
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemFree_v2(CUdeviceptr pointer) {
  if (!has_context) return CUDA_ERROR_INVALID_CONTEXT;
  for (int i = 0; i < MAX_ALLOCATIONS; i++) {
    if (allocations[i].size == 0 || allocations[i].address != pointer) continue;
    used_bytes -= allocations[i].size;
    allocations[i].size = 0;
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}
