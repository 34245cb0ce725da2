// `gpumem fleet`: the fleet summary of a cluster's GPU nodes, for a cron job or a CI gate before a rollout. Sources,
// in this order with --source auto: Prometheus (--prometheus URL) holding the agents' metrics, else the agents'
// /metrics through the API server's pod proxy. Exit 0: no warning or worse; 1: some; 2: the fleet could not be read.
import { fleetPodsCsv, fleetToJson, fleetToMarkdown, fleetToText } from '../core/fleet/fleetReport.ts';
import { parseWindow } from '../core/fleet/promFacts.ts';
import { DEFAULT_TOP } from '../core/fleet/summary.ts';
import { PrometheusClient } from '../prometheus/client.ts';
import type { PrometheusAuth } from '../prometheus/httpGet.ts';
import { readFleet } from '../fleet/readFleet.ts';
import { DEFAULT_SCAN_CONCURRENCY } from '../fleet/scanSource.ts';
import { isDnsLabel } from '../core/kube/names.ts';
import { parseImageReference } from '../core/kube/imageReference.ts';
import { DEBUG_POD_IMAGE } from '../kube/debugPodSpec.ts';
import { ClusterClient } from '../kube/clusterClient.ts';
import { errorText } from '../kube/errorText.ts';
import { CliFailure, headroomOf, parseArgs, UsageError } from './args.ts';
import { describeError } from './files.ts';
import { readBoundedText } from '../files/boundedRead.ts';
import type { CliIo } from './io.ts';
import { chooseContext } from './kubeTarget.ts';

export const FLEET_USAGE = `Usage: gpumem fleet [--context C] [--kubeconfig FILE] [--source auto|prometheus|agents|scan]
                    [--prometheus URL] [--prometheus-ca FILE] [--window 24h] [--top N]
                    [--scan-concurrency N] [--debug-namespace NS] [--debug-image IMAGE]
                    [--format text|json|markdown|csv] [--headroom PERCENT]

The GPU nodes of a cluster ranked by risk, the pods over their limit once GPU memory is counted, the OOM kills by
scope (global, with the GPU signature, or cgroup) and the HAMi containers bypassing their quota, from the gpumem
agents (deploy/agent): through Prometheus when --prometheus is given or a Prometheus service is found in the
cluster (read through the API server's service proxy, as kubectl proxy reaches it), else each agent's /metrics through the API
server's pod proxy (get pods/proxy in gpumem-system), else, where no agent runs, a one-shot scan: the node debug
pod of gpumem inspect --node on every ready GPU node, --scan-concurrency at a time (default ${DEFAULT_SCAN_CONCURRENCY}),
every pod deleted after, on error and on Ctrl-C too.
--window        the span of peaks and OOM kills from Prometheus: 1h, 24h (default), 7d
--top           how many nodes and pods each list shows (default ${DEFAULT_TOP})
--headroom      the headroom the remedies add over what was used (default: 30)
--prometheus-ca a PEM file of the CA that signed the Prometheus server's certificate
Prometheus credentials come from the environment, never the command line: GPUMEM_PROMETHEUS_TOKEN (a bearer
token), or GPUMEM_PROMETHEUS_USER and GPUMEM_PROMETHEUS_PASSWORD (basic auth).
Exit 0: no warning or worse; 1: some; 2: the fleet could not be read.
`;

function option(options: ReadonlyMap<string, string | true>, name: string): string | undefined {
  const value = options.get(name);
  return typeof value === 'string' ? value : undefined;
}

export function prometheusAuth(env: NodeJS.ProcessEnv): PrometheusAuth {
  const token = env['GPUMEM_PROMETHEUS_TOKEN'];
  if (token) return { kind: 'bearer', token };
  const user = env['GPUMEM_PROMETHEUS_USER'];
  if (user) return { kind: 'basic', user, password: env['GPUMEM_PROMETHEUS_PASSWORD'] ?? '' };
  return { kind: 'none' };
}

export async function fleetCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(
    argv,
    {
      context: true,
      kubeconfig: true,
      source: true,
      prometheus: true,
      'prometheus-ca': true,
      window: true,
      top: true,
      format: true,
      'scan-concurrency': true,
      'debug-namespace': true,
      'debug-image': true,
      headroom: true,
      help: false,
    },
    { '-h': '--help', '-f': '--format' },
  );
  if (args.options.has('help')) {
    io.stdout(FLEET_USAGE);
    return 0;
  }
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${args.positionals[0] ?? ''}`);
  const source = option(args.options, 'source') ?? 'auto';
  if (source !== 'auto' && source !== 'prometheus' && source !== 'agents' && source !== 'scan')
    throw new UsageError('--source must be auto, prometheus, agents or scan');
  const concurrencyText = option(args.options, 'scan-concurrency') ?? String(DEFAULT_SCAN_CONCURRENCY);
  if (!/^\d{1,2}$/.test(concurrencyText) || Number(concurrencyText) < 1 || Number(concurrencyText) > 64)
    throw new UsageError('--scan-concurrency must be a number from 1 to 64');
  const debugNamespace = option(args.options, 'debug-namespace') ?? 'default';
  if (!isDnsLabel(debugNamespace)) throw new UsageError(`--debug-namespace: "${debugNamespace}" is not a namespace name`);
  const image = parseImageReference(option(args.options, 'debug-image') ?? DEBUG_POD_IMAGE);
  if (image.kind === 'invalid') throw new UsageError(`--debug-image: ${image.reason}`);
  const prometheus = option(args.options, 'prometheus');
  const window = parseWindow(option(args.options, 'window') ?? '24h');
  if (!window) throw new UsageError('--window must be a duration from 5m to 90d, e.g. 1h, 24h, 7d');
  const topText = option(args.options, 'top') ?? String(DEFAULT_TOP);
  if (!/^\d{1,3}$/.test(topText) || Number(topText) < 1) throw new UsageError('--top must be a number from 1 to 999');
  const top = Number(topText);
  const headroomPercent = headroomOf(args.options.get('headroom'));
  const format = option(args.options, 'format') ?? 'text';
  if (!['text', 'json', 'markdown', 'csv'].includes(format)) throw new UsageError('--format must be text, json, markdown or csv');

  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The cluster, when a kubeconfig is there: the node labels for the summary, and the agents source.
  const wantsCluster = prometheus === undefined || source !== 'prometheus' || args.options.has('context') || args.options.has('kubeconfig');
  let client: ClusterClient | undefined;
  let contextName = '';
  try {
    if (wantsCluster) {
      try {
        const context = await chooseContext(
          { kubeconfig: option(args.options, 'kubeconfig'), context: option(args.options, 'context'), io },
          'fleet',
        );
        contextName = context.name;
        client = new ClusterClient(context, { requestTimeoutMs: 30_000 });
      } catch (error) {
        if (source !== 'auto' || prometheus === undefined) throw error;
        io.stderr(`gpumem fleet: no cluster (${describeError(error)}); nodes are not matched to their labels\n`);
      }
    }
    let ca: string | undefined;
    const caFile = option(args.options, 'prometheus-ca');
    if (caFile !== undefined) {
      const read = await readBoundedText(caFile, { kind: 'ca-bundle' });
      if (read.kind !== 'read') {
        io.stderr(`gpumem fleet: --prometheus-ca ${caFile}: not read: ${read.reason}\n`);
        return 2;
      }
      ca = read.text;
    }
    if (prometheus !== undefined) {
      try {
        new PrometheusClient({ kind: 'url', url: prometheus, auth: prometheusAuth(process.env) });
      } catch (error) {
        throw new UsageError(`--prometheus: ${describeError(error)}`);
      }
    }
    if (source !== 'prometheus' && prometheus === undefined && !client)
      throw new CliFailure('no cluster to read the agents from: give --context or --kubeconfig, or --prometheus URL');
    const read = await readFleet({
      source,
      window,
      top,
      ...(headroomPercent !== undefined ? { headroomPercent } : {}),
      ...(client ? { client } : {}),
      ...(prometheus !== undefined
        ? { prometheus: { url: prometheus, auth: prometheusAuth(process.env), ...(ca !== undefined ? { ca } : {}) } }
        : {}),
      scan: {
        namespace: debugNamespace,
        image: image.reference,
        concurrency: Number(concurrencyText),
        timeoutMs: 120_000,
        onNode: (scrape, done, total) =>
          io.stderr(
            `gpumem fleet: scanned ${done}/${total}${scrape.kind === 'failed' ? `: ${scrape.node ?? '?'}: ${scrape.reason}` : ''}\n`,
          ),
      },
      signal: controller.signal,
      log: (line) => io.stderr(`gpumem ${line}\n`),
    });
    for (const note of read.notes) io.stderr(`gpumem fleet: ${note}\n`);
    const summary = read.summary;
    io.stdout(
      format === 'json'
        ? `${JSON.stringify(fleetToJson(summary), null, 2)}\n`
        : format === 'markdown'
          ? fleetToMarkdown(summary, top)
          : format === 'csv'
            ? fleetPodsCsv(summary)
            : fleetToText(summary, top),
    );
    return summary.worst === 'error' || summary.worst === 'warning' ? 1 : 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof CliFailure) throw error;
    if (controller.signal.aborted) {
      io.stderr('gpumem fleet: cancelled\n');
      return 2;
    }
    io.stderr(
      `gpumem fleet: the fleet could not be read: ${client ? errorText(error, { context: contextName, namespace: 'gpumem-system', action: 'Read the fleet' }) : describeError(error)}\n`,
    );
    return 2;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await client?.dispose(0);
  }
}
