// `gpumem rules [--format text|json]`: the rule catalog, then the findings `gpumem lint --live` adds.
import { maxOf } from '../core/arrays.ts';
import { LIVE_RULE_META, liveRuleDocsPath } from '../core/live/liveRules.ts';
import { RULES } from '../core/rules/catalog.ts';
import { ruleList } from '../core/rules/ruleList.ts';
import type { RuleListEntry } from '../core/rules/ruleList.ts';
import { parseArgs, UsageError } from './args.ts';
import type { CliIo } from './io.ts';

export const RULES_USAGE = `Usage: gpumem rules [--format text|json]

Lists the lint rules, then the findings that lint --live adds from a cluster: id, default severity and title
(text), or the whole catalog with summaries and remedies (json; live findings carry "live": true). Each rule's
page is docs/rules/<id>.md, each live finding's docs/live/<id>.md. Both kinds of id are accepted in --config.

Exit status: 0, or 2 on usage errors.
`;

export async function rulesCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, { format: true, help: false }, { '-f': '--format', '-h': '--help' });
  if (args.options.has('help')) {
    io.stdout(RULES_USAGE);
    return 0;
  }
  const format = args.options.get('format') ?? 'text';
  if (format === 'json') {
    // One array, the live findings after the rules with the same fields, so a consumer of the catalog keeps working.
    const live = LIVE_RULE_META.map((rule) => ({ ...rule, live: true, docs: liveRuleDocsPath(rule.id) }));
    io.stdout(`${JSON.stringify([...RULES, ...live], null, 2)}\n`);
    return 0;
  }
  if (format !== 'text') throw new UsageError('--format must be text or json');
  const entries = ruleList();
  const width = maxOf(
    entries.map((entry) => entry.id.length),
    0,
  );
  let source: RuleListEntry['source'] = 'lint';
  for (const entry of entries) {
    if (entry.source !== source) io.stdout('\nFrom a live cluster (gpumem lint --live):\n');
    source = entry.source;
    io.stdout(`${entry.id.padEnd(width)}  ${entry.defaultSeverity.padEnd(7)}  ${entry.label}\n`);
  }
  return 0;
}
