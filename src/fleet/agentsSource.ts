// The agents source of the fleet, when there is no Prometheus: each gpumem agent pod's /metrics read through the API
// server's pod proxy (`get pods/proxy` in gpumem-system, ClusterClient.proxyGet), a few at a time, parsed with the
// tested text-format reader (src/core/agent/promText.ts). An agent that does not answer is a problem in the facts
// (an RBAC refusal with its explanation); the others still count.
import type { V1Pod } from '@kubernetes/client-node';
import { forEachBounded } from '../core/boundedPool.ts';
import { errorMessage } from '../core/errorMessage.ts';
import { agentFleetFacts } from '../core/fleet/agentFacts.ts';
import type { AgentScrape } from '../core/fleet/agentFacts.ts';
import type { FleetFacts, FleetWindow } from '../core/fleet/facts.ts';
import { parsePromText } from '../core/agent/promText.ts';
import { explainKubeFailure } from '../core/kube/failureMessages.ts';
import type { ClusterClient } from '../kube/clusterClient.ts';
import { KubeRequestError } from '../kube/clusterClient.ts';
import { AGENT_NAMESPACE, AGENT_SELECTOR } from '../kube/agentPod.ts';

export const AGENT_PORT = 9400;
const PARALLEL = 8;
/** One agent's scrape of 200 pods is about 200 KiB; 32 MiB is far beyond any real one. */
const MAX_SCRAPE_BYTES = 32 * 1024 * 1024;
/** Per agent: its scrape runs the probe when its cache is cold. */
const SCRAPE_TIMEOUT_MS = 30_000;

export async function listAgentPods(client: ClusterClient, signal?: AbortSignal): Promise<V1Pod[]> {
  return client.listPods(AGENT_NAMESPACE, { labelSelector: AGENT_SELECTOR, ...(signal ? { signal } : {}) });
}

async function scrapeAgent(client: ClusterClient, pod: V1Pod, signal: AbortSignal | undefined): Promise<AgentScrape> {
  const name = pod.metadata?.name ?? '?';
  const agent = `agent pod ${name}`;
  const node = pod.spec?.nodeName;
  if (pod.status?.phase !== 'Running') return { kind: 'failed', agent, node, reason: `the pod is ${pod.status?.phase ?? 'in no phase'}` };
  try {
    const answer = await client.proxyGet({ kind: 'pods', namespace: AGENT_NAMESPACE, name, port: AGENT_PORT }, 'metrics', {
      maxBytes: MAX_SCRAPE_BYTES,
      timeoutMs: SCRAPE_TIMEOUT_MS,
      ...(signal ? { signal } : {}),
    });
    if (answer.status !== 200) return { kind: 'failed', agent, node, reason: `HTTP ${answer.status}: ${answer.body.slice(0, 160)}` };
    return { kind: 'read', agent, samples: parsePromText(answer.body).samples };
  } catch (error) {
    if (signal?.aborted) throw error;
    const reason =
      error instanceof KubeRequestError
        ? explainKubeFailure(error.failure, { context: client.context, namespace: AGENT_NAMESPACE, byHand: 'a Prometheus URL' })
        : errorMessage(error);
    return { kind: 'failed', agent, node, reason };
  }
}

/** Scrapes the agent pods, PARALLEL at a time; throws when cancelled. */
export async function scrapeAgents(
  client: ClusterClient,
  pods: readonly V1Pod[],
  options: { readonly signal?: AbortSignal; readonly onScrape?: (scrape: AgentScrape) => void } = {},
): Promise<AgentScrape[]> {
  const scrapes: AgentScrape[] = [];
  const end = await forEachBounded(
    pods,
    PARALLEL,
    async (pod) => {
      const scrape = await scrapeAgent(client, pod, options.signal);
      scrapes.push(scrape);
      options.onScrape?.(scrape);
    },
    { signal: options.signal },
  );
  if (end.kind === 'cancelled') throw new Error('cancelled');
  return scrapes;
}

/** Reads the fleet from the agent pods (listed by the caller); throws when there is none. */
export async function readFleetFromAgents(
  client: ClusterClient,
  pods: readonly V1Pod[],
  options: { readonly window: FleetWindow; readonly at: number; readonly signal?: AbortSignal },
): Promise<FleetFacts> {
  if (pods.length === 0) throw new Error(`no gpumem agent pod in ${AGENT_NAMESPACE} (deploy/agent is not installed)`);
  const scrapes = await scrapeAgents(client, pods, options.signal ? { signal: options.signal } : {});
  return agentFleetFacts(scrapes, { at: options.at, window: options.window });
}
