// Builds a HAMi-core shared-region cache file byte for byte from the layout in HAMi-core
// src/multiprocess/multiprocess_memory_limit.h (offsets computed with gcc on x86-64 glibc; HAMi's Go
// mirror is pkg/monitor/nvidia/v1/spec.go). A real .cache file cannot be had outside a GPU node
// running HAMi, so the tests build one: same offsets, same little-endian encoding, same size
// (sizeof(shared_region_t) + 1 = 2,008,953 bytes, because try_create_shrreg writes one byte at
// offset sizeof(shared_region_t)).

export const OFF = {
  initializedFlag: 0,
  majorVersion: 4,
  minorVersion: 8,
  smInitFlag: 12,
  ownerPid: 16,
  sem: 24,
  deviceNum: 56,
  uuids: 64,
  limit: 1600,
  smLimit: 1728,
  procs: 1856,
  procNum: 2008896,
  utilizationSwitch: 2008900,
  recentKernel: 2008904,
  priority: 2008908,
  lastKernelTime: 2008912,
  semPostinit: 2008920,
} as const;

export const SLOT = {
  size: 1960,
  pid: 0,
  hostpid: 4,
  used: 8, // 16 × { context_size, module_size, data_size, offset, total, unused[3] } = 64 bytes each
  usedStride: 64,
  usedTotal: 32,
  monitorused: 1032,
  deviceUtil: 1160,
  status: 1928,
  seqlock: 1936,
} as const;

export const SHARED_REGION_SIZE = 2008952;
export const CACHE_FILE_SIZE = SHARED_REGION_SIZE + 1;
export const MAGIC = 19920718;

export interface CacheSlotSpec {
  readonly pid: number;
  readonly hostpid: number;
  readonly status: number;
  /** used[d].total per device, bytes. */
  readonly usedTotal: readonly bigint[];
  readonly contextSize?: bigint;
}

export interface CacheSpec {
  readonly magic?: number;
  readonly major?: number;
  readonly minor?: number;
  readonly smInitFlag?: number;
  readonly ownerPid?: bigint;
  readonly deviceNum: number;
  readonly uuids?: readonly string[];
  /** limit[d] in bytes. */
  readonly limits: readonly bigint[];
  readonly smLimits?: readonly bigint[];
  readonly slots: readonly CacheSlotSpec[];
  /** Defaults to slots.length. */
  readonly procNum?: number;
  readonly priority?: number;
  /** Cut the file to this many bytes (a truncated copy). */
  readonly truncateTo?: number;
}

export function buildHamiCache(spec: CacheSpec): Buffer {
  const buf = Buffer.alloc(CACHE_FILE_SIZE);
  buf.writeInt32LE(spec.magic ?? MAGIC, OFF.initializedFlag);
  buf.writeUInt32LE(spec.major ?? 1, OFF.majorVersion);
  buf.writeUInt32LE(spec.minor ?? 2, OFF.minorVersion);
  buf.writeInt32LE(spec.smInitFlag ?? 0, OFF.smInitFlag);
  buf.writeBigUInt64LE(spec.ownerPid ?? 0n, OFF.ownerPid);
  buf.writeBigUInt64LE(BigInt(spec.deviceNum), OFF.deviceNum);
  (spec.uuids ?? []).forEach((uuid, i) => buf.write(uuid.slice(0, 95), OFF.uuids + i * 96, 'latin1'));
  spec.limits.forEach((limit, i) => buf.writeBigUInt64LE(limit, OFF.limit + i * 8));
  (spec.smLimits ?? []).forEach((limit, i) => buf.writeBigUInt64LE(limit, OFF.smLimit + i * 8));
  spec.slots.forEach((slot, i) => {
    const base = OFF.procs + i * SLOT.size;
    buf.writeInt32LE(slot.pid, base + SLOT.pid);
    buf.writeInt32LE(slot.hostpid, base + SLOT.hostpid);
    slot.usedTotal.forEach((total, device) => {
      const used = base + SLOT.used + device * SLOT.usedStride;
      buf.writeBigUInt64LE(slot.contextSize ?? 0n, used);
      buf.writeBigUInt64LE(total, used + SLOT.usedTotal);
      buf.writeBigUInt64LE(total, base + SLOT.monitorused + device * 8);
    });
    buf.writeInt32LE(slot.status, base + SLOT.status);
  });
  buf.writeInt32LE(spec.procNum ?? spec.slots.length, OFF.procNum);
  buf.writeInt32LE(spec.priority ?? 1, OFF.priority);
  // The last byte (offset sizeof(shared_region_t)) is the one try_create_shrreg writes: 0.
  return spec.truncateTo === undefined ? buf : buf.subarray(0, spec.truncateTo);
}
