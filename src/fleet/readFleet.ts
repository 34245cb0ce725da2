// One entry point for reading a fleet, shared by `gpumem fleet` and the fleet view: the source chosen in the issue's
// order (a Prometheus URL; else the agents through the pod proxy), the API's nodes merged in, the summary made. The
// caller gives the credentials and shows progress; this never prompts.
import { summarizeNode } from '../core/kube/nodes.ts';
import { withClusterNodes } from '../core/fleet/clusterNodes.ts';
import type { FleetFacts, FleetWindow } from '../core/fleet/facts.ts';
import type { FleetSummary } from '../core/fleet/summary.ts';
import { summarizeFleet } from '../core/fleet/summary.ts';
import type { ClusterClient } from '../kube/clusterClient.ts';
import { readFleetFromAgents } from './agentsSource.ts';
import type { PrometheusAuth } from './httpGet.ts';
import { directGetter } from './httpGet.ts';
import { readFleetFromPrometheus } from './prometheusSource.ts';

export type FleetSourceChoice = 'auto' | 'prometheus' | 'agents';

export interface ReadFleetOptions {
  readonly source: FleetSourceChoice;
  readonly window: FleetWindow;
  readonly top: number;
  /** The cluster: for the agents source and the nodes' labels. Undefined: Prometheus alone. */
  readonly client?: ClusterClient;
  readonly prometheus?: { readonly url: string; readonly auth: PrometheusAuth; readonly ca?: string };
  readonly signal?: AbortSignal;
  /** Lines for the log (which source, what was skipped). */
  readonly log?: (line: string) => void;
  readonly now?: () => number;
}

export interface FleetRead {
  readonly summary: FleetSummary;
  /** Problems of reading the nodes' labels (the facts keep their own). */
  readonly notes: readonly string[];
}

/** Throws when no source could be read (the message says which and why). */
export async function readFleet(options: ReadFleetOptions): Promise<FleetRead> {
  const at = Math.floor((options.now ?? Date.now)() / 1000);
  const notes: string[] = [];
  let facts: FleetFacts;
  if (options.source === 'prometheus' && !options.prometheus)
    throw new Error('the Prometheus source needs a URL (gpumem.fleet.prometheusUrl, --prometheus)');
  if (options.prometheus && options.source !== 'agents') {
    const { url, auth, ca } = options.prometheus;
    const getter = directGetter(url, auth, ca !== undefined ? { ca } : {});
    options.log?.(`fleet: reading Prometheus at ${new URL(url).host}`);
    facts = (
      await readFleetFromPrometheus(getter, {
        window: options.window,
        top: options.top,
        at,
        description: `Prometheus at ${new URL(url).host}`,
        ...(options.signal ? { signal: options.signal } : {}),
      })
    ).facts;
  } else {
    if (!options.client) throw new Error('no cluster to read the agents from, and no Prometheus URL');
    options.log?.(`fleet: reading the gpumem agents of context ${options.client.context} through the pod proxy`);
    facts = await readFleetFromAgents(options.client, {
      window: options.window,
      at,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
  if (options.client) {
    try {
      const nodes = await options.client.listNodes(options.signal ? { signal: options.signal } : {});
      facts = withClusterNodes(
        facts,
        nodes.map((node) => summarizeNode(node)),
      );
    } catch (error) {
      notes.push(`the nodes' labels could not be read: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { summary: summarizeFleet(facts, options.top), notes };
}
