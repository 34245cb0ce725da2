// The `gpumem` dispatch: the command named by the first argument, and how a failure that escapes a command is
// said. A usage error prints the command's usage; an expected failure of what the command needs (no kubeconfig,
// an unreachable cluster, a refused request) prints one line of cause and remedy; only a bug prints a stack.
import { errorMessage } from '../core/errorMessage.ts';
import { classifyFailure } from '../core/failureReport.ts';
import { CliFailure, UsageError } from './args.ts';
import type { CliIo } from './io.ts';

export const VERSION = '0.1.0';

const USAGE = `Usage: gpumem <command> [options]

Commands:
  lint [paths…]   Lint Kubernetes manifests for GPU-memory risks (see gpumem lint --help)
  rules           List the rules with their ids and default severities
  probe-script    Print the read-only probe script (for air-gapped nodes)
  inspect         Probe this machine (--local), an SSH host (--ssh), a Kubernetes node (--node) or
                  pod (--pod) and print verdicts
  analyze FILE    Analyse a saved probe capture
  explain-oom F   Explain the OOM kills in a kernel log (file or -)
  hami-test       Prove or refute HAMi's memory limit in a pod's container by allocating past its
                  quota (runs code in the container; asks first, or --yes)
  hami-report     The HAMi issue bundle of a pod (--pod), as Markdown, secrets redacted
  fleet           The GPU nodes of a cluster ranked by risk, from the agents (Prometheus or their /metrics)
  recommend       Memory requests and limits from what pods really used and why they were OOM-killed
  agent           Serve this node's GPU memory, OOM kills and HAMi enforcement to Prometheus
                  (/metrics; the DaemonSet in deploy/agent runs it)

Options:
  --version       Print the version
  --help          Print this help
`;

interface Command {
  run(argv: readonly string[], io: CliIo): Promise<number>;
  /** Printed after a usage error. */
  readonly usage: string;
}

// Each command's module is loaded when that command runs, so `gpumem lint` does not parse the Kubernetes client,
// SSH or the agent (the built CLI is split per command: scripts/build.mjs; bench/cliStart.mjs measures it).
const COMMANDS: Record<string, () => Promise<Command>> = {
  lint: async () => {
    const { LINT_USAGE, lintCommand } = await import('./lintCommand.ts');
    return { run: lintCommand, usage: LINT_USAGE };
  },
  rules: async () => {
    const { RULES_USAGE, rulesCommand } = await import('./rulesCommand.ts');
    return { run: rulesCommand, usage: RULES_USAGE };
  },
  'probe-script': async () => {
    const { PROBE_SCRIPT_USAGE, probeScriptCommand } = await import('./probeCommands.ts');
    return { run: probeScriptCommand, usage: PROBE_SCRIPT_USAGE };
  },
  inspect: async () => {
    const { INSPECT_USAGE, inspectCommand } = await import('./inspectCommand.ts');
    return { run: inspectCommand, usage: INSPECT_USAGE };
  },
  analyze: async () => {
    const { ANALYZE_USAGE, analyzeCommand } = await import('./probeCommands.ts');
    return { run: analyzeCommand, usage: ANALYZE_USAGE };
  },
  'explain-oom': async () => {
    const { EXPLAIN_OOM_USAGE, explainOomCommand } = await import('./probeCommands.ts');
    return { run: explainOomCommand, usage: EXPLAIN_OOM_USAGE };
  },
  'hami-test': async () => {
    const { HAMI_TEST_USAGE, hamiTestCommand } = await import('./hamiTestCommand.ts');
    return { run: hamiTestCommand, usage: HAMI_TEST_USAGE };
  },
  'hami-report': async () => {
    const { HAMI_REPORT_USAGE, hamiReportCommand } = await import('./hamiReportCommand.ts');
    return { run: hamiReportCommand, usage: HAMI_REPORT_USAGE };
  },
  agent: async () => {
    const { AGENT_USAGE, agentCommand } = await import('./agentCommand.ts');
    return { run: agentCommand, usage: AGENT_USAGE };
  },
  fleet: async () => {
    const { FLEET_USAGE, fleetCommand } = await import('./fleetCommand.ts');
    return { run: fleetCommand, usage: FLEET_USAGE };
  },
  recommend: async () => {
    const { RECOMMEND_USAGE, recommendCommand } = await import('./recommendCommand.ts');
    return { run: recommendCommand, usage: RECOMMEND_USAGE };
  },
};

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(USAGE);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    io.stderr(`gpumem: unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  const command = await load();
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`gpumem ${name}: ${error.message}\n\n${command.usage}`);
      return 2;
    }
    if (error instanceof CliFailure) {
      io.stderr(`gpumem ${name}: ${oneLine(error.message)}\n`);
      return 2;
    }
    // A transport or API failure that a command did not explain itself is still the environment's, not a bug.
    if (classifyFailure(error).kind !== 'internal') {
      io.stderr(`gpumem ${name}: ${oneLine(errorMessage(error))}\n`);
      return 2;
    }
    io.stderr(`gpumem ${name}: internal error (please report it with this text): ${(error as Error).stack ?? String(error)}\n`);
    return 2;
  }
}

/** A multi-line message as one line: a failure is one line of cause and remedy. */
function oneLine(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
}
