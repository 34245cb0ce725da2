// Array helpers that never spread an array into call arguments. `Math.max(...xs)`, `xs.push(...ys)` and
// `String.fromCharCode(...codes)` pass every element as an argument, and V8 throws a RangeError
// ("Maximum call stack size exceeded") past roughly 125,000 of them: a 256 KiB /etc/ld.so.preload of short
// lines or a long run of backticks was enough. These loop instead; cost is linear, stack use constant.

/** Appends every item of `items` to `target` (in place), like `target.push(...items)` without the argument limit. */
export function pushAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}

/** The largest value, or `empty` for none: `Math.max(...values)` without the argument limit. NaN is skipped. */
export function maxOf(values: Iterable<number>, empty: number): number {
  let best: number | undefined;
  for (const value of values) if (!Number.isNaN(value) && (best === undefined || value > best)) best = value;
  return best ?? empty;
}

/** The smallest value, or `empty` for none: `Math.min(...values)` without the argument limit. NaN is skipped. */
export function minOf(values: Iterable<number>, empty: number): number {
  let best: number | undefined;
  for (const value of values) if (!Number.isNaN(value) && (best === undefined || value < best)) best = value;
  return best ?? empty;
}

/** The length of the longest run of `char` in `text` (one character), in one pass and without a regex. */
export function longestRun(text: string, char: string): number {
  let longest = 0;
  let current = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === char) {
      current++;
      if (current > longest) longest = current;
    } else current = 0;
  }
  return longest;
}
