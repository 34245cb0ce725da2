// Turning bytes into analysable text, and unrendered Helm templates into parseable YAML.
// Nothing here throws: every way a file can be unusable becomes a reason a person can read.

export type DecodedSource =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'skipped'; readonly reason: string };

const BINARY_SNIFF_BYTES = 8000;

export function decodeManifestBytes(bytes: Uint8Array, maxBytes: number): DecodedSource {
  if (bytes.length > maxBytes) {
    return { kind: 'skipped', reason: `file is ${formatSize(bytes.length)}, above the ${formatSize(maxBytes)} limit for analysis` };
  }
  try {
    if (bytes[0] === 0xff && bytes[1] === 0xfe) return { kind: 'text', text: new TextDecoder('utf-16le', { fatal: true }).decode(bytes.subarray(2)) };
    if (bytes[0] === 0xfe && bytes[1] === 0xff) return { kind: 'text', text: new TextDecoder('utf-16be', { fatal: true }).decode(bytes.subarray(2)) };
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
 * Stands in for Helm template actions after masking. It is a YAML plain-scalar character
 * (Unicode private use), so masked values still parse, and rules can tell a templated value
 * from a literal one. One code unit replaces one, so every offset still points into the original.
 */
export const TEMPLATE_SENTINEL = '\uE000';

export interface MaskedTemplate {
  readonly text: string;
  /** How many `{{ … }}` actions were masked. */
  readonly actions: number;
  /** Offset of the first action, for the notice. */
  readonly firstAction: number;
}

/** True when a value came (wholly or partly) from a masked template action. */
export function isTemplated(value: string): boolean {
  return value.includes(TEMPLATE_SENTINEL);
}

/**
 * Masks Go-template actions so unrendered Helm templates parse as YAML with offsets intact:
 * a line holding only actions (`{{- if … }}`, `{{ toYaml … | nindent 8 }}`) becomes blank,
 * an inline action becomes sentinel characters inside its scalar.
 */
export function maskHelmTemplates(text: string): MaskedTemplate | undefined {
  const first = text.indexOf('{{');
  if (first < 0) return undefined;
  const out = text.split('');
  let actions = 0;
  let i = first;
  while (i >= 0 && i < text.length) {
    const end = findActionEnd(text, i + 2);
    for (let j = i; j < end; j++) {
      if (out[j] !== '\n' && out[j] !== '\r') out[j] = TEMPLATE_SENTINEL;
    }
    actions++;
    i = text.indexOf('{{', end);
  }
  blankTemplateOnlyLines(out);
  return { text: out.join(''), actions, firstAction: first };
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
