// What `gpumem inspect` runs the probe on, whatever the target: the transport (not yet connected), how to run
// the probe, what the target adds to the analysis, and how it is closed.
import type { AnalyzeOptions } from '../core/inspectionRun/analyze.ts';
import type { RunProbeOptions } from '../core/inspectionRun/runProbe.ts';
import type { FailurePlace } from '../core/kube/failureMessages.ts';
import type { Transport } from '../core/probe/transport.ts';

export interface ProbeTarget {
  readonly transport: Transport;
  readonly probe: Omit<RunProbeOptions, 'timeoutMs' | 'signal'>;
  /** Where a Kubernetes failure happened, to explain it; undefined off Kubernetes. */
  readonly place: FailurePlace | undefined;
  /** Pod names, HAMi facts: read while the probe runs. */
  analysis(signal: AbortSignal): Promise<Omit<AnalyzeOptions, 'target'>>;
  /** Markdown appended to a Markdown report (the HAMi cluster checks of a pod). */
  appendix(): string;
  /** Closes the transport (deletes a debug pod) and any API connections. */
  close(): Promise<void>;
}

/** A machine reached directly (local or SSH): nothing to add to the analysis. */
export function plainTarget(transport: Transport, probe: ProbeTarget['probe']): ProbeTarget {
  return { transport, probe, place: undefined, analysis: () => Promise.resolve({}), appendix: () => '', close: () => transport.close() };
}
