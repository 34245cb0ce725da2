// The file-level findings the lint writes itself: template notices, skipped documents, stopped at budget.
import type { Finding, Span } from './findings.ts';
import type { LineIndex } from './lineIndex.ts';
import { MAX_DOCUMENT_CHARS, MAX_FILE_CHARS } from './manifest/documentScreen.ts';
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
export function templateNotice(masked: MaskedTemplate, unparsed: number): Finding {
  const notice = TEMPLATE_NOTICES[masked.language];
  const skippedNote =
    unparsed > 0
      ? ` ${unparsed} document${unparsed === 1 ? '' : 's'} could not be parsed even then and ${unparsed === 1 ? 'was' : 'were'} skipped.`
      : '';
  const first = masked.language === 'helm' ? '' : ` (first: ${masked.firstActionText})`;
  return {
    ruleId: masked.language === 'helm' ? 'helm-template' : 'unrendered-template',
    severity: 'info',
    span: { start: masked.firstAction, end: masked.firstAction + 2 },
    message: `${notice.title}: gpumem masked ${masked.actions} ${notice.actions}${masked.actions === 1 ? '' : 's'}${first}, so values that come from templates are not checked.${skippedNote} ${notice.remedy}`,
    fixes: [],
  };
}

export function skippedFinding(message: string, span: Span = { start: 0, end: 0 }): Finding {
  return { ruleId: 'manifest-skipped', severity: 'info', span, message, fixes: [] };
}

export function budgetFinding(message: string, span: Span = { start: 0, end: 0 }): Finding {
  return { ruleId: 'analysis-budget', severity: 'info', span, message, fixes: [] };
}

/** What the document caps (manifest/documentScreen.ts) left unparsed, and what was analysed instead. */
export function documentCapFinding(skipped: SkippedDocuments, lines: LineIndex): Finding {
  const line = lines.lineOf(skipped.start) + 1;
  const span = { start: skipped.start, end: skipped.start + 1 };
  if (skipped.kind === 'oversized') {
    const lastLine = lines.lineOf(Math.max(skipped.start, skipped.end - 1)) + 1;
    return budgetFinding(
      `Analysis stopped at budget: the YAML document on lines ${line}–${lastLine} has ${millions(skipped.end - skipped.start)} million characters, more than the ${millions(MAX_DOCUMENT_CHARS)} million gpumem parses in one document, so it was not analysed (the other documents were). Kubernetes does not store objects this large (etcd's request limit is 1.5 MiB); split a List into smaller files.`,
      span,
    );
  }
  const analysed =
    skipped.parsedDocuments === 0
      ? 'no document before it was analysed'
      : `the ${skipped.parsedDocuments} document${skipped.parsedDocuments === 1 ? '' : 's'} before it (${millions(skipped.parsedChars)} million characters) ${skipped.parsedDocuments === 1 ? 'was' : 'were'} analysed`;
  return budgetFinding(
    `Analysis stopped at budget at line ${line}: gpumem parses at most ${millions(MAX_FILE_CHARS)} million characters of YAML per file; ${analysed}, and the ${skipped.documents} document${skipped.documents === 1 ? '' : 's'} from this line on ${skipped.documents === 1 ? 'was' : 'were'} not. Split the file to analyse the rest.`,
    span,
  );
}

function millions(chars: number): string {
  return (chars / 1_000_000).toFixed(1);
}
