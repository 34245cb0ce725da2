// The keyboard navigation the inspector's charts and the fleet's node table share (src/core/listNavigation.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { listKeyTarget } from '../../src/core/listNavigation.ts';

test('listKeyTarget: arrows step, pages jump, Home and End go to the ends, and the index stays in the list', () => {
  assert.equal(listKeyTarget('ArrowDown', 3, 10), 4);
  assert.equal(listKeyTarget('ArrowDown', 9, 10), 9);
  assert.equal(listKeyTarget('ArrowUp', 0, 10), 0);
  assert.equal(listKeyTarget('PageDown', 2, 10, { page: 5 }), 7);
  assert.equal(listKeyTarget('PageDown', 8, 10, { page: 5 }), 9);
  assert.equal(listKeyTarget('PageUp', 3, 10, { page: 5 }), 0);
  assert.equal(listKeyTarget('PageDown', 2, 10), undefined, 'no page size: not a navigation key');
  assert.equal(listKeyTarget('Home', 7, 10), 0);
  assert.equal(listKeyTarget('End', 0, 10), 9);
  assert.equal(listKeyTarget('ArrowRight', 3, 10), undefined);
  assert.equal(listKeyTarget('ArrowRight', 3, 10, { horizontal: true }), 4);
  assert.equal(listKeyTarget('ArrowLeft', 3, 10, { horizontal: true }), 2);
  assert.equal(listKeyTarget('Enter', 3, 10), undefined);
  // From nothing highlighted (-1), the first key lands on the list.
  assert.equal(listKeyTarget('ArrowDown', -1, 10), 0);
  assert.equal(listKeyTarget('ArrowUp', -1, 10), 0);
});

test('listKeyTarget: any key from any row of a non-empty list lands on a row', () => {
  const keys = fc.constantFrom('ArrowDown', 'ArrowUp', 'ArrowLeft', 'ArrowRight', 'PageDown', 'PageUp', 'Home', 'End', 'a');
  fc.assert(
    fc.property(
      keys,
      fc.integer({ min: 1, max: 500 }),
      fc.nat(),
      fc.integer({ min: 1, max: 100 }),
      fc.boolean(),
      (key, count, at, page, horizontal) => {
        const next = listKeyTarget(key, at % count, count, { page, horizontal });
        if (next !== undefined)
          assert.ok(Number.isInteger(next) && next >= 0 && next < count, `${key} from ${at % count} of ${count}: ${next}`);
      },
    ),
    { seed: 1204, numRuns: 2_000 },
  );
});
