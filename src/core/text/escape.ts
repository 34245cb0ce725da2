// The one place untrusted text is made safe for where it is shown: a terminal, Markdown (reports, hovers,
// tooltips), a tree label. Strings from a target (probe output, stderr), a cluster (names, annotations,
// events), a kernel log or a file (paths, manifests) can carry escape sequences (OSC 0 retitles the window,
// OSC 8 forges links, CSI clears the screen), bidi overrides that make a line read differently from its bytes
// (CVE-2021-42574, "Trojan Source", https://trojansource.codes/) and Markdown that would render as links,
// images, HTML or tables. Every function is one linear pass per pattern (no backtracking).
//
// The webview needs no function here: it sets text with textContent only (webview/shared/dom.ts).
import { longestRun } from '../arrays.ts';

/** What may stay: `multiline` keeps `\n` and `\t`; `single-line` escapes them too (one record per line). */
export type TerminalLayout = 'multiline' | 'single-line';

// C0 controls, DEL, C1 controls, U+061C (Arabic letter mark), U+200E/U+200F (LRM/RLM), U+2028/U+2029 (line and
// paragraph separators) and the bidi embeddings, overrides and isolates U+202A–U+202E, U+2066–U+2069
// (Unicode UAX #9, https://www.unicode.org/reports/tr9/).
const UNSAFE_MULTILINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_SINGLE_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_RUNS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g;
// Inline Markdown escapes only what can start markup, so a report reads "1.5 GiB", not "1\.5 GiB". CommonMark
// lets any ASCII punctuation be backslash-escaped (https://spec.commonmark.org/0.31.2/#backslash-escapes); the
// ones that matter inside a line: `\` itself, `*` and `_` (emphasis), `[` and `]` (links, images — `!` is inert
// without `[`, link reference definitions), backticks (code spans), `|` (GFM table cells), `~` (GFM
// strikethrough and `~~~` fences), `#` (ATX headings) and `$` (the math VS Code's preview renders). `<` and `>`
// become entities, so no raw `<` is left for HTML or autolinks even for a renderer that sees HTML first, and `&`
// becomes `&amp;` where it could start an entity or numeric reference (https://spec.commonmark.org/0.31.2/#entity-and-numeric-character-references).
// GFM's autolink extension (and the linkify of VS Code's hovers and preview) turns a bare `scheme://` or `www.`
// into a link: the `:` before `//` and the `.` after `www` are escaped, which breaks the match and shows as is.
const INLINE_MARKUP = /[\\`*_[\]<>#|~$]|&(?=#|[A-Za-z0-9]+;)|:(?=\/\/)|(?<=[Ww]{3})\./g;
// At the start of the line (markdownText is always one line, but it may be one on its own): `-`, `+` and `=`
// (bullet lists, thematic breaks, setext underlines), digits then `.` or `)` and a space (ordered lists), and
// leading spaces (indented code; a space is made an entity, which stays text). `#`, `>`, `*`, `_`, backticks
// and `~` are escaped everywhere already. A trailing space becomes an entity too: inside `**…**` it would stop
// the closing delimiter from closing (https://spec.commonmark.org/0.31.2/#right-flanking-delimiter-run).
const BLOCK_START = /^(?: |[-+=]|\d+[.)](?= |$))/;
const TRAILING_SPACE = / $/;
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

/**
 * Inline Markdown: one line, controls and bidi characters shown escaped, and every character that could start
 * markup (a link, image, HTML, emphasis, code span, table cell, heading, list) escaped, so a CommonMark
 * renderer shows the text as it is, in a paragraph, a table cell, a heading or a list item.
 */
export function markdownText(text: string): string {
  const inline = terminalSafe(text.replace(LINE_BREAKS, ' '), 'single-line').replace(INLINE_MARKUP, markdownEscape);
  return inline.replace(BLOCK_START, escapeBlockStart).replace(TRAILING_SPACE, '&#32;');
}

const HTML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

function markdownEscape(character: string): string {
  return HTML_ENTITIES[character] ?? `\\${character}`;
}

function escapeBlockStart(start: string): string {
  if (start === ' ') return '&#32;';
  if (start.length === 1) return `\\${start}`;
  // An ordered-list marker: the digits stay, the `.` or `)` after them is escaped.
  return `${start.slice(0, -1)}\\${start.slice(-1)}`;
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

/**
 * A CSV cell (RFC 4180): quoted when it holds a comma, quote or line break, quotes doubled; a cell a spreadsheet would
 * run as a formula (`=`, `+`, `-`, `@`, tab, carriage return first) gets a leading `'` (OWASP's CSV injection advice).
 */
export function csvCell(text: string): string {
  const defused = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(defused) ? `"${defused.replaceAll('"', '""')}"` : defused;
}
