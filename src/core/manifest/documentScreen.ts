// The one cap on how much YAML one lint parses: the file size limit (`--max-file-size`, the editor's
// settings), checked before parsing. The YAML parser's cost is linear but large (a pod of 150,000 containers,
// 16 MB, takes ~20 s and ~1.8 GB to parse: bench/budget.mjs), so text above the limit is not parsed at all.
// A file the CLI reads is refused whole above the limit; this screen is for text handed to the lint directly
// (the editor's "Lint Active File"): the whole documents that fit are parsed, the rest is reported. Documents
// are found by their `---` lines, which YAML forbids anywhere else at the start of a line (YAML 1.2 §9.1.4
// "forbidden" document markers, https://yaml.org/spec/1.2.2/#914-explicit-documents), so the screen is one
// linear scan and only runs on text above the limit. Documents are never capped one by one: a `kind: List`
// (`kubectl get pods -A -o yaml`) is one document of any size, judged item by item (lint.ts).

/** The documented default size limit of one manifest file: the CLI's `--max-file-size` default, 16 MiB. */
export const DEFAULT_MAX_FILE_CHARS = 16 * 1024 * 1024;

/** A run of whole documents, `[start, end)` in the text. */
export interface TextSlice {
  readonly start: number;
  readonly end: number;
}

/** Every document from `start` on: parsing them would take the file past the size limit. */
export interface SkippedDocuments {
  readonly start: number;
  readonly documents: number;
  readonly parsedDocuments: number;
  readonly parsedChars: number;
  readonly limit: number;
}

export type DocumentScreen =
  { readonly kind: 'whole' } | { readonly kind: 'partial'; readonly parse: TextSlice | undefined; readonly skipped: SkippedDocuments };

export function screenDocuments(text: string, maxChars = DEFAULT_MAX_FILE_CHARS): DocumentScreen {
  if (text.length <= maxChars) return { kind: 'whole' };
  const documents = documentSlices(text);
  let parsedChars = 0;
  for (let i = 0; i < documents.length; i++) {
    const document = documents[i];
    if (!document) continue;
    if (document.end > maxChars) {
      const skipped = { start: document.start, documents: documents.length - i, parsedDocuments: i, parsedChars, limit: maxChars };
      return { kind: 'partial', parse: i === 0 ? undefined : { start: 0, end: document.start }, skipped };
    }
    parsedChars = document.end;
  }
  return { kind: 'whole' };
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
