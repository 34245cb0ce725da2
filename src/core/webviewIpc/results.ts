// The results the panels' requests share: something put on the clipboard, a file written through the save dialog
// (or the dialog cancelled), each with the webview's check of the host's answer.
import { isRecord } from './protocol.ts';

/** Something was put on the clipboard. */
export interface CopiedResult {
  readonly kind: 'copied';
}

/** A file was written (`path`: the file system path, or the URI when it is not a file), or the save dialog was cancelled. */
export type SavedResult = { readonly kind: 'saved'; readonly path: string } | { readonly kind: 'cancelled' };

const MAX_PATH = 4096;

export function parseCopied(value: unknown): CopiedResult | undefined {
  return isRecord(value) && value.kind === 'copied' ? { kind: 'copied' } : undefined;
}

export function parseSaved(value: unknown): SavedResult | undefined {
  if (!isRecord(value)) return undefined;
  if (value.kind === 'saved' && typeof value.path === 'string' && value.path !== '' && value.path.length <= MAX_PATH)
    return { kind: 'saved', path: value.path };
  return value.kind === 'cancelled' ? { kind: 'cancelled' } : undefined;
}
