// The agents source of the fleet, when there is no Prometheus: each gpumem agent pod's /metrics read through the API
// server's pod proxy (`get pods/proxy` in gpumem-system), a few at a time, parsed with the tested text-format
// reader (src/core/agent/promText.ts). An agent that does not answer is a problem in the facts; the others still count.
import type { V1Pod } from '@kubernetes/client-node';
import { agentFleetFacts } from '../core/fleet/agentFacts.ts';
import type { AgentScrape } from '../core/fleet/agentFacts.ts';
import type { FleetFacts, FleetWindow } from '../core/fleet/facts.ts';
import { parsePromText } from '../core/agent/promText.ts';
import type { ClusterClient } from '../kube/clusterClient.ts';
import { AGENT_NAMESPACE, AGENT_SELECTOR } from '../kube/agentPod.ts';
import type { HttpGetter } from './httpGet.ts';
import { HttpGetError, kubeProxyGetter } from './httpGet.ts';

export const AGENT_PORT = 9400;
const PARALLEL = 8;
/** One agent's scrape of 200 pods is about 200 KiB; 32 MiB is far beyond any real one. */
const MAX_SCRAPE_BYTES = 32 * 1024 * 1024;

export async function listAgentPods(client: ClusterClient, signal?: AbortSignal): Promise<V1Pod[]> {
  return client.listPods(AGENT_NAMESPACE, { labelSelector: AGENT_SELECTOR, ...(signal ? { signal } : {}) });
}

export async function scrapeAgents(
  pods: readonly V1Pod[],
  getter: HttpGetter,
  options: { readonly signal?: AbortSignal; readonly onScrape?: (scrape: AgentScrape) => void } = {},
): Promise<AgentScrape[]> {
  const scrapes: AgentScrape[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < pods.length) {
      const pod = pods[next++] as V1Pod;
      const name = pod.metadata?.name ?? '?';
      const agent = `agent pod ${name}`;
      const node = pod.spec?.nodeName;
      let scrape: AgentScrape;
      if (pod.status?.phase !== 'Running') {
        scrape = { kind: 'failed', agent, node, reason: `the pod is ${pod.status?.phase ?? 'in no phase'}` };
      } else {
        try {
          const answer = await getter(
            `${encodeURIComponent(name)}:${AGENT_PORT}/proxy/metrics`,
            options.signal ? { signal: options.signal } : {},
          );
          if (answer.status !== 200)
            scrape = { kind: 'failed', agent, node, reason: `HTTP ${answer.status}: ${answer.body.slice(0, 160)}` };
          else {
            const parsed = parsePromText(answer.body);
            scrape = { kind: 'read', agent, samples: parsed.samples };
          }
        } catch (error) {
          if (error instanceof HttpGetError && error.kind === 'cancelled') throw error;
          scrape = { kind: 'failed', agent, node, reason: error instanceof Error ? error.message : String(error) };
        }
      }
      scrapes.push(scrape);
      options.onScrape?.(scrape);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, pods.length) }, worker));
  return scrapes;
}

/** Reads the fleet from every agent pod; throws when the agent pods cannot be listed. */
export async function readFleetFromAgents(
  client: ClusterClient,
  options: { readonly window: FleetWindow; readonly at: number; readonly signal?: AbortSignal },
): Promise<FleetFacts> {
  const pods = await listAgentPods(client, options.signal);
  if (pods.length === 0) throw new Error(`no gpumem agent pod in ${AGENT_NAMESPACE} (deploy/agent is not installed)`);
  const getter = kubeProxyGetter(client.kubeConfig, `api/v1/namespaces/${AGENT_NAMESPACE}/pods`, { maxBytes: MAX_SCRAPE_BYTES });
  const scrapes = await scrapeAgents(pods, getter, options.signal ? { signal: options.signal } : {});
  return agentFleetFacts(scrapes, { at: options.at, window: options.window });
}
