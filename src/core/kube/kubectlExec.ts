// The kubectl-binary exec mode (`gpumem.kubernetes.execMode: kubectl`), its pure half: the argv handed to
// kubectl, and what kubectl's exit status and standard error mean. The process itself is run by
// src/kube/kubectlExecTransport.ts (spawn with this argv, never a shell).
//
// The argv, spelled as "Copy Probe Command" spells the by-hand command (probeCommand.ts), plus two flags:
//   [--kubeconfig=<file>] --context=<ctx> exec -i --quiet -n <ns> <pod> [-c <container>] -- sh -s
// - Kubeconfig: one file → `--kubeconfig=<file>`. Several files → the KUBECONFIG environment variable (joined
//   with the platform's list separator), because kubectl's --kubeconfig takes ONE path (client-go's
//   ExplicitPath: `--kubeconfig a:b` is read as a single file named "a:b"). No file → kubectl's own default.
// - `--quiet` keeps kubectl's own chatter ("Defaulted container … out of: …") out of the probe's stderr.
//   kubectl has had it since 1.21; it does not silence errors or the exit-status line below.
// - Names are validated before they become argv: an argv cannot inject a shell, but a pod named `-x` would
//   be read as a flag. Namespace and container must be DNS-1123 labels, the pod a DNS-1123 subdomain (none
//   can start with `-`); the context and the kubeconfig path travel in the `--flag=value` form, so a leading
//   `-` is data there, and only empty values and control characters are refused.
//
// What kubectl says (kubectl's exec command and cmdutil.CheckErr, stable since the first releases):
// - the remote command's exit status N ≠ 0 becomes kubectl's own exit status, and its last stderr line is
//   `command terminated with exit code N` (client-go's CodeExitError, printed by CheckErr's fatal());
// - kubectl's own failures exit with 1 and print `Error from server (<Reason>): <Status message>` or
//   `error: …` (or, for a refused connection, `The connection to the server … was refused …`) as the last
//   line, possibly after klog lines;
// - a 403 on the exec upgrade (WebSocket, then the SPDY fallback) prints the API server's message:
//   `pods "p" is forbidden: User "u" cannot create resource "pods/exec" in API group "" in the namespace "ns"`.
import { pushAll } from '../arrays.ts';
import { parseForbiddenMessage } from './kubeFailure.ts';
import type { ExecResult, TransportFailure } from '../probe/transport.ts';
import { isDnsLabel, isDnsSubdomain } from './names.ts';

/** The command kubectl runs in the container: the constant `sh -s`, the script on stdin. */
export const KUBECTL_REMOTE_COMMAND: readonly string[] = ['sh', '-s'];

export interface KubectlExecTarget {
  /** Always explicit: the kubeconfig's current context may be another cluster. */
  readonly context: string;
  readonly namespace: string;
  readonly pod: string;
  /** Absent: kubectl picks it (the `kubectl.kubernetes.io/default-container` annotation, else the first). */
  readonly container?: string | undefined;
  /** The kubeconfig files the extension loaded, in precedence order; empty: kubectl's default. */
  readonly kubeconfigFiles?: readonly string[] | undefined;
  /** The command in the container, a constant argv (the HAMi over-quota test's python3). Default `sh -s`. */
  readonly remoteCommand?: readonly string[] | undefined;
}

export type KubectlInvocation =
  | {
      readonly kind: 'ok';
      /** The arguments after the kubectl binary. */
      readonly args: readonly string[];
      /** KUBECONFIG for kubectl's environment when several files are given; undefined: leave it alone. */
      readonly kubeconfigEnv: string | undefined;
    }
  | { readonly kind: 'invalid'; readonly problem: string };

const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why a name cannot be handed to kubectl, or undefined when it can. */
export function kubectlNameProblem(what: 'namespace' | 'pod' | 'container' | 'context', value: string): string | undefined {
  switch (what) {
    case 'namespace':
    case 'container':
      return isDnsLabel(value) ? undefined : `${what} ${JSON.stringify(value)} is not a valid Kubernetes name (a DNS-1123 label)`;
    case 'pod':
      return isDnsSubdomain(value) ? undefined : `pod ${JSON.stringify(value)} is not a valid Kubernetes name (a DNS-1123 subdomain)`;
    case 'context':
      if (value === '') return 'the context name is empty';
      return CONTROL.test(value) ? `context ${JSON.stringify(value)} contains control characters` : undefined;
  }
}

/** The argv and environment of `kubectl exec` for a target (see the header). `delimiter`: path.delimiter. */
export function kubectlExecInvocation(target: KubectlExecTarget, delimiter: string): KubectlInvocation {
  const problems = [
    kubectlNameProblem('context', target.context),
    kubectlNameProblem('namespace', target.namespace),
    kubectlNameProblem('pod', target.pod),
    target.container !== undefined ? kubectlNameProblem('container', target.container) : undefined,
  ].filter((p): p is string => p !== undefined);
  const files = target.kubeconfigFiles ?? [];
  for (const file of files) {
    if (file === '' || CONTROL.test(file)) problems.push(`kubeconfig path ${JSON.stringify(file)} is empty or contains control characters`);
    else if (files.length > 1 && file.includes(delimiter))
      problems.push(`kubeconfig path ${JSON.stringify(file)} contains the list separator "${delimiter}" and cannot go into KUBECONFIG`);
  }
  if (problems.length > 0) return { kind: 'invalid', problem: problems.join('; ') };
  const args: string[] = [];
  if (files.length === 1) args.push(`--kubeconfig=${files[0] as string}`);
  args.push(`--context=${target.context}`, 'exec', '-i', '--quiet', '-n', target.namespace, target.pod);
  if (target.container !== undefined) args.push('-c', target.container);
  pushAll(args, ['--', ...(target.remoteCommand ?? KUBECTL_REMOTE_COMMAND)]);
  return { kind: 'ok', args, kubeconfigEnv: files.length > 1 ? files.join(delimiter) : undefined };
}

/** The outcome of one kubectl run: the remote command ran (with its status), or kubectl failed. */
export type KubectlOutcome =
  { readonly kind: 'ran'; readonly result: ExecResult } | { readonly kind: 'failed'; readonly failure: TransportFailure };

const EXIT_LINE = /(?:^|\n)command terminated with exit code (\d+)\r?\n?$/;

/**
 * Reads a finished kubectl run (see the header). `raw.exitCode` is kubectl's; null (killed, or output over the
 * cap) is passed through as it is, like the other transports do.
 */
export function interpretKubectlExit(raw: ExecResult, target: KubectlExecTarget): KubectlOutcome {
  if (raw.exitCode === null) return { kind: 'ran', result: raw };
  const exit = EXIT_LINE.exec(raw.stderr);
  if (exit) {
    const stderr = raw.stderr.slice(0, exit.index + (raw.stderr[exit.index] === '\n' ? 1 : 0));
    return { kind: 'ran', result: { ...raw, stderr, exitCode: Number(exit[1]) } };
  }
  if (raw.exitCode === 0) return { kind: 'ran', result: raw };
  return { kind: 'failed', failure: classifyKubectlFailure(raw.stderr, raw.exitCode, target) };
}

/** kubectl's own error: its last non-empty stderr line, without the `Error from server (X): ` / `error: ` prefix. */
export function kubectlErrorLine(stderr: string): { readonly reason: string | undefined; readonly message: string } {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const last = lines.at(-1) ?? '';
  const fromServer = /^Error from server(?: \(([A-Za-z]+)\))?:\s*([^\n]*)$/.exec(last);
  if (fromServer) return { reason: fromServer[1], message: fromServer[2] ?? '' };
  return { reason: undefined, message: last.replace(/^error:\s*/, '') };
}

/** A failed kubectl run (no remote exit status) as the Transport contract's failure. */
export function classifyKubectlFailure(stderr: string, exitCode: number, target: KubectlExecTarget): TransportFailure {
  const { reason, message } = kubectlErrorLine(stderr);
  const quoted = message === '' ? `kubectl exited with status ${exitCode} and printed nothing` : message;
  const pod = `pod ${target.namespace}/${target.pod}`;
  if (reason === 'Forbidden' || / is forbidden: /.test(message)) {
    const refused = parseForbiddenMessage(message) ?? { verb: 'create', resource: 'pods/exec' };
    return { kind: 'forbidden', verb: refused.verb, resource: refused.resource, detail: quoted };
  }
  if (reason === 'NotFound') return { kind: 'connect', detail: `${pod} was not found (kubectl: ${quoted})` };
  if (reason === 'Unauthorized' || /You must be logged in to the server|\bUnauthorized\b/.test(message))
    return { kind: 'auth', detail: `kubectl: ${quoted}` };
  if (/getting credentials|exec plugin|credential plugin/i.test(message))
    return { kind: 'auth', detail: `kubectl could not get credentials: ${quoted}` };
  if (/error executing command in container|OCI runtime exec failed|executable file not found/.test(message)) {
    return {
      kind: 'spawn',
      detail: `${KUBECTL_REMOTE_COMMAND.join(' ')} in ${pod}${target.container ? ` -c ${target.container}` : ''}: ${quoted}`,
    };
  }
  if (
    /websocket: close|error reading from error stream|connection reset by peer|broken pipe|unexpected EOF|stream error|use of closed network connection/i.test(
      message,
    )
  ) {
    return { kind: 'disconnected', detail: `kubectl: ${quoted}` };
  }
  return { kind: 'connect', detail: `kubectl (context ${target.context}): ${quoted}` };
}
