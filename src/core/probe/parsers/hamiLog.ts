// HAMi-core log lines (HAMi-core src/include/log_utils.h): stderr of a process with libvgpu.so preloaded
// (in `kubectl logs`, in nvidia-smi's output inside the container), or /tmp/vgpulog in FILEDEBUG builds.
//
//   [HAMI-core Msg(<pid>:<thread>:<file>:<line>)]: <msg>          (Debug, Info, Warn, Msg)
//   [HAMI-core ERROR (pid:<pid> thread=<thread> <file>:<line>)]: <msg>
//   [4pdvGPU …]                                                    (builds before 2024-02-21)
//   [HAMI-core Msg]: <msg>                                          (prefix truncated downstream)
//
// plus the glibc loader's error when the preload target is missing or empty:
//   ERROR: ld.so: object '/usr/local/vgpu/libvgpu.so' from /etc/ld.so.preload cannot be preloaded (cannot read file data): ignored.
//
// Lines may carry prefixes of their own (kubectl timestamps, CRI `stderr F`), so the bracket is
// searched anywhere in the line. Source line numbers change between versions: never matched on.
// Silence proves nothing: at HAMi's default LIBCUDA_LOG_LEVEL=1 only ERROR lines print.
import { parseBoundedNumber } from './kernelNumber.ts';

export type HamiLogLevel = 'debug' | 'info' | 'warn' | 'msg' | 'error';

export type HamiLogKind =
  | 'initializing'
  | 'initialized'
  | 'device-oom'
  | 'alloc-failed'
  | 'limit-below-usage'
  | 'invalid-limit'
  | 'limit-inconsistency'
  | 'version-mismatch'
  | 'host-pid-not-found'
  | 'lock-timeout'
  | 'lock-wait'
  | 'shrreg-open-failed'
  | 'illegal-device-id'
  | 'exit-cleanup'
  | 'cuinit-failed'
  | 'preload-failed'
  /** HAMi-core's segfault backtrace through its cuMemCreate hook (src/cuda/memory.c): a VMM allocation whose
   * location is not a device (llama.cpp's VMM pool, NCCL's host buffers) crashes it (Project-HAMi/HAMi-core#187). */
  | 'vmm-create-crash'
  | 'other';

export interface HamiLogLine {
  /** The verbatim line. */
  readonly line: string;
  /** 1-based line number in the input. */
  readonly lineNumber: number;
  /** `HAMI-core`, `4pdvGPU` (legacy) or `ld.so` (the glibc loader). */
  readonly source: 'HAMI-core' | '4pdvGPU' | 'ld.so';
  readonly level: HamiLogLevel | undefined;
  readonly pid: number | undefined;
  readonly thread: string | undefined;
  readonly file: string | undefined;
  /** The prefix was cut to `[HAMI-core Msg]:` (no pid, file or line). */
  readonly truncatedPrefix: boolean;
  readonly message: string;
  readonly kind: HamiLogKind;
  /** What the message says, for the kinds that carry numbers or paths. */
  readonly details: HamiLogDetails;
}

export interface HamiLogDetails {
  readonly device?: number;
  /** Device OOM: the bytes the allocation would have brought the device to, and the limit. */
  readonly requestedBytes?: string;
  readonly limitBytes?: string;
  /** The first number wrapped past 2^63: the usage counter underflowed (HAMi#1181). */
  readonly underflow?: boolean;
  readonly usageBytes?: string;
  /** `cuMemoryAllocate failed res=%d`, `cuInit failed:%d`. */
  readonly result?: number;
  /** invalid-limit: the variable and its value. */
  readonly variable?: string;
  readonly value?: string;
  /** preload-failed: the object, the preload file and the loader's reason. */
  readonly object?: string;
  readonly preloadFile?: string;
  readonly reason?: string;
}

export interface HamiLogParse {
  readonly lines: readonly HamiLogLine[];
  readonly counts: Readonly<Partial<Record<HamiLogKind, number>>>;
  /** Lines that mention HAMi-core but match neither format (kept for evidence). */
  readonly unparsed: readonly string[];
}

// The two prefixes log_utils.h prints (levels Debug/Info/Warn/Msg, and ERROR), unanchored at the start and tolerant
// of a missing leading '['.
const STANDARD = /\[?(HAMI-core|4pdvGPU) (Debug|Info|Warn|Msg)\((\d+):(\d+):([^:()]+):(\d+)\)\]: ?([^\n]*)$/i;
// Some builds (volcano-vgpu-device-plugin v1.11.0) print `ERROR (pid:<pid>:<file>:<line>)`, without the thread.
const ERROR = /\[?(HAMI-core|4pdvGPU) ERROR \(pid:(\d+)(?: thread=(\d+))?[ :]([^:()\s]+):(\d+)\)\]: ?([^\n]*)$/i;
// `[HAMI-core Msg]:` (cut downstream) and reporters' elisions such as `[HAMI-core ERROR ...]:`.
const TRUNCATED = /\[(HAMI-core|4pdvGPU) (Debug|Info|Warn|Msg|ERROR)\b[^\]]*\]: ?([^\n]*)$/i;
const PRELOAD = /ld\.so: object '([^']*)' from (\S+) cannot be preloaded \(([^)]*)\): ignored/;
const MENTION = /HAMI-core|4pdvGPU/i;
/** A frame of HAMi-core's own segfault backtrace: `File "/libvgpu/src/cuda/memory.c", line 582, in cuMemCreate`. */
const CUMEMCREATE_FRAME = /File "([^"\n]{0,200}\/src\/cuda\/memory\.c)", line \d{1,9}, in cuMemCreate\b/;

export function parseHamiLog(text: string): HamiLogParse {
  const lines: HamiLogLine[] = [];
  const unparsed: string[] = [];
  const counts: Partial<Record<HamiLogKind, number>> = {};
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    const parsed = parseHamiLogLine(line, i + 1);
    if (parsed) {
      lines.push(parsed);
      counts[parsed.kind] = (counts[parsed.kind] ?? 0) + 1;
    } else if (MENTION.test(line)) {
      unparsed.push(line);
    }
  });
  return { lines, counts, unparsed };
}

export function parseHamiLogLine(line: string, lineNumber = 1): HamiLogLine | undefined {
  const frame = line.includes('cuMemCreate') ? CUMEMCREATE_FRAME.exec(line) : null;
  if (frame) {
    return {
      line,
      lineNumber,
      source: 'HAMI-core',
      level: 'error',
      pid: undefined,
      thread: undefined,
      file: frame[1],
      truncatedPrefix: false,
      message: line.trim(),
      kind: 'vmm-create-crash',
      details: {},
    };
  }
  const preload = PRELOAD.exec(line);
  if (preload) {
    return {
      line,
      lineNumber,
      source: 'ld.so',
      level: 'error',
      pid: undefined,
      thread: undefined,
      file: undefined,
      truncatedPrefix: false,
      message: line.slice(line.indexOf('ld.so:')),
      kind: 'preload-failed',
      details: { object: preload[1] ?? '', preloadFile: preload[2] ?? '', reason: preload[3] ?? '' },
    };
  }
  const standard = STANDARD.exec(line);
  if (standard) {
    const message = standard[7] ?? '';
    return {
      line,
      lineNumber,
      source: sourceOf(standard[1]),
      level: levelOf(standard[2]),
      pid: parseBoundedNumber(standard[3]),
      thread: standard[4],
      file: standard[5],
      truncatedPrefix: false,
      message,
      ...classifyHamiMessage(message),
    };
  }
  const error = ERROR.exec(line);
  if (error) {
    const message = error[6] ?? '';
    return {
      line,
      lineNumber,
      source: sourceOf(error[1]),
      level: 'error',
      pid: parseBoundedNumber(error[2]),
      thread: error[3],
      file: error[4],
      truncatedPrefix: false,
      message,
      ...classifyHamiMessage(message),
    };
  }
  const truncated = TRUNCATED.exec(line);
  if (truncated) {
    const message = truncated[3] ?? '';
    return {
      line,
      lineNumber,
      source: sourceOf(truncated[1]),
      level: levelOf(truncated[2]),
      pid: undefined,
      thread: undefined,
      file: undefined,
      truncatedPrefix: true,
      message,
      ...classifyHamiMessage(message),
    };
  }
  return undefined;
}

/** The meaning of a HAMi-core message (format strings in libvgpu.c, allocator.c, cuda/memory.c and
 * multiprocess_memory_limit.c), from its text only. */
export function classifyHamiMessage(message: string): { kind: HamiLogKind; details: HamiLogDetails } {
  const m = message.trim();
  let match: RegExpExecArray | null;
  if (/^Initializing\.*$/i.test(m)) return { kind: 'initializing', details: {} };
  if (/^Initialized\b/i.test(m)) return { kind: 'initialized', details: {} };
  if ((match = /^Device (-?\d+) OOM (\d+) \/ (\d+)/.exec(m))) {
    const requested = match[2] ?? '0';
    return {
      kind: 'device-oom',
      details: { device: signedValue(match[1]), requestedBytes: requested, limitBytes: match[3] ?? '', underflow: wrapped(requested) },
    };
  }
  // Legacy 4pdvGPU: "device OOM encountered: usage=9502195712 limit=8388608000" (HAMi#43).
  if ((match = /device OOM encountered: usage=(\d+) limit=(\d+)/i.exec(m))) {
    const usage = match[1] ?? '0';
    return { kind: 'device-oom', details: { requestedBytes: usage, limitBytes: match[2] ?? '', underflow: wrapped(usage) } };
  }
  if ((match = /cuMemoryAllocate failed res=(-?\d+)/.exec(m))) return { kind: 'alloc-failed', details: { result: signedValue(match[1]) } };
  if ((match = /limit < usage; usage=(-?\d+), limit=(-?\d+)/.exec(m)))
    return { kind: 'limit-below-usage', details: { usageBytes: match[1] ?? '', limitBytes: match[2] ?? '' } };
  if ((match = /invalid device memory limit (\S+?)=(\S*)/.exec(m)))
    return { kind: 'invalid-limit', details: { variable: match[1] ?? '', value: match[2] ?? '' } };
  if ((match = /Limit inconsistency detected for (\d+)(?:th|st|nd|rd)? device, (\d+) expected, get (\d+)/.exec(m))) {
    return {
      kind: 'limit-inconsistency',
      details: { device: signedValue(match[1]), limitBytes: match[2] ?? '', usageBytes: match[3] ?? '' },
    };
  }
  if (/The current version number .* is different from the file's version number/.test(m)) return { kind: 'version-mismatch', details: {} };
  if (/SET_TASK_PID FAILED|HOST PID NOT FOUND/.test(m)) return { kind: 'host-pid-not-found', details: {} };
  if (/Lock shrreg timeout|Fail(?:ed)? to lock shrreg|Delete \/tmp\/cudevshr\.cache/.test(m)) return { kind: 'lock-timeout', details: {} };
  if (/unified_lock locked, waiting/.test(m)) return { kind: 'lock-wait', details: {} };
  if ((match = /Fail to (?:open|init|write|reseek) shrreg (\S+?):?(?: errno=(\d+))?$/.exec(m))) {
    return {
      kind: 'shrreg-open-failed',
      details: { object: match[1] ?? '', ...(match[2] !== undefined ? { result: signedValue(match[2]) } : {}) },
    };
  }
  if ((match = /Illegal device id: (-?\d+)/.exec(m))) return { kind: 'illegal-device-id', details: { device: signedValue(match[1]) } };
  if (/Cleanup on exit for PID|Exit cleanup complete for PID/.test(m)) return { kind: 'exit-cleanup', details: {} };
  if ((match = /cuInit failed:? ?(-?\d+)/.exec(m))) return { kind: 'cuinit-failed', details: { result: signedValue(match[1]) } };
  return { kind: 'other', details: {} };
}

function wrapped(decimal: string): boolean {
  return /^\d{1,20}$/.test(decimal) && BigInt(decimal) >= 1n << 63n;
}

function sourceOf(token: string | undefined): 'HAMI-core' | '4pdvGPU' {
  return token !== undefined && token.toLowerCase() === '4pdvgpu' ? '4pdvGPU' : 'HAMI-core';
}

function levelOf(token: string | undefined): HamiLogLevel {
  switch ((token ?? '').toLowerCase()) {
    case 'debug':
      return 'debug';
    case 'info':
      return 'info';
    case 'warn':
      return 'warn';
    case 'error':
      return 'error';
    default:
      return 'msg';
  }
}

/** A device index or CUDA result code the log printed: a 400-digit run is no number (never Infinity). */
function signedValue(text: string | undefined): number | undefined {
  return parseBoundedNumber(text, { signed: true });
}
