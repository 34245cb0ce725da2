// `gpumem lint --live`: the workloads of the linted files read in a cluster (kind, namespace and name; an object
// without a namespace is in the context's), judged by what their pods used over the window (src/core/live/). The
// static lint has already run: a cluster that cannot be read costs one line and the live part, never the static
// findings. Read-only against the cluster and Prometheus; one overall deadline; Ctrl-C cancels.
import type { ContainerSummary } from '../core/analysis/containerSummary.ts';
import type { RuleSetting } from '../core/config.ts';
import type { FleetWindow } from '../core/fleet/facts.ts';
import { isDnsLabel } from '../core/kube/names.ts';
import { liveFileReport } from '../core/live/liveReport.ts';
import type { LiveFileReport } from '../core/live/liveReport.ts';
import { readBoundedText } from '../files/boundedRead.ts';
import { ClusterClient } from '../kube/clusterClient.ts';
import { failureSentence } from '../live/liveSource.ts';
import { readLiveSnapshot } from '../live/readLive.ts';
import { contextNamespace } from '../rightsizing/gather.ts';
import { CliFailure } from './args.ts';
import type { CliIo } from './io.ts';
import { chooseContext } from './kubeTarget.ts';
import { figuresFrom } from './recommendCommand.ts';

/** The whole live read (lists, discovery, queries) is abandoned after this. */
export const LIVE_DEADLINE_MS = 120_000;

export interface LiveLintOptions {
  readonly context: string | undefined;
  readonly kubeconfig: string | undefined;
  readonly prometheus: string | undefined;
  readonly prometheusCa: string | undefined;
  readonly window: FleetWindow;
  readonly headroomPercent: number;
  /** The --config file's per-rule settings: the live findings are turned off or re-ranked as the static ones. */
  readonly rules: Readonly<Record<string, RuleSetting>>;
}

export interface LintedFile {
  readonly slot: number;
  readonly name: string;
  readonly text: string;
  readonly summaries: readonly ContainerSummary[];
}

export type LiveLint =
  | {
      readonly kind: 'read';
      readonly context: string;
      readonly reports: ReadonlyMap<number, LiveFileReport>;
      readonly notes: readonly string[];
    }
  | { readonly kind: 'unreadable'; readonly context: string; readonly reason: string };

/** The namespaces the files' workloads name; `undefined` stands for the context's own. */
function namespacesOf(files: readonly LintedFile[]): { named: Set<string>; needsDefault: boolean } {
  const named = new Set<string>();
  let needsDefault = false;
  for (const file of files)
    for (const summary of file.summaries) {
      const namespace = summary.object.namespace;
      if (namespace === undefined) needsDefault = true;
      else if (isDnsLabel(namespace)) named.add(namespace);
      // A templated namespace (`{{ .Release.Namespace }}`) names nothing to read.
    }
  return { named, needsDefault };
}

export async function lintLive(files: readonly LintedFile[], options: LiveLintOptions, io: CliIo): Promise<LiveLint> {
  const loaded = await chooseContext({ kubeconfig: options.kubeconfig, context: options.context, io }, 'lint');
  let ca: string | undefined;
  if (options.prometheusCa !== undefined) {
    const read = await readBoundedText(options.prometheusCa, { kind: 'ca-bundle' });
    if (read.kind !== 'read') throw new CliFailure(`--prometheus-ca ${options.prometheusCa}: ${read.reason}`);
    ca = read.text;
  }
  const figures = figuresFrom(options.prometheus, ca);
  const client = new ClusterClient(loaded, { requestTimeoutMs: 30_000 });
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, LIVE_DEADLINE_MS);
  const onSignal = (): void => controller.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const { named, needsDefault } = namespacesOf(files);
    if (needsDefault) named.add(contextNamespace(client));
    if (named.size === 0)
      return { kind: 'read', context: client.context, reports: new Map(), notes: ['no workload in the files names a namespace to read'] };
    const nowMs = Date.now();
    const read = await readLiveSnapshot(client, {
      namespaces: [...named].sort(),
      window: options.window,
      headroomPercent: options.headroomPercent,
      figuresFrom: figures,
      signal: controller.signal,
      nowMs,
    });
    if (read.kind === 'unreadable') return { kind: 'unreadable', context: client.context, reason: read.reason };
    const reports = new Map<number, LiveFileReport>();
    for (const file of files)
      if (file.summaries.length > 0)
        reports.set(
          file.slot,
          liveFileReport(file.text, file.summaries, read.snapshot, {
            headroomPercent: options.headroomPercent,
            rules: options.rules,
            nowMs,
          }),
        );
    const notes = [
      `figures from ${read.snapshot.source} over ${read.snapshot.window}; namespaces ${[...named].sort().join(', ')}`,
      ...read.notes,
    ];
    return { kind: 'read', context: client.context, reports, notes };
  } catch (error) {
    if (error instanceof CliFailure) throw error;
    const cancelled = controller.signal.aborted && !timedOut ? controller.signal : undefined;
    return {
      kind: 'unreadable',
      context: client.context,
      reason: failureSentence(client.context, error, timedOut, LIVE_DEADLINE_MS, cancelled),
    };
  } finally {
    clearTimeout(timer);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await client.dispose(0);
  }
}
