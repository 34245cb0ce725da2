// Polls `probe` until it gives a value: the integration tests' wait for a process, a scrape or a count to arrive.
// A probe that throws is retried; the last error is in the timeout's message.
export async function waitFor<V>(
  what: string,
  probe: () => Promise<V | undefined> | V | undefined,
  options: { readonly timeoutMs?: number; readonly pollMs?: number } = {},
): Promise<V> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let last: unknown;
  while (Date.now() < deadline) {
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
