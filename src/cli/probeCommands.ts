// Probe commands: print the probe script, analyse a saved capture, explain a kernel log's OOM kills
// (`gpumem inspect`, which runs the probe, is src/cli/inspectCommand.ts).
// Exit codes: 0 no warning or error verdict, 1 some, 3 a capture cut short, 2 usage or I/O errors.
import { analyzeCaptureText } from '../core/inspectionRun/analyze.ts';
import { describeInternalError, engineLimitReason } from '../core/internalError.ts';
import { buildProbeScript, newNonce } from '../core/probe/script.ts';
import { oomToJson, oomToMarkdown, oomToText } from '../core/report/oomReport.ts';
import { explainKernelLogText } from '../core/verdicts/oom/oomRootCause.ts';
import { headroomOf, parseArgs, scopeOf, UsageError } from './args.ts';
import { asText, readBoundedText } from '../files/boundedRead.ts';
import type { InputKind } from '../files/boundedRead.ts';
import type { CliIo } from './io.ts';
import { exitCodeOf, formatOf, renderInspection } from './report.ts';

/** A file's text, or standard input for `-`; undefined (after saying why on stderr) when it cannot be read. */
async function readTextInput(file: string, io: CliIo, command: string, kind: InputKind): Promise<string | undefined> {
  const read = file === '-' ? asText(await io.readStdin({ kind })) : await readBoundedText(file, { kind });
  if (read.kind === 'read') return read.text;
  io.stderr(`gpumem ${command}: ${file === '-' ? 'standard input' : file}: not read: ${read.reason}\n`);
  return undefined;
}

/** The analysis's result, or undefined after naming the file and the reason on stderr: no engine text, no stack. */
function analyzedOrSaid<T>(io: CliIo, command: string, file: string, analyse: () => T): T | undefined {
  try {
    return analyse();
  } catch (error) {
    const reason = engineLimitReason(error) ?? `gpumem failed on it (${describeInternalError(error)}); please report this with the file`;
    io.stderr(`gpumem ${command}: ${file === '-' ? 'standard input' : file}: not analysed: ${reason}\n`);
    return undefined;
  }
}

export const PROBE_SCRIPT_USAGE = `Usage: gpumem probe-script [--scope node|container] [--host-root PATH] [--hami-lib-path DIR]

Prints the read-only probe script, for air-gapped nodes: run it with \`sh -s < probe.sh > capture.txt\`
(as root on the node, or inside the container) and read the capture back with \`gpumem analyze capture.txt\`.
--host-root is where the host's / is mounted (node scope), e.g. /host in a debug pod.
--hami-lib-path is HAMi's host directory (its chart's devicePlugin.libPath; default /usr/local/vgpu).
`;

export async function probeScriptCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, { scope: true, 'host-root': true, 'hami-lib-path': true, help: false }, { '-h': '--help' });
  if (args.options.has('help')) {
    io.stdout(PROBE_SCRIPT_USAGE);
    return 0;
  }
  const hostRoot = args.options.get('host-root');
  const scope = scopeOf(args.options.get('scope'));
  const hamiLibPath = args.options.get('hami-lib-path');
  if (scope === 'container' && hostRoot !== undefined) throw new UsageError('--host-root applies to the node scope only');
  if (scope === 'container' && hamiLibPath !== undefined) throw new UsageError('--hami-lib-path applies to the node scope only');
  try {
    io.stdout(
      buildProbeScript({
        scope,
        nonce: newNonce(),
        ...(typeof hostRoot === 'string' ? { hostRoot } : {}),
        ...(typeof hamiLibPath === 'string' ? { hamiLibPath } : {}),
      }),
    );
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return 0;
}

export const ANALYZE_USAGE = `Usage: gpumem analyze <capture|-> [--format text|json|markdown] [--headroom PERCENT]

Analyses a saved probe capture (from gpumem inspect --save, or sh -s < probe.sh > capture.txt).
--headroom  the headroom the remedies add over what was used (default: 30)

Exit status: 0 when no verdict is a warning or an error, 1 when one is, 2 on usage errors, a file that
cannot be read, or a file that is not a probe capture; 3 when the capture is cut short (the probe did not
finish: the report says first what was not read).
`;

export async function analyzeCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, { format: true, headroom: true, help: false }, { '-f': '--format', '-h': '--help' });
  if (args.options.has('help')) {
    io.stdout(ANALYZE_USAGE);
    return 0;
  }
  const [file, ...extra] = args.positionals;
  if (!file || extra.length > 0) throw new UsageError('give one capture file, or - for standard input');
  const format = formatOf(args.options.get('format'));
  const headroomPercent = headroomOf(args.options.get('headroom'));
  const text = await readTextInput(file, io, 'analyze', 'capture');
  if (text === undefined) return 2;
  const inspection = analyzedOrSaid(io, 'analyze', file, () =>
    analyzeCaptureText(text, {
      target: file === '-' ? 'capture from standard input' : `capture ${file}`,
      ...(headroomPercent !== undefined ? { headroomPercent } : {}),
    }),
  );
  if (inspection === undefined) return 2;
  if (inspection.scope === undefined) {
    io.stderr(`gpumem analyze: ${file}: ${inspection.problems.join('; ')}\n`);
    return 2;
  }
  io.stdout(renderInspection(inspection, format));
  return exitCodeOf(inspection);
}

export const EXPLAIN_OOM_USAGE = `Usage: gpumem explain-oom <file|-> [--format text|json|markdown] [--headroom PERCENT]

Explains the OOM kills in a kernel log (dmesg, dmesg -T, journalctl -k, /var/log/kern.log) with no other
context: global or memory-cgroup kill, the victim and its pod, the GTT signature, evidence lines and remedies.
--headroom  the headroom the remedies add over the limit that was hit (default: 30)

Exit status: 0 when no kill is worse than info (or there is none), 1 when one is, 2 on usage errors or a
file that cannot be read.
`;

export async function explainOomCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, { format: true, headroom: true, help: false }, { '-f': '--format', '-h': '--help' });
  if (args.options.has('help')) {
    io.stdout(EXPLAIN_OOM_USAGE);
    return 0;
  }
  const [file, ...extra] = args.positionals;
  if (!file || extra.length > 0) throw new UsageError('give one kernel log file, or - for standard input');
  const format = formatOf(args.options.get('format'));
  const headroomPercent = headroomOf(args.options.get('headroom'));
  const text = await readTextInput(file, io, 'explain-oom', 'kernel-log');
  if (text === undefined) return 2;
  const source = file === '-' ? 'standard input' : file;
  const explanation = analyzedOrSaid(io, 'explain-oom', file, () =>
    explainKernelLogText(text, headroomPercent !== undefined ? { headroomPercent } : {}),
  );
  if (explanation === undefined) return 2;
  if (format === 'json') io.stdout(`${JSON.stringify(oomToJson(explanation, source), null, 2)}\n`);
  else io.stdout(format === 'markdown' ? oomToMarkdown(explanation, source) : oomToText(explanation, source));
  return explanation.verdicts.some((verdict) => verdict.severity !== 'info') ? 1 : 0;
}
