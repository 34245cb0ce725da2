// The over-quota test's output (script.ts): one marked, versioned result line among whatever else the
// container printed (a preloaded libvgpu.so writes its own log lines to stdout and stderr).
//
// Bounded and strict, because the output is the tenant's: lines are found with indexOf (linear), only lines
// starting with the marker are read, a marked line over MAX_LINE characters, an unknown key, a duplicate key,
// a value outside [A-Za-z0-9_-] or a number that is not a safe integer makes the result malformed, and two
// result lines are malformed too (a process in the container cannot add a second, believable verdict).
import { parseBoundedNumber } from '../probe/parsers/kernelNumber.ts';
import { HAMI_TEST_MARKER, HAMI_TEST_VERSION } from './script.ts';

export type HamiTestStatus = 'out-of-memory' | 'allocated' | 'cuda-error' | 'no-ctypes' | 'no-libcuda' | 'no-symbol' | 'bad-args';
export type HamiTestStep = 'init' | 'device' | 'context' | 'alloc';
export const HAMI_TEST_SYMBOLS = ['cuInit', 'cuDeviceGet', 'cuCtxCreate_v2', 'cuMemAlloc_v2', 'cuMemFree_v2'] as const;
export type HamiTestSymbol = (typeof HAMI_TEST_SYMBOLS)[number];

/** What the container told about itself: booleans and one of three words, undefined when the line lacks it. */
export interface HamiTestEvidence {
  /** CUDA_DEVICE_MEMORY_LIMIT_0 or CUDA_DEVICE_MEMORY_LIMIT is in the program's environment. */
  readonly envLimit: boolean | undefined;
  /** CUDA_DISABLE_CONTROL is true there. */
  readonly envDisable: boolean | undefined;
  /** /etc/ld.so.preload names a vgpu library, names something else, or is absent. */
  readonly preload: 'vgpu' | 'other' | 'absent' | undefined;
}

export type HamiTestLine =
  | { readonly status: 'out-of-memory'; readonly bytes: number | undefined; readonly evidence: HamiTestEvidence }
  | {
      readonly status: 'allocated';
      readonly bytes: number | undefined;
      readonly freed: number | undefined;
      readonly evidence: HamiTestEvidence;
    }
  | {
      readonly status: 'cuda-error';
      readonly step: HamiTestStep;
      readonly code: number;
      readonly bytes: number | undefined;
      readonly evidence: HamiTestEvidence;
    }
  | { readonly status: 'no-ctypes'; readonly evidence: HamiTestEvidence }
  | { readonly status: 'no-libcuda'; readonly evidence: HamiTestEvidence }
  | { readonly status: 'no-symbol'; readonly symbol: HamiTestSymbol; readonly evidence: HamiTestEvidence }
  | { readonly status: 'bad-args' };

export type HamiTestOutput =
  | { readonly kind: 'result'; readonly line: HamiTestLine }
  | { readonly kind: 'missing' }
  | { readonly kind: 'unsupported-version'; readonly version: string }
  | { readonly kind: 'malformed'; readonly reason: string };

const MAX_LINE = 512;
const VALUE = /^[A-Za-z0-9_-]{1,40}$/;
const KEYS = new Set(['status', 'step', 'code', 'bytes', 'freed', 'env_limit', 'env_disable', 'preload']);
const STATUSES: ReadonlySet<string> = new Set<HamiTestStatus>([
  'out-of-memory',
  'allocated',
  'cuda-error',
  'no-ctypes',
  'no-libcuda',
  'no-symbol',
  'bad-args',
]);
const STEPS: ReadonlySet<string> = new Set<HamiTestStep>(['init', 'device', 'context', 'alloc']);
const SYMBOLS: ReadonlySet<string> = new Set(HAMI_TEST_SYMBOLS);
const PREFIX = `${HAMI_TEST_MARKER} `;

/** Finds and reads the result line in the program's stdout. Never throws; linear in the output. */
export function parseHamiTestOutput(stdout: string): HamiTestOutput {
  let found: string | undefined;
  let start = 0;
  while (start <= stdout.length) {
    const end = stdout.indexOf('\n', start);
    const stop = end === -1 ? stdout.length : end;
    if (stdout.startsWith(PREFIX, start)) {
      if (found !== undefined) return { kind: 'malformed', reason: 'more than one result line' };
      if (stop - start > MAX_LINE) return { kind: 'malformed', reason: `a result line longer than ${MAX_LINE} characters` };
      found = stdout.slice(start, stop).replace(/\r$/, '');
    }
    if (end === -1) break;
    start = end + 1;
  }
  if (found === undefined) return { kind: 'missing' };
  return parseLine(found.slice(PREFIX.length));
}

function parseLine(text: string): HamiTestOutput {
  const [version = '', ...tokens] = text.split(' ');
  if (version !== `v${HAMI_TEST_VERSION}`) return { kind: 'unsupported-version', version: version.slice(0, 20) };
  const fields = new Map<string, string>();
  for (const token of tokens) {
    const eq = token.indexOf('=');
    const key = eq > 0 ? token.slice(0, eq) : token;
    const value = eq > 0 ? token.slice(eq + 1) : '';
    if (!KEYS.has(key)) return { kind: 'malformed', reason: `unknown field "${key.slice(0, 20)}"` };
    if (fields.has(key)) return { kind: 'malformed', reason: `field "${key}" given twice` };
    if (!VALUE.test(value)) return { kind: 'malformed', reason: `field "${key}" has no valid value` };
    fields.set(key, value);
  }
  const status = fields.get('status');
  if (status === undefined || !STATUSES.has(status)) return { kind: 'malformed', reason: 'no valid status' };
  const numbers = new Map<string, number>();
  for (const key of ['code', 'bytes', 'freed']) {
    const raw = fields.get(key);
    if (raw === undefined) continue;
    // Sizes are never negative (a forged bytes=-1 was reported as a negative attempt: long fuzz seed 168661840).
    const value = parseBoundedNumber(raw, { signed: key === 'code' });
    if (value === undefined)
      return { kind: 'malformed', reason: `field "${key}" is not a ${key === 'code' ? 'whole number' : 'non-negative whole number'}` };
    numbers.set(key, value);
  }
  const evidence = evidenceOf(fields);
  const bytes = numbers.get('bytes');
  switch (status as HamiTestStatus) {
    case 'out-of-memory':
      return { kind: 'result', line: { status: 'out-of-memory', bytes, evidence } };
    case 'allocated':
      return { kind: 'result', line: { status: 'allocated', bytes, freed: numbers.get('freed'), evidence } };
    case 'cuda-error': {
      const step = fields.get('step');
      const code = numbers.get('code');
      if (step === undefined || !STEPS.has(step) || code === undefined)
        return { kind: 'malformed', reason: 'a CUDA error without its step or code' };
      return { kind: 'result', line: { status: 'cuda-error', step: step as HamiTestStep, code, bytes, evidence } };
    }
    case 'no-ctypes':
      return { kind: 'result', line: { status: 'no-ctypes', evidence } };
    case 'no-libcuda':
      return { kind: 'result', line: { status: 'no-libcuda', evidence } };
    case 'no-symbol': {
      const symbol = fields.get('step');
      if (symbol === undefined || !SYMBOLS.has(symbol))
        return { kind: 'malformed', reason: 'a missing symbol that the test does not call' };
      return { kind: 'result', line: { status: 'no-symbol', symbol: symbol as HamiTestSymbol, evidence } };
    }
    case 'bad-args':
      return { kind: 'result', line: { status: 'bad-args' } };
  }
}

function evidenceOf(fields: ReadonlyMap<string, string>): HamiTestEvidence {
  const flag = (key: string): boolean | undefined => {
    const value = fields.get(key);
    return value === '1' ? true : value === '0' ? false : undefined;
  };
  const preload = fields.get('preload');
  return {
    envLimit: flag('env_limit'),
    envDisable: flag('env_disable'),
    preload: preload === 'vgpu' || preload === 'other' || preload === 'absent' ? preload : undefined,
  };
}
