// The findings a manifest gets from a live cluster (liveFindings.ts): stable ids, each with a page at
// docs/live/<id>.md. They are not lint rules (a file alone never triggers them), so they live beside the rule catalog,
// not in it; suppressions and SARIF treat their ids as they treat a rule's.
import type { Severity } from '../findings.ts';
import { LIVE_RULES } from './liveRuleIds.ts';
import type { LiveRuleId } from './liveRuleIds.ts';

export interface LiveRuleMeta {
  readonly id: LiveRuleId;
  readonly title: string;
  /** The severity a finding gets unless the settings change it (the highest, where it depends on the cause). */
  readonly defaultSeverity: Severity;
  /** When the severity depends on what was observed, how. */
  readonly severityNote?: string;
  /** One sentence: what the finding says and why it matters. */
  readonly summary: string;
  readonly remedy: string;
}

export const LIVE_RULE_META: readonly LiveRuleMeta[] = [
  {
    id: LIVE_RULES.footprintOverLimit,
    title: 'What the pods really used does not fit this limit',
    defaultSeverity: 'warning',
    summary:
      "The pods' observed peak true footprint (cgroup plus GPU memory in RAM), with headroom, is above the manifest's memory limit, or its request on unified-memory nodes: the next peak is a kill.",
    remedy:
      'Apply "Set resources from what the pods used": request = limit = the peak true footprint with headroom, and the gpumem.io/gpu-memory declaration of the GPU peak.',
  },
  {
    id: LIVE_RULES.oomKills,
    title: 'The workload was OOM-killed in the window',
    defaultSeverity: 'warning',
    severityNote: 'information for global kills',
    summary:
      "The workload's pods were OOM-killed in the window, with each kill's cause (memcg, or global with or without the GPU signature) and what would have prevented it.",
    remedy:
      'For memcg kills raise the limit above the observed peak; for global kills with the GPU signature reserve the true footprint with the request (a bigger limit would not have helped); for global kills without it, look at the node.',
  },
  {
    id: LIVE_RULES.drift,
    title: 'The cluster runs something other than this file',
    defaultSeverity: 'info',
    summary:
      "The live object's GPU resources, memory request or limit, or HAMi variables differ from the file's, so the live findings judge what runs, not what this file would deploy.",
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
