// Runs the over-quota test on a transport built with hamiTestArgv(plan.attemptBytes) as its command: the
// program on stdin, one bounded exec, the verdict. A cancel is its own outcome, not a verdict.
import type { Transport } from '../probe/transport.ts';
import { TransportError } from '../probe/transport.ts';
import type { HamiTestPlan } from './plan.ts';
import { HAMI_TEST_MAX_OUTPUT_BYTES, HAMI_TEST_TIMEOUT_MS, hamiTestStdin } from './script.ts';
import type { HamiTestVerdict } from './verdict.ts';
import { hamiTestVerdict } from './verdict.ts';

export type HamiTestOutcome =
  { readonly kind: 'finished'; readonly verdict: HamiTestVerdict; readonly stderr: string } | { readonly kind: 'cancelled' };

export interface RunHamiTestOptions {
  readonly signal?: AbortSignal;
  /** Default HAMI_TEST_TIMEOUT_MS (30 s). */
  readonly timeoutMs?: number;
}

export async function runHamiTest(transport: Transport, plan: HamiTestPlan, options: RunHamiTestOptions = {}): Promise<HamiTestOutcome> {
  try {
    const result = await transport.run({
      script: hamiTestStdin(),
      timeoutMs: options.timeoutMs ?? HAMI_TEST_TIMEOUT_MS,
      maxOutputBytes: HAMI_TEST_MAX_OUTPUT_BYTES,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return {
      kind: 'finished',
      verdict: hamiTestVerdict({ kind: 'exec', result }, plan.attemptBytes),
      stderr: result.stderr.slice(0, 4000),
    };
  } catch (error) {
    if (!(error instanceof TransportError)) throw error;
    if (error.failure.kind === 'cancelled') return { kind: 'cancelled' };
    return { kind: 'finished', verdict: hamiTestVerdict({ kind: 'failure', failure: error.failure }, plan.attemptBytes), stderr: '' };
  }
}
