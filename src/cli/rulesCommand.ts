// `gpumem rules [--format text|json]`: the rule catalog.
import { maxOf } from '../core/arrays.ts';
import { RULES } from '../core/rules/catalog.ts';
import { parseArgs, UsageError } from './args.ts';
import type { CliIo } from './io.ts';

export const RULES_USAGE = `Usage: gpumem rules [--format text|json]

Lists the lint rules: id, default severity and title (text), or the whole catalog with summaries and
remedies (json). Each rule's page is docs/rules/<id>.md.

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
    io.stdout(`${JSON.stringify(RULES, null, 2)}\n`);
    return 0;
  }
  if (format !== 'text') throw new UsageError('--format must be text or json');
  const width = maxOf(
    RULES.map((rule) => rule.id.length),
    0,
  );
  for (const rule of RULES)
    io.stdout(
      `${rule.id.padEnd(width)}  ${rule.defaultSeverity.padEnd(7)}  ${rule.title}${rule.offByDefault ? ' (off until configured)' : ''}\n`,
    );
  return 0;
}
