// A pause that an abort ends at once (resolving, never rejecting): the back-off of watches, list+watch caches and the
// debug pod's start, where a cancelled wait must not hold a loop for its whole delay.
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
