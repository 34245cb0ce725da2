// Offsets to 1-based lines and columns (UTF-16 code units, as editors and SARIF count them).
export class LineIndex {
  private readonly starts: number[];

  constructor(text: string) {
    const starts = [0];
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    this.starts = starts;
  }

  /** 0-based line of an offset. */
  lineOf(offset: number): number {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((this.starts[mid] ?? 0) <= offset) low = mid;
      else high = mid - 1;
    }
    return low;
  }

  /** 1-based line and column. */
  position(offset: number): { line: number; column: number } {
    const line = this.lineOf(offset);
    return { line: line + 1, column: offset - (this.starts[line] ?? 0) + 1 };
  }

  lineStart(line: number): number {
    return this.starts[line] ?? 0;
  }
}
