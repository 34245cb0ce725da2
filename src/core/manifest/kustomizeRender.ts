// What `kubectl kustomize DIR` gave, told apart without running it: the CLI's `gpumem lint --kustomize DIR` and VS
// Code's "Lint Rendered Kustomize Overlay" both run it (src/transports/kustomizeRender.ts) and word the outcome
// for their user from this. Pure: the run's result or the transport's error in, a discriminated outcome out.
import { TransportError, describeFailure } from '../probe/transport.ts';
import type { ExecResult } from '../probe/transport.ts';

export const KUSTOMIZE_RENDER_TIMEOUT_MS = 120_000;

export type Rendered =
  | { readonly kind: 'rendered'; readonly text: string }
  /** kubectl could not be started; `detail` is the spawn error (`kubectl: not found (ENOENT)`). */
  | { readonly kind: 'no-kubectl'; readonly detail: string }
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'too-large' }
  | { readonly kind: 'cancelled' };

/** The outcome of a run that finished (or was cut short at the size bound). */
export function renderedOf(result: ExecResult): Rendered {
  if (result.truncated) return { kind: 'too-large' };
  if (result.exitCode !== 0)
    return {
      kind: 'failed',
      reason: result.stderr.trim() !== '' ? kustomizeCause(result.stderr) : `kubectl exited with status ${String(result.exitCode)}`,
    };
  return { kind: 'rendered', text: result.stdout };
}

/** The outcome of a run that threw: kubectl missing, the timeout, a cancel, or another transport failure. */
export function renderFailureOf(error: unknown): Rendered {
  if (!(error instanceof TransportError)) return { kind: 'failed', reason: String(error) };
  switch (error.failure.kind) {
    case 'spawn':
      return { kind: 'no-kubectl', detail: error.failure.detail };
    case 'timeout':
      return { kind: 'failed', reason: `kubectl kustomize did not finish within ${KUSTOMIZE_RENDER_TIMEOUT_MS / 1000} s` };
    case 'cancelled':
      return { kind: 'cancelled' };
    default:
      return { kind: 'failed', reason: describeFailure(error.failure) };
  }
}

/**
 * kubectl's error in a line: without its deprecation warnings and klog prefix; its last line is kustomize's cause. An
 * overlay that reads files outside its directory gets the way to render it anyway.
 */
export function kustomizeCause(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && line !== '>' && !line.startsWith('# Warning:'));
  const last = lines.length > 1 ? (lines[lines.length - 1] ?? '') : (lines[0] ?? '');
  // kustomize quotes the patch's config in backticks over many lines: the cause follows the closing one ("`: security; …").
  const cause = (last.startsWith('`: ') ? last.slice(3) : last).slice(0, 600);
  const restricted = stderr.includes('is not in or below');
  return `kubectl kustomize failed: ${cause}${
    restricted
      ? " (kustomize refuses files outside the overlay's directory by default; render it with kubectl kustomize --load-restrictor LoadRestrictionsNone DIR | gpumem lint -)"
      : ''
  }`;
}

/**
 * The first line of a rendered overlay shown as a document: what was rendered and when, as a YAML comment, so the
 * rendered objects keep their lines below it and the linter reads the document as it is. Line breaks in the
 * directory's name cannot end the comment.
 */
export function renderedHeader(directory: string, renderedAt: Date): string {
  const name = directory.replace(/[\r\n\u2028\u2029]/g, ' ');
  return `# gpumem: kubectl kustomize ${name}, rendered ${renderedAt.toISOString()} (read-only; edit the overlay's files and render again)\n`;
}
