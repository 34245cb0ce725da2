// The fleet's one worker pool: never more than the cap in work (counted while it runs), every item once, the
// hand-out stopped by cancellation and by a failing item (the items in work still finish), and sizes that are not
// whole numbers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forEachBounded, poolSize } from '../../src/core/boundedPool.ts';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('at most `concurrency` in work at once, every item exactly once, and the cap reached', async () => {
  for (const concurrency of [1, 3, 8]) {
    let running = 0;
    let peak = 0;
    const seen: number[] = [];
    const items = Array.from({ length: 25 }, (_, i) => i);
    const end = await forEachBounded(items, concurrency, async (item, index) => {
      assert.equal(item, index);
      running++;
      peak = Math.max(peak, running);
      await tick(item % 3);
      seen.push(item);
      running--;
    });
    assert.deepEqual(end, { kind: 'completed' });
    assert.equal(peak, concurrency, `cap ${concurrency}`);
    assert.deepEqual(
      [...seen].sort((a, b) => a - b),
      items,
    );
  }
});

test('no items: completed at once, no worker started', async () => {
  let calls = 0;
  assert.deepEqual(
    await forEachBounded([], 4, async () => {
      calls++;
    }),
    { kind: 'completed' },
  );
  assert.equal(calls, 0);
});

test('cancellation stops the hand-out; the items in work finish first', async () => {
  const controller = new AbortController();
  const finished: number[] = [];
  let running = 0;
  const end = await forEachBounded(
    Array.from({ length: 20 }, (_, i) => i),
    4,
    async (item) => {
      running++;
      if (item === 5) controller.abort();
      await tick(5);
      finished.push(item);
      running--;
    },
    { signal: controller.signal },
  );
  assert.equal(end.kind, 'cancelled');
  assert.equal(running, 0, 'nothing still in work when the pool returns');
  // Items 0..5 were handed out before the abort, and at most 3 more were in work beside item 5.
  assert.ok(end.kind === 'cancelled' && end.started >= 6 && end.started <= 9, JSON.stringify(end));
  assert.equal(finished.length, end.kind === 'cancelled' ? end.started : -1);
});

test('an already-cancelled signal starts nothing', async () => {
  let calls = 0;
  const end = await forEachBounded(
    [1, 2, 3],
    2,
    async () => {
      calls++;
    },
    { signal: AbortSignal.abort() },
  );
  assert.deepEqual(end, { kind: 'cancelled', started: 0 });
  assert.equal(calls, 0);
});

test('a failing item: the first error is thrown after the items in work settle, and nothing new starts', async () => {
  const started: number[] = [];
  let running = 0;
  await assert.rejects(
    forEachBounded(
      Array.from({ length: 30 }, (_, i) => i),
      3,
      async (item) => {
        started.push(item);
        running++;
        try {
          await tick(item === 4 ? 1 : 10);
          if (item === 4) throw new Error('item 4 failed');
          if (item === 5) throw new Error('item 5 failed later');
        } finally {
          running--;
        }
      },
    ),
    /item 4 failed/,
  );
  assert.equal(running, 0);
  assert.ok(started.length <= 7, `hand-out stopped after the failure: ${started.join(',')}`);
});

test('pool sizes: whole numbers of at least 1, never more than the items', () => {
  assert.equal(poolSize(8, 3), 3);
  assert.equal(poolSize(2.9, 10), 2);
  assert.equal(poolSize(0, 10), 1);
  assert.equal(poolSize(-4, 10), 1);
  assert.equal(poolSize(Number.NaN, 10), 1);
  assert.equal(poolSize(Infinity, 10), 1);
  assert.equal(poolSize(4, 0), 0);
});
