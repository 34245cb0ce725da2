// A failure inside one rule or one file becomes one finding, and the run goes on: a bug in gpumem (or an
// input no rule foresaw) must never cost the user every other finding of the file or of the run.
import type { Finding, ObjectRef, Span } from './findings.ts';
import { errorMessage } from './errorMessage.ts';

/** What failed: one rule on one pod template, or the analysis of one whole file. */
export type FailedUnit =
  | { readonly kind: 'rule'; readonly ruleId: string; readonly object: ObjectRef }
  | { readonly kind: 'workload'; readonly object: ObjectRef }
  | { readonly kind: 'file'; readonly file: string };

export const INTERNAL_ERROR_RULE = 'internal-error';

const MAX_DETAIL = 200;

/**
 * The engine's own limits, in words for the user: V8's "Maximum call stack size exceeded" (recursion on deeply
 * nested input) and "Invalid string length" / "Invalid array length" (a string or array past the engine's
 * maximum) say nothing about the input that caused them, so they are never shown as they are.
 */
export function engineLimitReason(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  if (message.startsWith('Maximum call stack size exceeded')) return 'the input is nested too deeply to process';
  if (
    message.startsWith('Invalid string length') ||
    message.startsWith('Invalid array length') ||
    message.startsWith('Array buffer allocation failed')
  )
    return 'the input is too large to hold in memory';
  return undefined;
}

/** The error's first line, bounded: it may quote input, and a finding message must stay short. */
export function describeInternalError(error: unknown): string {
  const limit = engineLimitReason(error);
  if (limit !== undefined) return limit;
  const name = error instanceof Error ? error.name : typeof error;
  const message = errorMessage(error);
  const newline = message.indexOf('\n');
  const first = newline < 0 ? message : message.slice(0, newline);
  const detail = first.length > MAX_DETAIL ? `${first.slice(0, MAX_DETAIL)}…` : first;
  return `${name}: ${detail}`;
}

function describeObject(object: ObjectRef): string {
  const name = object.name ?? '?';
  return `${object.kind.slice(0, 80)} "${name.length > 80 ? `${name.slice(0, 80)}…` : name}"`;
}

export function internalErrorFinding(unit: FailedUnit, error: unknown, span: Span = { start: 0, end: 0 }): Finding {
  const detail = describeInternalError(error);
  let message: string;
  if (unit.kind === 'rule') {
    message = `gpumem's rule ${unit.ruleId} failed on ${describeObject(unit.object)} (${detail}); the other rules still ran. Please report this with the manifest.`;
  } else if (unit.kind === 'workload') {
    message = `gpumem could not analyse ${describeObject(unit.object)} (${detail}); the rest of the file was still checked. Please report this with the manifest.`;
  } else {
    message = `gpumem could not analyse ${unit.file} (${detail}); the other files were still checked. Please report this with the file.`;
  }
  return {
    ruleId: INTERNAL_ERROR_RULE,
    severity: 'warning',
    span,
    message,
    ...(unit.kind === 'file' ? {} : { object: unit.object }),
    fixes: [],
  };
}
