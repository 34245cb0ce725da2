// The figures every bench prints: medians, nearest-rank percentiles, and milliseconds and MiB as text.
export const MiB = 1024 * 1024;

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted, p) {
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export const ms = (value) => `${value.toFixed(1)} ms`;
export const mib = (bytes, digits = 1) => `${(bytes / MiB).toFixed(digits)} MiB`;

/** Numbers as one line of text, `digits` decimals each. */
export const list = (values, digits) => values.map((v) => v.toFixed(digits)).join(' ');

/** Runs `fn`, returning its value and how long it took. */
export async function timed(fn) {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

/** Rotates `ops` by `round` so no measurement always runs first (or right after a given other one). */
export function rotated(ops, round) {
  const k = round % ops.length;
  return [...ops.slice(k), ...ops.slice(0, k)];
}

/** How many times `re` (a global regex) matches `text`. */
export const count = (text, re) => (text.match(re) ?? []).length;
