// Linear-time text helpers for input a tenant or a pasted log controls. V8's regex engine backtracks:
// a trailing-run pattern such as /\/+$/ or /[ \t]+$/, or a split on /\s*,\s*/, retries every start
// position of a long run and costs O(n²) on it (one 80k-space nvidia-smi line took seconds). These
// loops touch each character a bounded number of times. The audit of every regex is docs/probes.md,
// "Regular expressions on input", enforced by test/unit/regexAudit.test.ts.

/** `text` without the trailing characters that are in `chars` (each one a single UTF-16 unit). */
export function trimEndOf(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text.charAt(end - 1))) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** `text` without the leading characters that are in `chars`. */
export function trimStartOf(text: string, chars: string): string {
  let start = 0;
  while (start < text.length && chars.includes(text.charAt(start))) start++;
  return start === 0 ? text : text.slice(start);
}

/** `text.split(separator)` with every piece trimmed: what `split(/\s*,\s*\/)` meant, in linear time. */
export function splitTrimmed(text: string, separator: string): string[] {
  return text.split(separator).map((piece) => piece.trim());
}

/** One line: every run of whitespace that holds a line break becomes one space, and the ends are trimmed. */
export function oneLine(text: string): string {
  return text
    .split('\n')
    .map((piece) => piece.trim())
    .filter((piece) => piece !== '')
    .join(' ');
}
