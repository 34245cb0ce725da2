// A pre-screen for flow collections full of empty entries (`[,,,,…]`, `{a: [1,,,…]}`). Each empty entry is a
// parse error, and the YAML library builds an error object (stack trace included) for every one: a 1 MB line of
// commas took ~13 s to parse (bench/budget.mjs). Such a document is broken anyway, so past a limit it is skipped
// without parsing. Real manifests have no empty flow entries (YAML forbids them), so the limit never costs a
// finding on valid input.
import { Lexer } from 'yaml';

/** Empty flow entries tolerated before a file is skipped: well above what a hand-made typo produces. */
export const EMPTY_FLOW_ENTRY_LIMIT = 256;

/**
 * Counts empty flow entries: a `,` whose previous significant token is `,`, `[` or `{`. A linear character scan
 * first (commas inside quoted or block scalars may look the same); only text over the limit is confirmed with the
 * YAML lexer, which knows flow context. Both passes are linear in the text.
 */
export function tooManyEmptyFlowEntries(text: string, limit = EMPTY_FLOW_ENTRY_LIMIT): boolean {
  if (roughCount(text) <= limit) return false;
  let count = 0;
  let previous = '';
  for (const token of new Lexer().lex(text)) {
    if (isBlank(token)) continue;
    if (token === ',' && (previous === ',' || previous === '[' || previous === '{') && ++count > limit) return true;
    previous = token;
  }
  return false;
}

function roughCount(text: string): number {
  let count = 0;
  let previous = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? '';
    if (char === ' ' || char === '\t' || char === '\n' || char === '\r') continue;
    if (char === ',' && (previous === ',' || previous === '[' || previous === '{')) count++;
    previous = char;
  }
  return count;
}

/** Whitespace, line breaks and comments, which sit between flow entries without being one. */
function isBlank(token: string): boolean {
  const first = token[0];
  return first === ' ' || first === '\t' || first === '\n' || first === '\r' || first === '#';
}
