// The command lines of "Copy Probe Command": how to run gpumem's probe BY HAND with kubectl, for a user whose
// extension host cannot reach the cluster or who wants to run it under other credentials. Every name from a
// kubeconfig or a cluster is shell-quoted, so a context called `prod; rm -rf ~` stays one argument.
//
// - node: `kubectl debug node/<n> --image=busybox:1.36 -i --profile=sysadmin -- sh -s < probe.sh`. The
//   sysadmin profile runs the debug container privileged with hostPID and the node's root at /host, so the
//   script must be the node probe built with host root `/host` ("Node, from a debug pod" in Copy Probe
//   Script). kubectl leaves the `node-debugger-…` pod behind: the notes say how to delete it.
// - pod: `kubectl exec -i -n <ns> <pod> -c <container> -- sh -s < probe.sh` with the container probe.
// The context is always explicit (`--context=…`): the view shows every context, so the kubeconfig's current
// context may be another cluster.

/** POSIX shell quoting: bare when only safe characters, else single quotes with `'\''` for a quote. */
export function shellQuote(value: string): string {
  if (value !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) && !value.startsWith('-')) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export interface NodeProbeCommandInput {
  readonly context: string;
  readonly node: string;
  readonly namespace: string;
  readonly image: string;
}

export interface PodProbeCommandInput {
  readonly context: string;
  readonly namespace: string;
  readonly pod: string;
  readonly container: string | undefined;
}

export interface ProbeCommand {
  /** One line to paste into a shell; reads probe.sh, writes capture.txt. */
  readonly command: string;
  /** Which probe script probe.sh must hold. */
  readonly script: { readonly scope: 'node' | 'container'; readonly hostRoot: string };
  /** What to know before and after running it. */
  readonly notes: readonly string[];
}

export function nodeProbeCommand(input: NodeProbeCommandInput): ProbeCommand {
  const words = [
    'kubectl',
    `--context=${shellQuote(input.context)}`,
    '-n',
    shellQuote(input.namespace),
    'debug',
    shellQuote(`node/${input.node}`),
    `--image=${shellQuote(input.image)}`,
    '-i',
    '--profile=sysadmin',
    '--',
    'sh',
    '-s',
  ];
  return {
    command: `${words.join(' ')} < probe.sh > capture.txt`,
    script: { scope: 'node', hostRoot: '/host' },
    notes: [
      'probe.sh must be the node probe for a debug pod (host root /host): "gpumem: Copy Probe Script" → "Node, from a debug pod".',
      `kubectl debug leaves its pod behind: kubectl --context=${shellQuote(input.context)} -n ${shellQuote(input.namespace)} get pods, then delete the node-debugger-… pod.`,
      'Open capture.txt with "gpumem: Analyze Probe Capture…" or run: gpumem analyze capture.txt',
    ],
  };
}

export function podProbeCommand(input: PodProbeCommandInput): ProbeCommand {
  const words = [
    'kubectl',
    `--context=${shellQuote(input.context)}`,
    'exec',
    '-i',
    '-n',
    shellQuote(input.namespace),
    shellQuote(input.pod),
  ];
  if (input.container !== undefined) words.push('-c', shellQuote(input.container));
  words.push('--', 'sh', '-s');
  return {
    command: `${words.join(' ')} < probe.sh > capture.txt`,
    script: { scope: 'container', hostRoot: '' },
    notes: [
      'probe.sh must be the container probe: "gpumem: Copy Probe Script" → "Container".',
      'Open capture.txt with "gpumem: Analyze Probe Capture…" or run: gpumem analyze capture.txt',
    ],
  };
}
