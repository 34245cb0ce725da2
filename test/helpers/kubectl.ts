// The real kubectl the kubectl exec mode is tested with (1.30 or later execs over WebSocket, which the API
// simulator speaks); tests that need it skip with KUBECTL_MISSING as the reason when there is none.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export const KUBECTL_MISSING =
  'needs the kubectl binary on PATH (1.30 or later: it execs over WebSocket, which the simulator speaks) to run it against the API simulator';

/** The first executable `kubectl` on PATH. */
export function kubectlOnPath(): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const file = join(dir, 'kubectl');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}
