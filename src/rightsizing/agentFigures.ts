// The right-sizer's figures when no Prometheus answers: the gpumem agent pods' /metrics through the API server's pod
// proxy, read as the fleet view reads them (src/fleet/agentsSource.ts), reduced by the core (agentFigures.ts).
// An agent that does not answer is a problem in the header; the others still count.
import { errorMessage } from '../core/errorMessage.ts';
import { agentFigures } from '../core/rightsizing/agentFigures.ts';
import type { PromFigures } from '../core/rightsizing/figures.ts';
import { listAgentPods, scrapeAgents } from '../fleet/agentsSource.ts';
import type { ClusterClient } from '../kube/clusterClient.ts';

export type AgentFiguresRead =
  | { readonly kind: 'read'; readonly figures: PromFigures; readonly agents: number; readonly problems: readonly string[] }
  | { readonly kind: 'none'; readonly reason: string };

export async function readAgentFigures(client: ClusterClient, signal: AbortSignal): Promise<AgentFiguresRead> {
  let pods;
  try {
    pods = await listAgentPods(client, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    return { kind: 'none', reason: `the gpumem agents could not be listed (${errorMessage(error)})` };
  }
  if (pods.length === 0) return { kind: 'none', reason: 'no gpumem agent runs in the cluster' };
  const scrapes = await scrapeAgents(client, pods, { signal });
  const read = scrapes.flatMap((scrape) => (scrape.kind === 'read' ? [scrape.samples] : []));
  const problems = scrapes.flatMap((scrape) => (scrape.kind === 'failed' ? [`${scrape.agent}: ${scrape.reason}`] : []));
  if (read.length === 0) return { kind: 'none', reason: `no gpumem agent answered (${problems[0] ?? 'no answer'})` };
  return { kind: 'read', figures: agentFigures(read), agents: read.length, problems };
}
