// "gpumem: Right-Size Workloads…": pick a kubeconfig context (or take the Clusters view item's) and namespaces, read
// the recommendations through the same gathering as `gpumem recommend` (src/rightsizing/gather.ts: the live
// workloads and pods, Prometheus figures, the kills the API reports) under a cancellable progress notification, and
// show them in the context's fleet panel as its Recommendations section. Prometheus is the fleet view's:
// gpumem.fleet.prometheusUrl with its stored credentials and CA, else the cluster's own Prometheus service. The
// headroom is the linter's (gpumem.lint.headroomPercent). Read-only; needs workspace trust (it reaches the cluster
// with the kubeconfig's credentials).
import * as vscode from 'vscode';
import { buildRecommendationsView, workloadPatches } from '../../core/rightsizing/recommendationsModel.ts';
import { plainLabel } from '../../core/text/escape.ts';
import type { ClusterClient } from '../../kube/clusterClient.ts';
import { errorText } from '../../kube/errorText.ts';
import { PrometheusClient } from '../../prometheus/client.ts';
import { contextNamespace, gatherRecommendations } from '../../rightsizing/gather.ts';
import type { FiguresFrom } from '../../rightsizing/gather.ts';
import type { ClusterModel } from '../../clusters/clusterModel.ts';
import { pickContext } from '../clusters/targets.ts';
import type { Ctx } from '../ctx.ts';
import { reportError, showFailure } from '../messages.ts';
import { requireTrust } from '../trust.ts';
import { contextNameOf, fleetSettings } from './openFleetView.ts';
import type { FleetPanels } from './panel.ts';
import { prometheusAccess } from './read.ts';

/** As `gpumem recommend`'s default: two weeks, KRR's default history too. */
export const RIGHT_SIZE_WINDOW = { label: '14d', seconds: 14 * 86_400 } as const;

interface NamespaceItem extends vscode.QuickPickItem {
  /** undefined: every namespace. */
  readonly namespace: string | undefined;
}

/** The namespaces to read ([] = all), the context's own picked first; undefined when the pick was dismissed. */
async function pickNamespaces(client: ClusterClient, output: vscode.LogOutputChannel): Promise<readonly string[] | undefined> {
  const own = contextNamespace(client);
  const items = (async (): Promise<NamespaceItem[]> => {
    let names: string[];
    try {
      const list = await client.call({ verb: 'list', resource: 'namespaces' }, (o) => client.core.listNamespace({ limit: 1000 }, o));
      names = list.items.map((item) => item.metadata?.name ?? '').filter((name) => name !== '');
    } catch (error) {
      output.warn(`Right-Size Workloads: ${errorText(error, { context: client.context, namespace: own, action: 'List the namespaces' })}`);
      names = [];
    }
    if (!names.includes(own)) names.push(own);
    return [
      { label: '$(globe) All namespaces', description: 'every namespace you may list', namespace: undefined },
      ...names.sort().map((name) => ({
        label: plainLabel(name),
        ...(name === own ? { description: "the context's namespace" } : {}),
        picked: name === own,
        namespace: name,
      })),
    ];
  })();
  const picked = await vscode.window.showQuickPick(items, {
    canPickMany: true,
    title: `gpumem: Right-Size Workloads in ${plainLabel(client.context)}`,
    placeHolder: 'Namespaces whose workloads to right-size',
    ignoreFocusOut: true,
  });
  if (!picked || picked.length === 0) return undefined;
  return picked.some((item) => item.namespace === undefined) ? [] : picked.map((item) => item.namespace as string);
}

export function rightSizeWorkloads(ctx: Ctx, clusters: ClusterModel, panels: FleetPanels) {
  return async (arg?: unknown): Promise<void> => {
    if (!requireTrust('Right-Size Workloads')) return;
    const name = contextNameOf(arg) ?? (await pickContext(clusters))?.info.name;
    if (!name) return;
    const context = (await clusters.ensureLoaded()).find((candidate) => candidate.info.name === name);
    if (!context) {
      void showFailure(ctx.output, `Right-Size Workloads: no kubeconfig context ${name}`);
      return;
    }
    const client = clusters.client(context);
    const namespaces = await pickNamespaces(client, ctx.output);
    if (!namespaces) return;
    const scope = namespaces.length === 0 ? 'every namespace' : namespaces.join(', ');
    const action = `Right-size the workloads of ${name}`;
    const controller = new AbortController();
    try {
      const access = await prometheusAccess(fleetSettings(ctx.output), ctx.extension.secrets);
      const figuresFrom: FiguresFrom = access
        ? { kind: 'prometheus', client: new PrometheusClient({ kind: 'url', ...access }) }
        : { kind: 'discover' };
      const headroomPercent = ctx.settings.lint.headroomPercent;
      const readAtMs = Date.now();
      const gathered = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `gpumem: right-sizing the workloads of ${name}`, cancellable: true },
        async (progress, token) => {
          const subscription = token.onCancellationRequested(() => controller.abort());
          progress.report({
            message: `${scope}, window ${RIGHT_SIZE_WINDOW.label}, from ${access ? `Prometheus at ${new URL(access.url).host}` : "the cluster's Prometheus, if it has one"}…`,
          });
          try {
            return await gatherRecommendations(client, {
              namespaces,
              window: RIGHT_SIZE_WINDOW,
              headroomPercent,
              figuresFrom,
              signal: controller.signal,
              nowMs: readAtMs,
            });
          } finally {
            subscription.dispose();
          }
        },
      );
      if (gathered.kind === 'unreadable') {
        void showFailure(ctx.output, `${action}: nothing could be read: ${gathered.reason}`);
        return;
      }
      for (const note of gathered.notes) ctx.output.warn(`right-sizing ${name}: ${note}`);
      const model = buildRecommendationsView({
        context: name,
        namespaces,
        rows: gathered.rows,
        header: gathered.header,
        notes: gathered.notes,
        headroomPercent,
        readAtMs,
      });
      ctx.output.info(`right-sizing ${name} (${scope}): ${model.header.line}; figures from ${gathered.header.source}`);
      panels.showRecommendations(name, { model, patches: workloadPatches(gathered.rows) });
    } catch (error) {
      if (controller.signal.aborted) {
        ctx.output.info(`${action}: cancelled`);
        return;
      }
      reportError(ctx.output, action, error, errorText(error, { context: name, namespace: scope, action }));
    }
  };
}
