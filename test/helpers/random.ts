// mulberry32: a small, fast 32-bit PRNG with the same sequence on every machine, so a test that draws random
// inputs names its seed and a failure can be replayed (Tommy Ettinger's public-domain generator).
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
