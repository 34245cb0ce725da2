// What the catalog says about a rule. A leaf: the catalog, the config's rule-id check and the rules all
// read it, and it reads nothing of theirs.
import type { Severity } from '../findings.ts';

export interface RuleMeta {
  readonly id: string;
  readonly title: string;
  readonly defaultSeverity: Severity;
  /** One sentence: what the rule detects and why it matters. */
  readonly summary: string;
  /** What to do about it. */
  readonly remedy: string;
  /** Off unless configured (e.g. needs a setting to mean anything). */
  readonly offByDefault?: boolean;
  /** Why the docs page can have no triggering example (a rule for gpumem's own failures). */
  readonly noExample?: string;
}
