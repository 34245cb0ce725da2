// A small, strict argument parser: unknown flags are usage errors, not silently ignored.
import { pushAll } from '../core/arrays.ts';
import type { ProbeScope } from '../core/probe/capture.ts';
import { isHeadroomPercent, MAX_HEADROOM_PERCENT } from '../core/sizing.ts';

export interface ParsedArgs {
  readonly positionals: string[];
  readonly options: Map<string, string | true>;
}

export class UsageError extends Error {}

/**
 * An expected failure of what the command needs (no kubeconfig, no such context, a target that is not there):
 * printed as one line of cause and remedy, exit 2, without the usage text (src/cli/dispatch.ts).
 */
export class CliFailure extends Error {}

/** `spec` maps each long option to whether it takes a value. */
export function parseArgs(
  argv: readonly string[],
  spec: Readonly<Record<string, boolean>>,
  aliases: Readonly<Record<string, string>> = {},
): ParsedArgs {
  const positionals: string[] = [];
  const options = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') {
      pushAll(positionals, argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('-') && arg !== '-') {
      const eq = arg.indexOf('=');
      let name = eq > 0 ? arg.slice(0, eq) : arg;
      name = aliases[name] ?? name;
      if (!name.startsWith('--') || !(name.slice(2) in spec)) throw new UsageError(`unknown option ${name}`);
      const key = name.slice(2);
      if (spec[key]) {
        const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
        if (value === undefined) throw new UsageError(`${name} needs a value`);
        options.set(key, value);
      } else {
        if (eq > 0) throw new UsageError(`${name} takes no value`);
        options.set(key, true);
      }
      continue;
    }
    positionals.push(arg);
  }
  return { positionals, options };
}

/** `--scope` of the probe commands: node (the default) or container. */
export function scopeOf(value: string | true | undefined): ProbeScope {
  if (value === undefined) return 'node';
  if (value === 'node' || value === 'container') return value;
  throw new UsageError('--scope must be node or container');
}

/** `--headroom PERCENT` of the commands that print a remedy: a plain number from 0 to 1000; undefined when not given. */
export function headroomOf(value: string | true | undefined): number | undefined {
  if (value === undefined) return undefined;
  const percent = typeof value === 'string' && /^[0-9]+(?:\.[0-9]+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!isHeadroomPercent(percent)) throw new UsageError(`--headroom must be a number from 0 to ${MAX_HEADROOM_PERCENT} (percent)`);
  return percent;
}
