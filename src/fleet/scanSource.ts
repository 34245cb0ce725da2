// The one-shot scan of the fleet, when no agent runs: the node debug pod (src/kube/debugPodTransport.ts, the same
// pod as Inspect Node, always deleted: on success, error and cancel) on every GPU node, a few at a time, each capture
// analysed by the same core and turned into the agent's samples, so the summary is the agents' one. Nodes that are not
// ready are skipped, and every node that could not be read (RBAC, a pod that never starts, a timeout) is a problem
// naming the node and the reason. Results arrive as they come: each node's (onNode), and the fleet so far
// (onPartial, at most once a second), which the view shows while the scan goes on.
import { forEachBounded } from '../core/boundedPool.ts';
import type { AgentScrape } from '../core/fleet/agentFacts.ts';
import type { Sample } from '../core/agent/exposition.ts';
import { nodeSamples } from '../core/agent/nodeSamples.ts';
import { advanceOomLedger, EMPTY_LEDGER, oomSamples } from '../core/agent/oomLedger.ts';
import { podIdentities, podNamesOfIdentities } from '../core/agent/podIdentities.ts';
import { agentFleetFacts } from '../core/fleet/agentFacts.ts';
import type { FleetFacts, FleetWindow } from '../core/fleet/facts.ts';
import { analyzeCaptureText } from '../core/inspectionRun/analyze.ts';
import { runProbe } from '../core/inspectionRun/runProbe.ts';
import { hamiPodQuotas } from '../core/kube/hamiPodQuotas.ts';
import { summarizeNode } from '../core/kube/nodes.ts';
import type { GpuNodeSummary } from '../core/kube/nodes.ts';
import { describeKubeFailure } from '../core/kube/kubeFailure.ts';
import { describeFailure, TransportError } from '../core/probe/transport.ts';
import type { ClusterClient } from '../kube/clusterClient.ts';
import { KubeRequestError } from '../kube/clusterClient.ts';
import { DebugPodTransport } from '../kube/debugPodTransport.ts';
import { errorMessage } from '../core/errorMessage.ts';

export const DEFAULT_SCAN_CONCURRENCY = 8;

export interface ScanOptions {
  readonly namespace: string;
  readonly image: string;
  /** Nodes probed at once (gpumem.fleet.scanConcurrency, --scan-concurrency). */
  readonly concurrency: number;
  /** Per node: the pod's start and the probe. */
  readonly timeoutMs: number;
  readonly window: FleetWindow;
  readonly at: number;
  readonly signal?: AbortSignal;
  /** Each node's outcome as it arrives, with how many are done. */
  readonly onNode?: (scrape: AgentScrape, done: number, total: number) => void;
  /** The fleet read so far, after the first node and then at most once a second, until the last node. */
  readonly onPartial?: (facts: FleetFacts) => void;
  readonly log?: (line: string) => void;
}

/** The least time between two partial fleets: summarising them costs O(nodes) each. */
const PARTIAL_INTERVAL_MS = 1000;

function reasonOf(error: unknown): string {
  if (error instanceof TransportError) return describeFailure(error.failure);
  if (error instanceof KubeRequestError) return describeKubeFailure(error.failure);
  return errorMessage(error);
}

async function scanNode(client: ClusterClient, node: GpuNodeSummary, options: ScanOptions): Promise<AgentScrape> {
  const agent = 'debug pod';
  const transport = new DebugPodTransport({
    client,
    node: node.name,
    namespace: options.namespace,
    image: options.image,
    ...(options.log ? { log: options.log } : {}),
  });
  try {
    const [{ pods }, run] = await Promise.all([
      client.listPodsOnNode(node.name, options.signal ? { signal: options.signal } : {}),
      runProbe(transport, {
        scope: 'node',
        hostRoot: transport.hostRoot,
        timeoutMs: options.timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    ]);
    const identities = podIdentities(pods);
    const inspection = analyzeCaptureText(run.captureText, {
      target: `scan of ${node.name}`,
      podNames: podNamesOfIdentities(identities),
      hamiQuotas: hamiPodQuotas(pods),
    });
    if (!inspection.node) return { kind: 'failed', agent, node: node.name, reason: inspection.problems[0] ?? 'no node capture came back' };
    // One look: every kill in the kernel log counts (there is no earlier read to take as a baseline).
    const kills = inspection.node.model.kernelLog ? (inspection.node.oom?.kills ?? []) : undefined;
    const ledger = advanceOomLedger(EMPTY_LEDGER, kills, {
      baseline: false,
      nowMs: options.at * 1000,
      uptimeSeconds: inspection.node.model.uptimeSeconds,
      podUids: inspection.node.pods.map((pod) => pod.podUid),
    }).ledger;
    const samples: Sample[] = [
      ...nodeSamples(inspection.node, node.name, identities),
      ...oomSamples(ledger, node.name, identities),
      { name: 'gpumem_probe_last_success_timestamp_seconds', labels: { node: node.name }, value: options.at },
    ];
    return { kind: 'read', agent, samples };
  } catch (error) {
    return { kind: 'failed', agent, node: node.name, reason: reasonOf(error) };
  } finally {
    await transport.close();
  }
}

/** Scans every ready GPU node; throws when the nodes cannot be listed or the scan was cancelled. */
export async function scanFleet(client: ClusterClient, options: ScanOptions): Promise<FleetFacts> {
  const all = (await client.listNodes(options.signal ? { signal: options.signal } : {})).map((node) => summarizeNode(node));
  const gpuNodes = all.filter((node) => node.isGpuNode);
  const ready = gpuNodes.filter((node) => node.ready?.status === 'True' && !node.unschedulable);
  const skipped = gpuNodes.filter((node) => !ready.includes(node));
  const scrapes: AgentScrape[] = skipped.map((node) => ({
    kind: 'failed',
    agent: 'debug pod',
    node: node.name,
    reason: node.unschedulable ? 'skipped: cordoned (unschedulable)' : `skipped: not ready (${node.ready?.reason ?? 'no Ready condition'})`,
  }));
  const facts = (description: string): FleetFacts =>
    agentFleetFacts(scrapes, {
      at: options.at,
      window: options.window,
      source: { kind: 'scan', description },
      killsMeaning: 'in-kernel-log',
    });
  let done = 0;
  let lastPartial = -Infinity;
  const concurrency = Math.max(1, Math.min(64, Math.floor(options.concurrency)));
  await forEachBounded(
    ready,
    concurrency,
    async (node) => {
      const scrape = await scanNode(client, node, options);
      scrapes.push(scrape);
      done++;
      options.onNode?.(scrape, done, ready.length);
      if (options.onPartial && done < ready.length && performance.now() - lastPartial >= PARTIAL_INTERVAL_MS && !options.signal?.aborted) {
        lastPartial = performance.now();
        options.onPartial(facts(`a scan with debug pods: ${done} of ${ready.length} GPU nodes read so far`));
      }
    },
    { signal: options.signal },
  );
  if (options.signal?.aborted) throw new Error('the scan was cancelled (every debug pod it created is deleted)');
  return facts(`a scan of ${ready.length} GPU node${ready.length === 1 ? '' : 's'} with debug pods`);
}
