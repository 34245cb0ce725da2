// The Kubernetes targets of `gpumem inspect`, through the same src/kube code as the Clusters view:
// - `--node NAME`: the node probe in a short-lived debug pod pinned to the node (deleted on success, error and
//   Ctrl-C), or over SSH to the node's address with `--node-probe ssh`; the report names the pods by the
//   API server's pod list and, on a HAMi node, checks its device-plugin pod;
// - `--pod [NAMESPACE/]NAME`: the container probe through the pod exec API, with the cluster side of the HAMi
//   checklist (device plugin on the pod's node, scheduler, runtime class, the container's env).
// The kubeconfig is read as kubectl reads it (--kubeconfig, else KUBECONFIG, else ~/.kube/config) and never
// written; exec credential plugins and proxies work as client-node supports them.
import type { FailurePlace } from '../core/kube/failureMessages.ts';
import { isDnsLabel, isDnsSubdomain } from '../core/kube/names.ts';
import { summarizeNode } from '../core/kube/nodes.ts';
import { defaultExecContainer } from '../core/kube/pods.ts';
import { hamiClusterMarkdown } from '../core/report/clusterReport.ts';
import { ClusterClient } from '../kube/clusterClient.ts';
import { errorText } from '../kube/errorText.ts';
import { podHamiFacts } from '../kube/explorer.ts';
import { loadKubeconfigs } from '../kube/kubeconfig.ts';
import type { LoadedContext } from '../kube/kubeconfig.ts';
import { nodeAnalysisInputs, resolveNodeProbeRoute } from '../kube/nodeProbe.ts';
import type { NodeProbeSettings } from '../kube/nodeProbe.ts';
import { PodExecTransport } from '../kube/podExecTransport.ts';
import type { SshFromConfigOptions } from '../transports/sshFromConfig.ts';
import { CliFailure, UsageError } from './args.ts';
import type { CliIo } from './io.ts';
import type { ProbeTarget } from './probeTarget.ts';

export type KubeTargetSpec =
  | { readonly kind: 'node'; readonly name: string }
  | { readonly kind: 'pod'; readonly namespace: string | undefined; readonly name: string; readonly container: string | undefined };

export interface KubeTargetOptions {
  readonly kubeconfig: string | undefined;
  /** Default: the kubeconfig's current-context. */
  readonly context: string | undefined;
  readonly node: NodeProbeSettings;
  /** False with `--no-agent`: the debug pod even where the node runs the gpumem agent. */
  readonly useAgent?: boolean;
  /** `--hami-lib-path`: HAMi's host directory for the node probe (its chart's devicePlugin.libPath). */
  readonly hamiLibPath?: string;
  /** For `--node-probe ssh`: the host-key policy and the config, as for `--ssh`. */
  readonly ssh: SshFromConfigOptions;
  readonly timeoutMs: number;
  readonly io: CliIo;
}

/** The CLI's way to run the probe by hand, named in RBAC messages. */
const BY_HAND = 'gpumem probe-script, then kubectl exec or kubectl debug: docs/probes.md';

/** `[namespace/]name` as given to --pod, checked as Kubernetes names (nothing else reaches a URL). */
export function parsePodRef(value: string, container: string | undefined): KubeTargetSpec {
  const [first, second, ...rest] = value.split('/');
  const namespace = second === undefined ? undefined : first;
  const name = second === undefined ? first : second;
  if (rest.length > 0 || name === undefined || !isDnsSubdomain(name))
    throw new UsageError(`--pod: "${value}" is not [NAMESPACE/]NAME of a pod`);
  if (namespace !== undefined && !isDnsLabel(namespace)) throw new UsageError(`--pod: "${namespace}" is not a namespace name`);
  if (container !== undefined && !isDnsLabel(container)) throw new UsageError(`--container: "${container}" is not a container name`);
  return { kind: 'pod', namespace, name, container };
}

export function parseNodeName(value: string): KubeTargetSpec {
  if (!isDnsSubdomain(value)) throw new UsageError(`--node: "${value}" is not a node name`);
  return { kind: 'node', name: value };
}

/** The context to use: the named one or the current one; a failure that lists the others. */
export async function chooseContext(
  options: Pick<KubeTargetOptions, 'kubeconfig' | 'context' | 'io'>,
  command = 'inspect',
): Promise<LoadedContext> {
  const loaded = await loadKubeconfigs({ explicitPath: options.kubeconfig });
  for (const problem of loaded.problems) options.io.stderr(`gpumem ${command}: kubeconfig: ${problem}\n`);
  if (loaded.contexts.length === 0) {
    const where = loaded.source.files.join(', ') || '(no file)';
    throw new CliFailure(`no Kubernetes context in ${where}: give --kubeconfig FILE, or set KUBECONFIG`);
  }
  const wanted = options.context ?? loaded.currentContext;
  if (wanted === undefined)
    throw new CliFailure(
      `the kubeconfig sets no current-context: give --context (one of ${loaded.contexts.map((c) => c.name).join(', ')})`,
    );
  const context = loaded.contexts.find((c) => c.name === wanted);
  if (!context)
    throw new CliFailure(`no context "${wanted}" in the kubeconfig (contexts: ${loaded.contexts.map((c) => c.name).join(', ')})`);
  if (context.problem) throw new CliFailure(`context "${context.name}": ${context.problem}`);
  return context;
}

/** The API server could not give the target (unreachable, RBAC, not found): the message says why and where. */
export class KubeTargetError extends Error {}

/** Resolves the target against the API server (reads the node or the pod) and builds its transport. */
export async function openKubeTarget(spec: KubeTargetSpec, options: KubeTargetOptions, signal: AbortSignal): Promise<ProbeTarget> {
  const context = await chooseContext(options);
  const client = new ClusterClient(context, { requestTimeoutMs: Math.min(options.timeoutMs, 30_000) });
  // A pod without a namespace is in the context's, as kubectl has it.
  const namespace = spec.kind === 'pod' ? (spec.namespace ?? context.namespace ?? 'default') : undefined;
  try {
    return namespace === undefined
      ? await openNode(client, spec.name, options, signal)
      : await openPod(client, namespace, spec.name, spec.kind === 'pod' ? spec.container : undefined, options.io, signal);
  } catch (error) {
    await client.dispose(0);
    if (error instanceof CliFailure) throw error;
    const action = namespace === undefined ? `Read node ${spec.name}` : `Read pod ${namespace}/${spec.name}`;
    throw new KubeTargetError(
      errorText(error, { context: context.name, ...(namespace !== undefined ? { namespace } : {}), action, byHand: BY_HAND }),
    );
  }
}

async function openNode(client: ClusterClient, name: string, options: KubeTargetOptions, signal: AbortSignal): Promise<ProbeTarget> {
  const node = summarizeNode(await client.readNode(name, { signal }));
  const route = await resolveNodeProbeRoute(client, node, options.node, {
    ssh: options.ssh,
    useAgent: options.useAgent !== false,
    signal,
    debugPod: {
      log: (line) => options.io.stderr(`gpumem inspect: ${line}\n`),
      onCleanupFailure: (message) => options.io.stderr(`gpumem inspect: warning: ${message}\n`),
    },
  });
  if (route.kind === 'unreachable') throw new CliFailure(`node ${name}: ${route.reason} (--node-probe ssh)`);
  if (route.kind === 'agent') options.io.stderr(`gpumem inspect: node ${name}: through the ${route.transport.target}, no debug pod\n`);
  if (route.kind === 'debug-pod' && route.agentSkipped)
    options.io.stderr(`gpumem inspect: node ${name}: ${route.agentSkipped}; using a debug pod\n`);
  const place: FailurePlace = {
    context: client.context,
    ...(route.kind === 'debug-pod' || route.kind === 'agent' ? { namespace: route.namespace } : {}),
    action: `Inspect node ${name}`,
    byHand: BY_HAND,
  };
  return {
    transport: route.transport,
    probe: { scope: 'node', hostRoot: route.hostRoot, ...(options.hamiLibPath !== undefined ? { hamiLibPath: options.hamiLibPath } : {}) },
    place,
    analysis: (analysisSignal) => nodeAnalysisInputs(client, node, { signal: analysisSignal }),
    appendix: () => '',
    close: async () => {
      await route.transport.close();
      await client.dispose(0);
    },
  };
}

async function openPod(
  client: ClusterClient,
  namespace: string,
  name: string,
  wanted: string | undefined,
  io: CliIo,
  signal: AbortSignal,
): Promise<ProbeTarget> {
  const pod = await client.readPod(namespace, name, { signal });
  const names = (pod.spec?.containers ?? []).map((c) => c.name);
  if (wanted !== undefined && !names.includes(wanted)) {
    throw new CliFailure(`pod ${namespace}/${name} has no container "${wanted}" (containers: ${names.join(', ')})`);
  }
  // As kubectl exec: the default-container annotation, else the first container.
  const container = defaultExecContainer(pod, wanted);
  const transport = new PodExecTransport({
    kubeConfig: client.kubeConfig,
    namespace,
    pod: name,
    client,
    ...(container !== undefined ? { container } : {}),
  });
  let appendix = '';
  return {
    transport,
    probe: { scope: 'container' },
    place: { context: client.context, namespace, action: `Inspect pod ${namespace}/${name}`, byHand: BY_HAND },
    analysis: async (analysisSignal) => {
      const hami = await podHamiFacts(client, pod, container, { signal: analysisSignal });
      // A cluster check that could not be made (RBAC) leaves its step unknown: say why, whatever the format.
      for (const problem of hami.section.problems) io.stderr(`gpumem inspect: warning: ${problem}\n`);
      appendix = hamiClusterMarkdown(hami.section);
      return { hamiCluster: hami.facts };
    },
    appendix: () => appendix,
    close: async () => {
      await transport.close();
      await client.dispose(0);
    },
  };
}
