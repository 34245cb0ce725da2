// How the editor shows live mode, as plain data: the status-bar item of each state, where a container's live
// CodeLens sits (on its `resources:` line, under the static CodeLens of the container), the offer shown before a
// cluster was ever chosen, and the comment the quick fix may write. Pure; src/vscode/live/ turns it into VS Code
// objects.
import type { Span } from '../findings.ts';
import { ageText } from './liveSnapshot.ts';

/** Live mode in a workspace: off, or a context and what its last read gave. */
export type LiveModeState =
  | { readonly kind: 'off' }
  /** A context is chosen, but the workspace is not trusted: nothing is read. */
  | { readonly kind: 'untrusted'; readonly context: string }
  | { readonly kind: 'reading'; readonly context: string }
  | { readonly kind: 'ready'; readonly context: string; readonly fetchedAtMs: number; readonly workloads: number; readonly source: string }
  | { readonly kind: 'failed'; readonly context: string; readonly reason: string };

export interface StatusView {
  readonly text: string;
  readonly tooltip: string;
  /** The item's background: a warning when the last read failed. */
  readonly tone: 'normal' | 'warning';
}

export function liveStatus(state: LiveModeState, nowMs: number, staleAfterMs: number): StatusView {
  const choose = 'Click to choose the cluster context this workspace is compared with, or Off.';
  switch (state.kind) {
    case 'off':
      return {
        text: '$(circle-slash) gpumem: live off',
        tooltip: `gpumem live mode is off: manifests are linted alone. ${choose}`,
        tone: 'normal',
      };
    case 'untrusted':
      return {
        text: `$(shield) gpumem: live · ${state.context}`,
        tooltip: `gpumem reads ${state.context} only in a trusted workspace (Restricted Mode is on). ${choose}`,
        tone: 'warning',
      };
    case 'reading':
      return {
        text: `$(sync~spin) gpumem: live · ${state.context}`,
        tooltip: `Reading the workloads of ${state.context}… ${choose}`,
        tone: 'normal',
      };
    case 'ready': {
      const age = nowMs - state.fetchedAtMs;
      const stale = age > staleAfterMs;
      return {
        text: `${stale ? '$(history)' : '$(pulse)'} gpumem: live · ${state.context}${stale ? ' (stale)' : ''}`,
        tooltip: `${state.workloads} workload${state.workloads === 1 ? '' : 's'} of ${state.context}, from ${state.source}, read ${ageText(age)} ago${stale ? ' (stale: the next read is overdue)' : ''}. ${choose}`,
        tone: stale ? 'warning' : 'normal',
      };
    }
    case 'failed':
      return {
        text: `$(warning) gpumem: live · ${state.context}`,
        tooltip: `Reading ${state.context} failed, so no live findings are shown: ${state.reason}. ${choose}`,
        tone: 'warning',
      };
  }
}

export const OFFER_TITLE = '$(plug) Compare with a cluster…';
export const OFFER_TOOLTIP =
  'gpumem can show, beside this manifest, what its workloads really used in a cluster: peak true footprint, OOM kills and where the cluster differs from the file. Read-only.';

/** Where a container's live CodeLens and hover sit in the text. */
export interface LiveAnchor {
  /** The offset the live CodeLens is shown above: the container's `resources:` key, else its second line. */
  readonly lensOffset: number;
  /** The container's `resources:` block (key to the block's last line), when it has one: its hover shows the pods. */
  readonly resources: Span | undefined;
}

/**
 * The anchor of the container whose YAML node starts at `containerStart` (the first key after `- `). A linear scan of
 * the container's lines: they are those indented at least as deep as its first key.
 */
export function liveAnchor(text: string, containerStart: number): LiveAnchor {
  const column = containerStart - (text.lastIndexOf('\n', containerStart - 1) + 1);
  let lineStartAt = text.indexOf('\n', containerStart) + 1;
  let secondLine: number | undefined;
  let resources: { start: number; end: number } | undefined;
  while (lineStartAt > 0 && lineStartAt < text.length) {
    const nextNewline = text.indexOf('\n', lineStartAt);
    const lineEnd = nextNewline < 0 ? text.length : nextNewline;
    let first = lineStartAt;
    while (first < lineEnd && (text[first] === ' ' || text[first] === '\t')) first++;
    const blank = first >= lineEnd || text[first] === '#' || text[first] === '\r';
    if (!blank) {
      const indent = first - lineStartAt;
      if (indent < column || (indent === column && text[first] === '-')) break;
      secondLine ??= first;
      if (resources && indent <= column) break;
      if (indent === column && text.startsWith('resources:', first)) resources = { start: first, end: lineEnd };
      else if (resources) resources.end = lineEnd;
    }
    if (nextNewline < 0) break;
    lineStartAt = nextNewline + 1;
  }
  return { lensOffset: resources?.start ?? secondLine ?? containerStart, resources };
}

/** The YAML comment the quick fix writes above its edit when gpumem.live.commentOnFix is on. */
export function fixComment(context: string, source: string, window: string, fetchedAtMs: number): string {
  const at = new Date(fetchedAtMs).toISOString().slice(0, 16).replace('T', ' ');
  return `gpumem: resources set from what the pods used in ${context} (${source}, ${window} to ${at} UTC)`;
}
