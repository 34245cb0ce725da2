// `gpumem inspect`: the read-only probe on one target (one connection, one exec), then verdicts with evidence.
// Targets: this machine, an SSH host, a Kubernetes node or a Kubernetes pod (src/cli/kubeTarget.ts).
// Exit codes: 0 no warning or error verdict, 1 some, 3 the capture was cut short, 2 usage, I/O, connection or cluster errors (a --save that
// could not be written is one: the report is still printed, then the reason).
import { writeFile } from 'node:fs/promises';
import { analyzeCaptureText } from '../core/inspectionRun/analyze.ts';
import { runProbe } from '../core/inspectionRun/runProbe.ts';
import { isDnsLabel } from '../core/kube/names.ts';
import { hamiLibPathProblem } from '../core/probe/hamiLibPath.ts';
import { TransportError } from '../core/probe/transport.ts';
import { DEBUG_POD_IMAGE } from '../kube/debugPodSpec.ts';
import { errorText } from '../kube/errorText.ts';
import { terminalSafe } from '../core/text/escape.ts';
import { LocalTransport } from '../transports/local.ts';
import type { ParsedArgs } from './args.ts';
import { headroomOf, parseArgs, scopeOf, UsageError } from './args.ts';
import type { CliIo } from './io.ts';
import { KubeTargetError, openKubeTarget, parseNodeName, parsePodRef } from './kubeTarget.ts';
import type { KubeTargetSpec } from './kubeTarget.ts';
import { plainTarget } from './probeTarget.ts';
import type { ProbeTarget } from './probeTarget.ts';
import { describeError } from './files.ts';
import { exitCodeOf, formatOf, renderInspection } from './report.ts';
import { cliSshOptions, openSshTransport } from './sshTarget.ts';
import { parseImageReference } from '../core/kube/imageReference.ts';

export const INSPECT_USAGE = `Usage: gpumem inspect (--local | --ssh TARGET | --node NAME | --pod [NAMESPACE/]NAME) [options]

Runs the read-only probe on a target (one connection, one exec) and prints verdicts with evidence.

Targets:
  --local                 Probe this machine (run as root for the full node view)
  --ssh TARGET            Probe over SSH: [user@]host[:port] or a Host alias from ~/.ssh/config
  --node NAME             Probe a Kubernetes node through its gpumem agent pod when it runs there (an exec in
                          gpumem-system, no pod created), else from a debug pod pinned to it (hostPID, the
                          host's / at /host; deleted afterwards, on error and on Ctrl-C too), or over SSH to
                          the node's address with --node-probe ssh; pods are named from the API server
  --pod [NAMESPACE/]NAME  Probe a Kubernetes pod's container through the exec API, with the cluster side of
                          the HAMi checklist (device plugin, scheduler, runtime class, the container's env)

Options:
  --scope node|container  What to probe on --local or --ssh (default: node)
  --host-root PATH        Where the host's / is mounted, for node scope inside a debug pod (default: none)
  --hami-lib-path DIR     HAMi's host directory, its chart's devicePlugin.libPath, for node scope
                          (--local, --ssh, --node; default: /usr/local/vgpu)
  --timeout SECONDS       Give up after this long (default: 120)
  --save FILE             Also save the raw capture (read it back with gpumem analyze)
  --format text|json|markdown
  --headroom PERCENT      The headroom the remedies add over what was used (default: 30)

Kubernetes (--node, --pod):
  --kubeconfig FILE       Default: the files in KUBECONFIG, else ~/.kube/config (read, never written)
  --context NAME          Default: the kubeconfig's current-context
  -c, --container NAME    The pod's container (default: kubectl exec's choice)
  --node-probe debug-pod|ssh
                          How --node is reached (default: debug-pod)
  --no-agent              With --node: a debug pod even where the node runs the gpumem agent
  --debug-namespace NS    Namespace of the debug pod (default: default)
  --debug-image IMAGE     Image of the debug pod (default: ${DEBUG_POD_IMAGE}); pin it with IMAGE@sha256:<digest>
  --ssh-host-from address|node-name
                          With --node-probe ssh: dial the node's address from its status (default; a HostName
                          in ~/.ssh/config is not followed) or use the node name as an ~/.ssh/config alias

SSH (--ssh, --node-probe ssh):
  -i, --identity FILE     SSH private key (in addition to ~/.ssh/config and the agent)
  --accept-new            Trust an unknown SSH host key and add it to known_hosts (a changed key is always refused)
  --known-hosts FILE      known_hosts file (default ~/.ssh/known_hosts)

Exit status: 0 when no verdict is a warning or an error, 1 when one is, 2 on usage errors, connection or
host-key failures, a Kubernetes request refused or failed, --timeout reached, or Ctrl-C; and 2 when --save could
not write the capture (the report is still printed, then the reason); 3 when the capture came back cut short
(a dropped connection: the report says first what was not read).
`;

const OPTIONS = {
  local: false,
  ssh: true,
  node: true,
  pod: true,
  identity: true,
  'accept-new': false,
  'known-hosts': true,
  scope: true,
  'host-root': true,
  'hami-lib-path': true,
  timeout: true,
  save: true,
  format: true,
  headroom: true,
  kubeconfig: true,
  context: true,
  container: true,
  'node-probe': true,
  'debug-namespace': true,
  'debug-image': true,
  'ssh-host-from': true,
  'no-agent': false,
  help: false,
} as const;

const KUBE_ONLY = [
  'kubeconfig',
  'context',
  'container',
  'node-probe',
  'debug-namespace',
  'debug-image',
  'ssh-host-from',
  'no-agent',
] as const;

type InspectTarget = { readonly kind: 'local' } | { readonly kind: 'ssh'; readonly destination: string } | KubeTargetSpec;

function stringOption(args: ParsedArgs, name: string): string | undefined {
  const value = args.options.get(name);
  return typeof value === 'string' ? value : undefined;
}

function targetOf(args: ParsedArgs): InspectTarget {
  const given = (['local', 'ssh', 'node', 'pod'] as const).filter((name) => args.options.has(name));
  if (given.length !== 1) throw new UsageError('give exactly one of --local, --ssh TARGET, --node NAME or --pod [NAMESPACE/]NAME');
  const kind = given[0];
  const hamiLibPath = stringOption(args, 'hami-lib-path');
  if (hamiLibPath !== undefined) {
    const problem = hamiLibPathProblem(hamiLibPath);
    if (problem !== undefined) throw new UsageError(`--hami-lib-path: ${problem}`);
    if (kind === 'pod' || stringOption(args, 'scope') === 'container')
      throw new UsageError('--hami-lib-path applies to the node scope only (--local, --ssh or --node)');
  }
  if (kind === 'node' || kind === 'pod') {
    if (args.options.has('scope') || args.options.has('host-root'))
      throw new UsageError(`--scope and --host-root do not apply to --${kind} (a node is probed at node scope, a pod at container scope)`);
    if (kind === 'node' && args.options.has('container')) throw new UsageError('--container applies to --pod');
    return kind === 'node'
      ? parseNodeName(stringOption(args, 'node') ?? '')
      : parsePodRef(stringOption(args, 'pod') ?? '', stringOption(args, 'container'));
  }
  const misplaced = KUBE_ONLY.filter((name) => args.options.has(name));
  if (misplaced.length > 0) throw new UsageError(`--${misplaced[0]} applies to --node and --pod`);
  return kind === 'local' ? { kind: 'local' } : { kind: 'ssh', destination: stringOption(args, 'ssh') ?? '' };
}

async function openTarget(
  target: InspectTarget,
  args: ParsedArgs,
  io: CliIo,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<ProbeTarget> {
  const ssh = cliSshOptions({
    identityFile: stringOption(args, 'identity'),
    knownHostsFile: stringOption(args, 'known-hosts'),
    acceptNew: args.options.has('accept-new'),
    timeoutMs,
    io,
  });
  if (target.kind === 'local' || target.kind === 'ssh') {
    const hostRoot = stringOption(args, 'host-root');
    const hamiLibPath = stringOption(args, 'hami-lib-path');
    const probe = {
      scope: scopeOf(stringOption(args, 'scope')),
      ...(hostRoot !== undefined ? { hostRoot } : {}),
      ...(hamiLibPath !== undefined ? { hamiLibPath } : {}),
    };
    return plainTarget(target.kind === 'local' ? new LocalTransport() : openSshTransport(target.destination, ssh), probe);
  }
  const nodeProbe = stringOption(args, 'node-probe') ?? 'debug-pod';
  if (nodeProbe !== 'debug-pod' && nodeProbe !== 'ssh') throw new UsageError('--node-probe must be debug-pod or ssh');
  if (nodeProbe === 'ssh' && target.kind === 'pod') throw new UsageError('--node-probe applies to --node');
  const debugNamespace = stringOption(args, 'debug-namespace') ?? 'default';
  if (!isDnsLabel(debugNamespace)) throw new UsageError(`--debug-namespace: "${debugNamespace}" is not a namespace name`);
  const image = parseImageReference(stringOption(args, 'debug-image') ?? DEBUG_POD_IMAGE);
  if (image.kind === 'invalid') throw new UsageError(`--debug-image: ${image.reason}`);
  const debugImage = image.reference;
  const sshHostFrom = stringOption(args, 'ssh-host-from') ?? 'address';
  if (sshHostFrom !== 'address' && sshHostFrom !== 'node-name') throw new UsageError('--ssh-host-from must be address or node-name');
  if (args.options.has('ssh-host-from') && nodeProbe !== 'ssh') throw new UsageError('--ssh-host-from applies to --node-probe ssh');
  if (args.options.has('no-agent') && (target.kind !== 'node' || nodeProbe !== 'debug-pod'))
    throw new UsageError('--no-agent applies to --node with the debug-pod probe');
  const hamiLibPath = stringOption(args, 'hami-lib-path');
  return openKubeTarget(
    target,
    {
      kubeconfig: stringOption(args, 'kubeconfig'),
      ...(hamiLibPath !== undefined ? { hamiLibPath } : {}),
      context: stringOption(args, 'context'),
      node: { nodeProbe, debugNamespace, debugImage, sshHostFrom },
      useAgent: !args.options.has('no-agent'),
      ssh,
      timeoutMs,
      io,
    },
    signal,
  );
}

/** Writes the capture, private to the user; the reason in words when it cannot be written. */
async function saveCapture(file: string, captureText: string): Promise<string | undefined> {
  try {
    await writeFile(file, captureText, { mode: 0o600 });
    return undefined;
  } catch (error) {
    return describeError(error);
  }
}

export async function inspectCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, OPTIONS, { '-i': '--identity', '-h': '--help', '-f': '--format', '-c': '--container' });
  if (args.options.has('help')) {
    io.stdout(INSPECT_USAGE);
    return 0;
  }
  const target = targetOf(args);
  const format = formatOf(args.options.get('format'));
  const headroomPercent = headroomOf(args.options.get('headroom'));
  const timeoutSeconds = Number(args.options.get('timeout') ?? 120);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) throw new UsageError('--timeout must be a positive number of seconds');
  const timeoutMs = timeoutSeconds * 1000;

  // Ctrl-C cancels: the exec is closed and a debug pod is deleted before the command returns. A second one
  // says so; a third quits at once (the debug pod's activeDeadlineSeconds still ends it on the node).
  const controller = new AbortController();
  let signals = 0;
  const onSignal = () => {
    signals++;
    if (signals === 1) controller.abort();
    else if (signals === 2)
      io.stderr('gpumem inspect: cancelling: closing the connection and deleting any debug pod; Ctrl-C again to quit now\n');
    else process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let ready: ProbeTarget | undefined;
  try {
    ready = await openTarget(target, args, io, timeoutMs, controller.signal);
    const analysis = ready.analysis(controller.signal).then(
      (options) => options,
      (error: unknown) => {
        // The report still comes, without the cluster's names: say what is missing.
        io.stderr(`gpumem inspect: warning: ${ready?.place ? errorText(error, ready.place) : String(error)}\n`);
        return {};
      },
    );
    const run = await runProbe(ready.transport, { ...ready.probe, timeoutMs, signal: controller.signal });
    const save = stringOption(args, 'save');
    // A capture that cannot be saved must not cost the report: it is printed, then the reason, and the exit says so.
    const saveProblem = save !== undefined ? await saveCapture(save, run.captureText) : undefined;
    const inspection = analyzeCaptureText(run.captureText, {
      target: ready.transport.target,
      ...(await analysis),
      ...(headroomPercent !== undefined ? { headroomPercent } : {}),
    });
    const appendix = format === 'markdown' ? ready.appendix() : '';
    io.stdout(renderInspection(inspection, format) + (appendix ? `\n${appendix}` : ''));
    if (run.exec.stderr.trim()) io.stderr(`gpumem inspect: the probe wrote to stderr:\n${terminalSafe(run.exec.stderr.slice(0, 4000))}\n`);
    if (saveProblem !== undefined) {
      io.stderr(`gpumem inspect: --save ${save ?? ''}: ${saveProblem}; the capture was not saved (the report above is complete)\n`);
      return 2;
    }
    return exitCodeOf(inspection);
  } catch (error) {
    if (error instanceof KubeTargetError) {
      io.stderr(`gpumem inspect: ${error.message}\n`);
      return 2;
    }
    if (error instanceof TransportError) {
      io.stderr(
        `gpumem inspect: ${ready?.place ? errorText(error, ready.place) : `${ready?.transport.target ?? 'target'}: ${error.message}`}\n`,
      );
      return 2;
    }
    throw error;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await ready?.close();
  }
}
