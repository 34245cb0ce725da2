// ONE bounded parser for the numbers the kernel (and drivers, and HAMi) print in text files: /proc/meminfo,
// /proc/vmstat, cgroup v1/v2 memory files, dmem, DRM fdinfo and sysfs, HAMi cache sizes, kfd counters.
// A result is a value, "unlimited", or a problem naming the file and field: never Infinity, never NaN,
// never a silently negative counter, never a rounded number passed off as exact.
//
// Formats (kernel sources and docs):
//   - decimal digit strings: the kernel prints u64/unsigned long with "%llu"/"%lu" (at most 20 digits,
//     18446744073709551615); a count that does not fit a double exactly (above 2^53) is refused here
//     rather than rounded, except for the "unlimited" sentinels below.
//   - `kB`: /proc/meminfo and per-node meminfo print kibibytes (Documentation/filesystems/proc.rst).
//   - `max`: cgroup v2 prints "max" for no limit (Documentation/admin-guide/cgroup-v2.rst, memory.max,
//     dmem.max).
//   - cgroup v1 prints "no limit" as PAGE_COUNTER_MAX * PAGE_SIZE, PAGE_COUNTER_MAX being LONG_MAX / PAGE_SIZE
//     on 64-bit (include/linux/page_counter.h; mm/memcontrol-v1.c mem_cgroup_read_u64 returns
//     `counter->max * PAGE_SIZE`): 9223372036854771712 with 4 KiB pages, 9223372036854759424 with 16 KiB,
//     9223372036854710272 with 64 KiB.
//   - LONG_MAX (9223372036854775807) and ULLONG_MAX (18446744073709551615, also "-1" stored in a u64) are the
//     other "no limit" spellings drivers and libraries print.
//   - Some counters are signed (memory.events never is, HAMi's proc_num is): only those accept a minus sign.
// Work is linear in the text and bounded: at most MAX_DIGITS digits are ever converted.

/** Where a number came from, for a problem that names it. */
export interface NumberSource {
  /** The file as the capture names it, e.g. `/sys/fs/cgroup/kubepods.slice/memory.max`. */
  readonly file: string;
  /** The key or field within the file, e.g. `MemTotal`, `drm-resident-gtt`, or the file's own name. */
  readonly field: string;
}

export interface NumberProblem extends NumberSource {
  /** The offending text, bounded. */
  readonly text: string;
  readonly reason: string;
}

export type KernelNumber =
  | { readonly kind: 'value'; readonly value: number }
  | { readonly kind: 'unlimited'; readonly text: string }
  | { readonly kind: 'problem'; readonly problem: NumberProblem };

export interface KernelNumberOptions {
  /** What one unit of the printed number is. `kB` multiplies by 1024; `count`/`bytes` by 1. */
  readonly unit?: 'count' | 'bytes' | 'kB';
  /** Accept the word `max` (cgroup v2) as unlimited. */
  readonly allowMax?: boolean;
  /** Accept the u64 "no limit" sentinels as unlimited (cgroup v1 limits, driver limits). */
  readonly allowSentinels?: boolean;
  /** Accept a leading minus sign (signed counters only). */
  readonly signed?: boolean;
  /**
   * Take the first integer token and ignore the rest of the line (an optional unit the caller lists in
   * `units`, then anything): sysfs values copied by hand carry comments, `grep` dumps trailing text.
   */
  readonly firstToken?: boolean;
  /**
   * With `firstToken`: ignore the rest only when it is a note (`1940064 kB <---- ~2 GB`, `3  # after the load`), not
   * when it starts with another number (`oom_kill 6 7` is no value: which of the two would it be?).
   */
  readonly noteOnly?: boolean;
  /** Unit words allowed right after the number (e.g. `kB`, or fdinfo's `KiB MiB GiB`), with their multipliers. */
  readonly units?: Readonly<Record<string, number>>;
}

/** u64 max has 20 digits; leading zeros beyond that are still allowed but never converted. */
const MAX_DIGITS = 20;
const MAX_SHOWN = 40;

const PAGE_SIZES = [4096n, 16384n, 65536n] as const;
const LONG_MAX = 2n ** 63n - 1n;
const ULLONG_MAX = 2n ** 64n - 1n;

/** Decimal spellings of "no limit": v1 PAGE_COUNTER_MAX × PAGE_SIZE per page size, LONG_MAX, ULLONG_MAX. */
export const UNLIMITED_SENTINELS: ReadonlySet<string> = new Set([
  ...PAGE_SIZES.map((size) => String((LONG_MAX / size) * size)),
  String(LONG_MAX),
  String(ULLONG_MAX),
]);

function shown(text: string): string {
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}

function problem(file: string, field: string, text: string, reason: string): KernelNumber {
  return { kind: 'problem', problem: { file, field, text: shown(text), reason } };
}

function isDigitCode(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isBlank(code: number): boolean {
  return code === 32 || code === 9 || code === 13 || code === 10;
}

/** Digit strings this long are below 2^53, so Number reads them exactly (BigInt is for the rest). */
const EXACT_DIGITS = 15;

function beyondSafe(options: KernelNumberOptions, multiplier: number): string {
  return `${options.unit === 'kB' || multiplier > 1 ? 'in bytes ' : ''}beyond 2^53 (8 PiB), more than any real machine holds and more than a number can hold exactly`;
}

/** Parses one kernel number. Never throws; linear in `text`. */
export function parseKernelNumber(text: string, source: NumberSource, options: KernelNumberOptions = {}): KernelNumber {
  return parseNumberOf(text, source.file, source.field, options);
}

/**
 * parseKernelNumber for a file and field given apart. It runs for every number of a capture (the agent parses some
 * 150,000 a cycle), so a value that parses allocates nothing but its result: the text it quotes, the unit word and
 * the digits are cut out only where a problem or a long number needs them.
 */
function parseNumberOf(text: string, file: string, field: string, options: KernelNumberOptions): KernelNumber {
  let start = 0;
  let end = text.length;
  while (start < end && isBlank(text.charCodeAt(start))) start++;
  while (end > start && isBlank(text.charCodeAt(end - 1))) end--;
  if (start === end) return problem(file, field, '', 'empty value');
  if (options.allowMax && text.startsWith('max', start) && (end - start === 3 || (options.firstToken && /\s/.test(text.charAt(start + 3)))))
    return { kind: 'unlimited', text: 'max' };

  let i = start;
  let negative = false;
  if (text[i] === '-' || text[i] === '+') {
    negative = text[i] === '-';
    i++;
  }
  const digitsStart = i;
  while (i < end && isDigitCode(text.charCodeAt(i))) i++;
  const digitsEnd = i;
  if (digitsEnd === digitsStart) return problem(file, field, text.slice(start, end), 'not a number');

  // What may follow the digits: nothing, or blanks then a listed unit word; with firstToken, then anything
  // (a comment, a grep dump's trailing text) except a word that looks like an unknown unit, which would be misread.
  let multiplier = options.unit === 'kB' ? 1024 : 1;
  if (i < end) {
    const next = text.charCodeAt(i);
    if (!isBlank(next) && !(options.firstToken && next === 35 /* # */))
      return problem(file, field, text.slice(start, end), 'unexpected text after the number');
    let j = i;
    while (j < end && isBlank(text.charCodeAt(j))) j++;
    let k = j;
    while (k < end && !isBlank(text.charCodeAt(k))) k++;
    const unitMultiplier = options.units ? unitAt(options.units, text, j, k) : undefined;
    if (unitMultiplier !== undefined) {
      multiplier = unitMultiplier;
      if (k < end && (!options.firstToken || (options.noteOnly && numberFollows(text, k, end))))
        return problem(file, field, text.slice(start, end), 'unexpected text after the unit');
    } else if (options.firstToken && options.noteOnly && numberFollows(text, i, end)) {
      return problem(file, field, text.slice(start, end), 'unexpected text after the number');
    } else if (!options.firstToken) {
      const word = text.slice(j, k);
      return problem(
        file,
        field,
        text.slice(start, end),
        word.length > 0 && isUnitLike(text, j, k) ? `unknown unit ${JSON.stringify(word)}` : 'unexpected text after the number',
      );
    } else if (isUnitLike(text, j, k)) {
      return problem(file, field, text.slice(start, end), `unknown unit ${JSON.stringify(text.slice(j, k))}`);
    }
  }

  // Leading zeros never count towards the bound.
  let first = digitsStart;
  while (first < digitsEnd - 1 && text.charCodeAt(first) === 48) first++;
  const count = digitsEnd - first;
  if (count > MAX_DIGITS) return problem(file, field, text.slice(start, end), `${count} digits: beyond any 64-bit counter`);
  const isZero = count === 1 && text.charCodeAt(first) === 48;
  if (negative && !isZero && !options.signed) return problem(file, field, text.slice(start, end), 'negative, but this counter cannot be');
  if (count <= EXACT_DIGITS) {
    // Shorter than any sentinel. Exact as a double, and so is any product below 2^53; one at or past it rounds to
    // at least 2^53.
    let digitsValue = 0;
    for (let d = first; d < digitsEnd; d++) digitsValue = digitsValue * 10 + (text.charCodeAt(d) - 48);
    const value = digitsValue * multiplier;
    if (value <= Number.MAX_SAFE_INTEGER) return { kind: 'value', value: negative && value !== 0 ? -value : value };
    return problem(file, field, text.slice(start, end), beyondSafe(options, multiplier));
  }
  const digits = text.slice(first, digitsEnd);
  if (!negative && options.allowSentinels && UNLIMITED_SENTINELS.has(digits)) return { kind: 'unlimited', text: digits };
  const big = BigInt(digits);
  if (big > ULLONG_MAX) return problem(file, field, text.slice(start, end), 'beyond 2^64-1, the largest 64-bit counter');
  const scaled = big * BigInt(multiplier);
  if (scaled > BigInt(Number.MAX_SAFE_INTEGER)) return problem(file, field, text.slice(start, end), beyondSafe(options, multiplier));
  const value = Number(scaled);
  return { kind: 'value', value: negative && value !== 0 ? -value : value };
}

/** Whether the first word after blanks from `from` starts like a number (a digit, or a sign before one). */
function numberFollows(text: string, from: number, end: number): boolean {
  let at = from;
  while (at < end && isBlank(text.charCodeAt(at))) at++;
  if (at < end && (text[at] === '-' || text[at] === '+')) at++;
  return at < end && isDigitCode(text.charCodeAt(at));
}

/** The multiplier of the unit word `text[from, to)` when `units` lists it as its own key, without cutting the word out. */
function unitAt(units: Readonly<Record<string, number>>, text: string, from: number, to: number): number | undefined {
  let keys = UNIT_KEYS.get(units);
  if (!keys) {
    keys = Object.keys(units);
    UNIT_KEYS.set(units, keys);
  }
  for (const key of keys) if (key.length === to - from && text.startsWith(key, from)) return units[key];
  return undefined;
}

const UNIT_KEYS = new WeakMap<Readonly<Record<string, number>>, readonly string[]>();

/** One to four ASCII letters: what an unknown unit looks like (/^[A-Za-z]+$/ of at most four characters). */
function isUnitLike(text: string, from: number, to: number): boolean {
  if (to - from < 1 || to - from > 4) return false;
  for (let at = from; at < to; at++) {
    const code = text.charCodeAt(at) | 0x20;
    if (code < 97 || code > 122) return false;
  }
  return true;
}

export interface BoundedNumberOptions {
  /** Accept a leading minus sign: oom_score_adj, order=-1, nvidia-smi's -5. */
  readonly signed?: boolean;
  /** Accept a fraction of at most 20 digits after a dot: nvidia-smi's "250.00". */
  readonly fraction?: boolean;
}

/**
 * A plain decimal a tool printed: a pid, a format version, a size from ls, a line count, an OOM report field, an
 * nvidia-smi cell. Digits only (a minus sign and a fraction when the options allow them) and within ±2^53, else
 * undefined: a 400-digit run is no value, never Infinity (found by the long fuzz run). As in parseKernelNumber,
 * leading zeros never count towards the 20-digit bound. Linear in the text, no regex.
 */
export function parseBoundedNumber(text: string | undefined, options: BoundedNumberOptions = {}): number | undefined {
  if (text === undefined) return undefined;
  let i = options.signed && text[0] === '-' ? 1 : 0;
  const integerStart = i;
  while (i < text.length && isDigitCode(text.charCodeAt(i))) i++;
  const integerEnd = i;
  if (integerEnd === integerStart) return undefined;
  if (i < text.length) {
    if (!options.fraction || text[i] !== '.') return undefined;
    const fractionStart = ++i;
    while (i < text.length && isDigitCode(text.charCodeAt(i))) i++;
    if (i < text.length || i === fractionStart || i - fractionStart > MAX_DIGITS) return undefined;
  }
  let first = integerStart;
  while (first < integerEnd - 1 && text[first] === '0') first++;
  if (integerEnd - first > MAX_DIGITS) return undefined;
  const value = Number(text);
  // Number() rounds: anything above 2^53-1 rounds to at least 2^53, so this bound also refuses inexact integers.
  if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) return undefined;
  return value === 0 ? 0 : value;
}

/** One line per problem, for a model's `problems`: `<file>: <field> = "<text>": <reason>`. */
export function describeNumberProblem(problem: NumberProblem): string {
  const field = problem.field && !problem.file.endsWith(`/${problem.field}`) ? ` ${problem.field}` : '';
  return `${problem.file}:${field} ${JSON.stringify(problem.text)} is not used: ${problem.reason}`;
}

/**
 * Where parsers put the problems they find. Parsers keep their return types; a caller that wants the
 * problems passes a sink (the node model does, and lists them in the inspection).
 */
export interface NumberProblems {
  readonly file: string;
  readonly problems: NumberProblem[];
}

/** The value, or undefined after recording why not (unlimited counts as no value for a plain counter). */
export function kernelValue(
  text: string,
  field: string,
  sink: NumberProblems | undefined,
  options: KernelNumberOptions = {},
): number | undefined {
  const parsed = parseNumberOf(text, sink?.file ?? '', field, options);
  if (parsed.kind === 'value') return parsed.value;
  if (parsed.kind === 'problem') sink?.problems.push(parsed.problem);
  return undefined;
}
