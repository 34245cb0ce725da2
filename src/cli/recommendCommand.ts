// `gpumem recommend`: memory requests and limits for each container of the cluster's workloads, from what their
// pods really used (the true footprint: cgroup + GPU memory in RAM at the same instant) and the cause of each OOM
// kill. Read-only against the cluster and Prometheus; `--apply DIR` edits the matching manifests in DIR, after
// printing the diff. Exit 0: nothing to change; 1: some container should change; 2: nothing could be read.
import { writeFile } from 'node:fs/promises';
import { readBoundedText } from '../files/boundedRead.ts';
import { parseWindow } from '../core/fleet/promFacts.ts';
import { isDnsLabel } from '../core/kube/names.ts';
import { recommendationsToJson, recommendationsToMarkdown, recommendationsToText } from '../core/rightsizing/format.ts';
import { patchStream } from '../core/rightsizing/patch.ts';
import { changesOf } from '../core/rightsizing/rows.ts';
import { DEFAULT_HEADROOM_PERCENT, isHeadroomPercent } from '../core/sizing.ts';
import { terminalSafe } from '../core/text/escape.ts';
import { ClusterClient } from '../kube/clusterClient.ts';
import { errorText } from '../kube/errorText.ts';
import { PrometheusClient } from '../prometheus/client.ts';
import { contextNamespace, gatherRecommendations } from '../rightsizing/gather.ts';
import type { FiguresFrom } from '../rightsizing/gather.ts';
import { applyToDirectory } from './recommendApply.ts';
import { CliFailure, parseArgs, UsageError } from './args.ts';
import { prometheusAuth } from './fleetCommand.ts';
import { describeError } from './files.ts';
import type { CliIo } from './io.ts';
import { chooseContext } from './kubeTarget.ts';

export const RECOMMEND_USAGE = `Usage: gpumem recommend [--context C] [--kubeconfig FILE] [-n NS ... | -A] [--prometheus URL]
                        [--prometheus-ca FILE] [--window 14d] [--headroom PERCENT] [--format table|json|markdown|patch] [--apply DIR]

Memory requests and limits for each container of the workloads in the namespaces (default: the context's
namespace, or default), from what their pods used over the window and why they were OOM-killed:
- memcg kills: the limit was too small; raised above the observed peak, at least by VPA's OOM bump;
- global kills with the GPU signature: request = limit = peak true footprint (cgroup + GPU memory in RAM at the
  same instant) + the headroom, and the gpumem.io/gpu-memory declaration; a bigger limit alone would not help;
- global kills without it: no change (the node ran short because of others; the node and its biggest pods named);
- no kills: request = limit = peak true footprint + 15 % (the headroom on unified-memory nodes), as KRR's simple.
Figures come from Prometheus (--prometheus, or the cluster's Prometheus service through the API server) holding
cAdvisor's working set and the gpumem agents' metrics; at least 100 samples over 3 hours, or no number.
--format patch  strategic-merge patches, one per workload, usable as kustomize patches
--apply DIR     edit the matching manifests under DIR in place (memory lines and the annotation only); the diff
                is printed first. Nothing is written without --apply.
Prometheus credentials come from the environment: GPUMEM_PROMETHEUS_TOKEN, or GPUMEM_PROMETHEUS_USER and
GPUMEM_PROMETHEUS_PASSWORD. Exit 0: nothing to change; 1: some container should change; 2: nothing could be read.
`;

function option(options: ReadonlyMap<string, string | true>, name: string): string | undefined {
  const value = options.get(name);
  return typeof value === 'string' ? value : undefined;
}

export async function recommendCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(
    argv,
    {
      context: true,
      kubeconfig: true,
      namespace: true,
      'all-namespaces': false,
      prometheus: true,
      'prometheus-ca': true,
      window: true,
      headroom: true,
      format: true,
      apply: true,
      help: false,
    },
    { '-h': '--help', '-n': '--namespace', '-A': '--all-namespaces', '-f': '--format' },
  );
  if (args.options.has('help')) {
    io.stdout(RECOMMEND_USAGE);
    return 0;
  }
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${args.positionals[0] ?? ''}`);
  const window = parseWindow(option(args.options, 'window') ?? '14d');
  if (!window) throw new UsageError('--window must be a duration from 5m to 90d, e.g. 24h, 7d, 14d');
  const format = option(args.options, 'format') ?? 'table';
  if (!['table', 'json', 'markdown', 'patch'].includes(format)) throw new UsageError('--format must be table, json, markdown or patch');
  const headroomText = option(args.options, 'headroom');
  const headroom = headroomText === undefined ? DEFAULT_HEADROOM_PERCENT : Number(headroomText);
  if (!isHeadroomPercent(headroom)) throw new UsageError('--headroom must be a percentage from 0 to 1000');
  const all = args.options.has('all-namespaces');
  const namespaceText = option(args.options, 'namespace');
  if (all && namespaceText !== undefined) throw new UsageError('give -n NS or -A, not both');
  const namespaces = namespaceText === undefined ? [] : namespaceText.split(',');
  for (const ns of namespaces) if (!isDnsLabel(ns)) throw new UsageError(`-n: "${ns}" is not a namespace name`);
  const applyDir = option(args.options, 'apply');

  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let client: ClusterClient | undefined;
  try {
    const context = await chooseContext(
      { kubeconfig: option(args.options, 'kubeconfig'), context: option(args.options, 'context'), io },
      'recommend',
    );
    client = new ClusterClient(context, { requestTimeoutMs: 30_000 });
    const scope = all ? [] : namespaces.length > 0 ? namespaces : [contextNamespace(client)];
    const caFile = option(args.options, 'prometheus-ca');
    let ca: string | undefined;
    if (caFile !== undefined) {
      const read = await readBoundedText(caFile, { kind: 'ca-bundle' });
      if (read.kind !== 'read') {
        io.stderr(`gpumem recommend: --prometheus-ca ${caFile}: ${read.reason}\n`);
        return 2;
      }
      ca = read.text;
    }
    const gathered = await gatherRecommendations(client, {
      namespaces: scope,
      window,
      headroomPercent: headroom,
      figuresFrom: figuresFrom(option(args.options, 'prometheus'), ca),
      signal: controller.signal,
      nowMs: Date.now(),
    });
    if (gathered.kind === 'unreadable') {
      io.stderr(`gpumem recommend: nothing could be read: ${gathered.reason}\n`);
      return 2;
    }
    for (const note of gathered.notes) io.stderr(`gpumem recommend: ${note}\n`);
    const { rows, header } = gathered;
    const changes = changesOf(rows);
    if (format === 'json') io.stdout(`${JSON.stringify(recommendationsToJson(rows, header), null, 2)}\n`);
    else if (format === 'markdown') io.stdout(recommendationsToMarkdown(rows, header));
    else if (format === 'patch') io.stdout(terminalSafe(patchStream(changes)));
    else io.stdout(terminalSafe(recommendationsToText(rows, header)));
    if (applyDir !== undefined) {
      const applied = await applyToDirectory(applyDir, changes, io, writeFile);
      if (applied.kind === 'failed') return 2;
    }
    const differs = rows.some((row) => row.recommendation.kind === 'sized' && row.recommendation.memory.text !== row.current.limit?.text);
    return differs ? 1 : 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof CliFailure) throw error;
    if (controller.signal.aborted) {
      io.stderr('gpumem recommend: cancelled\n');
      return 2;
    }
    io.stderr(
      `gpumem recommend: ${client ? errorText(error, { context: client.context, namespace: 'the namespaces read', action: 'Read the workloads' }) : describeError(error)}\n`,
    );
    return 2;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await client?.dispose(0);
  }
}

export function figuresFrom(url: string | undefined, ca: string | undefined): FiguresFrom {
  if (url === undefined) return { kind: 'discover' };
  try {
    return {
      kind: 'prometheus',
      client: new PrometheusClient({ kind: 'url', url, auth: prometheusAuth(process.env), ...(ca !== undefined ? { ca } : {}) }),
    };
  } catch (error) {
    throw new UsageError(`--prometheus: ${describeError(error)}`);
  }
}
