// A kernel log's physical lines: split on newlines (CRLF too), each cut at MAX_LINE characters, and the probe's
// `source=<dmesg|journalctl|path>` first line taken out (its place kept, so line numbers stay the text's).
// Linear in the text.

export const MAX_LINE = 64 * 1024;

export interface PhysicalLines {
  readonly lines: readonly string[];
  readonly source: string | undefined;
  /** Lines in the text, the source line included. */
  readonly lineCount: number;
  /** Lines cut at MAX_LINE. */
  readonly longLines: number;
}

export function physicalLines(text: string): PhysicalLines {
  const physical: string[] = [];
  let source: string | undefined;
  let lineCount = 0;
  let longLines = 0;
  let start = 0;
  const length = text.length;
  while (start <= length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = length;
    if (start === length && end === length) break;
    lineCount++;
    let raw = text.slice(start, end);
    start = end + 1;
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    if (lineCount === 1) {
      const probeSource = /^source=(\S[^\n]*)$/.exec(raw);
      if (probeSource) {
        source = probeSource[1];
        physical.push('');
        continue;
      }
    }
    if (raw.length > MAX_LINE) {
      longLines++;
      raw = raw.slice(0, MAX_LINE);
    }
    physical.push(raw);
  }
  return { lines: physical, source, lineCount, longLines };
}
