// `gpumem rules [--format text|json]`: the rule catalog.
import { maxOf } from '../core/arrays.ts';
import { RULES } from '../core/rules/catalog.ts';
import { parseArgs, UsageError } from './args.ts';
import type { CliIo } from './io.ts';

export async function rulesCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, { format: true }, { '-f': '--format' });
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
