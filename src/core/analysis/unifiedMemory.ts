// Is this pod headed for a node whose GPU memory is ordinary system RAM (AMD APUs, NVIDIA GB10)?
// Evidence comes from the pod template: an explicit annotation, nodeSelector, or required node affinity.
import { ANNOTATIONS } from '../config.ts';
import type { NodeLabelRule } from '../config.ts';
import type { Span } from '../findings.ts';
import type { PodModel } from '../manifest/podModel.ts';
import { spanOf } from '../manifest/yamlTree.ts';

export type UnifiedMemoryVerdict =
  | { readonly kind: 'unified'; readonly evidence: string; readonly span: Span }
  | { readonly kind: 'not-unified'; readonly evidence: string | undefined };

export function detectUnifiedMemory(pod: PodModel, rules: readonly NodeLabelRule[]): UnifiedMemoryVerdict {
  const annotation = pod.annotations.get(ANNOTATIONS.unifiedMemory);
  if (annotation) {
    const value = annotation.value.trim().toLowerCase();
    if (value === 'true') return { kind: 'unified', evidence: `annotation ${ANNOTATIONS.unifiedMemory}: "true"`, span: annotation.span };
    if (value === 'false') return { kind: 'not-unified', evidence: `annotation ${ANNOTATIONS.unifiedMemory}: "false"` };
  }
  const { tree, spec } = pod;
  for (const { key, pair } of tree.entries(tree.get(spec, 'nodeSelector'))) {
    const value = tree.text(pair.value) ?? '';
    const rule = matchingRule(rules, key, [value]);
    if (rule)
      return {
        kind: 'unified',
        evidence: `nodeSelector ${key}=${value}${rule.description ? ` (${rule.description})` : ''}`,
        span: spanOf(pair.value) ?? spanOf(pair.key) ?? { start: 0, end: 0 },
      };
  }
  const terms = tree.path(spec, 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms');
  for (const term of tree.items(terms)) {
    for (const expression of tree.items(tree.get(term, 'matchExpressions'))) {
      const key = tree.text(tree.get(expression, 'key'));
      const operator = tree.text(tree.get(expression, 'operator'));
      if (key === undefined) continue;
      const valuesNode = tree.get(expression, 'values');
      const values = tree.items(valuesNode).map((v) => tree.text(v) ?? '');
      let rule: NodeLabelRule | undefined;
      if (operator === 'In') rule = matchingRule(rules, key, values);
      else if (operator === 'Exists') rule = rules.find((candidate) => candidate.key === key && !candidate.values && !candidate.pattern);
      if (rule) {
        const span = spanOf(valuesNode) ?? spanOf(tree.get(expression, 'key')) ?? { start: 0, end: 0 };
        return {
          kind: 'unified',
          evidence:
            `required node affinity ${key} ${operator} ${values.join(', ')}${rule.description ? ` (${rule.description})` : ''}`.trimEnd(),
          span,
        };
      }
    }
  }
  return { kind: 'not-unified', evidence: undefined };
}

const compiled = new Map<string, RegExp | null>();

/** The first rule whose key matches and that accepts one of the values (exact or by pattern). Also used for live node labels. */
export function matchingRule(rules: readonly NodeLabelRule[], key: string, values: readonly string[]): NodeLabelRule | undefined {
  return rules.find((rule) => {
    if (rule.key !== key) return false;
    if (!rule.values && !rule.pattern) return true;
    return values.some((value) => (rule.values?.includes(value) ?? false) || matchesPattern(rule.pattern, value));
  });
}

/**
 * A label value is at most 63 characters (Kubernetes "Labels and Selectors", syntax and character set), so a
 * longer nodeSelector value can match no node. Bounding it also bounds the backtracking of configured patterns
 * such as `Radeon.*(8060S|…)`, which is quadratic in the value's length (a 300 KB value stalled the editor).
 */
export const LABEL_VALUE_MAX_LENGTH = 63;

function matchesPattern(pattern: string | undefined, value: string): boolean {
  if (!pattern || value.length > LABEL_VALUE_MAX_LENGTH) return false;
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    try {
      regex = new RegExp(pattern, 'i');
    } catch {
      regex = null;
    }
    compiled.set(pattern, regex);
  }
  return regex !== null && regex.test(value);
}
