// The default `nvidia-smi` table, read only as a fallback: the node probe prints it when a CSV query
// failed (older drivers) or a GPU is in MIG mode, where it is the one output that lists the MIG devices
// and each process's GPU instance (GI) and compute instance (CI).
//
// Layout (driver 450+; test/fixtures/nvidia-smi/table-*.txt are real outputs): cells between `|`.
// - GPU block: `|   0  NVIDIA H100 80GB HBM3          On  |   00000000:18:00.0 Off |   0 |` then
//   `| N/A   30C    P0   100W /  700W |       1MiB /  81559MiB |      0%      Default |`; a unified-memory
//   GPU (GB10) prints `Not Supported` in the memory cell.
// - `MIG devices:` block: `|  0    1   0   0  |   107MiB / 40192MiB  | 42  0 | …` (GPU, GI, CI, MIG dev).
// - `Processes:` block: `|    0   N/A  N/A     4174      G   /usr/lib/xorg/Xorg      84MiB |`, without the GI/CI
//   columns before driver 450; `No running processes found` when empty.
// Pure, linear in the input, never throws; a value it cannot read is undefined (unknown), never 0.
import { parseBoundedNumber } from './kernelNumber.ts';

export interface SmiTableGpu {
  readonly index: number;
  readonly name: string;
  readonly memoryUsedMiB: number | undefined;
  readonly memoryTotalMiB: number | undefined;
  /** The memory cell as printed when it holds no numbers (`Not Supported`, `N/A`). */
  readonly memoryUnavailable: string | undefined;
  readonly line: string;
}

export interface SmiTableMigDevice {
  readonly gpu: number;
  readonly gi: number;
  readonly ci: number;
  readonly migDevice: number;
  readonly memoryUsedMiB: number | undefined;
  readonly memoryTotalMiB: number | undefined;
  readonly line: string;
}

export interface SmiTableProcess {
  readonly gpu: number;
  /** GPU and compute instance ids on a MIG GPU; undefined when `N/A` or the driver has no such columns. */
  readonly gi: number | undefined;
  readonly ci: number | undefined;
  readonly pid: number;
  /** C (compute), G (graphics), C+G, M (MPS). */
  readonly type: string;
  readonly name: string;
  readonly usedMemoryMiB: number | undefined;
  readonly line: string;
}

export interface SmiTable {
  readonly driverVersion: string | undefined;
  readonly gpus: readonly SmiTableGpu[];
  readonly migDevices: readonly SmiTableMigDevice[];
  readonly processes: readonly SmiTableProcess[];
  /** The Processes block said `No running processes found`. */
  readonly noProcesses: boolean;
  /** A `Processes:` block was there at all. */
  readonly sawProcesses: boolean;
}

/** The table has at most a few hundred lines; more is not nvidia-smi's. */
const MAX_LINES = 20_000;
const MAX_LINE = 1024;

export function parseSmiTable(text: string): SmiTable {
  const gpus: SmiTableGpu[] = [];
  const migDevices: SmiTableMigDevice[] = [];
  const processes: SmiTableProcess[] = [];
  let driverVersion: string | undefined;
  let block: 'gpus' | 'mig' | 'processes' = 'gpus';
  let pendingGpu: { index: number; name: string; line: string } | undefined;
  let noProcesses = false;
  let sawProcesses = false;
  const lines = text.split('\n', MAX_LINES);
  for (const rawLine of lines) {
    const line = (rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine).slice(0, MAX_LINE);
    const trimmed = line.trim();
    if (!trimmed.startsWith('|')) continue;
    if (trimmed.includes('Driver Version:')) {
      const after = trimmed.slice(trimmed.indexOf('Driver Version:') + 'Driver Version:'.length);
      driverVersion = tokens(after)[0];
      continue;
    }
    if (trimmed.includes('MIG devices:')) {
      block = 'mig';
      continue;
    }
    if (trimmed.includes('Processes:')) {
      block = 'processes';
      sawProcesses = true;
      continue;
    }
    const cells = trimmed.slice(1, trimmed.endsWith('|') ? -1 : undefined).split('|');
    const first = tokens(cells[0] ?? '');
    if (block === 'gpus') {
      const last = first[first.length - 1];
      if (first.length >= 3 && isDigits(first[0]) && (last === 'On' || last === 'Off')) {
        pendingGpu = { index: Number(first[0]), name: first.slice(1, -1).join(' '), line };
        continue;
      }
      if (pendingGpu && cells.length >= 2) {
        const memory = memoryPair(cells[1] ?? '');
        gpus.push({ ...pendingGpu, ...memory, line: `${pendingGpu.line}\n${line}` });
        pendingGpu = undefined;
      }
    } else if (block === 'mig') {
      if (first.length === 4 && first.every(isDigits) && cells.length >= 2) {
        const memory = memoryPair(cells[1] ?? '');
        const [gpu, gi, ci, migDevice] = first.map(Number) as [number, number, number, number];
        migDevices.push({ gpu, gi, ci, migDevice, memoryUsedMiB: memory.memoryUsedMiB, memoryTotalMiB: memory.memoryTotalMiB, line });
      }
    } else {
      if (trimmed.includes('No running processes found')) {
        noProcesses = true;
        continue;
      }
      const process = processRow(first, line);
      if (process) processes.push(process);
    }
  }
  return { driverVersion, gpus, migDevices, processes, noProcesses, sawProcesses };
}

function processRow(words: readonly string[], line: string): SmiTableProcess | undefined {
  // New: GPU GI CI PID Type name… usage; old: GPU PID Type name… usage. The usage is the last word
  // (`84MiB`, or `84` `MiB`, or `N/A`).
  if (words.length < 4 || !isDigits(words[0])) return undefined;
  const withInstances = words.length >= 6 && isInstance(words[1]) && isInstance(words[2]) && isDigits(words[3]);
  const pidAt = withInstances ? 3 : 1;
  const pidWord = words[pidAt];
  if (!isDigits(pidWord) || pidWord.length > 10) return undefined;
  let end = words.length;
  let usage = words[end - 1] ?? '';
  if (usage === 'MiB' && end - 2 > pidAt + 1) {
    usage = `${words[end - 2] ?? ''}MiB`;
    end -= 1;
  }
  end -= 1;
  const type = words[pidAt + 1] ?? '';
  return {
    gpu: Number(words[0]),
    gi: withInstances ? instance(words[1]) : undefined,
    ci: withInstances ? instance(words[2]) : undefined,
    pid: Number(pidWord),
    type,
    name: words.slice(pidAt + 2, end).join(' '),
    usedMemoryMiB: usage.endsWith('MiB') ? mib(usage.slice(0, -3)) : undefined,
    line,
  };
}

/** `  249MiB /  81920MiB ` → used and total; `Not Supported` → unavailable. */
function memoryPair(cell: string): Pick<SmiTableGpu, 'memoryUsedMiB' | 'memoryTotalMiB' | 'memoryUnavailable'> {
  const slash = cell.indexOf('/');
  const used = slash < 0 ? undefined : mibWord(tokens(cell.slice(0, slash)));
  const total = slash < 0 ? undefined : mibWord(tokens(cell.slice(slash + 1)));
  if (used === undefined && total === undefined) {
    const text = cell.trim();
    return { memoryUsedMiB: undefined, memoryTotalMiB: undefined, memoryUnavailable: text === '' ? 'missing' : text.slice(0, 40) };
  }
  return { memoryUsedMiB: used, memoryTotalMiB: total, memoryUnavailable: undefined };
}

function mibWord(words: readonly string[]): number | undefined {
  const word = words.join('');
  return word.endsWith('MiB') ? mib(word.slice(0, -3)) : undefined;
}

function mib(text: string): number | undefined {
  if (!isDigits(text)) return undefined;
  return parseBoundedNumber(text);
}

function isDigits(word: string | undefined): word is string {
  if (word === undefined || word.length === 0 || word.length > 15) return false;
  for (let i = 0; i < word.length; i++) {
    const code = word.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

function isInstance(word: string | undefined): boolean {
  return word === 'N/A' || isDigits(word);
}

function instance(word: string | undefined): number | undefined {
  return isDigits(word) ? Number(word) : undefined;
}

/** Splits on runs of spaces and tabs, in one pass. */
function tokens(text: string): string[] {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 32;
    const space = code === 32 || code === 9;
    if (space && start >= 0) {
      out.push(text.slice(start, i));
      start = -1;
    } else if (!space && start < 0) start = i;
  }
  return out;
}
