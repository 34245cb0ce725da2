// What live mode adds to one linted manifest, as data the editor shows as it is: the live findings (judgeLive), one
// live CodeLens per matched container on its `resources:` line (under the container's static CodeLens), and a hover
// on that block with the container's pods. Pure; it runs in dist/remote.js (src/vscode/live/remoteLive.ts), loaded
// only once a context is chosen, and src/vscode/live/ builds VS Code objects from it.
import type { ContainerSummary } from '../analysis/containerSummary.ts';
import type { RuleSetting } from '../config.ts';
import { judgeLive } from './liveFindings.ts';
import { liveHoverMarkdown, liveLensTooltip } from './liveHover.ts';
import { fixComment, liveAnchor } from './livePresentation.ts';
import type { LiveSnapshot, LiveWorkload } from './liveSnapshot.ts';
import { liveKey } from './liveSnapshot.ts';
import type { LayerHover, LayerLens, LayerResult } from '../lintLayerResult.ts';

/** Live data of a context to judge a manifest against. */
export interface LiveLayerInput {
  readonly snapshot: LiveSnapshot;
  readonly headroomPercent: number;
  /** The per-rule settings of the static lint (gpumem.lint.rules): the live findings honour them too. */
  readonly rules: Readonly<Record<string, RuleSetting>>;
  readonly staleAfterMs: number;
  readonly commentOnFix: boolean;
  /** The command a pod link in the hover runs, with { livePod: { context, namespace, name } }. */
  readonly inspectPodCommand: string;
}

const NOTHING: LayerResult = { findings: [], lenses: [], hovers: [] };

export function liveLayerModel(text: string, summaries: readonly ContainerSummary[], input: LiveLayerInput, nowMs: number): LayerResult {
  if (summaries.length === 0) return NOTHING;
  const { snapshot } = input;
  const judged = asOwningWorkloads(summaries, snapshot);
  const judgement = judgeLive(judged, snapshot, {
    headroomPercent: input.headroomPercent,
    rules: input.rules,
    nowMs,
    text,
    staleAfterMs: input.staleAfterMs,
    ...(input.commentOnFix ? { fixComment: fixComment(snapshot.context, snapshot.source, snapshot.window, snapshot.fetchedAtMs) } : {}),
  });
  const lenses: LayerLens[] = [];
  const hovers: LayerHover[] = [];
  for (const lens of judgement.lenses) {
    const summary = judged.find((one) => one.span === lens.span && one.container === lens.container);
    if (!summary) continue;
    const workload = snapshot.workloads.get(
      liveKey(
        summary.object.kind,
        summary.object.namespace ?? snapshot.defaultNamespace,
        summary.object.name ?? '',
        summary.object.apiVersion,
      ),
    );
    const anchor = liveAnchor(text, lens.span.start);
    const view = {
      snapshot,
      workload,
      container: lens.container,
      ...(summary.role === undefined ? {} : { template: summary.role }),
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

/**
 * A pod's manifest (the live manifest the Clusters view opens) is judged as the workload that owns the pod: its
 * kind, namespace and name become the owner's, so it gets the owner's live lens, findings and pods.
 */
function asOwningWorkloads(summaries: readonly ContainerSummary[], snapshot: LiveSnapshot): readonly ContainerSummary[] {
  if (!summaries.some((summary) => summary.object.kind === 'Pod')) return summaries;
  const owners = new Map<string, LiveWorkload>();
  const templates = new Map<string, string>();
  for (const workload of snapshot.workloads.values())
    for (const pod of workload.podLines) {
      owners.set(`${workload.ref.namespace}/${pod.name}`, workload);
      if (pod.template !== undefined) templates.set(`${workload.ref.namespace}/${pod.name}`, pod.template);
    }
  const renamed = new Map<ContainerSummary['object'], ContainerSummary['object']>();
  return summaries.map((summary) => {
    const { object } = summary;
    if (object.kind !== 'Pod' || !object.name) return summary;
    const podKey = `${object.namespace ?? snapshot.defaultNamespace}/${object.name}`;
    const owner = owners.get(podKey);
    if (!owner) return summary;
    let alias = renamed.get(object);
    if (!alias) {
      const { ref } = owner;
      alias = { ...object, kind: ref.kind, apiVersion: ref.apiVersion, namespace: ref.namespace, name: ref.name };
      renamed.set(object, alias);
    }
    // A pod of a multi-template workload (a Ray worker) is judged as its template's container.
    const template = templates.get(podKey);
    return template === undefined ? { ...summary, object: alias } : { ...summary, object: alias, role: template };
  });
}

function lineEndOf(text: string, offset: number): number {
  const newline = text.indexOf('\n', offset);
  return newline < 0 ? text.length : newline;
}
