// Parsing manifests as kubectl does: YAML 1.1, documents re-read leniently where go-yaml is lenient, duplicate
// keys found in linear time, and one yaml-syntax finding per document that still fails.
import { isMap, isNode, isScalar, isSeq, parseAllDocuments, YAMLParseError } from 'yaml';
import type { Document, Tags } from 'yaml';
import type { Finding } from '../findings.ts';
import { engineLimitReason } from '../internalError.ts';
import type { TextSlice } from './documentScreen.ts';
import { relaxForGoYaml } from './lenientYaml.ts';

/**
 * YAML 1.1, as Kubernetes reads manifests (so `yes` is a boolean and `<<` merges). The parser's own
 * duplicate-key check compares each key with every earlier key of its mapping, which is quadratic (a
 * 40,000-key mapping took 30 s), so `findDuplicateKeys` does it in linear time instead. `!!omap` is left
 * unresolved (a plain list) for the same reason: its duplicate check is quadratic too, and manifests never use it.
 */
export const PARSE_OPTIONS = {
  version: '1.1',
  prettyErrors: false,
  keepSourceTokens: false,
  uniqueKeys: false,
  customTags: (tags: Tags) => tags.filter((tag) => (typeof tag === 'string' ? tag !== 'omap' : tag.tag !== 'tag:yaml.org,2002:omap')),
} as const;

/**
 * The documents as kubectl reads them: documents the strict parser rejects only for indentation that go-yaml
 * does not check (inside flow collections and multi-line quoted scalars) are parsed again relaxed
 * (lenientYaml.ts); a document that still fails keeps its strict errors.
 */
export function parseLikeKubectl(source: string): Document.Parsed[] {
  const parsed = parseAllDocuments(source, PARSE_OPTIONS);
  const strict = Array.isArray(parsed) ? parsed : [];
  if (strict.every((doc) => doc.errors.length === 0)) return strict;
  const relaxedText = relaxForGoYaml(source);
  if (relaxedText === undefined) return strict;
  const again = parseAllDocuments(relaxedText, PARSE_OPTIONS);
  const relaxed = new Map((Array.isArray(again) ? again : []).map((doc) => [doc.range[0], doc]));
  return strict.map((doc) => {
    if (doc.errors.length === 0) return doc;
    const retry = relaxed.get(doc.range[0]);
    return retry && retry.errors.length === 0 ? retry : doc;
  });
}

/** The parser's "Map keys must be unique" errors (same rule: scalar keys with the same value), in linear time. */
export function findDuplicateKeys(doc: Document.Parsed): YAMLParseError[] {
  const found: YAMLParseError[] = [];
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        const key = pair.key;
        if (isScalar(key) && !Number.isNaN(key.value)) {
          if (seen.has(key.value)) {
            const at = key.range?.[0] ?? node.range?.[0] ?? 0;
            found.push(new YAMLParseError([at, at + 1], 'DUPLICATE_KEY', 'Map keys must be unique'));
          } else seen.add(key.value);
        }
        stack.push(pair.value, pair.key);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push(item);
    }
  }
  return found.sort((a, b) => a.pos[0] - b.pos[0]);
}

/**
 * The parser errors that kubectl refuses too (go-yaml, checked with `kubectl kustomize` in
 * test/unit/yamlKubectl.test.ts). Any other error (a nesting limit of this parser, a tag or directive go-yaml
 * reads differently) is only gpumem's: an info that does not claim kubectl refuses the document.
 */
const KUBECTL_REFUSES: ReadonlySet<string> = new Set([
  'BAD_DQ_ESCAPE',
  'BAD_INDENT',
  'BAD_SCALAR_START',
  'BLOCK_AS_IMPLICIT_KEY',
  'DUPLICATE_KEY',
  'KEY_OVER_1024_CHARS',
  'MISSING_CHAR',
  'MULTILINE_IMPLICIT_KEY',
  'TAB_AS_INDENT',
  'UNEXPECTED_TOKEN',
]);

export function syntaxFinding(doc: Document.Parsed, textLength: number): Finding {
  const error = doc.errors[0];
  const [errorStart, errorEnd] = error?.pos ?? [doc.range[0], doc.range[0] + 1];
  // An error at the end of the input (an unclosed bracket or quote) points just past the text: keep the span inside it.
  const start = Math.max(0, Math.min(errorStart, textLength - 1));
  const end = Math.min(Math.max(errorEnd, start + 1), textLength);
  let message = (error?.message ?? 'syntax error').split('\n')[0] ?? 'syntax error';
  // The parser recurses per nesting level; a stack overflow there means absurdly deep nesting.
  if (error?.code === 'RESOURCE_EXHAUSTION')
    message =
      engineLimitReason(message) === undefined ? `it is nested too deeply to parse (${message})` : 'it is nested too deeply to parse';
  const more = doc.errors.length > 1 ? ` (and ${doc.errors.length - 1} more error${doc.errors.length > 2 ? 's' : ''})` : '';
  const refused = error !== undefined && KUBECTL_REFUSES.has(error.code);
  return {
    ruleId: 'yaml-syntax',
    severity: refused ? 'warning' : 'info',
    span: { start, end },
    message: refused
      ? `This YAML document was not analysed: ${message}${more}.`
      : `This YAML document was not analysed: ${message}${more}. This is a limit of gpumem's YAML parser; kubectl may still accept the document.`,
    fixes: [],
  };
}

/**
 * The documents of some slices of the text (documentScreen.ts), parsed slice by slice like parseLikeKubectl,
 * with every offset moved to where the slice sits in the whole text.
 */
export function parseSlicesLikeKubectl(source: string, slices: readonly TextSlice[]): Document.Parsed[] {
  const documents: Document.Parsed[] = [];
  for (const slice of slices) {
    for (const doc of parseLikeKubectl(source.slice(slice.start, slice.end))) {
      if (slice.start > 0) shiftOffsets(doc, slice.start);
      documents.push(doc);
    }
  }
  return documents;
}

function shiftOffsets(doc: Document.Parsed, by: number): void {
  shiftRange(doc.range, by);
  for (const error of doc.errors) shiftRange(error.pos, by);
  for (const warning of doc.warnings) shiftRange(warning.pos, by);
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!isNode(node)) continue;
    if (node.range) shiftRange(node.range, by);
    if (isMap(node)) {
      for (const pair of node.items) stack.push(pair.key, pair.value);
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push(item);
    }
  }
}

function shiftRange(range: number[] | null | undefined, by: number): void {
  if (!range) return;
  for (let i = 0; i < range.length; i++) range[i] = (range[i] ?? 0) + by;
}
