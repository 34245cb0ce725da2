// Everything one scrape of the agent serves, from its state: the last good inspection's node and pod facts, the
// OOM ledger, and the agent's own health. Pure; src/agent/agent.ts keeps the state, src/agent/server.ts serves the text.
import { pushAll } from '../arrays.ts';
import type { Exposition, Sample } from './exposition.ts';
import { renderExposition } from './exposition.ts';
import type { NodeMetricFacts, PodIdentities } from './nodeSamples.ts';
import { nodeFactSamples } from './nodeSamples.ts';
import type { OomLedger } from './oomLedger.ts';
import { oomSamples } from './oomLedger.ts';

export type ProbeErrorReason = 'probe-failed' | 'probe-timeout' | 'capture-unusable';

/** The agent's view of the API server: whether pods get namespace and name labels, and if not why. */
export type ApiAccess =
  | { readonly kind: 'connected' }
  | { readonly kind: 'unavailable'; readonly reason: 'no-credentials' | 'forbidden' | 'unreachable'; readonly detail: string };

export interface AgentStatus {
  readonly nodeName: string;
  readonly version: string;
  readonly cycles: number;
  readonly errors: ReadonlyMap<ProbeErrorReason, number>;
  /** Seconds the last cycle's probe and analysis took. */
  readonly lastDurationSeconds: number | undefined;
  /** Unix seconds of the last cycle that gave a result. */
  readonly lastSuccessSeconds: number | undefined;
  readonly api: ApiAccess;
}

export interface AgentSnapshot {
  readonly status: AgentStatus;
  /** What the samples need of the last good inspection (kept when a later cycle fails): not the inspection itself. */
  readonly node: NodeMetricFacts | undefined;
  readonly ledger: OomLedger;
  readonly identities: PodIdentities;
}

export const PROBE_ERROR_REASONS: readonly ProbeErrorReason[] = ['probe-failed', 'probe-timeout', 'capture-unusable'];

export function agentSamples(snapshot: AgentSnapshot): Sample[] {
  const { status } = snapshot;
  const node = { node: status.nodeName };
  const out: Sample[] = [];
  if (snapshot.node) pushAll(out, nodeFactSamples(snapshot.node, status.nodeName, snapshot.identities));
  pushAll(out, oomSamples(snapshot.ledger, status.nodeName, snapshot.identities));
  if (status.lastDurationSeconds !== undefined)
    out.push({ name: 'gpumem_probe_duration_seconds', labels: node, value: status.lastDurationSeconds });
  // Every reason from the start, at 0, so the first failure is an increase Prometheus sees.
  for (const reason of PROBE_ERROR_REASONS)
    out.push({ name: 'gpumem_probe_errors_total', labels: { ...node, reason }, value: status.errors.get(reason) ?? 0 });
  out.push({ name: 'gpumem_probe_cycles_total', labels: node, value: status.cycles });
  if (status.lastSuccessSeconds !== undefined)
    out.push({ name: 'gpumem_probe_last_success_timestamp_seconds', labels: node, value: status.lastSuccessSeconds });
  out.push({
    name: 'gpumem_kubernetes_api_up',
    labels: { ...node, reason: status.api.kind === 'connected' ? '' : status.api.reason },
    value: status.api.kind === 'connected' ? 1 : 0,
  });
  out.push({
    name: 'gpumem_build_info',
    labels: { ...node, version: status.version, kernel: snapshot.node?.kernel ?? '' },
    value: 1,
  });
  return out;
}

export function renderAgentMetrics(snapshot: AgentSnapshot): Exposition {
  return renderExposition(agentSamples(snapshot));
}
