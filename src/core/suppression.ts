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

export function suppressedByAnnotation(annotations: ReadonlyMap<string, unknown>, ruleId: string): boolean {
  if (annotations.has(ANNOTATIONS.ignoreAll)) {
    const value = annotations.get(ANNOTATIONS.ignoreAll) as { value?: string } | undefined;
    if (value?.value?.trim().toLowerCase() !== 'false') return true;
  }
  return annotations.has(`${ANNOTATIONS.ignoreCheckPrefix}${ruleId}`);
}
