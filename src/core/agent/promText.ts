// A reader of the Prometheus text exposition format (0.0.4), for what gpumem reads back from agents: the fleet view
// reads each agent's /metrics through the API server's pod proxy, and the tests round-trip the agent's own output.
// One pass over the text, no regex that can backtrack: cost is linear in its length. Bounded: at most `maxSamples`
// samples and `maxLineLength` characters a line; a line that does not parse is a problem with its number, and the
// rest is still read. Values: decimal floats; NaN, +Inf and -Inf (which the agent never writes) are skipped as
// problems, so no caller computes with them.
// Format: https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format

export interface ParsedSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
  readonly timestampMs?: number;
}

export interface ParsedExposition {
  readonly samples: readonly ParsedSample[];
  /** `# TYPE` lines: family name → type. */
  readonly types: ReadonlyMap<string, string>;
  readonly problems: readonly string[];
  /** True when maxSamples stopped the read. */
  readonly truncated: boolean;
}

export interface PromTextLimits {
  readonly maxSamples?: number;
  readonly maxLineLength?: number;
  readonly maxProblems?: number;
}

const NAME_START = /[A-Za-z_:]/;
const NAME_CHAR = /[A-Za-z0-9_:]/;
const LABEL_START = /[A-Za-z_]/;
const LABEL_CHAR = /[A-Za-z0-9_]/;

class LineReader {
  pos = 0;
  readonly line: string;
  constructor(line: string) {
    this.line = line;
  }
  peek(): string {
    return this.line[this.pos] ?? '';
  }
  skipSpaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
  }
  name(start: RegExp, rest: RegExp): string | undefined {
    const from = this.pos;
    if (!start.test(this.peek())) return undefined;
    this.pos++;
    while (this.pos < this.line.length && rest.test(this.peek())) this.pos++;
    return this.line.slice(from, this.pos);
  }
  /** A quoted label value with \\, \" and \n escapes; undefined when unterminated or badly escaped. */
  quoted(): string | undefined {
    if (this.peek() !== '"') return undefined;
    this.pos++;
    let out = '';
    while (this.pos < this.line.length) {
      const char = this.line[this.pos++] ?? '';
      if (char === '"') return out;
      if (char === '\\') {
        const next = this.line[this.pos++];
        if (next === 'n') out += '\n';
        else if (next === '\\' || next === '"') out += next;
        else return undefined;
      } else out += char;
    }
    return undefined;
  }
  word(): string {
    const from = this.pos;
    while (this.pos < this.line.length && this.peek() !== ' ' && this.peek() !== '\t') this.pos++;
    return this.line.slice(from, this.pos);
  }
}

export function parseFloatValue(text: string): number | undefined {
  if (text === 'NaN') return NaN;
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text.length > 64 || !/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text)) return undefined;
  return Number(text);
}

function parseSampleLine(line: string): ParsedSample | string {
  const reader = new LineReader(line);
  const name = reader.name(NAME_START, NAME_CHAR);
  if (!name) return 'no metric name';
  const labels: Record<string, string> = {};
  reader.skipSpaces();
  if (reader.peek() === '{') {
    reader.pos++;
    for (;;) {
      reader.skipSpaces();
      if (reader.peek() === '}') {
        reader.pos++;
        break;
      }
      const label = reader.name(LABEL_START, LABEL_CHAR);
      if (!label) return 'bad label name';
      reader.skipSpaces();
      if (reader.peek() !== '=') return `no = after label ${label}`;
      reader.pos++;
      reader.skipSpaces();
      const value = reader.quoted();
      if (value === undefined) return `bad value of label ${label}`;
      if (Object.hasOwn(labels, label)) return `label ${label} twice`;
      labels[label] = value;
      reader.skipSpaces();
      if (reader.peek() === ',') reader.pos++;
      else if (reader.peek() !== '}') return 'expected , or } in the labels';
    }
  }
  reader.skipSpaces();
  const value = parseFloatValue(reader.word());
  if (value === undefined) return 'bad sample value';
  if (!Number.isFinite(value)) return 'a NaN or infinite value: skipped';
  reader.skipSpaces();
  const stamp = reader.word();
  reader.skipSpaces();
  if (reader.pos < line.length) return 'text after the sample';
  if (stamp === '') return { name, labels, value };
  if (!/^-?\d{1,16}$/.test(stamp)) return 'bad timestamp';
  return { name, labels, value, timestampMs: Number(stamp) };
}

export function parsePromText(text: string, limits: PromTextLimits = {}): ParsedExposition {
  const maxSamples = limits.maxSamples ?? 1_000_000;
  const maxLineLength = limits.maxLineLength ?? 64 * 1024;
  const maxProblems = limits.maxProblems ?? 20;
  const samples: ParsedSample[] = [];
  const types = new Map<string, string>();
  const problems: string[] = [];
  let problemCount = 0;
  const problem = (lineNumber: number, what: string): void => {
    problemCount++;
    if (problems.length < maxProblems) problems.push(`line ${lineNumber}: ${what}`);
  };
  let truncated = false;
  let start = 0;
  let lineNumber = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    lineNumber++;
    const raw = text.slice(start, end);
    start = end + 1;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') {
      if (end === text.length) break;
      continue;
    }
    if (line.length > maxLineLength) {
      problem(lineNumber, `longer than ${maxLineLength} characters: skipped`);
      continue;
    }
    if (line.startsWith('#')) {
      const parts = line.split(/[ \t]+/, 4);
      if (parts[1] === 'TYPE' && parts[2] && parts[3]) types.set(parts[2], parts[3].trim());
      continue;
    }
    if (samples.length >= maxSamples) {
      truncated = true;
      break;
    }
    const parsed = parseSampleLine(line);
    if (typeof parsed === 'string') problem(lineNumber, parsed);
    else samples.push(parsed);
  }
  if (problemCount > problems.length) problems.push(`${problemCount - problems.length} more lines did not parse`);
  return { samples, types, problems, truncated };
}
