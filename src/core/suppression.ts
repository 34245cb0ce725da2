// In-file suppression: `# gpumem-ignore <rule-id>[,<rule-id>…] [-- reason]` on the line before a finding
// (or at the end of its line), `# gpumem-ignore-file <rule-id>…` anywhere, and kube-linter-style annotations
// `ignore-check.gpumem.io/<rule-id>: "<reason>"` / `gpumem.io/ignore-all` on the workload or its pod template.
import { ANNOTATIONS } from './config.ts';
import type { LineIndex } from './lineIndex.ts';

// Linear on hostile input: take the rest of the line, then split it in code.
const COMMENT = /#[ \t]*gpumem-ignore(-file)?(?![\w-])([^\n]*)/g;
const RULE_ID = /^[a-z0-9][a-z0-9-]*$/;

export class CommentSuppressions {
  private readonly byLine = new Map<number, Set<string>>();
  private readonly wholeFile = new Set<string>();

  constructor(text: string, lines: LineIndex) {
    if (!text.includes('gpumem-ignore')) return;
    for (const match of text.matchAll(COMMENT)) {
      const rest = (match[2] ?? '').split(' -- ')[0] ?? '';
      const ids = rest.split(/[\s,]+/).filter((id) => RULE_ID.test(id));
      const set = rest.trim() === '' ? ['all'] : ids;
      if (match[1]) {
        for (const id of set) this.wholeFile.add(id);
        continue;
      }
      const line = lines.lineOf(match.index ?? 0);
      const existing = this.byLine.get(line) ?? new Set<string>();
      for (const id of set) existing.add(id);
      this.byLine.set(line, existing);
    }
  }

  suppresses(ruleId: string, line: number): boolean {
    if (this.wholeFile.has(ruleId) || this.wholeFile.has('all')) return true;
    for (const candidate of [line - 1, line]) {
      const ids = this.byLine.get(candidate);
      if (ids && (ids.has(ruleId) || ids.has('all'))) return true;
    }
    return false;
  }
}

/**
 * What a workload's annotations (the workload's own and its pod template's) suppress: every check
 * (`gpumem.io/ignore-all`, unless its value is "false"), the checks named by `ignore-check.gpumem.io/<rule-id>`, or
 * nothing. Read once per pod template; the static rules and the live findings of its containers both ask it.
 */
export type AnnotationSuppression =
  { readonly kind: 'none' } | { readonly kind: 'all' } | { readonly kind: 'some'; readonly ruleIds: ReadonlySet<string> };

const NO_ANNOTATION_SUPPRESSION: AnnotationSuppression = { kind: 'none' };

export function annotationSuppression(annotations: ReadonlyMap<string, unknown>): AnnotationSuppression {
  if (annotations.has(ANNOTATIONS.ignoreAll)) {
    const value = annotations.get(ANNOTATIONS.ignoreAll) as { value?: string } | undefined;
    if (value?.value?.trim().toLowerCase() !== 'false') return { kind: 'all' };
  }
  const ruleIds = new Set<string>();
  for (const key of annotations.keys())
    if (key.startsWith(ANNOTATIONS.ignoreCheckPrefix)) ruleIds.add(key.slice(ANNOTATIONS.ignoreCheckPrefix.length));
  return ruleIds.size > 0 ? { kind: 'some', ruleIds } : NO_ANNOTATION_SUPPRESSION;
}

export function suppressesRule(suppression: AnnotationSuppression, ruleId: string): boolean {
  switch (suppression.kind) {
    case 'none':
      return false;
    case 'all':
      return true;
    case 'some':
      return suppression.ruleIds.has(ruleId);
  }
}
