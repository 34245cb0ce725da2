// Small assertions the integration tests share: wait for a condition, and expect a transport failure.
import assert from 'node:assert/strict';
import { TransportError } from '../../src/core/probe/transport.ts';
import type { TransportFailure } from '../../src/core/probe/transport.ts';

/** Polls `probe` every 25 ms until it returns a value (not undefined or false); fails after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) assert.fail(`watchdog: ${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The failure a transport run ends with; fails the test when it succeeds or throws something else. */
export async function transportFailure(promise: Promise<unknown>, unexpected = 'the run succeeded'): Promise<TransportFailure> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TransportError) return error.failure;
    throw error;
  }
  return assert.fail(unexpected);
}
