// Reading one YAML node as the pod model wants it: a value with its span, a boolean as Kubernetes reads it,
// a description of a node of the wrong type for shape problems.
import { isMap, isScalar, isSeq } from 'yaml';
import type { Node, Pair, YAMLMap, YAMLSeq } from 'yaml';
import type { Span } from '../findings.ts';
import { isTemplated } from './source.ts';
import { keySpan, spanOf } from './yamlTree.ts';
import type { YamlTree } from './yamlTree.ts';

export interface Located<T> {
  readonly value: T;
  readonly span: Span;
}

/** Reads a node that should be a mapping (or a list), recording a shape problem when it is something else. */
export type ExpectMap = (node: Node | undefined, what: string) => YAMLMap | undefined;
export type ExpectSeq = (node: Node | undefined, what: string) => YAMLSeq | undefined;

export function located(tree: YamlTree, node: Node | undefined): Located<string> | undefined {
  const text = tree.text(node);
  const span = spanOf(node);
  return text !== undefined && span ? { value: text, span } : undefined;
}

export function locatedBool(tree: YamlTree, pair: Pair | undefined): Located<boolean> | undefined {
  if (!pair) return undefined;
  const scalar = tree.scalar(pair.value);
  const span = spanOf(pair.value) ?? keySpan(pair);
  if (!scalar || !span) return undefined;
  const value = scalar.value === true || (typeof scalar.value === 'string' && /^(true|True|TRUE)$/.test(scalar.value));
  return { value, span };
}

export function isNullScalar(node: Node): boolean {
  return isScalar(node) && (node.value === null || node.value === undefined);
}

export function isTemplatedScalar(node: Node): boolean {
  return isScalar(node) && typeof node.value === 'string' && isTemplated(node.value);
}

export function describeNode(node: Node | undefined): string {
  if (node === undefined) return 'nothing';
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) {
    if (node.value === null) return 'null';
    if (typeof node.value === 'number') return `the number ${String(node.value)}`;
    if (typeof node.value === 'boolean') return `the boolean ${String(node.value)}`;
    return `the string "${truncate(String(node.value), 40)}"`;
  }
  return 'an unsupported node';
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
