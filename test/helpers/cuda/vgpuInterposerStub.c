/*
 * TEST DOUBLE of HAMi-core's libvgpu.so, for gpumem's HAMi over-quota test (test/helpers/hamiTestRoot.ts
 * builds it with gcc and lists it in a chroot fixture root's /etc/ld.so.preload, the file HAMi's device plugin
 * mounts). It is NOT HAMi-core: it reproduces only the mechanism the test must see through, as HAMi-core
 * (github.com/Project-HAMi/HAMi-core) does it:
 *
 * - It is preloaded, and it replaces dlsym(): a program that dlopen()s libcuda.so.1 and looks its functions
 *   up (Python's ctypes, the CUDA runtime) is handed the hooks for cuMemAlloc_v2 and cuMemFree_v2 (HAMi-core
 *   src/libvgpu.c: its dlsym() returns its own function for every symbol starting with "cu" that it hooks).
 * - The limit is CUDA_DEVICE_MEMORY_LIMIT_0, else CUDA_DEVICE_MEMORY_LIMIT, read as HAMi-core's
 *   get_limit_from_env reads it: an optional G/g, M/m or K/k suffix (powers of 1024), then strtoul base 0.
 *   0 or unparsable means no limit.
 * - CUDA_DISABLE_CONTROL=true turns the control off (HAMi-core README: "HAMi-core will not be used").
 * - An allocation that would take the process past the limit returns CUDA_ERROR_OUT_OF_MEMORY (2) without
 *   reaching the driver, with a log line on stderr.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);
typedef CUresult (*free_fn)(CUdeviceptr);
typedef void *(*dlsym_fn)(void *, const char *);

#define MAX_TRACKED 64

static alloc_fn real_alloc;
static free_fn real_free;
static unsigned long long used_bytes;
static struct {
  CUdeviceptr address;
  size_t size;
} tracked[MAX_TRACKED];

static dlsym_fn real_dlsym(void) {
  static dlsym_fn found;
  /* HAMi-core asks for GLIBC_2.2.5 first (amd64's original version of dlsym); glibc 2.34 moved it into libc. */
  if (found == NULL) found = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
  if (found == NULL) found = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
  return found;
}

static unsigned long long limit_bytes(void) {
  const char *text = getenv("CUDA_DEVICE_MEMORY_LIMIT_0");
  if (text == NULL) text = getenv("CUDA_DEVICE_MEMORY_LIMIT");
  if (text == NULL || *text == '\0') return 0;
  char digits[64];
  size_t length = strlen(text);
  if (length >= sizeof digits) return 0;
  memcpy(digits, text, length + 1);
  unsigned long long scale = 1;
  char last = digits[length - 1];
  if (last == 'G' || last == 'g') scale = 1024ULL * 1024 * 1024;
  else if (last == 'M' || last == 'm') scale = 1024ULL * 1024;
  else if (last == 'K' || last == 'k') scale = 1024ULL;
  if (scale != 1) digits[length - 1] = '\0';
  return strtoul(digits, NULL, 0) * scale;
}

static int control_disabled(void) {
  const char *text = getenv("CUDA_DISABLE_CONTROL");
  return text != NULL && (strcasecmp(text, "true") == 0 || strcmp(text, "1") == 0);
}

CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t size) {
  if (real_alloc == NULL) return 3; /* CUDA_ERROR_NOT_INITIALIZED: libcuda.so.1 was never looked up */
  unsigned long long limit = control_disabled() ? 0 : limit_bytes();
  if (limit != 0 && size > limit - (used_bytes < limit ? used_bytes : limit)) {
    fprintf(stderr, "[HAMI-core test double ERROR]: Device 0 OOM %llu / %llu\n", used_bytes + size, limit);
    return 2;
  }
  CUresult code = real_alloc(pointer, size);
  if (code != 0) return code;
  for (int i = 0; i < MAX_TRACKED; i++) {
    if (tracked[i].size != 0) continue;
    tracked[i].address = *pointer;
    tracked[i].size = size;
    used_bytes += size;
    break;
  }
  return code;
}

CUresult cuMemFree_v2(CUdeviceptr pointer) {
  if (real_free == NULL) return 3;
  CUresult code = real_free(pointer);
  for (int i = 0; code == 0 && i < MAX_TRACKED; i++) {
    if (tracked[i].size == 0 || tracked[i].address != pointer) continue;
    used_bytes -= tracked[i].size;
    tracked[i].size = 0;
  }
  return code;
}

void *dlsym(void *handle, const char *symbol) {
  dlsym_fn next = real_dlsym();
  if (next == NULL) return NULL;
  if (strcmp(symbol, "cuMemAlloc_v2") == 0) {
    real_alloc = (alloc_fn)next(handle, symbol);
    return real_alloc ? (void *)cuMemAlloc_v2 : NULL;
  }
  if (strcmp(symbol, "cuMemFree_v2") == 0) {
    real_free = (free_fn)next(handle, symbol);
    return real_free ? (void *)cuMemFree_v2 : NULL;
  }
  return next(handle, symbol);
}
