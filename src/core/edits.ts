// Text edits for quick fixes, computed on the original text so they keep its indentation,
// flow or block style and line endings.
import { isMap, isScalar } from 'yaml';
import type { Node, Pair, YAMLMap } from 'yaml';
import type { TextEdit } from './findings.ts';

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

function lineEnd(text: string, offset: number): number {
  const newline = text.indexOf('\n', offset);
  if (newline < 0) return text.length;
  return newline > 0 && text[newline - 1] === '\r' ? newline - 1 : newline;
}

function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

function columnOf(text: string, offset: number): number {
  return offset - lineStart(text, offset);
}

function indentOfLine(text: string, offset: number): string {
  const start = lineStart(text, offset);
  let end = start;
  while (text[end] === ' ' || text[end] === '\t') end++;
  return text.slice(start, end);
}

/** Removes one item from a sequence, with its `- ` indicator (block) or separating comma (flow). */
export function removeSequenceItem(text: string, item: Node): TextEdit | undefined {
  const range = item.range;
  if (!range) return undefined;
  const [start, valueEnd] = range;
  // Find the `-` indicator of a block sequence item.
  let dash = start - 1;
  while (dash >= 0 && (text[dash] === ' ' || text[dash] === '\t')) dash--;
  if (dash >= 0 && text[dash] === '-') {
    const from = lineStart(text, dash);
    const onlyIndentBefore = text.slice(from, dash).trim() === '';
    let to = lineEnd(text, Math.max(valueEnd - 1, start));
    to = text.indexOf('\n', to) < 0 ? text.length : text.indexOf('\n', to) + 1;
    return { start: onlyIndentBefore ? from : dash, end: to, newText: '' };
  }
  // Flow sequence: take the comma after the item, or else the one before it.
  let after = valueEnd;
  while (after < text.length && /[ \t]/.test(text[after] ?? '')) after++;
  if (text[after] === ',') {
    after++;
    while (after < text.length && /[ \t]/.test(text[after] ?? '')) after++;
    return { start, end: after, newText: '' };
  }
  let before = start - 1;
  while (before >= 0 && /[ \t]/.test(text[before] ?? '')) before--;
  if (text[before] === ',') return { start: before, end: valueEnd, newText: '' };
  return { start, end: valueEnd, newText: '' };
}

/** Replaces a scalar's text, keeping its quotes if it had any. */
export function replaceScalar(text: string, node: Node, value: string): TextEdit | undefined {
  if (!isScalar(node) || !node.range) return undefined;
  const [start, end] = node.range;
  const raw = text.slice(start, end);
  const quote = raw.startsWith('"') ? '"' : raw.startsWith("'") ? "'" : '';
  return { start, end, newText: `${quote}${value}${quote}` };
}

/**
 * Adds `key: value` to a mapping that holds the given pair's value (`limits:` → `limits: {…, memory: 32Gi}` or a new
 * indented line), creating the mapping when the pair's value is empty.
 */
export function addEntryToPairValue(text: string, parent: Pair, key: string, value: string, blockComment?: string): TextEdit | undefined {
  const current = parent.value as Node | null | undefined;
  if (isMap(current) && current.items.length > 0) return addEntryToMap(text, current, key, value, blockComment);
  if (isMap(current) && current.range) return { start: current.range[0], end: current.range[1], newText: `{${key}: ${value}}` };
  const keyNode = parent.key as Node | undefined;
  if (!keyNode?.range) return undefined;
  const block = `${eolOf(text)}${' '.repeat(columnOf(text, keyNode.range[0]) + 2)}${key}: ${value}${blockComment ? `  # ${blockComment}` : ''}`;
  // An explicit `null` or `~` is replaced; an empty value gets the block after the key's line.
  if (isScalar(current) && current.range && current.range[1] > current.range[0]) {
    return { start: current.range[0], end: current.range[1], newText: block };
  }
  const at = lineEnd(text, keyNode.range[1]);
  return { start: at, end: at, newText: block };
}

/** Adds `key: value` to a non-empty mapping; a block mapping also gets the optional trailing comment. */
export function addEntryToMap(text: string, map: YAMLMap, key: string, value: string, blockComment?: string): TextEdit | undefined {
  if (!map.range) return undefined;
  if (map.flow) {
    // range[1] is just past the `}`; searching from it would find the `}` of an enclosing flow mapping.
    const close = text.lastIndexOf('}', map.range[1] - 1);
    if (close < map.range[0]) return undefined;
    const inner = text.slice(map.range[0] + 1, close).trim();
    return { start: close, end: close, newText: `${inner ? ', ' : ''}${key}: ${value}` };
  }
  const first = map.items[0];
  const last = map.items[map.items.length - 1];
  const firstKey = first?.key as Node | undefined;
  if (!firstKey?.range || !last) return undefined;
  const indent = ' '.repeat(columnOf(text, firstKey.range[0]));
  const lastNode = (last.value ?? last.key) as Node | undefined;
  const lastEnd = lastNode?.range ? lastNode.range[1] : firstKey.range[1];
  const at = lineEnd(text, Math.max(lastEnd - 1, firstKey.range[0]));
  return { start: at, end: at, newText: `${eolOf(text)}${indent}${key}: ${value}${blockComment ? `  # ${blockComment}` : ''}` };
}

/** Inserts a `key:` block with one entry into a block mapping: `resources:` gains `limits:\n  memory: 32Gi`. */
export function addNestedEntry(text: string, map: YAMLMap, key: string, childKey: string, childValue: string): TextEdit | undefined {
  if (map.flow) return addEntryToMap(text, map, key, `{${childKey}: ${childValue}}`);
  const first = map.items[0]?.key as Node | undefined;
  if (!first?.range) return undefined;
  const indent = ' '.repeat(columnOf(text, first.range[0]) + 2);
  const edit = addEntryToMap(text, map, key, `${eolOf(text)}${indent}${childKey}: ${childValue}`);
  // addEntryToMap writes `key: value`; with the value on the next line that would leave a trailing space.
  return edit && { ...edit, newText: edit.newText.replace(`${key}: ${eolOf(text)}`, `${key}:${eolOf(text)}`) };
}

/** Puts a `# …` comment on its own line above the line holding `offset`, at that line's indentation. */
export function insertCommentAbove(text: string, offset: number, comment: string): TextEdit {
  const start = lineStart(text, offset);
  const indent = indentOfLine(text, offset);
  return { start, end: start, newText: `${indent}# ${comment}${eolOf(text)}` };
}
