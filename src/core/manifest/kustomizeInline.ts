// The inline patches of a kustomization (`patches: [{patch: |- …}]`, `patchesStrategicMerge: [|- …]`): strings that
// hold a patch, linted as one (judged for what it sets). A literal block scalar keeps its lines, so each offset in the
// patch maps back to the kustomization's text; other scalar styles (folded, quoted) map to the scalar's start.
import type { Node } from 'yaml';
import { isScalar } from 'yaml';
import { minOf } from '../arrays.ts';
import type { PatchField, PatchTarget } from './kustomization.ts';
import type { YamlTree } from './yamlTree.ts';

export interface InlinePatch {
  readonly text: string;
  readonly field: PatchField;
  /** The entry's `target:` kind and name, which a JSON patch's operations are wrapped in. */
  readonly target?: PatchTarget;
  /** An offset in `text` → the offset in the kustomization's text. */
  readonly toFile: (offset: number) => number;
}

const MAX_INLINE_PATCHES = 1000;

/** A kustomization (or a component): kustomize's own kinds, which hold patches but no workload. */
export function isKustomizationKind(kind: string, apiVersion: string | undefined): boolean {
  return (kind === 'Kustomization' || kind === 'Component') && (apiVersion ?? '').startsWith('kustomize.config.k8s.io/');
}

export function inlinePatches(tree: YamlTree, root: Node, source: string): InlinePatch[] {
  const out: InlinePatch[] = [];
  for (const field of ['patchesStrategicMerge', 'patches', 'patchesJson6902'] as const) {
    for (const item of tree.items(tree.get(root, field))) {
      if (out.length >= MAX_INLINE_PATCHES) return out;
      const node = field === 'patchesStrategicMerge' ? item : tree.get(item, 'patch');
      if (!isScalar(node) || typeof node.value !== 'string' || !node.value.includes('\n')) continue;
      const target = field === 'patchesStrategicMerge' ? undefined : targetOf(tree, tree.get(item, 'target'));
      out.push({ text: node.value, field, toFile: mapperOf(node, source), ...(target ? { target } : {}) });
    }
  }
  return out;
}

function targetOf(tree: YamlTree, node: Node | undefined): PatchTarget | undefined {
  const kind = tree.text(tree.get(node, 'kind'));
  const name = tree.text(tree.get(node, 'name'));
  if (kind === undefined && name === undefined) return undefined;
  return { ...(kind !== undefined ? { kind: kind.slice(0, 253) } : {}), ...(name !== undefined ? { name: name.slice(0, 253) } : {}) };
}

/**
 * Offsets of a literal block scalar's value back into the source: the value's line k is source line k after the
 * header, less the block's indentation. Checked by rebuilding the value that way; any other style, or a value the
 * rebuild does not give back, maps every offset to the scalar's start.
 */
function mapperOf(node: { readonly type?: string; readonly range?: readonly number[] | null; readonly value: unknown }, source: string) {
  const start = node.range?.[0] ?? 0;
  const fallback = () => start;
  if (node.type !== 'BLOCK_LITERAL' || !node.range) return fallback;
  const raw = source.slice(start, node.range[1]);
  const headerEnd = raw.indexOf('\n');
  if (headerEnd < 0) return fallback;
  const lines = raw.slice(headerEnd + 1).split('\n');
  const indent = minOf(
    lines.filter((line) => line.trim() !== '').map((line) => line.length - line.trimStart().length),
    Number.POSITIVE_INFINITY,
  );
  if (!Number.isFinite(indent)) return fallback;
  // Where each line starts in the source and in the value, for a binary search per offset.
  const sourceStarts: number[] = [];
  const valueStarts: number[] = [];
  let inSource = start + headerEnd + 1;
  let inValue = 0;
  for (const line of lines) {
    sourceStarts.push(inSource);
    valueStarts.push(inValue);
    inSource += line.length + 1;
    inValue += Math.max(0, line.length - indent) + 1;
  }
  const rebuilt = lines.map((line) => line.slice(indent)).join('\n');
  if (!rebuilt.startsWith(withoutTrailingNewlines(node.value as string))) return fallback;
  return (offset: number): number => {
    let low = 0;
    let high = valueStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((valueStarts[middle] ?? 0) <= offset) low = middle;
      else high = middle - 1;
    }
    return (sourceStarts[low] ?? start) + indent + (offset - (valueStarts[low] ?? 0));
  };
}

function withoutTrailingNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === '\n') end--;
  return text.slice(0, end);
}
