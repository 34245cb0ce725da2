// KFD eviction counters (src/core/probe/parsers/kfd.ts, src/core/verdicts/eviction/kfdEviction.ts, vramEviction.ts,
// src/core/inspectorPanel/evictionDelta.ts): mutated real `kfd` sections through the parser, the lifetime model and the
// verdicts (no throw, finite numbers, linear time); and properties of the delta: never negative, a grown counter's
// growth exactly, a restart counts from zero.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseKfd, parseProcStat } from '../../src/core/probe/parsers/kfd.ts';
import { evictedBetween, evictionRate } from '../../src/core/inspectorPanel/evictionDelta.ts';
import { lifetimeEvictions, sampleEvictions } from '../../src/core/verdicts/eviction/kfdEviction.ts';
import { evictionThrashingVerdicts } from '../../src/core/verdicts/eviction/vramEviction.ts';
import { kfdFiles, procStat } from '../unit/helpers/kfdCapture.ts';
import { fuzzTarget, numberViolations, RUNS, SEED } from './harness.ts';

const CG =
  '0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod8a4c2b2e_5d0e_4b1a_9c3f_2f1e6a7b8c9d.slice/cri-containerd-aaaa.scope\n';
const SECTION = kfdFiles(
  [[40087, 'gfx1151']],
  [
    { pid: 4101, comm: 'python3', startTicks: 900_000, cgroup: CG, gpus: { 40087: [6442450944, 50000] } },
    { pid: 5202, comm: 'a) b\tc', startTicks: 950_000, cgroup: CG, gpus: { 40087: [1024, 20000] } },
  ],
)
  .map(([path, body]) => `${path}\u0000${body}`)
  .join('\u0001');

/** The fuzzed text is the section's records, `path\0body` joined by \1, so mutations reach paths and bodies alike. */
function files(input: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const record of input.split('\u0001')) {
    const split = record.indexOf('\u0000');
    if (split > 0) out.set(record.slice(0, split), record.slice(split + 1));
  }
  return out;
}

fuzzTarget({
  name: 'kfd.parseKfd+lifetimeEvictions+verdicts',
  corpus: [SECTION, procStat(4101, 'x) S 1', 12)],
  run: (input) => {
    const kfd = parseKfd(files(input));
    const evictions = lifetimeEvictions(kfd, 10_000);
    return {
      kfd,
      evictions,
      verdicts: evictionThrashingVerdicts(evictions),
      stat: parseProcStat(input),
      delta: sampleEvictions(kfd, kfd, 5),
    };
  },
  check: (output) => numberViolations(output),
  growth: [
    {
      label: 'many processes',
      make: (n) =>
        Array.from({ length: Math.ceil(n / 80) }, (_, i) => `/sys/class/kfd/kfd/proc/${i}/stats_1/evicted_ms\u0000${i}\n`).join('\u0001'),
    },
    { label: 'long comm', make: (n) => procStat(1, ')'.repeat(n), 5) },
  ],
});

test('kfd: parsed captures of the probe format give each counter back, and rates are finite and never negative', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          pid: fc.integer({ min: 1, max: 4_000_000 }),
          start: fc.nat({ max: 2 ** 40 }),
          evicted: fc.nat({ max: 2 ** 50 }),
          comm: fc.string({ maxLength: 20 }),
        }),
        { maxLength: 8 },
      ),
      fc.double({ min: 0, max: 1e9, noNaN: true }),
      (procs, uptime) => {
        const unique = [...new Map(procs.map((p) => [p.pid, p])).values()];
        const text = kfdFiles(
          [[7, 'gfx']],
          unique.map((p) => ({ pid: p.pid, comm: p.comm, startTicks: p.start, cgroup: CG, gpus: { 7: [0, p.evicted] } })),
        );
        const kfd = parseKfd(new Map(text));
        for (const p of unique) {
          const parsed = kfd.processes.find((candidate) => candidate.pid === p.pid);
          assert.equal(parsed?.gpus[0]?.evictedMs, p.evicted);
          assert.equal(parsed?.startTicks, p.start, `comm ${JSON.stringify(p.comm)}`);
        }
        for (const row of lifetimeEvictions(kfd, uptime).processes)
          assert.ok(row.ratePerSecond === undefined || (Number.isFinite(row.ratePerSecond) && row.ratePerSecond >= 0));
      },
    ),
    { seed: SEED, numRuns: RUNS * 5 },
  );
});

test('kfd: the delta between two readings is the growth, a restart counts from zero, never negative', () => {
  const reading = fc.record({ startTicks: fc.option(fc.nat(), { nil: null }), evictedMs: fc.nat({ max: 2 ** 52 }) });
  fc.assert(
    fc.property(reading, reading, fc.double({ min: -10, max: 1e6, noNaN: true }), (a, b, seconds) => {
      const before = { pid: 1, gpuId: 2, ...a };
      const after = { pid: 1, gpuId: 2, ...b };
      const grown = evictedBetween(before, after);
      assert.ok(grown);
      assert.ok(grown.ms >= 0);
      const restarted = a.startTicks !== null && b.startTicks !== null && a.startTicks !== b.startTicks;
      if (!restarted && b.evictedMs >= a.evictedMs) assert.deepEqual(grown, { ms: b.evictedMs - a.evictedMs, reset: false });
      else assert.deepEqual(grown, { ms: b.evictedMs, reset: true });
      const rate = evictionRate(grown.ms, seconds);
      // A window so short that the quotient overflows has no rate either (found by this property: 1 ms in 5e-324 s).
      if (seconds > 0 && Number.isFinite(grown.ms / seconds)) assert.ok(rate !== undefined && rate >= 0 && rate === grown.ms / seconds);
      else assert.equal(rate, undefined);
      assert.equal(evictedBetween(undefined, after), undefined);
    }),
    { seed: SEED, numRuns: RUNS * 10 },
  );
});
