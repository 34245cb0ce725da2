// Every id a user can configure, in the order `gpumem rules` and Show Rule Documentation… list them: the lint rules,
// then the findings a live cluster adds (core/live/liveRules.ts). One list, so the CLI and the editor name the same.
import type { Severity } from '../findings.ts';
import { LIVE_RULE_META } from '../live/liveRules.ts';
import { RULES } from './catalog.ts';

export interface RuleListEntry {
  readonly id: string;
  readonly defaultSeverity: Severity;
  /** The title with what qualifies its severity: "(off until configured)", "(information for global kills)". */
  readonly label: string;
  /** `lint`: a rule of the file alone; `live`: a finding only `lint --live` and live mode make. */
  readonly source: 'lint' | 'live';
}

export function ruleList(): RuleListEntry[] {
  return [
    ...RULES.map((rule) => ({
      id: rule.id,
      defaultSeverity: rule.defaultSeverity,
      label: `${rule.title}${rule.offByDefault ? ' (off until configured)' : ''}`,
      source: 'lint' as const,
    })),
    ...LIVE_RULE_META.map((rule) => ({
      id: rule.id,
      defaultSeverity: rule.defaultSeverity,
      label: `${rule.title}${rule.severityNote ? ` (${rule.severityNote})` : ''}`,
      source: 'live' as const,
    })),
  ];
}
