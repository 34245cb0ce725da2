// Kubernetes resource quantities ("512Mi", "1.5", "100m", "12e6"), parsed exactly as the API server
// parses them. Byte formatting and the quantities gpumem suggests are in sizing.ts.
//
// Source of truth: k8s.io/apimachinery/pkg/api/resource in kubernetes/kubernetes
//   quantity.go  @ 009f4971a05ddf1edc5616eab805f5b79017da08  (parseQuantityString, ParseQuantity)
//   suffix.go    @ 7125a5f011b453b866574f0181ab0caf70505cdc  (the suffixer's interpret)
//   plus the exponent bound of kubernetes/kubernetes#141203 (merged), which makes interpret reject a
//   decimal exponent outside [-MaxInt32, MaxInt32] instead of truncating it to int32.
//
// What ParseQuantity accepts, and the value it stores:
//   - grammar: [+-]? digits* ('.' digits*)? suffix, where suffix is one of
//     "" n u m k M G T P E (DecimalSI), Ki Mi Gi Ti Pi Ei (BinarySI), or e/E followed by a signed
//     integer (DecimalExponent). "1.", ".5", "1.G" are fine. No whitespace anywhere.
//   - quirks it really has, kept here on purpose: a number with no digits is zero ("+", "-", ".",
//     "Ki", "m", "e5" all parse as 0), except where ParseQuantity falls back to inf.Dec, which needs
//     a digit: no-digit "Pi"/"Ei" and no-digit exponents below -9 ("e-10") are rejected.
//   - non-zero magnitudes are rounded UP (away from zero) to a whole nano (1e-9): "0.1n" is 1n.
//   - BinarySI magnitudes above 2^63-1 are capped at 2^63-1 ("9Ei"); decimal forms are not capped.
//   - a BinarySI value strictly between 0 and 1 in magnitude reports format DecimalSI.
// parseApiQuantity is that transcription; parseQuantity, what the rest of gpumem uses, also refuses a
// magnitude above 2^63 ("1e19", "1e309", which ParseQuantity keeps as an inf.Dec) as out of range, so
// no caller ever sees Infinity.
// Deliberately not reproduced: int32 wrap-around of the internal scale for exponents within a few
// digits of ±2^31 (upstream then computes a wrapped value or never finishes); here the value stays
// mathematically exact, rounded to nano.
//
// Everything is linear in the input length: digit strings are sliced, never converted whole to a
// BigInt, and BigInt arithmetic only ever sees numbers of at most ~90 digits.

export type QuantityFormat = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

export interface Quantity {
  /** The original text. */
  readonly text: string;
  /**
   * The value in base units (bytes, cores, devices), as the nearest double. Finite and at most 2^63 in magnitude from parseQuantity;
   * parseApiQuantity may give Infinity.
   */
  readonly value: number;
  /** Exactly whether the value (after the API server's rounding to nano) is a whole number. */
  readonly isInteger: boolean;
  /** Strictly below zero. */
  readonly negative: boolean;
  readonly format: QuantityFormat;
}

export type QuantityResult = { readonly ok: true; readonly quantity: Quantity } | { readonly ok: false; readonly reason: string };

interface SuffixInfo {
  readonly base: 2 | 10;
  readonly exponent: number;
  readonly format: QuantityFormat;
}

const SUFFIXES: ReadonlyMap<string, SuffixInfo> = new Map<string, SuffixInfo>([
  ['', { base: 10, exponent: 0, format: 'DecimalSI' }],
  ['n', { base: 10, exponent: -9, format: 'DecimalSI' }],
  ['u', { base: 10, exponent: -6, format: 'DecimalSI' }],
  ['m', { base: 10, exponent: -3, format: 'DecimalSI' }],
  ['k', { base: 10, exponent: 3, format: 'DecimalSI' }],
  ['M', { base: 10, exponent: 6, format: 'DecimalSI' }],
  ['G', { base: 10, exponent: 9, format: 'DecimalSI' }],
  ['T', { base: 10, exponent: 12, format: 'DecimalSI' }],
  ['P', { base: 10, exponent: 15, format: 'DecimalSI' }],
  ['E', { base: 10, exponent: 18, format: 'DecimalSI' }],
  ['Ki', { base: 2, exponent: 10, format: 'BinarySI' }],
  ['Mi', { base: 2, exponent: 20, format: 'BinarySI' }],
  ['Gi', { base: 2, exponent: 30, format: 'BinarySI' }],
  ['Ti', { base: 2, exponent: 40, format: 'BinarySI' }],
  ['Pi', { base: 2, exponent: 50, format: 'BinarySI' }],
  ['Ei', { base: 2, exponent: 60, format: 'BinarySI' }],
]);

/** Letters parseQuantityString lets into a suffix. */
const SUFFIX_CHARS = 'eEinumkKMGTP';
const MAX_INT32 = 2147483647;
const NANO_PER_UNIT = 1_000_000_000n;
const MAX_INT64 = 9223372036854775807n;
/** The largest magnitude gpumem accepts: 2^63, the double nearest to maxAllowed (2^63-1), which "8Ei" and the BinarySI cap reach. */
export const MAX_QUANTITY = 2 ** 63;

/** Whether a computed number of base units (a sum, a product with headroom) can still be written as a quantity. */
export function isQuantityInRange(value: number): boolean {
  return Number.isFinite(value) && Math.abs(value) <= MAX_QUANTITY;
}
/** maxAllowed (2^63-1) expressed in nano units. */
const MAX_ALLOWED_NANO = MAX_INT64 * NANO_PER_UNIT;

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

// ---------------------------------------------------------------------------------------------
// Scanning: a transcription of parseQuantityString.

type Scan =
  | {
      readonly ok: true;
      readonly positive: boolean;
      /** Integer digits after the sign (leading zeros included). */
      readonly intDigits: string;
      /** Fraction digits (may be empty even when a '.' was present). */
      readonly fracDigits: string;
      readonly suffix: string;
      /** Whether the numeric part (Go's `value`) holds at least one digit. */
      readonly hasDigit: boolean;
    }
  | { readonly ok: false; readonly numberEnd: number; readonly badIndex: number };

function scan(str: string): Scan {
  const end = str.length;
  let pos = 0;
  let positive = true;
  if (end > 0) {
    if (str[0] === '-') {
      positive = false;
      pos++;
    } else if (str[0] === '+') {
      pos++;
    }
  }
  const intStart = pos;
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  const intDigits = str.slice(intStart, i);
  pos = i;
  if (pos >= end) {
    // Go returns value "0" when only zeros (or nothing) follow the sign; either way there is a
    // digit for inf.Dec to read, or the fast path is taken.
    return { ok: true, positive, intDigits, fracDigits: '', suffix: '', hasDigit: true };
  }
  let fracDigits = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    fracDigits = str.slice(pos, i);
    pos = i;
  }
  const hasDigit = intDigits.length > 0 || fracDigits.length > 0;
  const numberEnd = pos;
  i = pos;
  while (i < end && SUFFIX_CHARS.includes(str[i] as string)) i++;
  if (i < end && (str[i] === '-' || str[i] === '+')) i++;
  while (i < end && isDigit(str[i])) i++;
  if (i < end) return { ok: false, numberEnd, badIndex: i };
  return { ok: true, positive, intDigits, fracDigits, suffix: str.slice(numberEnd), hasDigit };
}

/** The suffixer's interpret, with the int32 exponent bound. */
function interpret(suffix: string): SuffixInfo | undefined {
  const known = SUFFIXES.get(suffix);
  if (known) return known;
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    // strconv.ParseInt(s[1:], 10, 64): optional sign, then at least one decimal digit.
    const rest = suffix.slice(1);
    if (!/^[+-]?[0-9]+$/.test(rest)) return undefined;
    const negative = rest[0] === '-';
    let i = rest[0] === '+' || negative ? 1 : 0;
    while (i < rest.length - 1 && rest[i] === '0') i++;
    const digits = rest.slice(i);
    if (digits.length > 10) return undefined; // past int32 (and maybe int64: ParseInt fails too)
    const magnitude = Number(digits);
    if (magnitude > MAX_INT32) return undefined; // kubernetes/kubernetes#141203
    return { base: 10, exponent: negative ? -magnitude : magnitude, format: 'DecimalExponent' };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Exact arithmetic on decimal digit strings.

interface Decimal {
  /** Significant digits, no leading or trailing zeros; '' means zero. */
  readonly sig: string;
  /** The magnitude is sig * 10^exp. */
  readonly exp: number;
}

function normalize(digits: string, exp: number): Decimal {
  let first = 0;
  while (first < digits.length && digits[first] === '0') first++;
  if (first === digits.length) return { sig: '', exp: 0 };
  let last = digits.length - 1;
  while (digits[last] === '0') last--;
  return { sig: digits.slice(first, last + 1), exp: exp + (digits.length - 1 - last) };
}

/** Adds one to a string of decimal digits. */
function incrementDigits(digits: string): string {
  let i = digits.length - 1;
  while (i >= 0 && digits[i] === '9') i--;
  if (i < 0) return '1' + '0'.repeat(digits.length);
  return digits.slice(0, i) + String(Number(digits[i]) + 1) + '0'.repeat(digits.length - 1 - i);
}

function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return q * b === a ? q : q + 1n;
}

interface Magnitude {
  readonly value: number;
  readonly isInteger: boolean;
  /** 0 < magnitude < 1 */
  readonly belowOne: boolean;
  readonly zero: boolean;
}

/** A decimal magnitude sig * 10^exp, rounded up to a whole nano. Decimal forms are never capped. */
function decimalMagnitude(d: Decimal): Magnitude {
  if (d.sig === '') return { value: 0, isInteger: true, belowOne: false, zero: true };
  let r = d;
  if (r.exp < -9) {
    // Keep the digits at or above the nano position and round up: the dropped tail is non-zero
    // because sig has no trailing zeros.
    const keep = r.sig.length + r.exp + 9;
    const kept = keep <= 0 ? '1' : incrementDigits(r.sig.slice(0, keep));
    r = normalize(kept, -9);
  }
  const belowOne = r.sig.length + r.exp <= 0;
  return { value: Number(`${r.sig}e${r.exp}`), isInteger: r.exp >= 0, belowOne, zero: false };
}

/** A binary magnitude sig * 10^exp * 2^bits, rounded up to a whole nano, capped at 2^63-1. */
function binaryMagnitude(d: Decimal, bits: number): Magnitude {
  if (d.sig === '') return { value: 0, isInteger: true, belowOne: false, zero: true };
  const capped: Magnitude = { value: Number(MAX_INT64), isInteger: true, belowOne: false, zero: false };
  const len = d.sig.length;
  // 10^(point-1) <= sig * 10^exp < 10^point
  const point = len + d.exp;
  if (point >= 17) return capped; // >= 10^16 * 1024 > 2^63-1
  // In nano units the value is z * 2^bits with z = sig * 10^(exp+9). Integer thresholds of
  // z * 2^bits sit at multiples of 2^-bits, all of which end within `bits` decimal places, so
  // digits of z beyond that position only matter as "non-zero" (sticky), and we keep
  // point + 9 + bits digits of sig (at most 85).
  const keep = point + 9 + bits;
  let q: bigint;
  if (keep <= 0) {
    q = 1n; // 0 < z * 2^bits < 1
  } else if (keep < len) {
    // z truncated to `bits` places is T / 10^bits; the true z is strictly above it.
    const t = BigInt(d.sig.slice(0, keep)) << BigInt(bits);
    q = t / 10n ** BigInt(bits) + 1n;
  } else {
    const shift = d.exp + 9;
    const num = BigInt(d.sig) << BigInt(bits);
    q = shift >= 0 ? num * 10n ** BigInt(shift) : ceilDiv(num, 10n ** BigInt(-shift));
  }
  if (q > MAX_ALLOWED_NANO) return capped;
  return {
    value: Number(`${q}e-9`),
    isInteger: q % NANO_PER_UNIT === 0n,
    belowOne: q < NANO_PER_UNIT,
    zero: false,
  };
}

// ---------------------------------------------------------------------------------------------
// Human reasons.

function quote(s: string): string {
  const max = 24;
  return JSON.stringify(s.length > max ? `${s.slice(0, max)}…` : s);
}

function joinOr(items: readonly string[]): string {
  const quoted = items.map((s) => `"${s}"`);
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

const BINARY_SUFFIXES = ['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const DECIMAL_SUFFIXES = ['n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E'];

/** Valid suffixes a mistyped one probably meant: "Gb" -> G, Gi; "gi" -> Gi; "K" -> k, Ki. */
function suggestSuffixes(bad: string): string[] {
  if (bad === 'µ' || bad === 'μ') return ['u'];
  let core = bad;
  // "GB", "GiB", "kb": a byte unit, so milli/micro/nano are never what was meant.
  const bytes = /^[A-Za-z]{2,3}$/.test(core) && /[bB]$/.test(core);
  if (bytes) core = core.slice(0, -1);
  if (!/^[A-Za-z]{1,2}$/.test(core)) return [];
  const lower = core.toLowerCase();
  const out: string[] = [];
  if (core.length === 1) {
    for (const s of DECIMAL_SUFFIXES) {
      if (s.toLowerCase() === lower && !(bytes && (s === 'n' || s === 'u' || s === 'm'))) out.push(s);
    }
  }
  for (const s of BINARY_SUFFIXES) {
    if (s.toLowerCase() === lower || (core.length === 1 && s[0]?.toLowerCase() === lower)) out.push(s);
  }
  return out.filter((s) => s !== bad);
}

function unknownSuffix(suffix: string): string {
  const suggestions = suggestSuffixes(suffix);
  if (suggestions.length > 0) return `unknown suffix ${quote(suffix)} (did you mean ${joinOr(suggestions)}?)`;
  return `unknown suffix ${quote(suffix)} (use Ki, Mi, Gi, Ti, Pi, Ei, or n, u, m, k, M, G, T, P, E, or an exponent like e6)`;
}

function formatReason(text: string, numberEnd: number, badIndex: number): string {
  if (/\s/.test(text)) return 'whitespace is not allowed in a quantity';
  const bad = text[badIndex] as string;
  const tail = text.slice(numberEnd);
  if (!/[0-9]/.test(text) && !/^[+-]?\.?[A-Za-z]{1,3}$/.test(text)) return `not a number: ${quote(text)}`;
  if (bad === ',') return 'unexpected "," (use "." for decimals and no thousands separators)';
  if (bad === '.' && badIndex === numberEnd) return 'a quantity has at most one decimal point, before the suffix';
  if (tail[0] === '+' || tail[0] === '-') {
    return `unexpected ${JSON.stringify(tail[0])} at position ${numberEnd + 1} (a sign may only lead the number or follow e/E)`;
  }
  if (/^[A-Za-zµμ]+$/.test(tail)) return unknownSuffix(tail);
  return `unexpected ${JSON.stringify(bad)} at position ${badIndex + 1}`;
}

function suffixReason(suffix: string): string {
  if (/^[eE][+-]?[0-9]+$/.test(suffix)) return `exponent out of range in ${quote(suffix)} (limit is ±${MAX_INT32})`;
  if (/^[eE][+-]?$/.test(suffix)) return `exponent ${quote(suffix)} needs digits, e.g. "1e3"`;
  const sign = /[+-]/.exec(suffix);
  if (sign && !/^[eE]/.test(suffix)) {
    return `unexpected ${JSON.stringify(sign[0])} in suffix ${quote(suffix)} (a sign may only lead the number or follow e/E)`;
  }
  return unknownSuffix(suffix);
}

// ---------------------------------------------------------------------------------------------

/**
 * Parses a quantity for gpumem's own use: the API server's grammar and value (parseApiQuantity), with
 * magnitudes above 2^63 refused as out of range. Past 2^63 no Kubernetes int64 (Quantity.Value(), the
 * kubelet's cgroup limits) holds the number, and past ~1.8e308 it is no double either: "1e309" would reach
 * messages, CodeLenses and quick fixes as Infinity. Never throws; the value is always finite.
 */
export function parseQuantity(text: string): QuantityResult {
  const parsed = parseApiQuantity(text);
  if (parsed.ok && Math.abs(parsed.quantity.value) > MAX_QUANTITY) {
    return { ok: false, reason: `out of range: ${quote(text)} is beyond 2^63 (8 EiB), the largest value Kubernetes holds as an integer` };
  }
  return parsed;
}

/** Parses a quantity exactly the way the Kubernetes API server does (values may be huge or Infinity). Never throws. */
export function parseApiQuantity(text: string): QuantityResult {
  if (typeof text !== 'string') return { ok: false, reason: 'a quantity must be a string' };
  if (text.length === 0) return { ok: false, reason: 'empty quantity' };
  const s = scan(text);
  if (!s.ok) return { ok: false, reason: formatReason(text, s.numberEnd, s.badIndex) };
  const suffix = interpret(s.suffix);
  if (!suffix) return { ok: false, reason: suffixReason(s.suffix) };
  // ParseQuantity's inf.Dec path needs a digit in the number; it is taken for Pi/Ei (precision < 0
  // even for a one-digit number) and for a scale below nano.
  if (!s.hasDigit && (suffix.base === 2 ? suffix.exponent >= 50 : suffix.exponent < -9)) {
    return { ok: false, reason: `a number is needed before ${quote(s.suffix)}` };
  }
  const digits = s.intDigits + s.fracDigits;
  let mag: Magnitude;
  let format = suffix.format;
  if (suffix.base === 10) {
    mag = decimalMagnitude(normalize(digits, suffix.exponent - s.fracDigits.length));
  } else {
    mag = binaryMagnitude(normalize(digits, -s.fracDigits.length), suffix.exponent);
    if (mag.belowOne) format = 'DecimalSI';
  }
  const negative = !s.positive && !mag.zero;
  return {
    ok: true,
    quantity: { text, value: negative ? -mag.value : mag.value, isInteger: mag.isInteger, negative, format },
  };
}
