// How gpumem sizes memory and says sizes: the headroom a remedy adds, the quantity it suggests writing into a
// manifest, and the byte counts messages show. The linter's rules and quick fixes, the verdicts, the reports and
// the recommendations all size with these, so a user's headroom (gpumem.lint.headroomPercent, the CLI's
// --headroom) means the same everywhere.
import { isQuantityInRange } from './quantity.ts';

/**
 * Headroom over the expected need, in percent, when the user sets none. AMD's guidance for unified-memory
 * (APU) workloads is 25–30 % over the true footprint (cgroup memory + GTT); gpumem takes the upper end.
 */
export const DEFAULT_HEADROOM_PERCENT = 30;
/** The largest headroom gpumem accepts (the setting's and the CLI option's range is 0 to this). */
export const MAX_HEADROOM_PERCENT = 1000;

/** Whether a value is a headroom gpumem accepts: a finite number of percent from 0 to MAX_HEADROOM_PERCENT. */
export function isHeadroomPercent(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= MAX_HEADROOM_PERCENT;
}

/** `bytes` plus `headroomPercent` %, rounded up to a whole byte. */
export function withHeadroom(bytes: number, headroomPercent: number): number {
  return Math.ceil(bytes * (1 + headroomPercent / 100));
}

/**
 * Whether a limit leaves less than `headroomPercent` over a need: the verdicts' and the inspector's "headroom low".
 * It is the remedies' arithmetic (withHeadroom) read backwards, so a limit a remedy suggests is never itself "low"
 * and a limit under the user's headroom always is. (It used to be a fixed 25 % of the limit: a pod sized as a 30 %
 * remedy says keeps 23 % of its limit free, and was flagged; with a 50 % setting, 26 % free was not.)
 */
export function leavesTooLittleHeadroom(limit: number, need: number, headroomPercent: number): boolean {
  return limit < withHeadroom(need, headroomPercent);
}

/** The multiplier a headroom stands for, as a remedy writes it: 30 → "1.3", 25 → "1.25". */
export function headroomFactorText(headroomPercent: number): string {
  return String(Math.round((1 + headroomPercent / 100) * 1000) / 1000);
}

// ---------------------------------------------------------------------------------------------
// Quantities to write into a manifest.

const MI = 1024 * 1024;
const GI = 1024 * MI;
/** From here up a suggestion is rounded up to whole Gi (easier to read and to compare); below, to whole Mi. */
const WHOLE_GI_FROM = 4 * GI;

/**
 * A memory quantity for a manifest that is >= bytes: rounded up to a whole Mi, written in Gi when
 * that is a whole number of Gi, else in Mi. 0 (and anything negative) gives '0'.
 * Throws a RangeError for NaN or an infinite input, which no quantity can hold.
 */
export function toMemoryQuantity(bytes: number): string {
  if (!Number.isFinite(bytes)) throw new RangeError(`toMemoryQuantity: ${bytes} bytes has no quantity`);
  if (bytes <= 0) return '0';
  // Dividing by a power of two is exact, except that a subnormal byte count underflows to 0: still 1Mi.
  const mi = Math.max(1, Math.ceil(bytes / MI));
  if (mi % 1024 === 0) return `${BigInt(mi / 1024)}Gi`;
  return `${BigInt(mi)}Mi`;
}

/**
 * The quantity a remedy suggests for a need of `bytes`, as a person writes it: whole Gi from 4 GiB up, else whole
 * Mi (Gi when whole); never below `bytes`. Undefined when no quantity can hold it (beyond 2^63 bytes): then
 * there is nothing to suggest.
 *
 * One rounding for the quick fixes and the verdicts' remedies. It is the quick fixes' (the linter's tests and
 * users' manifests rely on "63Gi", "1997Mi"); the verdicts used to switch to Gi only from 10 GiB, which
 * suggested "5120Mi" where a fix said "5Gi". Half-Gi steps were considered and left out: "62.5Gi" reads worse
 * than "63Gi" and costs at most 1 GiB more from 4 GiB up (at most 25 %, under 2 % from 64 GiB).
 */
export function suggestedMemoryQuantity(bytes: number): string | undefined {
  const rounded = bytes >= WHOLE_GI_FROM ? Math.ceil(bytes / GI) * GI : bytes;
  return isQuantityInRange(rounded) ? toMemoryQuantity(rounded) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Byte counts in messages.

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

/** Short binary form for messages: '512 MiB', '31.5 GiB', '0 B' (one decimal at most, no trailing .0). */
export function formatBytes(bytes: number): string {
  // Never "Infinity B" or "NaN B": a number that is no byte count says so.
  if (!Number.isFinite(bytes)) return 'an out-of-range number of bytes';
  const sign = bytes < 0 ? '-' : '';
  let v = Math.abs(bytes);
  let unit = 0;
  while (unit < BYTE_UNITS.length - 1 && v >= 1024) {
    v /= 1024;
    unit++;
  }
  let rounded = Math.round(v * 10) / 10;
  if (rounded >= 1024 && unit < BYTE_UNITS.length - 1) {
    // 1023.96 MiB shows as 1 GiB, not 1024 MiB
    rounded = Math.round((rounded / 1024) * 10) / 10;
    unit++;
  }
  const shown = Number.isInteger(rounded) ? String(rounded) : rounded.toFixed(1);
  return `${rounded === 0 ? '' : sign}${shown} ${BYTE_UNITS[unit]}`;
}

/** formatBytes of a count of KiB, the unit of the kernel's OOM report and /proc/meminfo. */
export function formatKb(kb: number): string {
  return formatBytes(kb * 1024);
}

function groupThousands(intDigits: string): string {
  let out = '';
  for (let i = 0; i < intDigits.length; i++) {
    if (i > 0 && (intDigits.length - i) % 3 === 0) out += ',';
    out += intDigits[i];
  }
  return out;
}

/** Long form for hovers: '34,359,738,368 bytes (32 GiB)'; below 1 KiB just '900 bytes'. */
export function describeBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'an out-of-range number of bytes';
  const abs = Math.abs(bytes);
  let digits: string;
  if (Number.isInteger(abs)) {
    digits = groupThousands(BigInt(abs).toString());
  } else {
    const [intPart = '0', frac] = abs.toFixed(9).replace(/0+$/, '').split('.');
    digits = groupThousands(intPart) + (frac ? `.${frac}` : '');
  }
  const sign = bytes < 0 ? '-' : '';
  const unit = abs === 1 ? 'byte' : 'bytes';
  if (abs < 1024) return `${sign}${digits} ${unit}`;
  return `${sign}${digits} ${unit} (${formatBytes(bytes)})`;
}
