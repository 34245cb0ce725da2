// What the user's settings do to a file's findings, static and live alike: the per-rule settings (`rules` of the
// --config file or of gpumem.lint.rules) turn a rule off or change its severity, and the file's `# gpumem-ignore`
// comments drop what they name. Annotations are read per pod template where the findings are made
// (suppression.ts's annotationSuppression). One path, so a live finding is silenced exactly as a rule's is.
import type { RuleSetting } from './config.ts';
import type { Finding } from './findings.ts';
import { LineIndex } from './lineIndex.ts';
import { CommentSuppressions } from './suppression.ts';

/** The findings that remain after the per-rule settings and the file's suppression comments, duplicates dropped. */
export function settleFindings(
  raw: readonly Finding[],
  rules: Readonly<Record<string, RuleSetting>>,
  text: string,
  lines: LineIndex = new LineIndex(text),
): Finding[] {
  const comments = new CommentSuppressions(text, lines);
  return applyRuleSettings(raw, rules).filter((finding) => !comments.suppresses(finding.ruleId, lines.lineOf(finding.span.start)));
}

/** Drops the rules that are off and overrides severities, but for hints on what may be set out of sight. */
function applyRuleSettings(findings: readonly Finding[], rules: Readonly<Record<string, RuleSetting>>): Finding[] {
  const out: Finding[] = [];
  const seen = new Set<string>();
  for (const finding of findings) {
    const setting = rules[finding.ruleId];
    if (setting === 'off') continue;
    const key = `${finding.ruleId}\u0000${finding.span.start}\u0000${finding.span.end}\u0000${finding.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(setting && setting !== finding.severity && finding.unseen === undefined ? { ...finding, severity: setting } : finding);
  }
  return out;
}
