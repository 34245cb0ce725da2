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
}

export const severityRank: Record<Severity, number> = { info: 0, warning: 1, error: 2 };
