// Kernel logs as users paste them into tickets: indented as a block (a Markdown code block, an e-mail
// quote), and with long records re-wrapped onto the next line with leading spaces. This undoes both,
// in two linear passes, before the kernel log parser reads the lines:
// - the indentation every non-empty line shares is removed;
// - a line that starts with (more) whitespace and is not a call-trace frame continues the line before.
//   Hard wraps (a terminal or ticket cutting at a fixed width, mid-word) are told from word wraps (cut
//   at a space, which the wrap ate) by their length: when two or more continued lines have exactly the
//   longest continued length, the cut is mid-word and the pieces join without a space.
// Stack frames (` dump_stack_lvl+0x71/0x90`, ` ? handle_mm_fault+0x536/0x850`, ` <TASK>`) start with a
// space in `dmesg -t` output too, and are never joined.

export interface LogicalLine {
  /** 1-based number of the line's first physical line. */
  readonly lineNo: number;
  readonly text: string;
}

export interface UnwrappedLog {
  readonly lines: readonly LogicalLine[];
  /** How many physical lines were joined onto the line before. */
  readonly joined: number;
  /** The indentation removed from every line, in characters. */
  readonly indent: number;
}

function leadingBlanks(line: string): number {
  let i = 0;
  while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++;
  return i;
}

function isStackFrame(trimmed: string): boolean {
  if (trimmed.startsWith('<') && trimmed.endsWith('>')) return true; // <TASK>, </TASK>, <IRQ>
  const body = trimmed.startsWith('? ') ? trimmed.slice(2) : trimmed;
  const plus = body.indexOf('+0x');
  return plus > 0 && !body.slice(0, plus).includes(' ') && body.indexOf('/0x', plus) > plus;
}

/** `physical`: the log's lines without their line ends; empty lines are dropped from the result. */
export function unwrapPastedLog(physical: readonly string[]): UnwrappedLog {
  let indent = Infinity;
  for (const line of physical) {
    if (line.trim() === '') continue;
    indent = Math.min(indent, leadingBlanks(line));
  }
  if (!Number.isFinite(indent)) indent = 0;
  const dedented = physical.map((line) => line.slice(Math.min(indent, leadingBlanks(line))));
  const continues = dedented.map(
    (line, i) => i > 0 && leadingBlanks(line) > 0 && line.trim() !== '' && !isStackFrame(line.trim()) && dedented[i - 1]?.trim() !== '',
  );
  // The width of a hard wrap: the longest line that another continues, if it recurs.
  let longest = 0;
  let atLongest = 0;
  for (let i = 0; i + 1 < dedented.length; i++) {
    if (!continues[i + 1]) continue;
    const length = (dedented[i] ?? '').length;
    if (length > longest) {
      longest = length;
      atLongest = 1;
    } else if (length === longest) atLongest++;
  }
  const hardWrapWidth = atLongest >= 2 ? longest : -1;
  const lines: LogicalLine[] = [];
  let joined = 0;
  let pending: { lineNo: number; parts: string[]; lastLength: number } | undefined;
  dedented.forEach((line, i) => {
    if (continues[i] && pending) {
      pending.parts.push(pending.lastLength === hardWrapWidth ? line.trim() : ` ${line.trim()}`);
      pending.lastLength = line.length;
      joined++;
      return;
    }
    if (pending) lines.push({ lineNo: pending.lineNo, text: pending.parts.join('') });
    pending = line === '' ? undefined : { lineNo: i + 1, parts: [line], lastLength: line.length };
  });
  if (pending) lines.push({ lineNo: pending.lineNo, text: pending.parts.join('') });
  return { lines, joined, indent };
}
