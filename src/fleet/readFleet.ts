// One entry point for reading a fleet, shared by `gpumem fleet` and the fleet view: the source chosen in the issue's
// order (a Prometheus URL; else the agents through the pod proxy), the API's nodes merged in, the summary made. The
// caller gives the credentials and shows progress; this never prompts.
import { summarizeNode } from '../core/kube/nodes.ts';
import { withClusterNodes } from '../core/fleet/clusterNodes.ts';
import type { FleetFacts, FleetWindow } from '../core/fleet/facts.ts';
import type { FleetSummary } from '../core/fleet/summary.ts';
import { summarizeFleet } from '../core/fleet/summary.ts';
import type { ClusterClient } from '../kube/clusterClient.ts';
import { AGENT_NAMESPACE } from '../kube/agentPod.ts';
import { listAgentPods, readFleetFromAgents } from './agentsSource.ts';
import type { ScanOptions } from './scanSource.ts';
import { scanFleet } from './scanSource.ts';
import type { PrometheusService } from '../core/prometheus/discovery.ts';
import { PrometheusClient } from '../prometheus/client.ts';
import { discoverPrometheus } from '../prometheus/discovery.ts';
import type { PrometheusAuth } from '../prometheus/httpGet.ts';
import { readFleetFromPrometheus } from './prometheusSource.ts';
import { errorMessage } from '../core/errorMessage.ts';

export type FleetSourceChoice = 'auto' | 'prometheus' | 'agents' | 'scan';

export interface ReadFleetOptions {
  readonly source: FleetSourceChoice;
  readonly window: FleetWindow;
  readonly top: number;
  /** The headroom the verdicts' remedies add, in percent (default 30). */
  readonly headroomPercent?: number;
  /** The cluster: for the agents source and the nodes' labels. Undefined: Prometheus alone. */
  readonly client?: ClusterClient;
  readonly prometheus?: { readonly url: string; readonly auth: PrometheusAuth; readonly ca?: string };
  /** The debug pods of a scan (the scan source, and auto when no agent runs). */
  readonly scan?: Omit<ScanOptions, 'window' | 'at' | 'signal' | 'log'>;
  readonly signal?: AbortSignal;
  /** Lines for the log (which source, what was skipped). */
  readonly log?: (line: string) => void;
  readonly now?: () => number;
}

/** No agent runs in the cluster and no scan was asked for: the caller may offer one (it creates pods). */
export class NoAgentsError extends Error {
  constructor(context: string) {
    super(`no gpumem agent runs in context ${context} (deploy/agent is not installed), and no Prometheus holds its metrics`);
    this.name = 'NoAgentsError';
  }
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
  // No URL: the cluster's own Prometheus through the service proxy, when one is found.
  let discovered: PrometheusService | undefined;
  if (!options.prometheus && options.client && (options.source === 'auto' || options.source === 'prometheus')) {
    const found = await discoverPrometheus(options.client, options.signal);
    if (found.kind === 'found') discovered = found.service;
    else {
      if (options.source === 'prometheus') throw new Error(`no Prometheus URL is set and ${found.reason}`);
      options.log?.(`fleet: ${found.reason}; reading the agents`);
    }
  }
  const prometheus =
    discovered && options.client
      ? new PrometheusClient({ kind: 'service', service: discovered, client: options.client })
      : options.prometheus && options.source !== 'agents' && options.source !== 'scan'
        ? new PrometheusClient({ kind: 'url', ...options.prometheus })
        : undefined;
  if (prometheus) {
    options.log?.(`fleet: reading ${discovered ? 'the ' : ''}${prometheus.description}`);
    facts = (
      await readFleetFromPrometheus(prometheus, {
        window: options.window,
        top: options.top,
        at,
        ...(options.signal ? { signal: options.signal } : {}),
      })
    ).facts;
  } else {
    const client = options.client;
    if (!client) throw new Error('no cluster to read the agents from, and no Prometheus URL');
    const signal = options.signal ? { signal: options.signal } : {};
    const agents = options.source === 'scan' ? [] : await listAgentPods(client, options.signal);
    if (agents.length > 0) {
      options.log?.(`fleet: reading the ${agents.length} gpumem agents of context ${client.context} through the pod proxy`);
      facts = await readFleetFromAgents(client, agents, { window: options.window, at, ...signal });
    } else {
      if (options.source === 'agents') throw new Error(`no gpumem agent pod in ${AGENT_NAMESPACE} (deploy/agent is not installed)`);
      if (!options.scan) throw new NoAgentsError(client.context);
      options.log?.(`fleet: no gpumem agent in context ${client.context}: scanning its GPU nodes with debug pods`);
      facts = await scanFleet(client, {
        ...options.scan,
        window: options.window,
        at,
        ...signal,
        ...(options.log ? { log: options.log } : {}),
      });
    }
  }
  if (options.client) {
    try {
      const nodes = await options.client.listNodes(options.signal ? { signal: options.signal } : {});
      facts = withClusterNodes(
        facts,
        nodes.map((node) => summarizeNode(node)),
      );
    } catch (error) {
      notes.push(`the nodes' labels could not be read: ${errorMessage(error)}`);
    }
  }
  return { summary: summarizeFleet(facts, options.top, options.headroomPercent), notes };
}
