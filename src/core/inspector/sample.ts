// Live sampling: one light-probe capture (src/core/probe/scripts/lightScript.ts) → one point of the
// inspector's time series (per pod memory.current, GTT and VRAM, the node's MemAvailable). Pure. The points, the
// bounded history and the chart's series are in series.ts (the webview imports that one alone).
import { parseCapture, sectionText } from '../probe/capture.ts';
import { buildNodeModel } from '../probe/nodeModel.ts';
import { buildNvidiaNode } from '../probe/nvidiaNode.ts';
import { nvidiaAccounting, withNvidiaPods } from '../verdicts/nvidiaPodMemory.ts';
import { parseBoundedNumber } from '../probe/parsers/kernelNumber.ts';
import { podAccounting } from '../verdicts/unaccountedMemory.ts';
import type { SamplePoint } from './series.ts';

export type { PodSample, SamplePoint, SeriesPoint, TimeSeries } from './series.ts';
export { appendBounded, MAX_SAMPLES, timeSeries } from './series.ts';

export function sampleFromCapture(text: string, t: number): SamplePoint {
  const capture = parseCapture(text);
  const model = buildNodeModel(capture);
  // A target's clock is its own text: a 35-digit `now=` is no time, never Infinity (found by the long fuzz run).
  const now = parseBoundedNumber(/^now=(\d+)$/m.exec(sectionText(capture, 'meta') ?? '')?.[1]);
  return {
    t,
    targetTime: now ?? null,
    memAvailable: model.meminfo.get('MemAvailable') ?? null,
    memTotal: model.meminfo.get('MemTotal') ?? null,
    // NVIDIA memory as the full analysis counts it: VRAM on a discrete GPU, GTT-like RAM on a unified one (GB10).
    pods: withNvidiaPods(podAccounting(model), nvidiaAccounting(buildNvidiaNode(capture))).map((pod) => ({
      podUid: pod.podUid,
      current: pod.accounted ?? null,
      gtt: pod.gtt,
      vram: pod.vram,
    })),
    // The light probe does not read everything the node model looks for: only the capture's own problems count.
    problems: capture.problems,
  };
}
