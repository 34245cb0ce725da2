// The findings a manifest gets from a live cluster (liveFindings.ts): stable ids, each with a page at
// docs/live/<id>.md. They are not lint rules (a file alone never triggers them), so they live beside the rule catalog,
// not in it; suppressions and SARIF treat their ids as they treat a rule's.
import { LIVE_RULES } from './liveRuleIds.ts';
import type { LiveRuleId } from './liveRuleIds.ts';

export interface LiveRuleMeta {
  readonly id: LiveRuleId;
  readonly title: string;
  readonly severity: string;
  readonly remedy: string;
}

export const LIVE_RULE_META: readonly LiveRuleMeta[] = [
  {
    id: LIVE_RULES.footprintOverLimit,
    title: 'What the pods really used does not fit this limit',
    severity: 'warning',
    remedy:
      'Apply "Set resources from what the pods used": request = limit = the peak true footprint with headroom, and the gpumem.io/gpu-memory declaration of the GPU peak.',
  },
  {
    id: LIVE_RULES.oomKills,
    title: 'The workload was OOM-killed in the window',
    severity: 'warning for memcg kills, information for global ones',
    remedy:
      'For memcg kills raise the limit above the observed peak; for global kills with the GPU signature reserve the true footprint with the request (a bigger limit would not have helped); for global kills without it, look at the node.',
  },
  {
    id: LIVE_RULES.drift,
    title: 'The cluster runs something other than this file',
    severity: 'information',
    remedy: 'Apply the file, or bring the file up to date with what runs; then the live findings judge what you will deploy.',
  },
];

export function liveRuleDocsPath(id: string): string {
  return `docs/live/${id}.md`;
}

/** Whether a finding's id is one of the live findings' (its page is under docs/live/, not docs/rules/). */
export function isLiveRule(id: string): boolean {
  return LIVE_RULE_META.some((meta) => meta.id === id);
}
