// The one sanitiser for text that reaches a terminal. Strings from a target (probe output, stderr), a cluster
// (names, annotations, events), a kernel log or a file (paths, manifests, kubelet config) can carry escape
// sequences (OSC 0 retitles the window, OSC 8 forges links, CSI clears the screen) and bidi overrides that
// make a line read differently from its bytes (CVE-2021-42574, "Trojan Source"). They are shown escaped,
// never blanked, so the user sees that something was there.
//
// Escaped: C0 controls (as `\x1b`), DEL, C1 controls, U+061C, U+200E/U+200F, U+2028/U+2029 and the bidi
// embeddings, overrides and isolates U+202A–U+202E, U+2066–U+2069 (as `\u202e`). `\n` and `\t` are kept
// unless the caller needs a single line. Everything but C0 uses the `\uXXXX` form, which is also a JSON
// escape of the same character: applied to JSON output it keeps the document valid and its value unchanged
// (JSON.stringify already escapes C0 but leaves DEL, C1 and bidi characters raw).

/** What may stay: `multiline` keeps `\n` and `\t`; `single-line` escapes them too (one record per line). */
export type TerminalLayout = 'multiline' | 'single-line';

const UNSAFE_MULTILINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_SINGLE_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeCharacter(character: string): string {
  const code = character.charCodeAt(0);
  return code < 0x20 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every terminal control and bidi character shown escaped. Linear: one pass, no backtracking. */
export function terminalSafe(text: string, layout: TerminalLayout = 'multiline'): string {
  return text.replace(layout === 'multiline' ? UNSAFE_MULTILINE : UNSAFE_SINGLE_LINE, escapeCharacter);
}

/** Whether `text` would be changed by `terminalSafe` (for tests and fuzz properties). */
export function hasTerminalControls(text: string, layout: TerminalLayout = 'multiline'): boolean {
  const pattern = layout === 'multiline' ? UNSAFE_MULTILINE : UNSAFE_SINGLE_LINE;
  pattern.lastIndex = 0;
  const found = pattern.test(text);
  pattern.lastIndex = 0;
  return found;
}
