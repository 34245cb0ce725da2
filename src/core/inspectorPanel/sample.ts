// Live sampling: one light-probe capture (src/core/probe/scripts/lightScript.ts) → one point of the
// inspector's time series (per pod memory.current, GTT and VRAM, the node's MemAvailable). Pure. The points, the
// bounded history and the chart's series are in series.ts (the webview imports that one alone).
import { parseCapture, sectionFiles, sectionText } from '../probe/capture.ts';
import { buildNodeModel } from '../probe/nodeModel.ts';
import { buildNvidiaNode } from '../probe/nvidiaNode.ts';
import { nvidiaAccounting, withNvidiaPods } from '../verdicts/memory/nvidiaPodMemory.ts';
import { parseBoundedNumber } from '../probe/parsers/kernelNumber.ts';
import { podAccounting } from '../verdicts/memory/unaccountedMemory.ts';
import type { KfdCapture } from '../probe/parsers/kfd.ts';
import { parseKfd } from '../probe/parsers/kfd.ts';
import { sampleEvictions } from '../verdicts/eviction/kfdEviction.ts';
import type { SamplePoint } from './series.ts';
import { ownString } from '../text/ownString.ts';

export type { PodSample, SamplePoint, SeriesPoint, TimeSeries } from './series.ts';
export { appendBounded, MAX_SAMPLES, timeSeries } from './series.ts';

/** What the next sample's eviction rates are measured against: the previous sample's KFD counters and time. */
export interface EvictionBaseline {
  readonly t: number;
  readonly kfd: KfdCapture;
}

export function sampleFromCapture(text: string, t: number): SamplePoint {
  return sampleWithBaseline(text, t, undefined).point;
}

/**
 * One sample, with each pod's KFD eviction rate (ms evicted per second) since `previous`: the growth of each of its
 * processes' evicted_ms between the two samples (a restarted process counts from zero; a new one has no rate yet),
 * over the time between their arrivals. Only the last sample's counters are kept, not the history's.
 */
export function sampleWithBaseline(
  text: string,
  t: number,
  previous: EvictionBaseline | undefined,
): { point: SamplePoint; baseline: EvictionBaseline } {
  const capture = parseCapture(text);
  const kfd = parseKfd(sectionFiles(capture, 'kfd'));
  const rates = new Map<string, number>();
  if (previous && kfd.present) {
    for (const pod of sampleEvictions(previous.kfd, kfd, (t - previous.t) / 1000).pods)
      if (pod.ratePerSecond !== undefined) rates.set(pod.podUid, pod.ratePerSecond);
  }
  return { point: pointOf(capture, t, rates), baseline: { t, kfd } };
}

function pointOf(capture: ReturnType<typeof parseCapture>, t: number, evictionRates: ReadonlyMap<string, number>): SamplePoint {
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
      // Copied: 300 points are kept, and a slice would keep its whole capture (text/ownString.ts).
      podUid: ownString(pod.podUid),
      current: pod.accounted ?? null,
      gtt: pod.gtt,
      vram: pod.vram,
      evictedRate: evictionRates.get(pod.podUid) ?? null,
    })),
    // The light probe does not read everything the node model looks for: only the capture's own problems count.
    problems: capture.problems.map(ownString),
  };
}
