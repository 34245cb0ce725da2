// nvidia-smi CSV (`--format=csv,noheader,nounits`, and tolerant of `csv` with a header or units):
// `--query-gpu=…` and `--query-compute-apps=…`. Pure and tolerant: unknown columns are kept raw,
// `[N/A]`/`[Not Supported]`/`[Insufficient Permissions]` become "unavailable" with the reason, short
// rows are padded, a process name holding the separator is rejoined, and interleaved non-CSV lines
// (nvidia-smi errors, HAMi-core log lines printed by a preloaded libvgpu.so) are set aside.
//
// Inside a HAMi container NVML is hooked: memory.total is the quota and memory.used HAMi's tracked
// usage (HAMi-core src/nvml/hook.c, nvmlDeviceGetMemoryInfo). On unified-memory GPUs (GB10 / DGX Spark)
// memory.total/used/free print `[N/A]` while --query-compute-apps used_memory still works.
import { splitTrimmed } from '../../textScan.ts';

import { parseBoundedNumber } from './kernelNumber.ts';

/** The fields the node probe queries (src/core/probe/scripts/nodeScript.ts). */
export const NODE_GPU_FIELDS: readonly string[] = [
  'index',
  'uuid',
  'name',
  'pci.bus_id',
  'driver_version',
  'memory.total',
  'memory.reserved',
  'memory.used',
  'memory.free',
  'utilization.gpu',
  'compute_mode',
  'mig.mode.current',
];
/** The fields the container probe queries (CONTAINER_GPU_QUERY in scripts/containerScript.ts). */
export const CONTAINER_GPU_FIELDS: readonly string[] = ['index', 'uuid', 'name', 'memory.total', 'memory.used', 'memory.free'];
/** The --query-compute-apps fields both probes use. */
export const APPS_FIELDS: readonly string[] = ['gpu_uuid', 'pid', 'process_name', 'used_memory'];

/** A placeholder nvidia-smi prints instead of a value, without its brackets. */
export type SmiUnavailable =
  'N/A' | 'Not Supported' | 'Insufficient Permissions' | 'Unknown Error' | 'GPU requires reset' | 'GPU is lost' | 'missing' | string;

export interface SmiCell {
  readonly raw: string;
  /** The value with units stripped, or undefined when nvidia-smi printed a placeholder or the column was missing. */
  readonly value: string | undefined;
  readonly unavailable: SmiUnavailable | undefined;
}

export interface SmiRow {
  /** The verbatim line. */
  readonly line: string;
  readonly cells: Readonly<Record<string, SmiCell>>;
}

export interface SmiGpu extends SmiRow {
  readonly index: number | undefined;
  readonly uuid: string | undefined;
  readonly name: string | undefined;
  readonly busId: string | undefined;
  readonly driverVersion: string | undefined;
  /** MiB, as nvidia-smi reports them. */
  readonly memoryTotalMiB: number | undefined;
  readonly memoryReservedMiB: number | undefined;
  readonly memoryUsedMiB: number | undefined;
  readonly memoryFreeMiB: number | undefined;
  readonly utilizationGpuPercent: number | undefined;
  readonly computeMode: string | undefined;
  readonly migMode: string | undefined;
  /** memory.total was queried and is a placeholder: a unified-memory GPU (GB10) or an NVML without memory info. */
  readonly memoryUnreported: boolean;
}

export interface SmiApp extends SmiRow {
  readonly gpuUuid: string | undefined;
  readonly pid: number | undefined;
  readonly processName: string | undefined;
  readonly usedMemoryMiB: number | undefined;
}

export interface SmiResult<T extends SmiRow> {
  readonly fields: readonly string[];
  readonly rows: readonly T[];
  /** Whole-output failures nvidia-smi printed (driver not loaded, NVML init failed, bad field…). */
  readonly errors: readonly string[];
  /** Lines that are not CSV rows and not errors, e.g. HAMi-core log lines on stderr. */
  readonly otherLines: readonly string[];
  readonly problems: readonly string[];
}

const ERROR_PATTERNS: readonly RegExp[] = [
  /^NVIDIA-SMI has failed/i,
  /^Failed to initialize NVML/i,
  /^No devices were found/i,
  /^Field ".*" is not a valid field to query/i,
  /^Unable to determine the device handle/i,
  /^Unknown Error/i,
  /^(?:ERROR|Error):/,
  /^Invalid combination of input arguments/i,
  /^nvidia-smi: (?:not found|command not found)/i,
  /not found$/,
];

const HAMI_LINE = /(?:HAMI-core|4pdvGPU)/i;

export function parseSmiGpus(text: string, fields: readonly string[] = NODE_GPU_FIELDS): SmiResult<SmiGpu> {
  const base = parseSmiCsv(text, fields, 'name');
  const rows = base.rows.map((row): SmiGpu => {
    const total = row.cells['memory.total'];
    return {
      ...row,
      index: int(row.cells['index']),
      uuid: row.cells['uuid']?.value ?? row.cells['gpu_uuid']?.value,
      name: row.cells['name']?.value ?? row.cells['gpu_name']?.value,
      busId: row.cells['pci.bus_id']?.value,
      driverVersion: row.cells['driver_version']?.value,
      memoryTotalMiB: mib(total),
      memoryReservedMiB: mib(row.cells['memory.reserved']),
      memoryUsedMiB: mib(row.cells['memory.used']),
      memoryFreeMiB: mib(row.cells['memory.free']),
      utilizationGpuPercent: num(row.cells['utilization.gpu']),
      computeMode: row.cells['compute_mode']?.value,
      migMode: row.cells['mig.mode.current']?.value,
      memoryUnreported: total !== undefined && total.unavailable !== undefined && total.unavailable !== 'missing',
    };
  });
  const problems = [...base.problems];
  for (const gpu of rows) {
    if (gpu.memoryUnreported) {
      problems.push(
        `GPU ${gpu.index ?? gpu.uuid ?? '?'}: memory.total is [${gpu.cells['memory.total']?.unavailable}]: a unified-memory GPU (GB10 / DGX Spark) or an NVML that reports no memory; HAMi-core cannot enforce a memory limit there (KAI-Scheduler#1967)`,
      );
    }
  }
  return { ...base, rows, problems };
}

export function parseSmiApps(text: string, fields: readonly string[] = APPS_FIELDS): SmiResult<SmiApp> {
  const base = parseSmiCsv(text, fields, 'process_name');
  const rows = base.rows.map((row): SmiApp => ({
    ...row,
    gpuUuid: row.cells['gpu_uuid']?.value,
    pid: int(row.cells['pid']),
    processName: row.cells['process_name']?.value ?? row.cells['name']?.value,
    usedMemoryMiB: mib(row.cells['used_memory'] ?? row.cells['used_gpu_memory']),
  }));
  return { ...base, rows };
}

/**
 * The generic CSV reader. `freeText` names the one column whose values may contain ", " (GPU or
 * process names): extra separators are folded back into it.
 */
export function parseSmiCsv(text: string, queried: readonly string[], freeText?: string): SmiResult<SmiRow> {
  const rows: SmiRow[] = [];
  const errors: string[] = [];
  const otherLines: string[] = [];
  const problems: string[] = [];
  let fields: string[] = queried.map(normaliseField);
  let sawHeader = false;
  for (const rawLine of text.split('\n')) {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    const trimmed = line.trim();
    if (trimmed === '') continue;
    if (HAMI_LINE.test(trimmed) && trimmed.includes('[')) {
      otherLines.push(line);
      continue;
    }
    if (ERROR_PATTERNS.some((pattern) => pattern.test(trimmed))) {
      errors.push(trimmed);
      continue;
    }
    const cells = splitTrimmed(trimmed, ',');
    if (!sawHeader && rows.length === 0 && looksLikeHeader(cells, fields)) {
      // `--format=csv` with a header: trust its order, it names what was really queried.
      fields = cells.map(normaliseField);
      sawHeader = true;
      continue;
    }
    if (cells.length < 2 && fields.length > 1) {
      otherLines.push(line);
      continue;
    }
    const folded = fold(cells, fields, freeText);
    if (folded.length < fields.length)
      problems.push(`row has ${folded.length} of ${fields.length} columns (truncated?): ${line.slice(0, 200)}`);
    if (cells.length > fields.length && (freeText === undefined || !fields.includes(freeText))) {
      problems.push(`row has ${cells.length} columns, ${fields.length} were queried: ${line.slice(0, 200)}`);
    }
    const record: Record<string, SmiCell> = {};
    fields.forEach((field, i) => {
      record[field] = cell(folded[i]);
    });
    rows.push({ line, cells: record });
  }
  return { fields, rows, errors, otherLines, problems };
}

function normaliseField(text: string): string {
  // Header cells look like "memory.total [MiB]".
  const trimmed = text.trim();
  const open = trimmed.lastIndexOf('[');
  if (!trimmed.endsWith(']') || open < 0 || trimmed.indexOf(']', open) !== trimmed.length - 1) return trimmed;
  return trimmed.slice(0, open).trim();
}

function looksLikeHeader(cells: readonly string[], fields: readonly string[]): boolean {
  const named = cells.map(normaliseField);
  if (named.some((name) => fields.includes(name))) return true;
  return named.every((name) => /^[a-z_][a-z0-9_.]*$/.test(name)) && named.some((name) => name.includes('.') || name.includes('_'));
}

function fold(cells: readonly string[], fields: readonly string[], freeText: string | undefined): string[] {
  const extra = cells.length - fields.length;
  const at = freeText === undefined ? -1 : fields.indexOf(freeText);
  if (extra <= 0 || at < 0) return [...cells];
  return [...cells.slice(0, at), cells.slice(at, at + extra + 1).join(', '), ...cells.slice(at + extra + 1)];
}

const PLACEHOLDER = /^\[(.+)\]$/;

function cell(raw: string | undefined): SmiCell {
  if (raw === undefined) return { raw: '', value: undefined, unavailable: 'missing' };
  const text = raw.trim();
  const placeholder = PLACEHOLDER.exec(text);
  if (placeholder) return { raw, value: undefined, unavailable: placeholder[1] ?? 'N/A' };
  if (text === 'N/A' || text === '') return { raw, value: undefined, unavailable: text === '' ? 'missing' : 'N/A' };
  // Without nounits: "81559 MiB", "35 %", "1410 MHz", "250.00 W".
  const withUnit = /^(-?\d+(?:\.\d+)?)\s*(?:MiB|GiB|KiB|%|MHz|W|C)$/.exec(text);
  return { raw, value: withUnit ? withUnit[1] : text, unavailable: undefined };
}

function num(c: SmiCell | undefined): number | undefined {
  // Bounded: a 400-digit cell is no value, never Infinity.
  return c?.value === undefined ? undefined : parseBoundedNumber(c.value, { signed: true, fraction: true });
}

/** A memory amount: negative MiB is no amount (unknown, never a negative byte count). */
function mib(c: SmiCell | undefined): number | undefined {
  const n = num(c);
  return n === undefined || n < 0 ? undefined : n;
}

function int(c: SmiCell | undefined): number | undefined {
  const n = num(c);
  return n !== undefined && Number.isInteger(n) ? n : undefined;
}
