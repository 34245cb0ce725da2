// What an inspector panel keeps to come back after a window reload (the webview's saved state), and the
// inspection it brings back: the same capture analysed with the same pod names and cluster facts, so the
// restored panel's verdicts and exports are those it showed.
import type { Inspection } from '../inspectionRun/analyze.ts';
import { analyzeCaptureText } from '../inspectionRun/analyze.ts';
import { clusterFactsFromState, clusterFactsToState } from './clusterFactsState.ts';
import type { InspectionSource } from '../inspector/protocol.ts';
import { MAX_STATE_CAPTURE_CHARS } from '../inspector/protocol.ts';

export function inspectionSource(inspection: Inspection, id: string, captureText: string): InspectionSource {
  return {
    id,
    target: inspection.target,
    captureText: captureText.length <= MAX_STATE_CAPTURE_CHARS ? captureText : null,
    podNames: Object.fromEntries(inspection.podNames),
    clusterFacts: clusterFactsToState(inspection.clusterFacts),
  };
}

/**
 * The inspection a saved source stands for; undefined when the capture was too large to keep. The remedies take
 * the headroom the user sets now (gpumem.lint.headroomPercent), like every other inspection.
 */
export function reanalyzeSource(source: InspectionSource, headroomPercent?: number): Inspection | undefined {
  if (source.captureText === null) return undefined;
  return analyzeCaptureText(source.captureText, {
    target: source.target,
    ...(headroomPercent !== undefined ? { headroomPercent } : {}),
    podNames: new Map(Object.entries(source.podNames)),
    ...clusterFactsFromState(source.clusterFacts),
  });
}
