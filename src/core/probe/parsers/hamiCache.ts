// HAMi-core shared-region cache files, as the node probe (section `hami.caches`, host files under
// /usr/local/vgpu/containers/*/) and the container probe (same section name, the file named by
// CUDA_DEVICE_MEMORY_SHARED_CACHE) print them with `od`:
//
//   size=2008953
//   header= 19920718 1 2 0             (int32: magic, major, minor, sm_init_flag)
//   device_num=1                       (uint64 @56)
//   limits= 4294967296 0 … (16 uint64 @1600, bytes; 0 = unlimited)
//   proc_num=2                         (int32 @2008896)
//   slot0= 12 4242 status=1 used=…     (pid, hostpid int32 @1856+i*1960; status int32 @+1928; used[0].total uint64 @+40)
//
// Layout: HAMi-core src/multiprocess/multiprocess_memory_limit.h (offsets for x86-64 glibc; Go mirror in HAMi
// pkg/monitor/nvidia/v1/spec.go).
// Pure and tolerant: a truncated file or a missing `od` gives undefined fields and problems.
// uint64 values are kept exactly as decimal strings next to a JS number, so counters that
// underflowed (HAMi#1181: 18446744073707737660) are recognised rather than rounded.
import type { NumberProblems } from './kernelNumber.ts';
import { describeNumberProblem, kernelValue, parseKernelNumber } from './kernelNumber.ts';
import type { Capture } from '../capture.ts';

export const HAMI_CACHE_MAGIC = 19920718;
/** sizeof(shared_region_t) + 1 on x86-64 glibc: the size of a cache HAMi-core created. */
export const HAMI_CACHE_SIZE = 2008953;
export const HAMI_CACHE_MAX_DEVICES = 16;
/** A uint64 at or above 2^63 is a negative int64 that wrapped: the counter underflowed. */
const UNDERFLOW = 1n << 63n;
/** Above this (1 PiB) a byte count is not a real GPU allocation. */
const IMPLAUSIBLE = 1n << 50n;

export interface HamiUint64 {
  /** Exact decimal text as od printed it. */
  readonly raw: string;
  /** The value as a number (inexact above 2^53). */
  readonly value: number;
  /** ≥ 2^63: a wrapped negative counter. */
  readonly underflow: boolean;
  /** > 1 PiB: not a real allocation (underflow or corruption). */
  readonly implausible: boolean;
}

export interface HamiCacheSlot {
  readonly index: number;
  readonly pid: number | undefined;
  readonly hostPid: number | undefined;
  /** 0 = dead (the monitor skips it). */
  readonly status: number | undefined;
  /** used[0].total: device 0 bytes HAMi-core tracked for this process. */
  readonly used: HamiUint64 | undefined;
  /** The verbatim line. */
  readonly line: string;
}

export interface HamiCache {
  readonly path: string;
  readonly sizeBytes: number | undefined;
  readonly magic: number | undefined;
  /** True/false once the header was read; undefined when it was not. */
  readonly magicOk: boolean | undefined;
  readonly majorVersion: number | undefined;
  readonly minorVersion: number | undefined;
  readonly smInitFlag: number | undefined;
  readonly deviceNum: number | undefined;
  /** limit[0..15] in bytes (0 = unlimited); entries are undefined where the read came up short. */
  readonly limits: readonly (HamiUint64 | undefined)[];
  readonly procNum: number | undefined;
  readonly slots: readonly HamiCacheSlot[];
  /** Slots with status ≠ 0 and a pid. */
  readonly liveSlots: readonly HamiCacheSlot[];
  readonly odMissing: boolean;
  /** The verbatim body, for evidence. */
  readonly lines: readonly string[];
  readonly problems: readonly string[];
}

export function parseHamiCaches(capture: Capture, section = 'hami.caches'): HamiCache[] {
  const caches: HamiCache[] = [];
  for (const record of capture.sections.get(section)?.records ?? []) {
    if (record.path === undefined) continue;
    caches.push(parseHamiCacheRecord(record.path, record.body));
  }
  return caches;
}

export function parseHamiCacheRecord(path: string, body: string): HamiCache {
  const problems: string[] = [];
  // Every number through the one bounded parser: out of range is a problem naming the field, never Infinity.
  const numberProblems: NumberProblems = { file: path, problems: [] };
  const count = (text: string | undefined, field: string, signed = false): number | undefined =>
    text === undefined ? undefined : kernelValue(text, field, numberProblems, { signed });
  const lines = body
    .split('\n')
    .map((line) => line.replace(/\r$/, ''))
    .filter((line) => line.trim() !== '');
  const values = new Map<string, string>();
  const slots: HamiCacheSlot[] = [];
  let odMissing = false;
  for (const line of lines) {
    if (line.trim() === 'od-missing') {
      odMissing = true;
      continue;
    }
    const slot = /^slot(\d+)=([^\n]*)$/.exec(line);
    if (slot) {
      const index = count(slot[1], 'slot');
      if (index !== undefined) slots.push(parseSlot(index, slot[2] ?? '', line));
      continue;
    }
    const eq = line.indexOf('=');
    if (eq > 0) values.set(line.slice(0, eq).trim(), line.slice(eq + 1));
  }

  const sizeText = values.get('size')?.trim();
  const sizeBytes = count(sizeText, 'size');
  const header = ints(values.get('header'));
  const magic = header[0];
  const deviceNumText = values.get('device_num')?.trim();
  const deviceNum = count(deviceNumText, 'device_num');
  const limitTokens = tokens(values.get('limits'));
  const limits: (HamiUint64 | undefined)[] = [];
  for (let i = 0; i < HAMI_CACHE_MAX_DEVICES; i++) limits.push(uint64(limitTokens[i]));
  const procNumText = values.get('proc_num')?.trim();
  const procNum = count(procNumText, 'proc_num', true);

  if (odMissing) problems.push(`${path}: od is missing on the target, so the cache could not be decoded`);
  for (const problem of numberProblems.problems) problems.push(describeNumberProblem(problem));
  if (sizeBytes === undefined) problems.push(`${path}: size not reported`);
  else if (sizeBytes === 0) problems.push(`${path}: the file is empty: HAMi-core never initialised it`);
  else if (sizeBytes !== HAMI_CACHE_SIZE) {
    problems.push(
      `${path}: size ${sizeBytes} ≠ ${HAMI_CACHE_SIZE} (x86-64 HAMi-core v1.x): another HAMi-core version, the v0 layout or another architecture; the offsets below may not apply`,
    );
  }
  const magicOk = magic === undefined ? undefined : magic === HAMI_CACHE_MAGIC;
  if (!odMissing && magic === undefined) problems.push(`${path}: the header could not be read`);
  if (magicOk === false)
    problems.push(`${path}: bad magic ${magic} (expected ${HAMI_CACHE_MAGIC}): not an initialised HAMi-core shared region`);
  if (magicOk && header[1] !== undefined && header[1] !== 1) problems.push(`${path}: major version ${header[1]} (this reader knows 1)`);
  if (deviceNum !== undefined && deviceNum > HAMI_CACHE_MAX_DEVICES)
    problems.push(`${path}: device_num ${deviceNum} > ${HAMI_CACHE_MAX_DEVICES}: corrupt header`);
  if (procNum !== undefined && (procNum < 0 || procNum > 1024))
    problems.push(`${path}: proc_num ${procNum} outside 0..1024: corrupt region`);
  if (!odMissing && limitTokens.length > 0 && limitTokens.length < HAMI_CACHE_MAX_DEVICES)
    problems.push(`${path}: only ${limitTokens.length} of ${HAMI_CACHE_MAX_DEVICES} limits read (truncated file or output)`);
  if (limitTokens.includes('*')) problems.push(`${path}: od collapsed repeated lines ('*'): some limits are unknown`);
  limits.forEach((limit, device) => {
    if (limit?.underflow || limit?.implausible) problems.push(`${path}: limit[${device}] = ${limit.raw} is not a plausible byte count`);
  });
  for (const slot of slots) {
    if (slot.used?.underflow) {
      problems.push(
        `${path}: slot ${slot.index} (pid ${slot.pid ?? '?'}) used = ${slot.used.raw}: the usage counter underflowed (HAMi#1181); HAMi-core then refuses allocations with false OOMs`,
      );
    } else if (slot.used?.implausible) {
      problems.push(`${path}: slot ${slot.index} (pid ${slot.pid ?? '?'}) used = ${slot.used.raw} bytes is implausible: corrupt counter`);
    }
  }
  const liveSlots = slots.filter((slot) => slot.status !== undefined && slot.status !== 0 && slot.pid !== undefined && slot.pid !== 0);
  return {
    path,
    sizeBytes,
    magic,
    magicOk,
    majorVersion: header[1],
    minorVersion: header[2],
    smInitFlag: header[3],
    deviceNum,
    limits,
    procNum,
    slots,
    liveSlots,
    odMissing,
    lines,
    problems,
  };
}

function parseSlot(index: number, rest: string, line: string): HamiCacheSlot {
  // " 12 4242 status=1 used=123" — any part may be missing when the file is short.
  const statusAt = rest.indexOf('status=');
  const ids = ints(statusAt < 0 ? rest : rest.slice(0, statusAt));
  const status = /status=(-?\d+)/.exec(rest);
  const used = /used=(\d+)/.exec(rest);
  return {
    index,
    pid: ids[0],
    hostPid: ids[1],
    status: status ? boundedInt(status[1]) : undefined,
    used: uint64(used?.[1]),
    line,
  };
}

function tokens(text: string | undefined): string[] {
  return (text ?? '')
    .trim()
    .split(/\s+/)
    .filter((token) => token !== '');
}

function ints(text: string | undefined): (number | undefined)[] {
  return tokens(text).map(boundedInt);
}

/** A small signed integer from od's output (header fields, pids, status), or undefined past 64 bits or 2^53. */
function boundedInt(token: string | undefined): number | undefined {
  if (token === undefined) return undefined;
  const parsed = parseKernelNumber(token, { file: '', field: '' }, { signed: true });
  return parsed.kind === 'value' ? parsed.value : undefined;
}

export function uint64(text: string | undefined): HamiUint64 | undefined {
  if (text === undefined || !/^\d{1,20}$/.test(text)) return undefined;
  const big = BigInt(text);
  if (big >= 1n << 64n) return undefined;
  return { raw: text, value: Number(big), underflow: big >= UNDERFLOW, implausible: big > IMPLAUSIBLE };
}

/** The cache's limit for one device in bytes: undefined when unknown, 0 when unlimited. */
export function cacheLimit(cache: HamiCache, device: number): number | undefined {
  return cache.limits[device]?.value;
}
