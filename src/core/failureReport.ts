// How a failure is told to the user, the same in the extension and the CLI: an expected failure of the
// environment (RBAC, an unreachable or refusing server, a deadline, a missing file) is one sentence of cause,
// from the Kubernetes classifier (kube/kubeFailure.ts) or the transport's own failure; anything else is a bug
// in gpumem, said as such without its engine text (a TypeError's message means nothing to a user), and the
// whole error with its stack goes to the log (errorDetails).
import { classifyKubeError, describeKubeFailure } from './kube/kubeFailure.ts';
import { TransportError } from './probe/transport.ts';
import { errorMessage } from './errorMessage.ts';

export type ExpectedCause =
  'forbidden' | 'credentials' | 'unreachable' | 'timeout' | 'not-found' | 'configuration' | 'file' | 'server' | 'input';

/**
 * An error whose message is written for the user (a destination that is not one, a file that could not be read, a
 * panel without its capture): an expected failure, said as it is.
 */
export class ExplainedError extends Error {
  readonly failureCause: ExpectedCause;

  constructor(message: string, failureCause: ExpectedCause = 'input', options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = 'ExplainedError';
    this.failureCause = failureCause;
  }
}

export type FailureClass =
  | { readonly kind: 'expected'; readonly cause: ExpectedCause; readonly text: string }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'internal' };

/** Node's file-system errors carry the failing syscall and the path. */
const FILE_CODES = new Set(['ENOENT', 'EACCES', 'EPERM', 'EISDIR', 'ENOTDIR', 'EEXIST', 'ENOSPC', 'EROFS', 'EMFILE', 'ENAMETOOLONG']);

function fileError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const r = error as Record<string, unknown>;
  return typeof r['code'] === 'string' && FILE_CODES.has(r['code']) && typeof r['path'] === 'string';
}

function transportCause(error: TransportError): ExpectedCause | 'cancelled' {
  switch (error.failure.kind) {
    case 'cancelled':
      return 'cancelled';
    case 'timeout':
      return 'timeout';
    case 'forbidden':
      return 'forbidden';
    case 'auth':
    case 'host-key-unknown':
    case 'host-key-changed':
      return 'credentials';
    case 'connect':
    case 'disconnected':
    case 'spawn':
      return 'unreachable';
  }
}

/** Expected (with its cause), cancelled, or internal. Never throws. */
export function classifyFailure(error: unknown): FailureClass {
  if (error instanceof TransportError) {
    const cause = transportCause(error);
    return cause === 'cancelled' ? { kind: 'cancelled' } : { kind: 'expected', cause, text: error.message };
  }
  if (error instanceof ExplainedError) return { kind: 'expected', cause: error.failureCause, text: error.message };
  if (fileError(error)) return { kind: 'expected', cause: 'file', text: errorMessage(error) };
  const failure = classifyKubeError(error);
  const text = describeKubeFailure(failure);
  switch (failure.kind) {
    case 'cancelled':
      return { kind: 'cancelled' };
    case 'forbidden':
      return { kind: 'expected', cause: 'forbidden', text };
    case 'unauthorized':
    case 'credentials':
    case 'tls':
      return { kind: 'expected', cause: 'credentials', text };
    case 'network':
      return { kind: 'expected', cause: 'unreachable', text };
    case 'timeout':
      return { kind: 'expected', cause: 'timeout', text };
    case 'not-found':
    case 'gone':
      return { kind: 'expected', cause: 'not-found', text };
    case 'config':
      return { kind: 'expected', cause: 'configuration', text };
    case 'http':
      return { kind: 'expected', cause: 'server', text };
    case 'unknown':
      return { kind: 'internal' };
  }
}

/** What the user reads: one sentence saying what failed and why, or that it is a bug to report. */
export type FailureReport =
  | { readonly kind: 'expected'; readonly cause: ExpectedCause; readonly sentence: string }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'internal'; readonly sentence: string };

function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/**
 * `action` says what was attempted ("Inspect node gpu-1"). `explanation` is the caller's whole sentence for an
 * expected failure (e.g. errorText: the RBAC advice with the context and namespace, after the action); it is not
 * used for an internal one, whose text would be the engine's.
 */
export function reportFailure(action: string, error: unknown, explanation?: string): FailureReport {
  const failure = classifyFailure(error);
  if (failure.kind === 'cancelled') return failure;
  if (failure.kind === 'internal')
    return {
      kind: 'internal',
      sentence: `${action} failed because of an internal error in gpumem. Please report it with the log (Show Log).`,
    };
  return { kind: 'expected', cause: failure.cause, sentence: sentence(explanation ?? `${action} failed: ${failure.text}`) };
}

/** The report's sentence, or "<action> was cancelled." (for a panel that shows why its request did not complete). */
export function reportSentence(report: FailureReport, action: string): string {
  return report.kind === 'cancelled' ? `${action} was cancelled.` : report.sentence;
}

/** The whole error for the log: its stack (or text), then each cause's, a few deep. */
export function errorDetails(error: unknown): string {
  const lines: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    const text = current instanceof Error ? (current.stack ?? `${current.name}: ${current.message}`) : String(current);
    lines.push(depth === 0 ? text : `caused by: ${text}`);
    current = current instanceof Error ? current.cause : undefined;
  }
  return lines.join('\n');
}
