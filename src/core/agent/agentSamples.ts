// Everything one scrape of the agent serves, from its state: the last good inspection's node and pod facts, the
// OOM ledger, and the agent's own health. Pure; src/agent/agent.ts keeps the state, src/agent/server.ts serves the text.
import { pushAll } from '../arrays.ts';
import type { Exposition, Sample } from './exposition.ts';
import { renderExposition } from './exposition.ts';
import type { PodPeaks } from './gpuPeaks.ts';
import type { NodeMetricFacts, PodIdentities } from './nodeSamples.ts';
import { containerName, nodeFactSamples, podLabels } from './nodeSamples.ts';
import type { OomLedger } from './oomLedger.ts';
import { oomSamples } from './oomLedger.ts';
import type { UnreadInputId } from '../inspectionRun/sight.ts';
import { UNREAD_INPUT_IDS } from '../inspectionRun/sight.ts';

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
  /** Per pod UID, the GPU memory maxima over the agent's last peak window (gpuPeaks.ts), as of the scrape. */
  readonly peaks?: ReadonlyMap<string, PodPeaks>;
  /** Light sweeps the GPU watch triggered (undefined when the watch is off). */
  readonly watchSweeps?: number;
  /** What the last good cycle's probe could not read (sight.ts); undefined before the first good cycle. */
  readonly unread?: ReadonlySet<UnreadInputId>;
}

export const PROBE_ERROR_REASONS: readonly ProbeErrorReason[] = ['probe-failed', 'probe-timeout', 'capture-unusable'];

export function agentSamples(snapshot: AgentSnapshot): Sample[] {
  const { status } = snapshot;
  const node = { node: status.nodeName };
  const out: Sample[] = [];
  if (snapshot.node) pushAll(out, nodeFactSamples(snapshot.node, status.nodeName, snapshot.identities));
  if (snapshot.peaks) pushAll(out, peakSamples(snapshot.peaks, status.nodeName, snapshot.identities));
  pushAll(out, oomSamples(snapshot.ledger, status.nodeName, snapshot.identities));
  if (status.lastDurationSeconds !== undefined)
    out.push({ name: 'gpumem_probe_duration_seconds', labels: node, value: status.lastDurationSeconds });
  // Every reason from the start, at 0, so the first failure is an increase Prometheus sees.
  for (const reason of PROBE_ERROR_REASONS)
    out.push({ name: 'gpumem_probe_errors_total', labels: { ...node, reason }, value: status.errors.get(reason) ?? 0 });
  // Every input, read (0) or not (1), once a cycle has looked: a probe that could not see is never silent.
  if (snapshot.unread)
    for (const input of UNREAD_INPUT_IDS)
      out.push({ name: 'gpumem_probe_input_unread', labels: { ...node, input }, value: snapshot.unread.has(input) ? 1 : 0 });
  out.push({ name: 'gpumem_probe_cycles_total', labels: node, value: status.cycles });
  if (status.lastSuccessSeconds !== undefined)
    out.push({ name: 'gpumem_probe_last_success_timestamp_seconds', labels: node, value: status.lastSuccessSeconds });
  if (snapshot.watchSweeps !== undefined) out.push({ name: 'gpumem_gpu_watch_sweeps_total', labels: node, value: snapshot.watchSweeps });
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

/** The maxima families; a container the API does not name in its pod (the sandbox) is left out, as in nodeSamples.ts. */
function peakSamples(peaks: ReadonlyMap<string, PodPeaks>, nodeName: string, identities: PodIdentities): Sample[] {
  const out: Sample[] = [];
  for (const uid of [...peaks.keys()].sort()) {
    const pod = peaks.get(uid);
    if (!pod) continue;
    const labels = { node: nodeName, ...podLabels(uid, identities) };
    if (pod.unaccounted !== undefined) out.push({ name: 'gpumem_pod_unaccounted_max_bytes', labels, value: pod.unaccounted });
    if (pod.trueFootprint !== undefined) out.push({ name: 'gpumem_pod_true_footprint_max_bytes', labels, value: pod.trueFootprint });
    for (const [gpu, value] of [...pod.vram].sort(([a], [b]) => a.localeCompare(b)))
      out.push({ name: 'gpumem_pod_vram_max_bytes', labels: { ...labels, gpu }, value });
    const identity = identities.get(uid);
    for (const [containerId, value] of [...pod.containers].sort(([a], [b]) => a.localeCompare(b))) {
      if (identity && !identity.containers.has(containerId)) continue;
      out.push({
        name: 'gpumem_container_unaccounted_max_bytes',
        labels: { ...labels, container: containerName(containerId, identity) },
        value,
      });
    }
  }
  return out;
}

export function renderAgentMetrics(snapshot: AgentSnapshot): Exposition {
  return renderExposition(agentSamples(snapshot));
}
