// Collects the HAMi issue bundle of one pod from the Kubernetes API (src/core/report/hamiIssueReport.ts
// writes it): reads only, no exec and no write. The pod (its absence or an RBAC refusal is the one failure
// that stops the report), then at once: GET /version, the pod's events (fieldSelector involvedObject.uid,
// in its namespace), its node, the HAMi device-plugin pods on that node and the HAMi scheduler pods (found by
// the labels of HAMi's chart: hamiLookups.ts), then each of their containers' last lines through pods/log
// (`tailLines`, `limitBytes`; also `previous=true` for a container that restarted). Every lookup after the
// pod that fails is recorded with its reason, so the bundle says what it could not collect and why.
import type { V1Pod } from '@kubernetes/client-node';
import type { FailurePlace } from '../core/kube/failureMessages.ts';
import { explainKubeFailure } from '../core/kube/failureMessages.ts';
import { classifyKubeError } from '../core/kube/kubeFailure.ts';
import { asArray, asString, path } from '../core/kube/json.ts';
import type { ComponentPod, ContainerLog, HamiReportInput, Lookup } from '../core/report/hamiIssueInput.ts';
import type { CallOptions, ClusterClient } from './clusterClient.ts';
import { escapeFieldValue, KubeRequestError } from './clusterClient.ts';
import { findHamiScheduler, HAMI_DEVICE_PLUGIN_SELECTOR } from './hamiLookups.ts';

export interface HamiReportOptions extends CallOptions {
  /** Log lines per container (pods/log tailLines). Default 200, as the issue asks. */
  readonly tailLines?: number;
  /** Bytes per container log (pods/log limitBytes, and cut here if the server sends more). Default 64 KiB. */
  readonly limitBytes?: number;
  /** Scheduler replicas whose logs are read (leader election runs several). Default 3. */
  readonly maxSchedulers?: number;
  readonly toolVersion: string;
  /** Where a failure is explained (RBAC messages name the context and how to check). */
  readonly byHand?: string;
}

const DEFAULT_TAIL_LINES = 200;
const DEFAULT_LIMIT_BYTES = 64 * 1024;

/** The pod's namespace and name, for the caller that has them. */
export interface PodRef {
  readonly namespace: string;
  readonly name: string;
}

function reasonOf(error: unknown, client: ClusterClient, action: string, namespace: string | undefined, byHand?: string): string {
  const failure = error instanceof KubeRequestError ? error.failure : classifyKubeError(error);
  const place: FailurePlace = { context: client.context, action, ...(namespace ? { namespace } : {}), ...(byHand ? { byHand } : {}) };
  return explainKubeFailure(failure, place);
}

async function lookup<T>(
  run: () => Promise<T>,
  client: ClusterClient,
  action: string,
  namespace: string | undefined,
  options: HamiReportOptions,
): Promise<Lookup<T>> {
  try {
    return { kind: 'read', value: await run() };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return { kind: 'failed', reason: reasonOf(error, client, action, namespace, options.byHand) };
  }
}

/** Cuts `text` to `limitBytes` UTF-8 bytes (a server may send "slightly more" than limitBytes). */
function bounded(text: string, limitBytes: number): { text: string; truncated: boolean } {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= limitBytes) return { text, truncated: bytes >= limitBytes };
  return { text: Buffer.from(text, 'utf8').subarray(0, limitBytes).toString('utf8'), truncated: true };
}

/** The containers of a component pod, with whether each restarted (its previous instance has a log then). */
function containersOf(pod: V1Pod): { name: string; restarted: boolean }[] {
  const statuses = asArray(path(pod, 'status', 'containerStatuses'));
  return (pod.spec?.containers ?? []).map((container) => {
    const status = statuses.find((s) => asString(path(s, 'name')) === container.name);
    return { name: container.name, restarted: path(status, 'lastState', 'terminated') !== undefined };
  });
}

async function componentLogs(client: ClusterClient, pod: V1Pod, options: HamiReportOptions): Promise<ComponentPod> {
  const namespace = pod.metadata?.namespace ?? 'default';
  const name = pod.metadata?.name ?? '';
  const tailLines = options.tailLines ?? DEFAULT_TAIL_LINES;
  const limitBytes = options.limitBytes ?? DEFAULT_LIMIT_BYTES;
  const core = client.core;
  const read = (container: string, previous: boolean): Promise<ContainerLog> =>
    lookup(
      async () => {
        const text = await client.call(
          { verb: 'get', resource: 'pods/log' },
          (o) => core.readNamespacedPodLog({ namespace, name, container, tailLines, limitBytes, ...(previous ? { previous } : {}) }, o),
          options,
        );
        return bounded(typeof text === 'string' ? text : String(text ?? ''), limitBytes);
      },
      client,
      `Log of ${namespace}/${name} container ${container}`,
      namespace,
      options,
    ).then((log) => ({ container, previous, log }));
  const reads = containersOf(pod).flatMap(({ name: container, restarted }) => [
    read(container, false),
    ...(restarted ? [read(container, true)] : []),
  ]);
  return { pod, logs: await Promise.all(reads) };
}

/**
 * Reads everything the bundle needs about `ref` (see the header). Throws KubeRequestError only when the pod
 * itself cannot be read, or when the caller cancels.
 */
export async function collectHamiReport(client: ClusterClient, ref: PodRef, options: HamiReportOptions): Promise<HamiReportInput> {
  const call: CallOptions = {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  };
  const pod = await client.readPod(ref.namespace, ref.name, call);
  const uid = pod.metadata?.uid;
  const nodeName = pod.spec?.nodeName || undefined;
  const core = client.core;
  const versionPromise = client
    .probe(call)
    .then((state): Lookup<string> =>
      state.kind === 'Reachable' ? { kind: 'read', value: state.version } : { kind: 'failed', reason: `GET /version: ${state.kind}` },
    );
  const eventsPromise = lookup(
    async () =>
      uid === undefined
        ? []
        : ((
            await client.call(
              { verb: 'list', resource: 'events' },
              (o) =>
                core.listNamespacedEvent(
                  { namespace: ref.namespace, fieldSelector: `involvedObject.uid=${escapeFieldValue(uid)}`, limit: 500 },
                  o,
                ),
              call,
            )
          ).items as readonly unknown[]),
    client,
    `Events of pod ${ref.namespace}/${ref.name}`,
    ref.namespace,
    options,
  );
  const nodePromise =
    nodeName === undefined ? undefined : lookup(() => client.readNode(nodeName, call), client, `Read node ${nodeName}`, undefined, options);
  const pluginsPromise =
    nodeName === undefined
      ? undefined
      : lookup(
          async () => {
            const { pods } = await client.listPodsOnNode(nodeName, { ...call, labelSelector: HAMI_DEVICE_PLUGIN_SELECTOR });
            return Promise.all(pods.map((plugin) => componentLogs(client, plugin, options)));
          },
          client,
          'HAMi device-plugin pods',
          undefined,
          options,
        );
  const schedulersPromise = lookup(
    async () => {
      const pods = await findHamiScheduler(client, call);
      const running = [...pods].sort((a, b) => Number(b.status?.phase === 'Running') - Number(a.status?.phase === 'Running'));
      return Promise.all(running.slice(0, options.maxSchedulers ?? 3).map((scheduler) => componentLogs(client, scheduler, options)));
    },
    client,
    'HAMi scheduler pods',
    undefined,
    options,
  );
  const [serverVersion, events, node, devicePlugins, schedulers] = await Promise.all([
    versionPromise,
    eventsPromise,
    nodePromise,
    pluginsPromise,
    schedulersPromise,
  ]);
  return {
    context: client.context,
    serverVersion,
    pod,
    events,
    node,
    devicePlugins,
    schedulers,
    tailLines: options.tailLines ?? DEFAULT_TAIL_LINES,
    collectedAt: new Date().toISOString(),
    toolVersion: options.toolVersion,
  };
}
