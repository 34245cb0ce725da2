// Figures from the gpumem agents' own /metrics, for when no Prometheus answers: no history, so every figure is the
// value now or a high-water mark the agent or the kernel kept (memory.peak since each container started, GPU memory
// at its maximum over the agent's peak window), and kills are those the agents read in the kernel logs. The samples are
// reduced to the same answers the PromQL set gives (queries.ts), so figures.ts reads both the same way: per
// container where the agent reports per container (working set, GPU memory in RAM, memory.peak), per pod for VRAM
// and kills. Linear in the samples.
import type { ParsedSample } from '../agent/promText.ts';
import type { PromAnswer, PromVectorSample } from '../prometheus/answer.ts';
import { figuresFrom } from './figures.ts';
import type { PromFigures } from './figures.ts';
import { CONTAINER_SERIES, HWM_SERIES } from './queries.ts';

/** What one agent served; its samples carry `node`, `namespace`, `pod`, `uid` (and `container`) labels. */
export type AgentSamples = readonly ParsedSample[];

const CONTAINER_LABELS = ['namespace', 'pod', 'container'] as const;
const POD_LABELS = ['namespace', 'pod'] as const;

/** The maximum per label set, as `max by (labels)` over the samples of one metric. */
class MaxBy {
  readonly #rows = new Map<string, { labels: Record<string, string>; value: number }>();
  readonly by: readonly string[];
  constructor(by: readonly string[]) {
    this.by = by;
  }

  add(sample: ParsedSample, value: number = sample.value): void {
    if (!Number.isFinite(value) || value < 0) return;
    const labels: Record<string, string> = {};
    for (const name of this.by) {
      const text = sample.labels[name];
      // A pod the agent could not name (its watch of the API is down) cannot be matched to a workload.
      if (text === undefined || text === '') return;
      labels[name] = text;
    }
    const key = this.by.map((name) => labels[name]).join('\u0000');
    const row = this.#rows.get(key);
    if (!row || value > row.value) this.#rows.set(key, { labels, value });
  }

  answer(): PromAnswer {
    const samples: PromVectorSample[] = [...this.#rows.values()].map((row) => ({ metric: row.labels, value: [0, String(row.value)] }));
    return { kind: 'vector', samples };
  }
}

const key = (sample: ParsedSample, names: readonly string[]): string => names.map((name) => sample.labels[name] ?? '').join('\u0000');

/**
 * OOM kills per pod, scope and GPU signature: the agent's counter (kills since it started), or at least one where
 * it reports the time of a kill its kernel log holds from before it started (the counter starts at 0 then).
 */
class KillsSeen {
  readonly #rows = new Map<string, { labels: Readonly<Record<string, string>>; count: number }>();

  count(sample: ParsedSample, count: number): void {
    if (!Number.isFinite(count) || count < 0) return;
    const k = key(sample, ['node', 'namespace', 'pod', 'uid', 'scope', 'gpu_signature']);
    const row = this.#rows.get(k);
    if (!row || count > row.count) this.#rows.set(k, { labels: sample.labels, count });
  }

  any(): boolean {
    return [...this.#rows.values()].some((row) => row.count > 0);
  }

  answer(): PromAnswer {
    return { kind: 'vector', samples: [...this.#rows.values()].map((row) => ({ metric: row.labels, value: [0, String(row.count)] })) };
  }
}

/** Sums per pod (and per scrape) of a per-GPU series: a pod's VRAM over its GPUs. */
function podSums(samples: readonly ParsedSample[], metric: string, into: MaxBy): void {
  const sums = new Map<string, { sample: ParsedSample; value: number }>();
  for (const sample of samples) {
    if (sample.name !== metric || !Number.isFinite(sample.value) || sample.value < 0) continue;
    const k = key(sample, ['node', 'namespace', 'pod', 'uid']);
    const sum = sums.get(k);
    sums.set(k, { sample, value: (sum?.value ?? 0) + sample.value });
  }
  for (const { sample, value } of sums.values()) into.add(sample, value);
}

/** The figures of the agents' scrapes, as the PromQL answers would give them over a window (basis `since-start`). */
export function agentFigures(scrapes: readonly AgentSamples[]): PromFigures {
  const agentWs = new MaxBy(CONTAINER_LABELS);
  const containerGpu = new MaxBy(CONTAINER_LABELS);
  const containerGpuMax = new MaxBy(CONTAINER_LABELS);
  const kernelPeak = new MaxBy(CONTAINER_LABELS);
  const trueFootprint = new MaxBy(CONTAINER_LABELS);
  const gpuInRam = new MaxBy(POD_LABELS);
  const gpuMax = new MaxBy(POD_LABELS);
  const vram = new MaxBy(POD_LABELS);
  const agentCgroup = new MaxBy(POD_LABELS);
  const agentTrue = new MaxBy(POD_LABELS);
  const agentSamples = new MaxBy(POD_LABELS);
  const pressureNodes = new MaxBy(['node']);
  const pressurePods = new MaxBy(['node', 'namespace', 'pod']);
  const kills = new KillsSeen();
  for (const samples of scrapes) {
    // The container's true footprint now: its working set plus its own GPU memory in RAM, read in the same look.
    const gpuNow = new Map<string, number>();
    for (const sample of samples)
      if (sample.name === CONTAINER_SERIES.gpuInRam) gpuNow.set(key(sample, ['uid', 'container']), sample.value);
    for (const sample of samples) {
      switch (sample.name) {
        case CONTAINER_SERIES.workingSet:
          agentWs.add(sample);
          trueFootprint.add(sample, sample.value + (gpuNow.get(key(sample, ['uid', 'container'])) ?? 0));
          break;
        case CONTAINER_SERIES.gpuInRam:
          containerGpu.add(sample);
          break;
        case HWM_SERIES.containerGpuMemoryMax:
          containerGpuMax.add(sample);
          break;
        case HWM_SERIES.containerMemoryPeak:
          kernelPeak.add(sample);
          break;
        case 'gpumem_pod_unaccounted_bytes':
          gpuInRam.add(sample);
          break;
        case HWM_SERIES.podGpuMemoryMax:
          gpuMax.add(sample);
          break;
        case 'gpumem_pod_cgroup_memory_bytes':
          agentCgroup.add(sample);
          agentSamples.add(sample, 1);
          break;
        case 'gpumem_pod_true_footprint_bytes':
          agentTrue.add(sample);
          pressurePods.add(sample);
          break;
        case 'gpumem_pod_true_footprint_max_bytes':
          agentTrue.add(sample);
          break;
        case 'gpumem_oom_kills_total':
          // Counted since the agent started: the whole value is what it saw.
          kills.count(sample, sample.value);
          break;
        case 'gpumem_oom_kill_last_timestamp_seconds':
          // A kill in the kernel log from before the agent started: its counter stays 0, but the kill happened.
          if (sample.value > 0) kills.count(sample, 1);
          if (sample.labels['scope'] === 'global' && sample.labels['gpu_signature'] === 'false') pressureNodes.add(sample);
          break;
        default:
          break;
      }
    }
    podSums(samples, 'gpumem_pod_vram_bytes', vram);
    podSums(samples, 'gpumem_pod_vram_max_bytes', vram);
  }
  const answers = new Map<string, PromAnswer>([
    ['agentWsPeak', agentWs.answer()],
    ['containerGpuInRamPeak', containerGpu.answer()],
    ['containerGpuMaxBetweenScrapes', containerGpuMax.answer()],
    ['kernelPeak', kernelPeak.answer()],
    ['trueFootprintPeak', trueFootprint.answer()],
    ['gpuInRamPeak', gpuInRam.answer()],
    ['gpuMaxBetweenScrapes', gpuMax.answer()],
    ['vramPeak', vram.answer()],
    ['agentCgroupPeak', agentCgroup.answer()],
    ['agentTrueFootprintPeak', agentTrue.answer()],
    ['agentSamples', agentSamples.answer()],
    ['killsBorn', kills.answer()],
    ['pressureNodes', pressureNodes.answer()],
    ['pressurePods', pressurePods.answer()],
  ]);
  const figures = figuresFrom(answers);
  const sources = ["the gpumem agents' /metrics: values now, the kernel's memory.peak since each container started"];
  if (figures.sources.includes("the agents' per-container GPU memory"))
    sources.push("GPU memory in RAM per container, its maximum over the agent's peak window");
  if (kills.any()) sources.push("OOM kills in the nodes' kernel logs, as the agents read them");
  return { ...figures, sources };
}
