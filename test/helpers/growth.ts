// The hostile inputs whose cost once grew faster than their size, run at the larger size that bench/growth.mjs
// measures (8n): a throw, a wrong answer or a hang (the test's timeout) fails the test. How their cost grows, n
// against 8n, is measured there, as a ratio in one run of the bench: timed here, the ratio failed on a loaded machine.

/** Runs `run` on `make(8 * n)`, the large input of the bench case named `what`, and returns what it returned. */
export function runsOnLargeInput<T>(what: string, make: (n: number) => string, run: (input: string) => T, n: number): T {
  const input = make(8 * n);
  if (input.length === 0) throw new Error(`${what}: the input is empty`);
  return run(input);
}
