// The over-quota test's verdict, from what the exec gave back (issue #11):
// - CUDA_ERROR_OUT_OF_MEMORY (2) from cuMemAlloc_v2 → enforcement proven, for allocation;
// - success → bypass proven (the program freed the memory at once);
// - any other CUDA error, a timeout, a dropped connection or an unreadable result → inconclusive, with why;
// - no python3, no ctypes, no libcuda.so.1, a missing symbol, an exec the cluster refused → the test cannot run here.
import type { ExecResult, TransportFailure } from '../probe/transport.ts';
import { describeFailure } from '../probe/transport.ts';
import { cuResultName } from './cudaErrors.ts';
import type { HamiTestEvidence, HamiTestStep, HamiTestSymbol } from './result.ts';
import { parseHamiTestOutput } from './result.ts';

export type HamiTestInconclusive =
  | { readonly kind: 'cuda-error'; readonly step: HamiTestStep; readonly code: number; readonly name: string }
  | { readonly kind: 'timeout'; readonly ms: number }
  | { readonly kind: 'self-deadline' }
  | { readonly kind: 'no-result'; readonly exitCode: number | null; readonly stderr: string }
  | { readonly kind: 'malformed'; readonly detail: string }
  | { readonly kind: 'disconnected'; readonly detail: string };

export type HamiTestCannotRun =
  | { readonly kind: 'no-python3'; readonly detail: string }
  /** python3 without its ctypes module (Debian's python3-minimal, a trimmed image). */
  | { readonly kind: 'no-ctypes' }
  | { readonly kind: 'no-libcuda' }
  | { readonly kind: 'no-symbol'; readonly symbol: HamiTestSymbol }
  | { readonly kind: 'exec-failed'; readonly detail: string };

export type HamiTestVerdict =
  | { readonly kind: 'enforced'; readonly attemptBytes: number; readonly evidence: HamiTestEvidence }
  | {
      readonly kind: 'bypassed';
      readonly attemptBytes: number;
      /** cuMemFree_v2's result: 0, or the error it returned (process exit releases the memory anyway). */
      readonly freeCode: number | undefined;
      readonly evidence: HamiTestEvidence;
    }
  | { readonly kind: 'inconclusive'; readonly reason: HamiTestInconclusive; readonly evidence: HamiTestEvidence | undefined }
  | { readonly kind: 'cannot-run'; readonly reason: HamiTestCannotRun };

/** What the runner hands over: the finished exec, or the transport's failure (a cancel never reaches here). */
export type HamiTestExec =
  { readonly kind: 'exec'; readonly result: ExecResult } | { readonly kind: 'failure'; readonly failure: TransportFailure };

const STDERR_KEPT = 2000;
/** 128 + SIGALRM (14): the program's own deadline ended it (a shell or the simulator report it this way). */
const SELF_DEADLINE_STATUS = 142;

export function hamiTestVerdict(exec: HamiTestExec, attemptBytes: number): HamiTestVerdict {
  if (exec.kind === 'failure') return verdictOfFailure(exec.failure);
  const { result } = exec;
  const output = parseHamiTestOutput(result.stdout);
  const inconclusive = (reason: HamiTestInconclusive, evidence?: HamiTestEvidence): HamiTestVerdict => ({
    kind: 'inconclusive',
    reason,
    evidence,
  });
  if (result.truncated) return inconclusive({ kind: 'malformed', detail: 'the output passed its size limit' });
  switch (output.kind) {
    case 'unsupported-version':
      return inconclusive({ kind: 'malformed', detail: `a result line of version "${output.version}", not v1` });
    case 'malformed':
      return inconclusive({ kind: 'malformed', detail: output.reason });
    case 'missing':
      return verdictWithoutResult(result);
    case 'result':
      break;
  }
  const line = output.line;
  switch (line.status) {
    case 'out-of-memory':
      return { kind: 'enforced', attemptBytes: line.bytes ?? attemptBytes, evidence: line.evidence };
    case 'allocated':
      return { kind: 'bypassed', attemptBytes: line.bytes ?? attemptBytes, freeCode: line.freed, evidence: line.evidence };
    case 'cuda-error':
      return inconclusive({ kind: 'cuda-error', step: line.step, code: line.code, name: cuResultName(line.code) }, line.evidence);
    case 'no-ctypes':
      return { kind: 'cannot-run', reason: { kind: 'no-ctypes' } };
    case 'no-libcuda':
      return { kind: 'cannot-run', reason: { kind: 'no-libcuda' } };
    case 'no-symbol':
      return { kind: 'cannot-run', reason: { kind: 'no-symbol', symbol: line.symbol } };
    case 'bad-args':
      return inconclusive({ kind: 'malformed', detail: 'the program refused its arguments' });
  }
}

function verdictOfFailure(failure: TransportFailure): HamiTestVerdict {
  switch (failure.kind) {
    case 'timeout':
      return { kind: 'inconclusive', reason: { kind: 'timeout', ms: failure.ms }, evidence: undefined };
    case 'disconnected':
      return { kind: 'inconclusive', reason: { kind: 'disconnected', detail: failure.detail }, evidence: undefined };
    case 'spawn':
      // The exec API's "executable file not found in $PATH" (the OCI runtime's words) names python3 itself.
      // The transports put the command first: its tail is the runtime's reason.
      return mentionsMissingPython(failure.detail)
        ? { kind: 'cannot-run', reason: { kind: 'no-python3', detail: failure.detail.slice(-STDERR_KEPT) } }
        : { kind: 'cannot-run', reason: { kind: 'exec-failed', detail: failure.detail.slice(-STDERR_KEPT) } };
    default:
      return { kind: 'cannot-run', reason: { kind: 'exec-failed', detail: describeFailure(failure) } };
  }
}

/** The program printed no result: python3 missing (exit 127 from chroot, env or a shell), its deadline, or a crash. */
function verdictWithoutResult(result: ExecResult): HamiTestVerdict {
  const stderr = result.stderr.slice(-STDERR_KEPT);
  if (result.exitCode === 127 || (result.exitCode !== 0 && mentionsMissingPython(stderr)))
    return { kind: 'cannot-run', reason: { kind: 'no-python3', detail: stderr.trim() || `exit status ${result.exitCode}` } };
  if (result.exitCode === SELF_DEADLINE_STATUS) return { kind: 'inconclusive', reason: { kind: 'self-deadline' }, evidence: undefined };
  return { kind: 'inconclusive', reason: { kind: 'no-result', exitCode: result.exitCode, stderr }, evidence: undefined };
}

function mentionsMissingPython(text: string): boolean {
  const head = text.slice(-STDERR_KEPT);
  return (
    head.includes('python3') && (head.includes('not found') || head.includes('No such file') || head.includes('executable file not found'))
  );
}
