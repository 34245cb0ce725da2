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

/** Where a probe is exec'd through kubectl: the words of its command line. */
export interface KubectlExecWords {
  /** one kubeconfig file: --kubeconfig=<file> first */
  kubeconfig?: string;
  context: string;
  namespace: string;
  pod: string;
  /** none: no -c, kubectl picks the pod's default container */
  container?: string;
}

/**
 * The arguments kubectl gets for a probe in the kubectl exec mode, after the binary, written out once for the unit
 * and the integration tests: `[--kubeconfig=<file>] --context=<context> exec -i --quiet -n <ns> <pod> [-c <container>]
 * -- sh -s`. The script goes to stdin; --quiet keeps kubectl's "Defaulted container" notice out of stderr.
 */
export function kubectlExecArgs(words: KubectlExecWords): string[] {
  return [
    ...(words.kubeconfig === undefined ? [] : [`--kubeconfig=${words.kubeconfig}`]),
    `--context=${words.context}`,
    'exec',
    '-i',
    '--quiet',
    '-n',
    words.namespace,
    words.pod,
    ...(words.container === undefined ? [] : ['-c', words.container]),
    '--',
    'sh',
    '-s',
  ];
}
