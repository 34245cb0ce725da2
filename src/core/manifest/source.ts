// Turning bytes into analysable text, and unrendered templates (Helm, other Go templates, Argo, Jinja) into
// parseable YAML.
// Nothing here throws: every way a file can be unusable becomes a reason a person can read.

export type DecodedSource = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'skipped'; readonly reason: string };

const BINARY_SNIFF_BYTES = 8000;

export function decodeManifestBytes(bytes: Uint8Array, maxBytes: number): DecodedSource {
  if (bytes.length > maxBytes) {
    return { kind: 'skipped', reason: `file is ${formatSize(bytes.length)}, above the ${formatSize(maxBytes)} limit for analysis` };
  }
  try {
    if (bytes[0] === 0xff && bytes[1] === 0xfe)
      return { kind: 'text', text: new TextDecoder('utf-16le', { fatal: true }).decode(bytes.subarray(2)) };
    if (bytes[0] === 0xfe && bytes[1] === 0xff)
      return { kind: 'text', text: new TextDecoder('utf-16be', { fatal: true }).decode(bytes.subarray(2)) };
  } catch {
    return { kind: 'skipped', reason: 'file starts with a UTF-16 byte-order mark but is not valid UTF-16' };
  }
  const sniff = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < sniff; i++) {
    if (bytes[i] === 0) return { kind: 'skipped', reason: 'binary file (contains NUL bytes)' };
  }
  try {
    // TextDecoder strips a UTF-8 byte-order mark by default, as VS Code does.
    return { kind: 'text', text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { kind: 'skipped', reason: 'not UTF-8 text' };
  }
}

function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}

/**
 * Stands in for template actions after masking. It is a YAML plain-scalar character
 * (Unicode private use), so masked values still parse, and rules can tell a templated value
 * from a literal one. One code unit replaces one, so every offset still points into the original.
 */
export const TEMPLATE_SENTINEL = '\uE000';

/**
 * Which language a file's `{{ … }}` actions are written in. Helm charts reach for `.Values`, `.Release`,
 * `include`, `toYaml`; other Go templates (operator and KServe samples rendered by a controller) use only
 * fields and keywords; Argo Workflows substitutes `{{inputs.parameters.x}}`, `{{workflow.name}}`,
 * `{{item}}` and `{{=expr}}` when the workflow runs; Jinja (Ansible) has `{% … %}` statements.
 */
export type TemplateLanguage = 'helm' | 'go' | 'argo' | 'jinja' | 'placeholder';

export interface MaskedTemplate {
  readonly text: string;
  /** How many `{{ … }}` (and `{% … %}`) actions were masked. */
  readonly actions: number;
  /** Offset of the first action, for the notice. */
  readonly firstAction: number;
  /** Offset of every action, ascending: where the notice matters (manifest/templateRelevance.ts). */
  readonly actionOffsets: readonly number[];
  /** The first action as written (cut to 60 characters), for the notice. */
  readonly firstActionText: string;
  readonly language: TemplateLanguage;
}

/** True when a value came (wholly or partly) from a masked template action. */
export function isTemplated(value: string): boolean {
  return value.includes(TEMPLATE_SENTINEL);
}

/**
 * Masks template actions so unrendered templates parse as YAML with offsets intact:
 * a line holding only actions (`{{- if … }}`, `{{ toYaml … | nindent 8 }}`, `{% if gpu %}`) becomes blank,
 * an inline action becomes sentinel characters inside its scalar.
 */
export function maskHelmTemplates(text: string): MaskedTemplate | undefined {
  const first = nextAction(text, 0);
  if (first < 0) return undefined;
  const out = text.split('');
  const counts: Record<TemplateLanguage, number> = { helm: 0, go: 0, argo: 0, jinja: 0, placeholder: 0 };
  let actions = 0;
  let firstActionText = '';
  const actionOffsets: number[] = [];
  let i = first;
  while (i >= 0 && i < text.length) {
    actionOffsets.push(i);
    const statement = text[i + 1] === '%';
    const end = statement ? findStatementEnd(text, i + 2) : findActionEnd(text, i + 2);
    for (let j = i; j < end; j++) {
      if (out[j] !== '\n' && out[j] !== '\r') out[j] = TEMPLATE_SENTINEL;
    }
    if (actions === 0) firstActionText = text.slice(i, Math.min(end, i + 60)).split('\n')[0] ?? '';
    counts[statement ? 'jinja' : actionLanguage(text, i + 2, end)]++;
    actions++;
    i = nextAction(text, end);
  }
  blankTemplateOnlyLines(out);
  return { text: out.join(''), actions, firstAction: first, actionOffsets, firstActionText, language: fileLanguage(counts) };
}

function nextAction(text: string, from: number): number {
  let i = text.indexOf('{', from);
  while (i >= 0 && text[i + 1] !== '{' && text[i + 1] !== '%') i = text.indexOf('{', i + 1);
  return i;
}

/** One file, one language: Helm wins (a chart templating an Argo workflow escapes Argo's braces), then Jinja, Go, Argo. */
function fileLanguage(counts: Readonly<Record<TemplateLanguage, number>>): TemplateLanguage {
  if (counts.helm > 0) return 'helm';
  if (counts.jinja > 0) return 'jinja';
  if (counts.go > 0) return 'go';
  if (counts.argo > 0) return 'argo';
  return 'placeholder';
}

const HELM_OBJECTS = [
  '.Values',
  '.Release',
  '.Chart',
  '.Capabilities',
  '.Files',
  '.Template',
  'include ',
  'toYaml',
  'toJson',
  'nindent',
  'tpl ',
  'required ',
];
const GO_KEYWORDS = /^(if|else|end|range|with|define|template|block|break|continue|printf|print|len|index|not|and|or|eq|ne|lt|le|gt|ge)\b/;
const ARGO_VARIABLES = /^(inputs|outputs|workflow|steps|tasks|item|pod|node|retries|lastRetry|cronworkflow)\b/;
/** The language of one action, from the start of its body (cut to 200 characters, so a huge action costs no more). */
function actionLanguage(text: string, bodyStart: number, end: number): TemplateLanguage {
  let body = text.slice(bodyStart, Math.min(end - 2, bodyStart + 200));
  body = body.replace(/^-?\s*/, '');
  if (HELM_OBJECTS.some((marker) => body.includes(marker))) return 'helm';
  if (body.startsWith('.') || body.startsWith('$') || body.startsWith('/*') || GO_KEYWORDS.test(body)) return 'go';
  if (body.startsWith('=') || ARGO_VARIABLES.test(body)) return 'argo';
  return 'placeholder';
}

/** The offset just past the `%}` closing a Jinja statement whose body starts at `from`, or the line end. */
function findStatementEnd(text: string, from: number): number {
  const close = text.indexOf('%}', from);
  const newline = text.indexOf('\n', from);
  if (close >= 0 && (newline < 0 || close < newline)) return close + 2;
  return newline < 0 ? text.length : newline;
}

/** A shell-style placeholder left in a value by a pipeline that substitutes it before `kubectl apply`. */
export interface Placeholder {
  readonly kind: 'envsubst' | 'tekton' | 'kustomize';
  readonly text: string;
}

const TEKTON_ROOTS = ['params.', 'context.', 'tasks.', 'steps.', 'workspaces.', 'resources.'];

/**
 * The first `${VAR}` / `$VAR` (envsubst, also Terraform and shell heredocs), `$(params.x)` (Tekton) or `$(VAR)`
 * (Kustomize vars) in a value. Only for values that are never shell text (quantities, annotations): in command
 * lines `$(VAR)` is Kubernetes' own expansion.
 */
export function placeholderIn(value: string): Placeholder | undefined {
  for (let i = value.indexOf('$'); i >= 0; i = value.indexOf('$', i + 1)) {
    const next = value[i + 1];
    if (next === '{' || next === '(') {
      const close = value.indexOf(next === '{' ? '}' : ')', i + 2);
      if (close < 0) continue;
      const inner = value.slice(i + 2, close);
      const text = value.slice(i, close + 1);
      if (next === '{') return { kind: 'envsubst', text };
      return { kind: TEKTON_ROOTS.some((root) => inner.startsWith(root)) ? 'tekton' : 'kustomize', text };
    }
    if (next !== undefined && /[A-Za-z_]/.test(next)) {
      let end = i + 2;
      while (end < value.length && /[A-Za-z0-9_]/.test(value[end] ?? '')) end++;
      return { kind: 'envsubst', text: value.slice(i, end) };
    }
  }
  return undefined;
}

/** The offset just past the `}}` closing the action whose body starts at `from`; skips string literals and comments. */
function findActionEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text[i];
    if (c === '}' && text[i + 1] === '}') return i + 2;
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"' && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
    } else if (c === '`') {
      const close = text.indexOf('`', i + 1);
      if (close < 0) return text.length;
      i = close;
    } else if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      if (close < 0) return text.length;
      i = close + 1;
    } else if (c === '\n' && text.slice(i + 1, i + 3) === '{{') {
      // An unterminated action: stop at the line end rather than swallow the file.
      return i;
    }
    i++;
  }
  return text.length;
}

function blankTemplateOnlyLines(out: string[]): void {
  let lineStart = 0;
  for (let i = 0; i <= out.length; i++) {
    if (i === out.length || out[i] === '\n') {
      let hasSentinel = false;
      let onlyTemplate = true;
      for (let j = lineStart; j < i; j++) {
        const c = out[j];
        if (c === TEMPLATE_SENTINEL) hasSentinel = true;
        else if (c !== ' ' && c !== '\t' && c !== '\r') {
          onlyTemplate = false;
          break;
        }
      }
      if (hasSentinel && onlyTemplate) {
        for (let j = lineStart; j < i; j++) if (out[j] === TEMPLATE_SENTINEL) out[j] = ' ';
      }
      lineStart = i + 1;
    }
  }
}
