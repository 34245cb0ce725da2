// `gpumem hami-report --pod NS/NAME`: the HAMi issue bundle of one pod (src/core/report/hamiIssueReport.ts)
// from the Kubernetes API (src/kube/hamiReport.ts), as Markdown on stdout to paste into an issue, secrets
// redacted. Reads only: no exec, no write. Exit codes: 0 the bundle was written, 2 usage errors or the pod
// could not be read (unreachable, RBAC, not found).
import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { NodeCaptureRead } from '../core/report/hamiIssueNode.ts';
import { nodeCaptureFacts } from '../core/report/hamiIssueNode.ts';
import { hamiIssueMarkdown } from '../core/report/hamiIssueReport.ts';
import { ClusterClient } from '../kube/clusterClient.ts';
import { errorText } from '../kube/errorText.ts';
import { readBoundedText } from '../files/boundedRead.ts';
import { collectHamiReport } from '../kube/hamiReport.ts';
import { parseArgs, UsageError } from './args.ts';
import type { CliIo } from './io.ts';
import { chooseContext, parsePodRef } from './kubeTarget.ts';

export const HAMI_REPORT_USAGE = `Usage: gpumem hami-report --pod [NAMESPACE/]NAME [options]

Writes, as Markdown, what HAMi's bug template asks for about a pod: versions (HAMi, Kubernetes, kernel,
container runtime), the accelerator from HAMi's node registration, the pod's resources and HAMi
annotations, its events, the node's HAMi annotations, and the last lines of the HAMi device-plugin (on the
pod's node) and scheduler logs. Reads the Kubernetes API only (get, list, pods/log; no exec, no write).
Tokens, keys, passwords and PEM blocks are redacted, and env values are kept only for HAMi, CUDA and NVIDIA
variables; the report says how many values were redacted. What the API cannot give (nvidia-smi -a, the
kubelet journal, dmesg, the containerd configuration) is listed with the command to run on the node.

Options:
  --pod [NAMESPACE/]NAME  The pod (default namespace: the context's, else default)
  --kubeconfig FILE       Default: the files in KUBECONFIG, else ~/.kube/config (read, never written)
  --context NAME          Default: the kubeconfig's current-context
  --tail-lines N          Log lines per container (default: 200)
  --node-capture FILE     A capture of the pod's node (gpumem inspect --node NAME --save FILE) for the
                          items only the node has: nvidia-smi's GPU query and the driver version,
                          containerd's configuration, the kernel log's GPU and OOM lines
  --output FILE           Write the report to FILE (mode 0600) instead of standard output
  --timeout SECONDS       Deadline of each request (default: 30)
`;

const OPTIONS = {
  pod: true,
  kubeconfig: true,
  context: true,
  'tail-lines': true,
  'node-capture': true,
  output: true,
  timeout: true,
  help: false,
} as const;

function positive(value: string | true | undefined, name: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0 || number > max) throw new UsageError(`--${name} must be a whole number from 1 to ${max}`);
  return number;
}

/** The --node-capture file read and parsed; undefined without the flag; 'unreadable' after saying why. */
async function readNodeCapture(
  value: string | true | undefined,
  io: CliIo,
): Promise<{ source: string; read: NodeCaptureRead } | undefined | 'unreadable'> {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new UsageError('--node-capture needs a file');
  const text = await readBoundedText(value, { kind: 'capture' });
  if (text.kind !== 'read') {
    io.stderr(`gpumem hami-report: --node-capture ${value}: not read: ${text.reason}\n`);
    return 'unreadable';
  }
  return { source: basename(value), read: nodeCaptureFacts(text.text) };
}

export async function hamiReportCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, OPTIONS, { '-h': '--help' });
  if (args.options.has('help')) {
    io.stdout(HAMI_REPORT_USAGE);
    return 0;
  }
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument "${args.positionals[0] ?? ''}"`);
  const podValue = args.options.get('pod');
  if (typeof podValue !== 'string') throw new UsageError('give --pod [NAMESPACE/]NAME');
  const spec = parsePodRef(podValue, undefined);
  const tailLines = positive(args.options.get('tail-lines'), 'tail-lines', 200, 10_000);
  const timeoutMs = positive(args.options.get('timeout'), 'timeout', 30, 600) * 1000;
  const kubeconfig = args.options.get('kubeconfig');
  const contextName = args.options.get('context');
  const output = args.options.get('output');
  const context = await chooseContext(
    {
      kubeconfig: typeof kubeconfig === 'string' ? kubeconfig : undefined,
      context: typeof contextName === 'string' ? contextName : undefined,
      io,
    },
    'hami-report',
  );
  const nodeCapture = await readNodeCapture(args.options.get('node-capture'), io);
  if (nodeCapture === 'unreadable') return 2;
  const namespace = (spec.kind === 'pod' ? spec.namespace : undefined) ?? context.namespace ?? 'default';
  const client = new ClusterClient(context, { requestTimeoutMs: timeoutMs });
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.on('SIGINT', onSignal);
  try {
    const input = await collectHamiReport(
      client,
      { namespace, name: spec.name },
      {
        tailLines,
        signal: controller.signal,
        toolVersion: io.version,
        byHand: 'kubectl logs and kubectl get events with other credentials',
      },
    );
    const { markdown, redacted } = hamiIssueMarkdown(nodeCapture ? { ...input, nodeCapture } : input);
    if (typeof output === 'string') {
      await writeFile(output, markdown, { mode: 0o600 });
      io.stderr(`gpumem hami-report: wrote ${output} (redacted ${redacted} value${redacted === 1 ? '' : 's'}); read it before posting\n`);
    } else io.stdout(markdown);
    return 0;
  } catch (error) {
    const place = { context: context.name, namespace, action: `Read pod ${namespace}/${spec.name}` };
    io.stderr(`gpumem hami-report: ${controller.signal.aborted ? 'cancelled' : errorText(error, place)}\n`);
    return 2;
  } finally {
    process.removeListener('SIGINT', onSignal);
    await client.dispose(0);
  }
}
