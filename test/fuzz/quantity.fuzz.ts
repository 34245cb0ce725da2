// Kubernetes quantities (src/core/quantity.ts): parsing mutated real quantities, the byte formatters on what
// they parse to, and a round trip: toMemoryQuantity(bytes) parses back to at least `bytes`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseQuantity } from '../../src/core/quantity.ts';
import { describeBytes, formatBytes, toMemoryQuantity } from '../../src/core/sizing.ts';
import { parseHamiLimit } from '../../src/core/verdicts/hami/hamiFacts.ts';
import { fuzzTarget, renderViolations, RUNS, SEED } from './harness.ts';
import type { Violation } from './harness.ts';

// Quantities as manifests and the API server write them (k8s.io/apimachinery resource.Quantity forms).
const QUANTITIES = [
  '1Gi',
  '512Mi',
  '100M',
  '1.5Gi',
  '0.5',
  '250m',
  '1e3',
  '12E',
  '1E2Mi',
  '+1Ki',
  '-1Gi',
  '0',
  '00001',
  '.5Gi',
  '64000k',
  '1Ti',
  '1e-3',
];

fuzzTarget({
  name: 'quantity.parseQuantity+formatBytes',
  corpus: QUANTITIES,
  run: (input) => parseQuantity(input),
  check: (result): Violation[] => {
    if (!result.ok) return [];
    const { value } = result.quantity;
    return [...renderViolations('formatBytes', formatBytes(value)), ...renderViolations('describeBytes', describeBytes(value))];
  },
  growth: [
    { label: 'many digits', make: (n) => `${'9'.repeat(n)}Mi` },
    { label: 'long fraction', make: (n) => `0.${'0'.repeat(n)}1Gi` },
    { label: 'long exponent', make: (n) => `1e${'0'.repeat(n)}1` },
  ],
});

// HAMi's CUDA_DEVICE_MEMORY_LIMIT values (HAMi-core's env parser: digits, 0x hex, 0 octal, a K/M/G suffix).
fuzzTarget({
  name: 'hamiFacts.parseHamiLimit',
  corpus: ['4096m', '4G', '0x100000M', '017', '1024', '0'],
  run: (input) => ({ limit: parseHamiLimit(input) }),
});

test('quantity: toMemoryQuantity(bytes) parses back to a whole number of bytes ≥ bytes, and the formatters print numbers', () => {
  fc.assert(
    fc.property(
      fc.oneof(fc.nat(), fc.double({ min: 0, max: 2 ** 62, noNaN: true }), fc.constantFrom(0, 1, 1023, 1024, 2 ** 53, 2 ** 60)),
      (bytes) => {
        const quantity = toMemoryQuantity(bytes);
        const back = parseQuantity(quantity);
        assert.ok(back.ok, `${quantity} parses`);
        assert.ok(back.quantity.value >= bytes && back.quantity.isInteger, `${bytes} → ${quantity} → ${back.quantity.value}`);
        assert.deepEqual(
          [...renderViolations('formatBytes', formatBytes(bytes)), ...renderViolations('describeBytes', describeBytes(bytes))],
          [],
        );
      },
    ),
    { seed: SEED, numRuns: RUNS * 10 },
  );
});
