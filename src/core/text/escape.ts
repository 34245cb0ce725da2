// The one place untrusted text is made safe for where it is shown: a terminal, Markdown (reports, hovers,
// tooltips), a tree label. Strings from a target (probe output, stderr), a cluster (names, annotations,
// events), a kernel log or a file (paths, manifests) can carry escape sequences (OSC 0 retitles the window,
// OSC 8 forges links, CSI clears the screen), bidi overrides that make a line read differently from its bytes
// (CVE-2021-42574, "Trojan Source", https://trojansource.codes/) and Markdown that would render as links,
// images, HTML or tables. Every function is one linear pass per pattern (no backtracking).
//
// The webview needs no function here: it sets text with textContent only (webview/inspector/dom.ts).
import { longestRun } from '../arrays.ts';

/** What may stay: `multiline` keeps `\n` and `\t`; `single-line` escapes them too (one record per line). */
export type TerminalLayout = 'multiline' | 'single-line';

// C0 controls, DEL, C1 controls, U+061C (Arabic letter mark), U+200E/U+200F (LRM/RLM), U+2028/U+2029 (line and
// paragraph separators) and the bidi embeddings, overrides and isolates U+202A–U+202E, U+2066–U+2069
// (Unicode UAX #9, https://www.unicode.org/reports/tr9/).
const UNSAFE_MULTILINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_SINGLE_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_RUNS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g;
// CommonMark: "Any ASCII punctuation character may be backslash-escaped" and then stands for itself
// (https://spec.commonmark.org/0.31.2/#backslash-escapes): escaping all of them leaves no emphasis, link,
// image, autolink, HTML, heading, list, table or code span to form. `&`, `<` and `>` become entities
// instead, so no raw `<` is left even for a renderer that sees HTML before Markdown.
const ASCII_PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
const CARRIAGE_RETURNS = /\r/g;
const LINE_BREAKS = /\r?\n/g;

function escapeCharacter(character: string): string {
  const code = character.charCodeAt(0);
  return code < 0x20 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Terminal: every control and bidi character shown escaped, never blanked, so the user sees that something
 * was there. C0 as `\x1b`, the rest as `\u202e`, which is also a JSON escape of the same character: applied
 * to JSON output it keeps the document valid and its value unchanged (JSON.stringify escapes C0 but leaves
 * DEL, C1 and bidi characters raw).
 */
export function terminalSafe(text: string, layout: TerminalLayout = 'multiline'): string {
  return text.replace(layout === 'multiline' ? UNSAFE_MULTILINE : UNSAFE_SINGLE_LINE, escapeCharacter);
}

/** Whether `terminalSafe` would change `text` (for tests and fuzz properties). */
export function hasTerminalControls(text: string, layout: TerminalLayout = 'multiline'): boolean {
  const pattern = layout === 'multiline' ? UNSAFE_MULTILINE : UNSAFE_SINGLE_LINE;
  pattern.lastIndex = 0;
  const found = pattern.test(text);
  pattern.lastIndex = 0;
  return found;
}

/** Inline Markdown: one line, controls and bidi characters shown escaped, every ASCII punctuation literal. */
export function markdownText(text: string): string {
  return terminalSafe(text.replace(LINE_BREAKS, ' '), 'single-line').replace(ASCII_PUNCTUATION, markdownEscape);
}

const HTML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

function markdownEscape(character: string): string {
  return HTML_ENTITIES[character] ?? `\\${character}`;
}

/**
 * A fenced code block around untrusted lines. Only a line of as many backticks as the opening fence (or
 * more) closes it (https://spec.commonmark.org/0.31.2/#fenced-code-blocks), so the fence is longer than any
 * run of backticks in the text: no content line can end the block and be read as Markdown or HTML.
 */
export function markdownCodeBlock(text: string): string {
  const fence = '`'.repeat(Math.max(3, longestRun(text, '`') + 1));
  return `${fence}\n${terminalSafe(text.replace(CARRIAGE_RETURNS, ''))}\n${fence}`;
}

const MAX_LABEL = 160;

/**
 * A tree item's label or description (VS Code shows it as text): one line, controls and bidi characters as spaces, at most `max`
 * characters.
 */
export function plainLabel(text: string, max = MAX_LABEL): string {
  const flat = text.replace(UNSAFE_RUNS, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
