// Absolute caps on how much YAML one lint parses, checked before parsing. The YAML parser's cost is linear
// but large: a pod of 150,000 containers (16 MB) took ~23 s to parse alone and ~2 GB, and no work budget
// after parsing can win that time back (bench/budget.mjs). Documents are found by their `---` lines, which
// YAML forbids anywhere else at the start of a line (YAML 1.2 §9.1.4 "forbidden" document markers,
// https://yaml.org/spec/1.2.2/#914-explicit-documents), so the screen is one linear scan and only runs on
// text above the per-document cap.

/**
 * Characters of one document that are parsed. Kubernetes refuses to store an object above etcd's default
 * request limit of 1.5 MiB (https://etcd.io/docs/v3.5/dev-guide/limit/); twice that leaves room for YAML's
 * indentation, so only client-side `kind: List` files (`kubectl get … -o yaml`) and generated input reach it.
 */
export const MAX_DOCUMENT_CHARS = 3 * 1024 * 1024;

/** Characters of one file that are parsed, documents counted whole: a few seconds of parsing and lint. */
export const MAX_FILE_CHARS = 8 * 1024 * 1024;

/** A run of whole documents, `[start, end)` in the text. */
export interface TextSlice {
  readonly start: number;
  readonly end: number;
}

export type SkippedDocuments =
  /** One document above MAX_DOCUMENT_CHARS; the documents around it are still parsed. */
  | { readonly kind: 'oversized'; readonly start: number; readonly end: number }
  /** Every document from `start` on: parsing them would take the file past MAX_FILE_CHARS. */
  | {
      readonly kind: 'past-file-cap';
      readonly start: number;
      readonly documents: number;
      readonly parsedDocuments: number;
      readonly parsedChars: number;
    };

export type DocumentScreen =
  | { readonly kind: 'whole' }
  | { readonly kind: 'partial'; readonly parse: readonly TextSlice[]; readonly skipped: readonly SkippedDocuments[] };

export function screenDocuments(text: string, maxDocument = MAX_DOCUMENT_CHARS, maxFile = MAX_FILE_CHARS): DocumentScreen {
  if (text.length <= maxDocument) return { kind: 'whole' };
  const documents = documentSlices(text);
  const parse: TextSlice[] = [];
  const skipped: SkippedDocuments[] = [];
  let parsedChars = 0;
  let parsedDocuments = 0;
  for (let i = 0; i < documents.length; i++) {
    const document = documents[i];
    if (!document) continue;
    const size = document.end - document.start;
    if (size > maxDocument) {
      skipped.push({ kind: 'oversized', start: document.start, end: document.end });
      continue;
    }
    if (parsedChars + size > maxFile) {
      skipped.push({ kind: 'past-file-cap', start: document.start, documents: documents.length - i, parsedDocuments, parsedChars });
      break;
    }
    parsedChars += size;
    parsedDocuments++;
    const last = parse[parse.length - 1];
    // Adjacent documents are parsed together, as one stream, so a file under the caps parses exactly as before.
    if (last && last.end === document.start) parse[parse.length - 1] = { start: last.start, end: document.end };
    else parse.push(document);
  }
  return skipped.length === 0 ? { kind: 'whole' } : { kind: 'partial', parse, skipped };
}

/** The documents of a stream, each from its `---` line (or the start of the text) to the next one. */
export function documentSlices(text: string): TextSlice[] {
  const slices: TextSlice[] = [];
  let start = 0;
  for (let line = 0; line < text.length;) {
    if (line > start && isDocumentStart(text, line)) {
      slices.push({ start, end: line });
      start = line;
    }
    const newline = text.indexOf('\n', line);
    if (newline < 0) break;
    line = newline + 1;
  }
  slices.push({ start, end: text.length });
  return slices;
}

/** `---` at the start of a line, followed by white space or the end of the line or text. */
function isDocumentStart(text: string, at: number): boolean {
  if (!text.startsWith('---', at)) return false;
  const next = text.charCodeAt(at + 3);
  return Number.isNaN(next) || next === 0x20 || next === 0x09 || next === 0x0a || next === 0x0d;
}
