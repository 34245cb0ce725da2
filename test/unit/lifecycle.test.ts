// The activate/deactivate pair of src/extension.ts: deactivate awaits the shutdown the activation handed back
// (VS Code awaits deactivate's promise, not the disposal of context.subscriptions), runs it once, and is a no-op
// before activation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extensionLifecycle } from '../../src/vscode/lifecycle.ts';

test('deactivate resolves only after the shutdown the activation returned has finished', async () => {
  const log: string[] = [];
  let finish: () => void = () => undefined;
  const lifecycle = extensionLifecycle((context: string) => {
    log.push(`activate ${context}`);
    return () =>
      new Promise<void>((resolve) => {
        log.push('shutdown started');
        finish = () => {
          log.push('shutdown finished');
          resolve();
        };
      });
  });
  lifecycle.activate('window');
  const deactivated = lifecycle.deactivate().then(() => log.push('deactivated'));
  await Promise.resolve();
  assert.deepEqual(log, ['activate window', 'shutdown started']);
  finish();
  await deactivated;
  assert.deepEqual(log, ['activate window', 'shutdown started', 'shutdown finished', 'deactivated']);
});

test('deactivate before activate, or twice, runs no shutdown', async () => {
  let shutdowns = 0;
  const lifecycle = extensionLifecycle(() => async () => {
    shutdowns++;
  });
  await lifecycle.deactivate();
  assert.equal(shutdowns, 0);
  lifecycle.activate({});
  await lifecycle.deactivate();
  await lifecycle.deactivate();
  assert.equal(shutdowns, 1);
});

test('a second activation (an extension host restart in tests) shuts down only the latest window', async () => {
  const ended: string[] = [];
  const lifecycle = extensionLifecycle((name: string) => async () => {
    ended.push(name);
  });
  lifecycle.activate('first');
  await lifecycle.deactivate();
  lifecycle.activate('second');
  await lifecycle.deactivate();
  assert.deepEqual(ended, ['first', 'second']);
});
