// The vocabulary every analysis in core speaks: findings with exact source spans and quick fixes
// expressed as text edits on the original string. Hosts (VS Code, CLI) turn offsets into positions.

export type Severity = 'error' | 'warning' | 'info';

/** A half-open range of UTF-16 offsets into the analysed text, as VS Code's `offsetAt` counts them. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

export interface TextEdit {
  readonly start: number;
  readonly end: number;
  readonly newText: string;
}

export interface QuickFix {
  readonly title: string;
  readonly edits: readonly TextEdit[];
  /** The one fix VS Code should offer first (Ctrl+.). */
  readonly preferred?: boolean;
}

/**
 * A fix offered by its title and built only when asked for (the lightbulb's code actions, a report that lists fixes):
 * building it parses the file, too much to spend on every finding each time a document is judged. Findings of one
 * workload share one, which builds once per text.
 */
export interface FixOnRequest {
  readonly title: string;
  /** The fix on `text` (the text the finding was judged on); undefined when that text needs no change. */
  readonly build: (text: string) => QuickFix | undefined;
}

/** The Kubernetes object a finding belongs to. */
export interface ObjectRef {
  readonly kind: string;
  readonly apiVersion?: string;
  readonly namespace?: string;
  readonly name?: string;
  /** The `# Source:` template of Helm-rendered output, when present. */
  readonly helmSource?: string;
}

export interface Finding {
  readonly ruleId: string;
  readonly severity: Severity;
  readonly message: string;
  readonly span: Span;
  readonly object?: ObjectRef;
  readonly container?: string;
  readonly fixes: readonly QuickFix[];
  /** A further fix, built on request (fixesOf); live mode's "Set resources from what the pods used". */
  readonly fixOnRequest?: FixOnRequest;
  /**
   * Where what the finding says is missing may be set out of gpumem's sight: a kustomize patch's base, a chart's
   * values. Such a finding is a hint at `info`, and a severity setting for its rule does not raise it (a CI gate set
   * to `error` must not fail on a patch whose base has the limit); `off` still drops it.
   */
  readonly unseen?: UnseenSource;
}

export type UnseenSource = 'kustomize-base' | 'template-values';

export const severityRank: Record<Severity, number> = { info: 0, warning: 1, error: 2 };

/** Every fix of the finding: those built already, then the one on request, built now on `text` (when it changes it). */
export function fixesOf(finding: Finding, text: string): readonly QuickFix[] {
  const built = finding.fixOnRequest?.build(text);
  return built ? [...finding.fixes, built] : finding.fixes;
}

/** The finding with its fix on request built into `fixes`: for a report that lists every finding's fixes (SARIF). */
export function withFixesBuilt(finding: Finding, text: string): Finding {
  if (!finding.fixOnRequest) return finding;
  const { fixOnRequest: _built, ...rest } = finding;
  return { ...rest, fixes: fixesOf(finding, text) };
}
