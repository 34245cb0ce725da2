// The export names the inspector and the fleet panels offer in their save dialogs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { exportFileStem } from '../../src/core/text/exportFileStem.ts';

const AT = new Date(Date.UTC(2026, 11, 4, 21, 5, 9, 123));

test('exportFileStem: the label made safe, then the UTC time to the second', () => {
  assert.equal(exportFileStem('gpumem-fleet-', 'kind-gpu', 'cluster', AT), 'gpumem-fleet-kind-gpu-20261204-210509');
  assert.equal(exportFileStem('gpumem-', 'pod ml/vllm-0 (ctx: a@b)', 'inspection', AT), 'gpumem-pod-ml-vllm-0-ctx-a-b-20261204-210509');
  assert.equal(exportFileStem('gpumem-', '../../etc/passwd', 'inspection', AT), 'gpumem-..-..-etc-passwd-20261204-210509');
  assert.equal(exportFileStem('gpumem-', '☃ / ☃', 'inspection', AT), 'gpumem-inspection-20261204-210509');
  assert.equal(exportFileStem('gpumem-', 'x'.repeat(500), 'inspection', AT), `gpumem-${'x'.repeat(60)}-20261204-210509`);
});

test('exportFileStem: any label gives a name of safe characters, no slash, bounded', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 300, unit: 'binary' }), (label) => {
      const stem = exportFileStem('gpumem-', label, 'inspection', AT);
      assert.match(stem, /^gpumem-[A-Za-z0-9._-]{1,60}-20261204-210509$/);
    }),
    { seed: 1204, numRuns: 2_000 },
  );
});
