// What `gpumem lint --live` adds to the static report of one file: judgeLive's findings (after the --config file's
// per-rule settings, the annotations and the file's `# gpumem-ignore` comments, as the static findings), its lenses as
// lines, and the live rules' SARIF metadata with their docs pages. Pure.
import type { ContainerSummary } from '../analysis/containerSummary.ts';
import type { Finding } from '../findings.ts';
import { LineIndex } from '../lineIndex.ts';
import { SARIF_LEVEL } from '../report/formats.ts';
import { judgeLive } from './liveFindings.ts';
import type { LiveLens, LiveOptions } from './liveFindings.ts';
import { LIVE_RULE_META } from './liveRules.ts';
import type { LiveSnapshot } from './liveSnapshot.ts';

export interface LiveFileReport {
  readonly findings: readonly Finding[];
  readonly lenses: readonly { readonly line: number; readonly title: string }[];
  readonly matched: number;
  readonly unmatched: number;
}

export function liveFileReport(
  text: string,
  summaries: readonly ContainerSummary[],
  snapshot: LiveSnapshot,
  options: Omit<LiveOptions, 'text'>,
): LiveFileReport {
  const judged = judgeLive(summaries, snapshot, { ...options, text });
  const lines = new LineIndex(text);
  return {
    findings: judged.findings,
    lenses: judged.lenses.map((lens: LiveLens) => ({ line: lines.position(lens.span.start).line, title: lens.title })),
    matched: judged.matched,
    unmatched: judged.unmatched,
  };
}

/** The live rules as SARIF reportingDescriptors; `helpUri` is the page under docs/live/ beside docs/rules/. */
export function liveSarifRules(rulesDocsBase: string): { readonly id: string }[] {
  return LIVE_RULE_META.map((rule) => ({
    id: rule.id,
    name: rule.id
      .split('-')
      .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
      .join(''),
    shortDescription: { text: rule.title },
    help: { text: rule.remedy, markdown: `**Remedy:** ${rule.remedy}` },
    helpUri: liveDocsUri(rulesDocsBase, rule.id),
    defaultConfiguration: { level: SARIF_LEVEL[rule.defaultSeverity] },
    properties: { tags: ['live'] },
  }));
}

/** `<base>/../live/<id>.md`: the live pages sit beside the rule pages, installed or on a docs site. */
export function liveDocsUri(rulesDocsBase: string, id: string): string {
  let end = rulesDocsBase.length;
  while (end > 0 && rulesDocsBase.charCodeAt(end - 1) === 47 /* / */) end--;
  const base = rulesDocsBase.slice(0, end);
  const parent = base.slice(0, Math.max(0, base.lastIndexOf('/')));
  return `${parent}/live/${id}.md`;
}
