// A metav1.LabelSelector (matchLabels and matchExpressions with In, NotIn, Exists, DoesNotExist) against a pod's
// labels, as the API server evaluates it (k8s.io/apimachinery pkg/apis/meta/v1/helpers.go LabelSelectorAsSelector).
import { asArray, asRecord, asString, path, stringMap } from '../kube/json.ts';

export type SelectorMatch =
  | { readonly kind: 'match' }
  | { readonly kind: 'no-match'; readonly reason: string }
  | { readonly kind: 'invalid'; readonly reason: string };

export function matchSelector(selector: unknown, labels: ReadonlyMap<string, string>): SelectorMatch {
  const record = asRecord(selector);
  // A workload without a selector (a bare Job before defaulting) selects its pods by ownerReferences only.
  if (!record) return { kind: 'match' };
  for (const [key, value] of stringMap(record['matchLabels'])) {
    if (labels.get(key) !== value) return { kind: 'no-match', reason: `label ${key}=${value} missing` };
  }
  for (const expression of asArray(record['matchExpressions'])) {
    const key = asString(path(expression, 'key'));
    const operator = asString(path(expression, 'operator'));
    const values = asArray(path(expression, 'values')).filter((v): v is string => typeof v === 'string');
    if (!key || !operator) return { kind: 'invalid', reason: 'a matchExpressions entry without key or operator' };
    const has = labels.has(key);
    const value = labels.get(key);
    if (operator === 'In' && !(value !== undefined && values.includes(value)))
      return { kind: 'no-match', reason: `${key} not in (${values.join(', ')})` };
    if (operator === 'NotIn' && value !== undefined && values.includes(value))
      return { kind: 'no-match', reason: `${key} in (${values.join(', ')})` };
    if (operator === 'Exists' && !has) return { kind: 'no-match', reason: `label ${key} missing` };
    if (operator === 'DoesNotExist' && has) return { kind: 'no-match', reason: `label ${key} present` };
    if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(operator)) return { kind: 'invalid', reason: `unknown operator ${operator}` };
  }
  return { kind: 'match' };
}
