// Polls `probe` until it gives a value: the integration tests' wait for a process, a scrape or a count to arrive.
// A probe that throws is retried; the last error is in the timeout's message. A wait raced against something else (a
// process that exits) takes a signal: once aborted it stops polling, so it cannot keep the test file alive until its
// timeout.
export async function waitFor<V>(
  what: string,
  probe: () => Promise<V | undefined> | V | undefined,
  options: { readonly timeoutMs?: number; readonly pollMs?: number; readonly signal?: AbortSignal } = {},
): Promise<V> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let last: unknown;
  while (Date.now() < deadline) {
    if (options.signal?.aborted) throw new Error(`stopped waiting for ${what}`);
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}
