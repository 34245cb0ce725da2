// One inspection = one connection and one exec: build the script, run it through a transport,
// keep whatever came back (a partial capture is still evidence).
import type { ProbeScope } from '../probe/capture.ts';
import { buildProbeScript, newNonce } from '../probe/script.ts';
import type { ExecResult, Transport } from '../probe/transport.ts';

export interface ProbeRun {
  readonly captureText: string;
  readonly exec: ExecResult;
  readonly script: string;
}

export interface RunProbeOptions {
  readonly scope: ProbeScope;
  readonly hostRoot?: string;
  /** Node scope: HAMi's host directory when its chart moved it (ProbeScriptOptions.hamiLibPath). */
  readonly hamiLibPath?: string;
  readonly timeoutMs?: number;
  readonly maxOutputBytes?: number;
  readonly signal?: AbortSignal;
  /**
   * The capture's text as it arrives (StreamingAnalysis.push); the run's captureText is then empty. A transport that
   * does not stream (it returned its stdout whole) has it handed over here in one piece.
   */
  readonly onOutput?: (text: string) => void;
}

export const DEFAULT_PROBE_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_CAPTURE_BYTES = 64 * 1024 * 1024;

export async function runProbe(transport: Transport, options: RunProbeOptions): Promise<ProbeRun> {
  const script = buildProbeScript({
    scope: options.scope,
    nonce: newNonce(),
    ...(options.hostRoot !== undefined ? { hostRoot: options.hostRoot } : {}),
    ...(options.hamiLibPath !== undefined ? { hamiLibPath: options.hamiLibPath } : {}),
  });
  const onOutput = options.onOutput;
  // The consumer runs inside the transport's data events: an exception there would escape the run, so it is kept and
  // thrown once the run has settled.
  let failure: { error: unknown } | undefined;
  const exec = await transport.run({
    script,
    timeoutMs: options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
    maxOutputBytes: options.maxOutputBytes ?? DEFAULT_MAX_CAPTURE_BYTES,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(onOutput
      ? {
          onStdout: (text: string) => {
            if (failure) return;
            try {
              onOutput(text);
            } catch (error) {
              failure = { error };
            }
          },
        }
      : {}),
  });
  if (onOutput && exec.stdout !== '' && !failure) onOutput(exec.stdout);
  if (failure) throw failure.error;
  return { captureText: onOutput ? '' : exec.stdout, exec: onOutput ? { ...exec, stdout: '' } : exec, script };
}
