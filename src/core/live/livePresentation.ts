// How the editor shows live mode, as plain data: the status-bar item of each state, where a container's live
// CodeLens sits (on its `resources:` line, under the static CodeLens of the container), the offer shown before a
// cluster was ever chosen, and the comment the quick fix may write. Pure; src/vscode/live/ turns it into VS Code
// objects.
import type { ContainerSummary } from '../analysis/containerSummary.ts';
import type { Span } from '../findings.ts';
import { ageText } from './liveSnapshot.ts';
import type { LayerLens } from '../lintLayerResult.ts';

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

/** A CodeLens of the live layer: shown above the line of `offset`. */
export const OFFER_TITLE = '$(plug) Compare with a cluster…';
export const OFFER_TOOLTIP =
  'gpumem can show, beside this manifest, what its workloads really used in a cluster: peak true footprint, OOM kills and where the cluster differs from the file. Read-only.';

/** Before a cluster was ever chosen: one offer per named workload, above its first container, running `command`. */
export function offerLenses(summaries: readonly ContainerSummary[], command: string): LayerLens[] {
  const seen = new Set<ContainerSummary['object']>();
  const lenses: LayerLens[] = [];
  for (const summary of summaries) {
    if (seen.has(summary.object) || !summary.object.name) continue;
    seen.add(summary.object);
    lenses.push({ offset: summary.span.start, title: OFFER_TITLE, tooltip: OFFER_TOOLTIP, command: { id: command, arguments: [] } });
  }
  return lenses;
}

/** Where a container's live CodeLens and hover sit in the text. */
export interface LiveAnchor {
  /** The offset the live CodeLens is shown above: the container's `resources:` key, else its second line. */
  readonly lensOffset: number;
  /** The container's `resources:` block (key to the block's last line), when it has one: its hover shows the pods. */
  readonly resources: Span | undefined;
}

/** A line of the text: where it starts and ends, where its content starts, and whether it is blank or a comment. */
interface Line {
  readonly start: number;
  readonly end: number;
  readonly first: number;
  readonly blank: boolean;
}

function lineAt(text: string, offset: number): Line {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const newline = text.indexOf('\n', start);
  const end = newline < 0 ? text.length : newline;
  let first = start;
  while (first < end && (text[first] === ' ' || text[first] === '\t')) first++;
  return { start, end, first, blank: first >= end || text[first] === '#' || text[first] === '\r' };
}

/**
 * The anchor of the container whose `name` value is at `nameOffset`. Linear scans by indentation: the container's
 * keys sit at one column (after its `- `); its lines are those below its first one indented at least that deep.
 */
export function liveAnchor(text: string, nameOffset: number): LiveAnchor {
  const nameLine = lineAt(text, nameOffset);
  let itemLine = nameLine;
  let column: number;
  if (text[nameLine.first] === '-') {
    let after = nameLine.first + 1;
    while (text[after] === ' ' || text[after] === '\t') after++;
    column = after - nameLine.start;
  } else {
    column = nameLine.first - nameLine.start;
    // Up to the item's `- ` line: `name` need not be the container's first key.
    let above = nameLine.start;
    while (above > 0) {
      const line = lineAt(text, above - 1);
      above = line.start;
      if (line.blank) continue;
      if (line.first - line.start < column) {
        if (text[line.first] === '-') itemLine = line;
        break;
      }
    }
  }
  let secondLine: number | undefined;
  let resources: { start: number; end: number } | undefined;
  const keyAt = (at: number) => {
    if (text.startsWith('resources:', at)) resources = { start: at, end: lineAt(text, at).end };
  };
  // The item's own line holds a key after its `- ` (`- resources:` when it comes first).
  if (text[itemLine.first] === '-') keyAt(itemLine.start + column);
  let next = itemLine.end + 1;
  while (next > 0 && next < text.length) {
    const line = lineAt(text, next);
    if (!line.blank) {
      const indent = line.first - line.start;
      if (indent < column || (indent === column && text[line.first] === '-')) break;
      secondLine ??= line.first;
      if (indent === column) {
        if (resources && resources.start !== line.first) break;
        keyAt(line.first);
      } else if (resources) resources.end = line.end;
    }
    next = line.end + 1;
  }
  return { lensOffset: resources?.start ?? secondLine ?? nameOffset, resources };
}

/** The YAML comment the quick fix writes above its edit when gpumem.live.commentOnFix is on. */
export function fixComment(context: string, source: string, window: string, fetchedAtMs: number): string {
  const at = new Date(fetchedAtMs).toISOString().slice(0, 16).replace('T', ' ');
  return `gpumem: resources set from what the pods used in ${context} (${source}, ${window} to ${at} UTC)`;
}
