// The file-level findings the lint writes itself: template notices, skipped documents, stopped at budget.
import type { Finding, ObjectRef, Span } from './findings.ts';
import type { LineIndex } from './lineIndex.ts';
import type { SkippedDocuments } from './manifest/documentScreen.ts';
import type { MaskedTemplate } from './manifest/source.ts';

const TEMPLATE_NOTICES = {
  helm: {
    title: 'Unrendered Helm template',
    actions: 'template action',
    remedy: 'Lint the rendered output (helm template …) for full checks.',
  },
  go: {
    title: 'Unrendered Go template (no Helm objects such as .Values or include)',
    actions: 'template action',
    remedy: 'Lint the output of the program that renders it for full checks.',
  },
  argo: {
    title: 'Argo Workflows expressions',
    actions: 'expression',
    remedy: 'Argo substitutes them when the workflow runs; lint a manifest with the parameters filled in for full checks.',
  },
  jinja: {
    title: 'Unrendered Jinja template',
    actions: 'template action',
    remedy: 'Lint the rendered output (ansible-playbook --check, jinja2) for full checks.',
  },
  placeholder: { title: 'Unrendered template placeholders', actions: 'placeholder', remedy: 'Lint the rendered output for full checks.' },
} as const;

/** The file-level notice: helm-template for Helm charts, unrendered-template naming any other template language. */
/**
 * The file's template notice, on `at`: the first action that hides a value a rule judges (templateRelevance.ts), or
 * the file's first action when only unparsable documents call for the notice.
 */
export function templateNotice(masked: MaskedTemplate, unparsed: number, text: string, at: number = masked.firstAction): Finding {
  const notice = TEMPLATE_NOTICES[masked.language];
  const skippedNote =
    unparsed > 0
      ? ` ${unparsed} document${unparsed === 1 ? '' : 's'} could not be parsed even then and ${unparsed === 1 ? 'was' : 'were'} skipped.`
      : '';
  const first =
    masked.language === 'helm'
      ? ''
      : at === masked.firstAction
        ? ` (first: ${masked.firstActionText})`
        : ` (here: ${actionTextAt(text, at)})`;
  return {
    ruleId: masked.language === 'helm' ? 'helm-template' : 'unrendered-template',
    severity: 'info',
    span: { start: at, end: at + 2 },
    message: `${notice.title}: gpumem masked ${masked.actions} ${notice.actions}${masked.actions === 1 ? '' : 's'}${first}, so values that come from templates are not checked.${skippedNote} ${notice.remedy}`,
    fixes: [],
  };
}

/** The action at `at` as written, to its closing `}}` / `%}` on the same line, cut to 60 characters. */
function actionTextAt(text: string, at: number): string {
  const line = text.slice(at, at + 60).split('\n')[0] ?? '';
  const close = Math.max(line.indexOf('}}'), line.indexOf('%}'));
  return close >= 0 ? line.slice(0, close + 2) : line;
}

export function skippedFinding(message: string, span: Span = { start: 0, end: 0 }): Finding {
  return { ruleId: 'manifest-skipped', severity: 'info', span, message, fixes: [] };
}

export function budgetFinding(message: string, span: Span = { start: 0, end: 0 }): Finding {
  return { ruleId: 'analysis-budget', severity: 'info', span, message, fixes: [] };
}

/** What the size limit (manifest/documentScreen.ts) left unparsed, and what was analysed instead. */
export function documentCapFinding(skipped: SkippedDocuments, lines: LineIndex): Finding {
  const line = lines.lineOf(skipped.start) + 1;
  const span = { start: skipped.start, end: skipped.start + 1 };
  const analysed =
    skipped.parsedDocuments === 0
      ? 'no document before it was analysed'
      : `the ${skipped.parsedDocuments} document${skipped.parsedDocuments === 1 ? '' : 's'} before it (${mebibytes(skipped.parsedChars)} MiB) ${skipped.parsedDocuments === 1 ? 'was' : 'were'} analysed`;
  return skippedFinding(
    `Not analysed from line ${line} on: the file is over the size limit of ${mebibytes(skipped.limit)} MiB; ${analysed}, and the ${skipped.documents} document${skipped.documents === 1 ? '' : 's'} from this line on ${skipped.documents === 1 ? 'was' : 'were'} not. Raise the limit (the CLI's --max-file-size) or split the file.`,
    span,
  );
}

/** The findings that say part of the input was not analysed: a CI run must not pass on them (exit status 3). */
export function isUnanalysedNotice(finding: Finding): boolean {
  if (finding.ruleId === 'analysis-budget' || finding.ruleId === 'manifest-skipped' || finding.ruleId === 'internal-error') return true;
  // A document kubectl refuses too is a finding to fix (it would never run); one only gpumem's parser refuses was lost.
  return finding.ruleId === 'yaml-syntax' && finding.severity === 'info';
}

/** Characters as MiB, as `--max-file-size` counts them ("16", "2.5"). */
function mebibytes(chars: number): string {
  return String(Number((chars / (1024 * 1024)).toFixed(2)));
}

/**
 * Kinds whose GPU pods were found by their shape (manifest/shapeTemplates.ts) rather than by the kind table: one
 * `read-by-shape` notice per kind and API version, at its first workload, naming where the pod specs were found.
 */
export class ShapeReadKinds {
  readonly #first = new Map<string, { object: ObjectRef; roles: Set<string>; start: number; workloads: number }>();

  note(object: ObjectRef, roles: readonly string[], start: number): void {
    const key = `${object.kind}\u0000${object.apiVersion ?? ''}`;
    const entry = this.#first.get(key) ?? { object, roles: new Set<string>(), start, workloads: 0 };
    for (const role of roles) if (entry.roles.size < 8) entry.roles.add(role);
    entry.workloads++;
    this.#first.set(key, entry);
  }

  findings(): Finding[] {
    return [...this.#first.values()].map(({ object, roles, start, workloads }) => {
      const kind = `${object.kind}${object.apiVersion ? ` (${object.apiVersion})` : ''}`;
      const where = [...roles].map((role) => `\`${role}\``).join(', ');
      return {
        ruleId: 'read-by-shape',
        severity: 'info',
        span: { start, end: start + 1 },
        message: `${kind} is not a kind or API version gpumem knows: its pod specs were found by their shape (${where}) and checked as pods${workloads > 1 ? ` in ${workloads} objects` : ''}; each finding names the path. Check that these are the pods the operator runs.`,
        fixes: [],
      };
    });
  }
}
