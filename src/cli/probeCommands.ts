// Probe commands: print the probe script, run it locally or over SSH, analyse a saved capture.
// Exit codes: 0 no warning or error verdict, 1 some, 2 usage, I/O or connection errors.
import { readFile, writeFile } from 'node:fs/promises';
import type { Inspection } from '../core/inspection/analyze.ts';
import { analyzeCaptureText } from '../core/inspection/analyze.ts';
import { runProbe } from '../core/inspection/runProbe.ts';
import type { ProbeScope } from '../core/probe/capture.ts';
import { buildProbeScript, newNonce } from '../core/probe/script.ts';
import type { Transport } from '../core/probe/transport.ts';
import { TransportError } from '../core/probe/transport.ts';
import { inspectionToJson, inspectionToMarkdown, inspectionToText } from '../core/report/inspectionReport.ts';
import { oomToJson, oomToMarkdown, oomToText } from '../core/report/oomReport.ts';
import { explainKernelLogText } from '../core/verdicts/oomRootCause.ts';
import { LocalTransport } from '../transports/local.ts';
import { parseArgs, UsageError } from './args.ts';
import { describeError } from './files.ts';
import type { CliIo } from './io.ts';
import { openSshTransport } from './sshTarget.ts';

const REPORT_FORMATS = ['text', 'json', 'markdown'] as const;
type ReportFormat = (typeof REPORT_FORMATS)[number];

function scopeOf(value: string | true | undefined): ProbeScope {
  if (value === undefined) return 'node';
  if (value === 'node' || value === 'container') return value;
  throw new UsageError('--scope must be node or container');
}

function formatOf(value: string | true | undefined): ReportFormat {
  const format = value ?? 'text';
  if (typeof format === 'string' && (REPORT_FORMATS as readonly string[]).includes(format)) return format as ReportFormat;
  throw new UsageError(`--format must be one of ${REPORT_FORMATS.join(', ')}`);
}

export function renderInspection(inspection: Inspection, format: ReportFormat): string {
  if (format === 'json') return `${JSON.stringify(inspectionToJson(inspection), (_key, value: unknown) => (value === undefined ? null : value), 2)}\n`;
  if (format === 'markdown') return inspectionToMarkdown(inspection);
  return inspectionToText(inspection);
}

/** A file's text, or standard input for `-`; undefined (after saying why on stderr) when it cannot be read. */
async function readTextInput(file: string, io: CliIo, command: string): Promise<string | undefined> {
  try {
    return file === '-' ? new TextDecoder().decode(await io.readStdin()) : await readFile(file, 'utf8');
  } catch (error) {
    io.stderr(`gpumem ${command}: ${file}: ${describeError(error)}\n`);
    return undefined;
  }
}

function exitCodeOf(inspection: Inspection): number {
  return inspection.verdicts.some((verdict) => verdict.severity !== 'info') ? 1 : 0;
}

export const PROBE_SCRIPT_USAGE = `Usage: gpumem probe-script [--scope node|container] [--host-root PATH]

Prints the read-only probe script, for air-gapped nodes: run it with \`sh -s < probe.sh > capture.txt\`
(as root on the node, or inside the container) and read the capture back with \`gpumem analyze capture.txt\`.
--host-root is where the host's / is mounted (node scope), e.g. /host in a debug pod.
`;

export async function probeScriptCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, { scope: true, 'host-root': true, help: false }, { '-h': '--help' });
  if (args.options.has('help')) {
    io.stdout(PROBE_SCRIPT_USAGE);
    return 0;
  }
  const hostRoot = args.options.get('host-root');
  const scope = scopeOf(args.options.get('scope'));
  if (scope === 'container' && hostRoot !== undefined) throw new UsageError('--host-root applies to the node scope only');
  try {
    io.stdout(buildProbeScript({ scope, nonce: newNonce(), ...(typeof hostRoot === 'string' ? { hostRoot } : {}) }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return 0;
}

export const INSPECT_USAGE = `Usage: gpumem inspect (--local | --ssh [user@]host[:port]) [options]

Runs the read-only probe on a target (one connection, one exec) and prints verdicts with evidence.

Options:
  --local                 Probe this machine (run as root for the full node view)
  --ssh TARGET            Probe over SSH: [user@]host[:port] or a Host alias from ~/.ssh/config
  -i, --identity FILE     SSH private key (in addition to ~/.ssh/config and the agent)
  --accept-new            Trust an unknown SSH host key and add it to known_hosts (a changed key is always refused)
  --known-hosts FILE      known_hosts file (default ~/.ssh/known_hosts)
  --scope node|container  What to probe (default: node)
  --host-root PATH        Where the host's / is mounted, for node scope inside a debug pod (default: none)
  --timeout SECONDS       Give up after this long (default: 120)
  --save FILE             Also save the raw capture (read it back with gpumem analyze)
  --format text|json|markdown
`;

export async function inspectCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(
    argv,
    { local: false, ssh: true, identity: true, 'accept-new': false, 'known-hosts': true, scope: true, 'host-root': true, timeout: true, save: true, format: true, help: false },
    { '-i': '--identity', '-h': '--help', '-f': '--format' },
  );
  if (args.options.has('help')) {
    io.stdout(INSPECT_USAGE);
    return 0;
  }
  const local = args.options.has('local');
  const ssh = args.options.get('ssh');
  if (local === (typeof ssh === 'string')) throw new UsageError('give exactly one of --local or --ssh TARGET');
  const scope = scopeOf(args.options.get('scope'));
  const format = formatOf(args.options.get('format'));
  const timeoutSeconds = Number(args.options.get('timeout') ?? 120);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) throw new UsageError('--timeout must be a positive number of seconds');
  const hostRoot = args.options.get('host-root');

  let transport: Transport;
  if (local) transport = new LocalTransport();
  else {
    const identity = args.options.get('identity');
    const knownHosts = args.options.get('known-hosts');
    transport = await openSshTransport(String(ssh), {
      ...(typeof identity === 'string' ? { identityFile: identity } : {}),
      ...(typeof knownHosts === 'string' ? { knownHostsFile: knownHosts } : {}),
      acceptNew: args.options.has('accept-new'),
      timeoutMs: timeoutSeconds * 1000,
      io,
    });
  }
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  try {
    const run = await runProbe(transport, {
      scope,
      timeoutMs: timeoutSeconds * 1000,
      signal: controller.signal,
      ...(typeof hostRoot === 'string' ? { hostRoot } : {}),
    });
    const save = args.options.get('save');
    if (typeof save === 'string') await writeFile(save, run.captureText, { mode: 0o600 });
    const inspection = analyzeCaptureText(run.captureText, { target: transport.target });
    io.stdout(renderInspection(inspection, format));
    if (run.exec.stderr.trim()) io.stderr(`gpumem inspect: the probe wrote to stderr:\n${run.exec.stderr.slice(0, 4000)}\n`);
    return exitCodeOf(inspection);
  } catch (error) {
    if (error instanceof TransportError) {
      io.stderr(`gpumem inspect: ${transport.target}: ${error.message}\n`);
      return 2;
    }
    throw error;
  } finally {
    process.removeListener('SIGINT', onSignal);
    await transport.close();
  }
}

export const ANALYZE_USAGE = `Usage: gpumem analyze <capture|-> [--format text|json|markdown]

Analyses a saved probe capture (from gpumem inspect --save, or sh -s < probe.sh > capture.txt).
`;

export async function analyzeCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, { format: true, help: false }, { '-f': '--format', '-h': '--help' });
  if (args.options.has('help')) {
    io.stdout(ANALYZE_USAGE);
    return 0;
  }
  const [file, ...extra] = args.positionals;
  if (!file || extra.length > 0) throw new UsageError('give one capture file, or - for standard input');
  const format = formatOf(args.options.get('format'));
  const text = await readTextInput(file, io, 'analyze');
  if (text === undefined) return 2;
  const inspection = analyzeCaptureText(text, { target: file === '-' ? 'capture from standard input' : `capture ${file}` });
  if (inspection.scope === undefined) {
    io.stderr(`gpumem analyze: ${file}: ${inspection.problems.join('; ')}\n`);
    return 2;
  }
  io.stdout(renderInspection(inspection, format));
  return exitCodeOf(inspection);
}

export const EXPLAIN_OOM_USAGE = `Usage: gpumem explain-oom <file|-> [--format text|json|markdown]

Explains the OOM kills in a kernel log (dmesg, dmesg -T, journalctl -k, /var/log/kern.log) with no other
context: global or memory-cgroup kill, the victim and its pod, the GTT signature, evidence lines and remedies.
`;

export async function explainOomCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, { format: true, help: false }, { '-f': '--format', '-h': '--help' });
  if (args.options.has('help')) {
    io.stdout(EXPLAIN_OOM_USAGE);
    return 0;
  }
  const [file, ...extra] = args.positionals;
  if (!file || extra.length > 0) throw new UsageError('give one kernel log file, or - for standard input');
  const format = formatOf(args.options.get('format'));
  const text = await readTextInput(file, io, 'explain-oom');
  if (text === undefined) return 2;
  const source = file === '-' ? 'standard input' : file;
  const explanation = explainKernelLogText(text);
  if (format === 'json') io.stdout(`${JSON.stringify(oomToJson(explanation, source), null, 2)}\n`);
  else io.stdout(format === 'markdown' ? oomToMarkdown(explanation, source) : oomToText(explanation, source));
  return explanation.verdicts.some((verdict) => verdict.severity !== 'info') ? 1 : 0;
}
