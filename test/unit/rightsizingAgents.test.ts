// Right-sizing from the agents' /metrics (no Prometheus) and from the agents' per-container series in Prometheus:
// each container carries its own GPU memory (never a share of its pod's), its own working set, and the kernel's
// memory.peak; without history there is no number, and the rows say the figures are since the container started.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentFigures } from '../../src/core/rightsizing/agentFigures.ts';
import { figuresFrom } from '../../src/core/rightsizing/figures.ts';
import { recommendationsToText, SINCE_START_WINDOW } from '../../src/core/rightsizing/format.ts';
import { recommendationRows } from '../../src/core/rightsizing/rows.ts';
import { matchPods } from '../../src/core/rightsizing/workloadPods.ts';
import type { PromAnswer } from '../../src/core/prometheus/answer.ts';
import { parsePromText } from '../../src/core/agent/promText.ts';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const UID = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';

// A Deployment whose pod has a log-shipper sidecar (no GPU) and an inference container holding 30 GiB of GTT.
const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'rag', namespace: 'ml', uid: 'd-1' },
  spec: {
    selector: { matchLabels: { app: 'rag' } },
    template: {
      metadata: { labels: { app: 'rag' } },
      spec: {
        containers: [
          { name: 'log-shipper', resources: { requests: { memory: '128Mi' }, limits: { memory: '256Mi' } } },
          {
            name: 'inference',
            resources: { requests: { memory: '12Gi', 'amd.com/gpu': '1' }, limits: { memory: '24Gi', 'amd.com/gpu': '1' } },
          },
        ],
      },
    },
  },
};
const replicaSet = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: {
    name: 'rag-6f7c9',
    namespace: 'ml',
    uid: 'rs-1',
    labels: { app: 'rag', 'pod-template-hash': '6f7c9' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'rag', uid: 'd-1', controller: true }],
  },
  spec: { selector: { matchLabels: { app: 'rag', 'pod-template-hash': '6f7c9' } } },
};
const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'rag-6f7c9-abcde',
    namespace: 'ml',
    uid: UID,
    labels: { app: 'rag', 'pod-template-hash': '6f7c9' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rag-6f7c9', uid: 'rs-1', controller: true }],
  },
  spec: { nodeName: 'strix-1', containers: [{ name: 'log-shipper' }, { name: 'inference' }] },
  status: { phase: 'Running', containerStatuses: [] },
};

const labels = (container?: string) =>
  `node="strix-1",namespace="ml",pod="rag-6f7c9-abcde",uid="${UID}"${container ? `,container="${container}"` : ''}`;

// The agent's exposition, in the names and labels docs/agent.md lists (values chosen so every figure differs).
const EXPOSITION = [
  `gpumem_pod_cgroup_memory_bytes{${labels()}} ${9 * GiB}`,
  `gpumem_pod_unaccounted_bytes{${labels()}} ${30 * GiB}`,
  `gpumem_pod_unaccounted_max_bytes{${labels()}} ${34 * GiB}`,
  `gpumem_pod_true_footprint_bytes{${labels()}} ${39 * GiB}`,
  `gpumem_pod_vram_bytes{${labels()},gpu="0000:c5:00.0"} ${256 * MiB}`,
  `gpumem_container_memory_working_set_bytes{${labels('log-shipper')}} ${100 * MiB}`,
  `gpumem_container_memory_working_set_bytes{${labels('inference')}} ${7 * GiB}`,
  `gpumem_container_memory_peak_bytes{${labels('inference')}} ${11 * GiB}`,
  `gpumem_container_unaccounted_bytes{${labels('inference')}} ${30 * GiB}`,
  `gpumem_container_unaccounted_max_bytes{${labels('inference')}} ${34 * GiB}`,
  `gpumem_oom_kills_total{node="strix-1",scope="global",gpu_signature="true",namespace="ml",pod="rag-6f7c9-abcde",uid="${UID}"} 2`,
  // A pod the agent could not name (no API watch): never matched to a workload.
  `gpumem_container_memory_working_set_bytes{node="strix-1",namespace="",pod="",uid="x",container="0001aaaa0001"} ${GiB}`,
  '',
].join('\n');

function rowsOf(figures: ReturnType<typeof figuresFrom>, basis: 'history' | 'since-start') {
  return recommendationRows({
    matching: matchPods([deployment, replicaSet], [pod]),
    figures,
    basis,
    apiOomKills: new Map(),
    headroomPercent: 30,
  });
}

test("agents only: each container's own working set and GPU memory, memory.peak, kills since the agent started, and no number", () => {
  const figures = agentFigures([parsePromText(EXPOSITION).samples]);
  const rows = rowsOf(figures, 'since-start');
  const byName = new Map(rows.map((row) => [row.container, row]));
  const sidecar = byName.get('log-shipper');
  const inference = byName.get('inference');
  assert.ok(sidecar && inference);
  assert.equal(sidecar.observed.cgroupPeak?.bytes, 100 * MiB);
  assert.equal(sidecar.observed.gpuInRamPeak, undefined, "the pod's GTT is not split onto the sidecar");
  assert.equal(sidecar.observed.trueFootprintPeak?.bytes, 100 * MiB);
  assert.equal(inference.observed.cgroupPeak?.bytes, 7 * GiB);
  assert.equal(inference.observed.gpuInRamPeak?.bytes, 30 * GiB);
  assert.equal(inference.observed.trueFootprintPeak?.bytes, 37 * GiB, 'working set + its own GTT, read in the same look');
  assert.equal(inference.kernelPeak, 11 * GiB);
  assert.equal(inference.observed.vramPeak?.bytes, 256 * MiB);
  assert.deepEqual(inference.kills, { memcg: 0, globalGpu: 2, globalOther: 0, kubeletUnknown: 0 });
  for (const row of rows) {
    assert.equal(row.recommendation.kind, 'too-little-data');
    assert.match(row.recommendation.kind === 'too-little-data' ? row.recommendation.reason : '', /since the container started/);
  }
  const text = recommendationsToText(rows, {
    source: 'the /metrics of 1 gpumem agent',
    window: SINCE_START_WINDOW,
    sources: figures.sources,
    problems: [],
    basis: 'since-start',
  });
  assert.match(text, /window since each container started\./);
  assert.match(
    text,
    /true footprint 37 GiB \(now, from the agents: no history; the kernel's memory\.peak since the container started: 11 GiB\)/,
  );
  assert.doesNotMatch(text, /14d|peaks;|no cAdvisor/);
});

test("Prometheus with per-container series: the GPU memory is the container's own; without them the pod's goes to the GPU container", () => {
  const vector = (rows: readonly [string | undefined, number][]): PromAnswer => ({
    kind: 'vector',
    samples: rows.map(([container, value]) => ({
      metric: { namespace: 'ml', pod: 'rag-6f7c9-abcde', ...(container ? { container } : {}) },
      value: [0, String(value)],
    })),
  });
  const common: [string, PromAnswer][] = [
    [
      'wsPeak',
      vector([
        ['log-shipper', 200 * MiB],
        ['inference', 8 * GiB],
      ]),
    ],
    [
      'wsSamples',
      vector([
        ['log-shipper', 20_000],
        ['inference', 20_000],
      ]),
    ],
    [
      'wsFirst',
      vector([
        ['log-shipper', 0],
        ['inference', 0],
      ]),
    ],
    [
      'wsLast',
      vector([
        ['log-shipper', 14 * 86_400],
        ['inference', 14 * 86_400],
      ]),
    ],
    ['gpuInRamPeak', vector([[undefined, 40 * GiB]])],
  ];
  const perContainer = figuresFrom(
    new Map([
      ...common,
      [
        'trueFootprintPeak',
        vector([
          ['log-shipper', 200 * MiB],
          ['inference', 36 * GiB],
        ]),
      ],
      ['containerGpuInRamPeak', vector([['inference', 28 * GiB]])],
      ['containerGpuMaxBetweenScrapes', vector([['inference', 31 * GiB]])],
    ]),
  );
  const rows = new Map(rowsOf(perContainer, 'history').map((row) => [row.container, row]));
  assert.equal(rows.get('inference')?.observed.gpuInRamPeak?.bytes, 28 * GiB, "the container's own, not the pod's 40 GiB");
  assert.equal(rows.get('log-shipper')?.observed.gpuInRamPeak, undefined);
  assert.equal(rows.get('inference')?.observed.trueFootprintPeak?.bytes, 36 * GiB);
  const sized = rows.get('inference')?.recommendation;
  assert.equal(sized?.kind, 'sized');
  // No kills, unified memory: 36 GiB + 30 % = 46.8 GiB, rounded up to whole Gi; the declaration is the GPU maximum.
  assert.equal(sized?.kind === 'sized' ? sized.memory.text : '', '47Gi');
  assert.equal(sized?.kind === 'sized' ? sized.gpuMemory?.value.text : '', '31Gi');
  assert.ok(perContainer.sources.includes("the agents' per-container GPU memory"));

  // An agent without per-container series: the pod's GPU memory goes to the container that declares a GPU.
  const podOnly = new Map(rowsOf(figuresFrom(new Map(common)), 'history').map((row) => [row.container, row]));
  assert.equal(podOnly.get('inference')?.observed.gpuInRamPeak?.bytes, 40 * GiB);
  assert.equal(podOnly.get('log-shipper')?.observed.gpuInRamPeak, undefined);
});
