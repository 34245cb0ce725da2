// The fuzz suite's shared harness: run configuration (seed, runs, sizes), the mutations applied to real
// fixtures, the checks every output must pass, the linear-time check, and the one list of failures that
// are known and being fixed elsewhere (KNOWN_OPEN).
//
// Two modes:
// - short (the default; `npm test` runs it through test/unit/fuzz.test.ts): a fixed seed, few runs, small
//   sizes, deterministic, a few seconds in all;
// - long (`npm run fuzz`, FUZZ_MODE=long): a random seed (printed), many runs, large sizes. Reproduce a
//   failure with `FUZZ_SEED=<seed> npm run fuzz` (fast-check also prints the seed and path of the
//   shrunk counterexample).
// FUZZ_SEED and FUZZ_RUNS override either mode.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';

export type FuzzMode = 'short' | 'long';

export const MODE: FuzzMode = process.env['FUZZ_MODE'] === 'long' ? 'long' : 'short';
const SHORT_SEED = 20261201;

function envInteger(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new Error(`${name}=${raw} is not an integer`);
  return value;
}

export const SEED: number = envInteger('FUZZ_SEED') ?? (MODE === 'long' ? Math.floor(Math.random() * 0x7fffffff) : SHORT_SEED);
export const RUNS: number = envInteger('FUZZ_RUNS') ?? (MODE === 'long' ? 3000 : 60);

/** Sizes of the mutations: a long run of one character, nesting depth, repeated lines; inputs are cut at maxInput. */
export const SIZES =
  MODE === 'long'
    ? { run: 300_000, depth: 20_000, repeat: 20_000, maxInput: 4 * 1024 * 1024 }
    : { run: 3_000, depth: 300, repeat: 200, maxInput: 256 * 1024 };

process.stderr.write(
  `fuzz: mode=${MODE} seed=${SEED} runs=${RUNS} (reproduce: FUZZ_SEED=${SEED}${MODE === 'long' ? ' npm run fuzz' : ' FUZZ_MODE=short node --test test/unit/fuzz.test.ts'})\n`,
);

// ---------------------------------------------------------------------------------------------------
// Known open defects

/** `differs`: two forms of one entry point (whole text, in pieces) disagree on the same input. */
export type Property = 'throws' | 'finite' | 'negative-bytes' | 'terminal' | 'render' | 'time' | 'linear' | 'differs';

export interface KnownOpen {
  /** The target name (FuzzTarget.name) the failure is seen in. */
  readonly target: string;
  readonly property: Property;
  /** Issue 17's defect class and the branch fixing it. */
  readonly issueClass: string;
  /** Matches the failure's message, so that any OTHER failure of the same property still fails. */
  readonly match: RegExp;
}

/**
 * Failures of known defect classes that are being fixed. Each entry lets the short slice pass while the
 * property stays in force for every other failure; an entry goes as soon as its fix lands. None is open today.
 */
export const KNOWN_OPEN: readonly KnownOpen[] = [];

const knownHits = new Map<KnownOpen, number>();

function knownOpen(target: string, property: Property, message: string): KnownOpen | undefined {
  const entry = KNOWN_OPEN.find((known) => known.target === target && known.property === property && known.match.test(message));
  if (entry) knownHits.set(entry, (knownHits.get(entry) ?? 0) + 1);
  return entry;
}

process.on('exit', () => {
  for (const [entry, hits] of knownHits)
    process.stderr.write(`fuzz: known open (${entry.issueClass}) ${entry.target} ${entry.property}: ${hits} input(s)\n`);
});

// ---------------------------------------------------------------------------------------------------
// Mutations

const HUGE_NUMBERS = [
  '1e309',
  '9'.repeat(400),
  '-1',
  '-9223372036854775808',
  '18446744073709551615',
  '18446744073709551616',
  '9223372036854775807',
  'NaN',
  'Infinity',
  '-0',
  '1e-400',
  '0x7fffffffffffffff',
  '1.5e3Gi',
  '999999999999999999999999Ki',
];
const RUN_CHARS = [
  ' ',
  '\t',
  ',',
  'a',
  '0',
  '9',
  '[',
  '{',
  '`',
  '-',
  '\\',
  '"',
  "'",
  '\n',
  ':',
  '#',
  '*',
  '@',
  '%',
  '=',
  '.',
  '/',
  '\r\n',
  '(',
];
const CONTROL = [
  '\x1b[31m',
  '\x1b]0;owned\x07',
  '\x1b[2J',
  '\u202e',
  '\u2066',
  '\u2069',
  '\u200f',
  '\0',
  '\r',
  '\x7f',
  '\x9b',
  '\ufeff',
  '\ud800',
  '\x08',
  '\x0c',
  '\u2028',
];

export type Nesting = 'json' | 'yaml' | 'text';

type Mutation =
  | { readonly kind: 'flip'; readonly at: number; readonly code: number }
  | { readonly kind: 'truncate'; readonly at: number }
  | { readonly kind: 'duplicate-line'; readonly line: number; readonly times: number }
  | { readonly kind: 'splice'; readonly other: number; readonly at: number; readonly from: number }
  | { readonly kind: 'huge-number'; readonly nth: number; readonly value: string }
  | { readonly kind: 'long-run'; readonly at: number; readonly char: string; readonly length: number }
  | { readonly kind: 'control'; readonly at: number; readonly text: string }
  | { readonly kind: 'nest'; readonly at: number; readonly depth: number; readonly style: number };

const position = fc.nat({ max: 1_000_000 });

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: position, code: fc.integer({ min: 0, max: 0xffff }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: position }),
  fc.record({ kind: fc.constant('duplicate-line' as const), line: position, times: fc.integer({ min: 1, max: SIZES.repeat }) }),
  fc.record({ kind: fc.constant('splice' as const), other: fc.nat(), at: position, from: position }),
  fc.record({ kind: fc.constant('huge-number' as const), nth: fc.nat({ max: 200 }), value: fc.constantFrom(...HUGE_NUMBERS) }),
  fc.record({
    kind: fc.constant('long-run' as const),
    at: position,
    char: fc.constantFrom(...RUN_CHARS),
    length: fc.integer({ min: 1, max: SIZES.run }),
  }),
  fc.record({ kind: fc.constant('control' as const), at: position, text: fc.constantFrom(...CONTROL) }),
  fc.record({
    kind: fc.constant('nest' as const),
    at: position,
    depth: fc.integer({ min: 1, max: SIZES.depth }),
    style: fc.nat({ max: 3 }),
  }),
);

function insert(text: string, at: number, piece: string): string {
  const i = text.length === 0 ? 0 : at % (text.length + 1);
  return text.slice(0, i) + piece + text.slice(i);
}

function nesting(nest: Nesting, depth: number, style: number): string {
  if (nest === 'json' || style === 0) return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
  if (nest === 'yaml') {
    if (style === 1) return `\n${Array.from({ length: Math.min(depth, 2000) }, (_, i) => `${' '.repeat(i)}- a:`).join('\n')}\n`;
    if (style === 2) return `${'{a: '.repeat(depth)}1${'}'.repeat(depth)}`;
    return `\n${Array.from({ length: Math.min(depth, 2000) }, (_, i) => `${' '.repeat(i * 2)}k${i}:`).join('\n')} x\n`;
  }
  return `${'('.repeat(depth)}${'<'.repeat(depth)}`;
}

function apply(text: string, mutation: Mutation, corpus: readonly string[], nest: Nesting): string {
  switch (mutation.kind) {
    case 'flip': {
      if (text.length === 0) return String.fromCharCode(mutation.code);
      const i = mutation.at % text.length;
      return text.slice(0, i) + String.fromCharCode(mutation.code) + text.slice(i + 1);
    }
    case 'truncate':
      return text.slice(0, text.length === 0 ? 0 : mutation.at % (text.length + 1));
    case 'duplicate-line': {
      const lines = text.split('\n');
      const i = mutation.line % lines.length;
      const line = lines[i] ?? '';
      const copies = new Array<string>(Math.min(mutation.times, Math.floor(SIZES.maxInput / (line.length + 1)))).fill(line);
      return [...lines.slice(0, i + 1), ...copies, ...lines.slice(i + 1)].join('\n');
    }
    case 'splice': {
      const other = corpus[mutation.other % corpus.length] ?? '';
      const cut = text.length === 0 ? 0 : mutation.at % (text.length + 1);
      const from = other.length === 0 ? 0 : mutation.from % (other.length + 1);
      return text.slice(0, cut) + other.slice(from);
    }
    case 'huge-number': {
      const runs = [...text.matchAll(/\d+/g)];
      if (runs.length === 0) return `${text}${mutation.value}`;
      const run = runs[mutation.nth % runs.length];
      if (!run || run.index === undefined) return text;
      return text.slice(0, run.index) + mutation.value + text.slice(run.index + run[0].length);
    }
    case 'long-run':
      return insert(text, mutation.at, mutation.char.repeat(mutation.length));
    case 'control':
      return insert(text, mutation.at, mutation.text);
    case 'nest':
      return insert(text, mutation.at, nesting(nest, mutation.depth, mutation.style));
  }
}

/** A fixture of the corpus with one to four mutations applied, or the fixture itself now and then. */
export function mutatedInput(corpus: readonly string[], nest: Nesting = 'text'): fc.Arbitrary<string> {
  if (corpus.length === 0) throw new Error('an empty fuzz corpus');
  return fc
    .tuple(fc.nat({ max: corpus.length - 1 }), fc.array(mutationArb, { minLength: 0, maxLength: 4 }))
    .map(([index, mutations]) =>
      mutations.reduce((text, mutation) => apply(text, mutation, corpus, nest).slice(0, SIZES.maxInput), corpus[index] ?? ''),
    );
}

// ---------------------------------------------------------------------------------------------------
// Output checks

export interface Violation {
  readonly property: Property;
  readonly message: string;
}

/** Keys whose numbers are amounts of memory (bytes, kB, pages) and so can never be negative. */
const BYTES_KEY =
  /(?:bytes|memory|mem(?:total|available|free)|size|total|used|current|limit|rss|gtt|vram|accounted|unaccounted|footprint|gpuActive|gpuReclaim|requested|cache|max$|min$|low$|high$|peak)/i;
/** Keys of signed amounts: a headroom or a difference is negative when a pod is over. */
const SIGNED_KEY = /(?:headroom|delta|diff|over|margin|change|offset|adj|score|line|column|start|end|index|pid|rc|code|errno|exit)/i;

/** Walks any output (objects, arrays, Maps, Sets) for non-finite numbers and negative amounts of memory. */
export function numberViolations(output: unknown): Violation[] {
  const found: Violation[] = [];
  const seen = new Set<object>();
  const stack: { value: unknown; path: string; key: string }[] = [{ value: output, path: '$', key: '' }];
  let visited = 0;
  while (stack.length > 0 && found.length < 5) {
    const { value, path, key } = stack.pop() as { value: unknown; path: string; key: string };
    if (++visited > 2_000_000) break;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) found.push({ property: 'finite', message: `${path} is ${value}` });
      else if (value < 0 && BYTES_KEY.test(key) && !SIGNED_KEY.test(key))
        found.push({ property: 'negative-bytes', message: `${path} is ${value}` });
      continue;
    }
    if (typeof value !== 'object' || value === null || seen.has(value) || ArrayBuffer.isView(value)) continue;
    seen.add(value);
    if (value instanceof Map) {
      for (const [k, v] of value) stack.push({ value: v, path: `${path}.get(${JSON.stringify(String(k)).slice(0, 40)})`, key: String(k) });
    } else if (value instanceof Set || Array.isArray(value)) {
      let i = 0;
      for (const v of value as Iterable<unknown>) stack.push({ value: v, path: `${path}[${i++}]`, key });
    } else {
      for (const [k, v] of Object.entries(value)) stack.push({ value: v, path: `${path}.${k}`, key: k });
    }
  }
  return found;
}

/** C0 (but tab and newline), DEL, C1, the bidi controls (overrides, embeddings, isolates, marks), line/paragraph separators. */
const TERMINAL_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

export function terminalViolations(label: string, text: string): Violation[] {
  const match = TERMINAL_UNSAFE.exec(text);
  if (!match) return [];
  const around = JSON.stringify(text.slice(Math.max(0, match.index - 30), match.index + 30));
  return [
    {
      property: 'terminal',
      message: `${label} has U+${(match[0].codePointAt(0) ?? 0).toString(16).padStart(4, '0')} at ${match.index}: ${around}`,
    },
  ];
}

/**
 * What a rendered report must never show: a byte count that is not a number (formatBytes/describeBytes of Infinity or NaN), an object
 * printed as one.
 */
const RENDER_BROKEN = /\b(?:Infinity|NaN|undefined) (?:[KMGTPE]i)?B\b|\b(?:Infinity|NaN) bytes\b|\[object Object\]/g;

/** The input of the check running now: a report may quote it, so what it already holds is no rendering defect. */
let currentInput = '';

export function renderViolations(label: string, text: unknown): Violation[] {
  if (typeof text !== 'string') return [{ property: 'render', message: `${label} rendered ${typeof text}, not a string` }];
  for (const match of text.matchAll(RENDER_BROKEN)) {
    if (!currentInput.includes(match[0])) return [{ property: 'render', message: `${label} shows "${match[0]}" at ${match.index}` }];
  }
  return [];
}

// ---------------------------------------------------------------------------------------------------
// Targets

export interface FuzzTarget<Out = unknown> {
  /** Stable name: the entry point, e.g. `lint.lintText`. */
  readonly name: string;
  readonly corpus: readonly string[];
  /** How mutations nest (JSON brackets, YAML indentation/flow, or plain text). */
  readonly nest?: Nesting;
  readonly run: (input: string) => Out;
  /** More checks on the output: report renderings, terminal strings. */
  readonly check?: (output: Out, input: string) => readonly Violation[];
  /** Errors the entry point's contract allows (documented throws the caller turns into a message). */
  readonly allowedError?: (error: unknown) => boolean;
  /** Inputs that grow with n, for the linear-time check. */
  readonly growth?: readonly Growth[];
}

export interface Growth {
  readonly label: string;
  /** An input of about n characters. */
  readonly make: (n: number) => string;
}

/**
 * Bounded time per input: at most FLOOR_MS plus US_PER_CHAR µs per character of input (20 KB/s at the least, with room for a loaded 2-core
 * machine; the linear check is the sharp one), in the best of 1 + RETRIES runs.
 */
export const TIME_BOUND = { FLOOR_MS: 500, US_PER_CHAR: 50, RETRIES: 2 } as const;

/** One more timed run of an input that already ran once (its outcome is known: only the time is wanted). */
function timed<Out>(target: FuzzTarget<Out>, input: string): number {
  const started = performance.now();
  try {
    target.run(input);
  } catch {
    // Already judged by the first run.
  }
  return performance.now() - started;
}

/** Linear within a constant: cost(k·n) ≤ RATIO · k · cost(n) + FLOOR_MS, each cost the best of three runs. */
export const LINEAR_BOUND = MODE === 'long' ? { n: 40_000, k: 8, RATIO: 3, FLOOR_MS: 100 } : { n: 4_000, k: 8, RATIO: 3, FLOOR_MS: 100 };

function errorText(error: unknown): string {
  if (error instanceof Error)
    return `${error.name}: ${error.message.slice(0, 300)}\n${(error.stack ?? '').split('\n').slice(1, 4).join('\n')}`;
  return `non-Error thrown: ${String(error).slice(0, 300)}`;
}

/** Runs the target on one input and returns what is wrong, known-open failures left out. */
export function violationsOf<Out>(target: FuzzTarget<Out>, input: string): Violation[] {
  const started = performance.now();
  let output: Out;
  try {
    output = target.run(input);
  } catch (error) {
    if (target.allowedError?.(error)) return [];
    return [{ property: 'throws', message: errorText(error) }];
  }
  const found: Violation[] = [];
  const bound = TIME_BOUND.FLOOR_MS + (input.length * TIME_BOUND.US_PER_CHAR) / 1000;
  let elapsed = performance.now() - started;
  // A slow run is timed again before it counts: a machine busy with other work (CI, a parallel build) stalls one
  // run, while an input that is really slow is slow every time.
  for (let retry = 0; retry < TIME_BOUND.RETRIES && elapsed > bound; retry++) elapsed = Math.min(elapsed, timed(target, input));
  if (elapsed > bound)
    found.push({ property: 'time', message: `${elapsed.toFixed(0)} ms for ${input.length} chars (bound ${bound.toFixed(0)} ms)` });
  try {
    currentInput = input;
    found.push(...numberViolations(output));
    found.push(...(target.check?.(output, input) ?? []));
  } catch (error) {
    found.push({ property: 'render', message: errorText(error) });
  } finally {
    currentInput = '';
  }
  return found.filter((violation) => !knownOpen(target.name, violation.property, violation.message));
}

function bestOf3(run: () => void): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    run();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/** Registers the property and linear-time tests of one target. */
export function fuzzTarget<Out>(target: FuzzTarget<Out>): void {
  test(`${target.name}: mutated fixtures never throw, stay in time and give finite, non-negative, renderable output`, () => {
    assert.ok(target.corpus.length > 0, `${target.name} has a corpus`);
    for (const seed of target.corpus) {
      const problems = violationsOf(target, seed);
      assert.deepEqual(problems, [], `${target.name} on an unmutated fixture`);
    }
    fc.assert(
      fc.property(mutatedInput(target.corpus, target.nest), (input) => {
        const problems = violationsOf(target, input);
        if (problems.length > 0)
          throw new Error(
            `${target.name} on ${input.length} chars ${JSON.stringify(input.slice(0, 200))}…:\n${problems.map((p) => `  [${p.property}] ${p.message}`).join('\n')}`,
          );
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: MODE === 'short' },
    );
  });
  for (const growth of target.growth ?? []) {
    const { n, k, RATIO, FLOOR_MS } = LINEAR_BOUND;
    const message = `${target.name} ${growth.label}`;
    // A known super-linear case is not measured even in the long run: at these sizes it takes minutes.
    const skip = KNOWN_OPEN.some((known) => known.target === target.name && known.property === 'linear' && known.match.test(message));
    test(`${message}: cost grows linearly (size ${n} → ${k * n})`, skip ? { skip: 'KNOWN_OPEN' } : {}, () => {
      const small = growth.make(n);
      const large = growth.make(k * n);
      const run = (input: string) => () => {
        try {
          target.run(input);
        } catch {
          // Throwing is the other property's concern; here only time counts.
        }
      };
      run(small)(); // warm-up
      const tSmall = bestOf3(run(small));
      const tLarge = bestOf3(run(large));
      const bound = RATIO * (large.length / Math.max(1, small.length)) * tSmall + FLOOR_MS;
      if (tLarge > bound && !knownOpen(target.name, 'linear', message)) {
        assert.fail(
          `${message}: ${tSmall.toFixed(1)} ms at ${small.length} chars, ${tLarge.toFixed(1)} ms at ${large.length} (bound ${bound.toFixed(1)} ms)`,
        );
      }
    });
  }
}
