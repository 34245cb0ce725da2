// Does a function's cost grow linearly with its input? Time it on n and on 8n (best of four alternating runs, so
// a scheduler hiccup on a shared machine does not count) and compare: linear work grows 8×, quadratic 64×.
import assert from 'node:assert/strict';

function bestOf(runs: number, work: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    work();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e6);
  }
  return best;
}

/**
 * Asserts that `run(make(8n))` costs less than `ratio` (default 24, well between 8 and 64) times `run(make(n))`.
 * Times below `floorMs` are raised to it, so that two fast runs never fail on timer noise.
 */
export function assertSubQuadratic(
  what: string,
  make: (n: number) => string,
  run: (input: string) => unknown,
  n: number,
  ratio = 24,
  floorMs = 5,
): void {
  const small = make(n);
  const large = make(8 * n);
  run(small);
  // Small and large runs alternate, so a burst of load from another process lands on both sides instead of
  // skewing one of them; the best of each side is what the code costs.
  let smallBest = Infinity;
  let largeBest = Infinity;
  for (let round = 0; round < 4; round++) {
    smallBest = Math.min(
      smallBest,
      bestOf(1, () => run(small)),
    );
    largeBest = Math.min(
      largeBest,
      bestOf(1, () => run(large)),
    );
  }
  const smallMs = Math.max(floorMs, smallBest);
  const largeMs = largeBest;
  assert.ok(
    largeMs / smallMs < ratio,
    `${what}: ${smallMs.toFixed(1)} ms for ${small.length} characters, ${largeMs.toFixed(1)} ms for ${large.length} (×${(largeMs / smallMs).toFixed(1)}; linear is ×8, quadratic ×64)`,
  );
}
