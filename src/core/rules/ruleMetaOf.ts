import { ruleMeta } from './catalog.ts';
import type { RuleMeta } from './ruleMeta.ts';

/** The catalog entry of a rule that must exist; a typo in a rule id fails at load, not in a user's editor. */
export function ruleMetaOf(id: string): RuleMeta {
  const meta = ruleMeta(id);
  if (!meta) throw new Error(`unknown rule id ${id}`);
  return meta;
}
