// "gpumem: Open Fleet View…" and the Clusters view's Fleet item: the fleet panel of a context (the item passes the
// context's name; from the command palette a quick pick asks for it). Needs workspace trust: reading the fleet
// reaches the cluster with the kubeconfig's credentials. The wiring of the panels to the cluster model (clients,
// reveal, Inspect Node/Pod) is here too.
import type * as vscode from 'vscode';
import { parseFleetSettings } from '../../core/settings.ts';
import type { FleetSettings } from '../../core/settings.ts';
import type { PodManifestProvider } from '../clusters/manifestProvider.ts';
import { showLiveManifest } from '../clusters/showManifest.ts';
import type { ClusterModel, ContextElement } from '../../clusters/clusterModel.ts';
import { readKubeSettings } from '../clusters/kubeSettings.ts';
import { isElement, pickContext } from '../clusters/targets.ts';
import { readSetting } from '../config.ts';
import type { Ctx } from '../ctx.ts';
import { requireTrust } from '../trust.ts';
import type { RevealElement } from './navigate.ts';
import { openFleetNode, openFleetPod } from './navigate.ts';
import { FleetPanels } from './panel.ts';

/** The context a command argument names: a context's name, its tree element, or the Fleet item ({ context }). */
export function contextNameOf(arg: unknown): string | undefined {
  if (typeof arg === 'string' && arg !== '') return arg;
  if (isElement(arg, 'context')) return (arg as ContextElement).info.name;
  if (typeof arg === 'object' && arg !== null && (arg as { kind?: unknown }).kind === 'fleet') {
    const context = (arg as { context?: unknown }).context;
    if (isElement(context, 'context')) return (context as ContextElement).info.name;
  }
  return undefined;
}

/** gpumem.fleet.*, each invalid value logged: the fleet view's and Right-Size Workloads' Prometheus settings. */
export function fleetSettings(output: vscode.LogOutputChannel): FleetSettings {
  const settings = parseFleetSettings(readSetting);
  for (const problem of settings.problems) output.warn(`Ignoring invalid setting ${problem}`);
  return settings;
}

export function createFleetPanels(ctx: Ctx, clusters: ClusterModel, manifests: PodManifestProvider, reveal: RevealElement): FleetPanels {
  return new FleetPanels({
    output: ctx.output,
    extensionUri: ctx.extension.extensionUri,
    secrets: ctx.extension.secrets,
    settings: () => fleetSettings(ctx.output),
    client: async (name) => {
      const context = (await clusters.ensureLoaded()).find((candidate) => candidate.info.name === name);
      return context ? clusters.client(context) : undefined;
    },
    openNode: openFleetNode(clusters, reveal, ctx.output),
    openPod: openFleetPod(clusters, reveal, ctx.output),
    // Reads the cluster: trust is checked again (the panel may have been restored in Restricted Mode).
    openWorkload: async (context, target) => {
      if (requireTrust('Open live manifest')) await showLiveManifest(ctx.output, manifests, { context, ...target });
    },
    scanPods: () => {
      const kube = readKubeSettings();
      return { namespace: kube.debugNamespace, image: kube.debugImage };
    },
  });
}

export function openFleetView(clusters: ClusterModel, panels: FleetPanels) {
  return async (arg?: unknown): Promise<void> => {
    if (!requireTrust('Open Fleet View')) return;
    const name = contextNameOf(arg) ?? (await pickContext(clusters))?.info.name;
    if (!name) return;
    panels.show(name);
  };
}
