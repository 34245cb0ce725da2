// What live mode adds to one linted manifest, as data the editor shows as it is: the live findings (judgeLive), one
// live CodeLens per matched container on its `resources:` line (under the container's static CodeLens), a hover on
// that block with the container's pods, and, before a cluster was ever chosen, the offer "Compare with a cluster…"
// above each workload. Pure; src/vscode/live/ builds VS Code objects from it.
import type { ContainerSummary } from '../analysis/containerSummary.ts';
import type { Finding, Span } from '../findings.ts';
import { judgeLive } from './liveFindings.ts';
import { liveHoverMarkdown, liveLensTooltip } from './liveHover.ts';
import { fixComment, liveAnchor, OFFER_TITLE, OFFER_TOOLTIP } from './livePresentation.ts';
import type { LiveSnapshot } from './liveSnapshot.ts';
import { liveKey } from './liveSnapshot.ts';

export interface ModelLens {
  readonly offset: number;
  readonly title: string;
  readonly tooltip?: string;
  readonly command?: { readonly id: string; readonly arguments: readonly unknown[] };
}

export interface ModelHover {
  readonly span: Span;
  readonly markdown: string;
  readonly enabledCommands: readonly string[];
}

export interface LiveLayerModel {
  readonly findings: readonly Finding[];
  readonly lenses: readonly ModelLens[];
  readonly hovers: readonly ModelHover[];
}

/** What the layer shows: live data of a context, the offer (no context ever chosen), or nothing (off, failed). */
export type LiveLayerInput =
  | { readonly kind: 'none' }
  | { readonly kind: 'offer'; readonly command: string }
  | {
      readonly kind: 'snapshot';
      readonly snapshot: LiveSnapshot;
      readonly headroomPercent: number;
      readonly staleAfterMs: number;
      readonly commentOnFix: boolean;
      /** The command a pod link in the hover runs, with { context, namespace, name }. */
      readonly inspectPodCommand: string;
    };

const NOTHING: LiveLayerModel = { findings: [], lenses: [], hovers: [] };

export function liveLayerModel(text: string, summaries: readonly ContainerSummary[], input: LiveLayerInput, nowMs: number): LiveLayerModel {
  if (input.kind === 'none' || summaries.length === 0) return NOTHING;
  if (input.kind === 'offer') return offerModel(summaries, input.command);
  const { snapshot } = input;
  const judgement = judgeLive(summaries, snapshot, {
    headroomPercent: input.headroomPercent,
    nowMs,
    text,
    staleAfterMs: input.staleAfterMs,
    ...(input.commentOnFix ? { fixComment: fixComment(snapshot.context, snapshot.source, snapshot.window, snapshot.fetchedAtMs) } : {}),
  });
  const lenses: ModelLens[] = [];
  const hovers: ModelHover[] = [];
  for (const lens of judgement.lenses) {
    const summary = summaries.find((one) => one.span === lens.span && one.container === lens.container);
    if (!summary) continue;
    const workload = snapshot.workloads.get(
      liveKey(summary.object.kind, summary.object.namespace ?? snapshot.defaultNamespace, summary.object.name ?? ''),
    );
    const anchor = liveAnchor(text, lens.span.start);
    const view = {
      snapshot,
      workload,
      container: lens.container,
      nowMs,
      staleAfterMs: input.staleAfterMs,
      inspectPodCommand: input.inspectPodCommand,
    };
    lenses.push({ offset: anchor.lensOffset, title: `$(pulse) ${lens.title}`, tooltip: liveLensTooltip(view) });
    hovers.push({
      span: anchor.resources ?? { start: anchor.lensOffset, end: lineEndOf(text, anchor.lensOffset) },
      markdown: liveHoverMarkdown(view),
      enabledCommands: [input.inspectPodCommand],
    });
  }
  return { findings: judgement.findings, lenses, hovers };
}

/** One offer per workload (above its first container): it opens the context pick. */
function offerModel(summaries: readonly ContainerSummary[], command: string): LiveLayerModel {
  const seen = new Set<ContainerSummary['object']>();
  const lenses: ModelLens[] = [];
  for (const summary of summaries) {
    if (seen.has(summary.object) || !summary.object.name) continue;
    seen.add(summary.object);
    lenses.push({ offset: summary.span.start, title: OFFER_TITLE, tooltip: OFFER_TOOLTIP, command: { id: command, arguments: [] } });
  }
  return { findings: [], lenses, hovers: [] };
}

function lineEndOf(text: string, offset: number): number {
  const newline = text.indexOf('\n', offset);
  return newline < 0 ? text.length : newline;
}
