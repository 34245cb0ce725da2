// The recommendation per case, on generated series whose expected figures are computed here from the raw samples,
// independently of src/core/rightsizing (KRR `simple`'s formula among them: robusta-dev/krr
// robusta_krr/strategies/simple.py, request = limit = max over 14 days of container_memory_working_set_bytes × 1.15).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recommend } from '../../src/core/rightsizing/recommend.ts';
import type { ContainerEvidence } from '../../src/core/rightsizing/evidence.ts';
import { NO_KILLS, killsOf, withKubeletReports } from '../../src/core/rightsizing/kills.ts';
import type { PodSeries, Sample } from '../../src/core/rightsizing/series.ts';
import { counterIncrease } from '../../src/core/rightsizing/series.ts';
import { roundUpForPeople } from '../../src/core/rightsizing/rounding.ts';
import { mulberry32 } from '../helpers/random.ts';

const MI = 2 ** 20;
const GI = 2 ** 30;
const STEP = 75; // KRR's default step, 1.25 min
const START = 1_780_000_000;
const FOURTEEN_DAYS = 14 * 24 * 3600;

function series(count: number, value: (i: number) => number, step = STEP): Sample[] {
  return Array.from({ length: count }, (_, i) => ({ t: START + i * step, v: value(i) }));
}

function evidence(pods: PodSeries[], over: Partial<ContainerEvidence> = {}): ContainerEvidence {
  return {
    container: 'app',
    basis: 'history',
    pods,
    kills: NO_KILLS,
    pressure: [],
    kernelPeak: undefined,
    gpuMaxBetweenScrapes: undefined,
    current: { request: 4 * GI, limit: 4 * GI },
    unifiedMemory: false,
    ...over,
  };
}

const policy = { headroomPercent: 30, gpuContainers: 1 };

test('no GPU, no kills: the raw target equals KRR simple computed from the raw series', () => {
  const random = mulberry32(35);
  const count = FOURTEEN_DAYS / STEP;
  const raw = [0, 1, 2].map(() => series(count, () => Math.floor((1 + random() * 2) * GI)));
  const pods = raw.map((cgroup, i) => ({ pod: `web-${i}`, cgroup, gpuInRam: [], vram: [] }));
  // KRR: max(max_over_time(ws)) over the pods, × (1 + 15/100).
  let krrMax = 0;
  for (const one of raw) for (const sample of one) if (sample.v > krrMax) krrMax = sample.v;
  const krr = krrMax * 1.15;
  const { recommendation, observed } = recommend(evidence(pods), policy);
  assert.equal(recommendation.kind, 'sized');
  assert.ok(recommendation.kind === 'sized');
  assert.equal(recommendation.case, 'no-kills');
  // gpumem rounds the buffered figure up to a whole byte (KRR keeps the fraction).
  assert.ok(recommendation.targetBytes >= krr && recommendation.targetBytes - krr < 1, `${recommendation.targetBytes} vs KRR ${krr}`);
  assert.ok(recommendation.memory.bytes >= krr && recommendation.memory.bytes < krr + GI);
  assert.equal(observed.samples, count * 3);
  assert.ok(Math.abs(observed.hours - ((count - 1) * STEP) / 3600) < 1e-9);
});

test('the true footprint is the peak of the sum at the same sample, never the sum of the two peaks', () => {
  const count = 400;
  // The cgroup peaks early, the GPU memory late: the two peaks never coincide.
  const cgroup = series(count, (i) => (i === 10 ? 10 * GI : 4 * GI));
  const gpu = series(count, (i) => (i === 300 ? 20 * GI : 12 * GI));
  let expected = 0;
  for (let i = 0; i < count; i++) expected = Math.max(expected, cgroup[i]!.v + gpu[i]!.v);
  const { observed, recommendation } = recommend(
    evidence([{ pod: 'p', cgroup, gpuInRam: gpu, vram: [] }], { unifiedMemory: true }),
    policy,
  );
  assert.equal(observed.trueFootprintPeak?.bytes, expected);
  assert.equal(expected, 24 * GI);
  assert.notEqual(expected, 30 * GI);
  assert.ok(recommendation.kind === 'sized');
  assert.equal(recommendation.case, 'no-kills');
  assert.ok(Math.abs(recommendation.targetBytes - expected * 1.3) < 1);
  assert.equal(recommendation.gpuMemory?.key, 'gpumem.io/gpu-memory');
  assert.equal(recommendation.gpuMemory?.value.text, '20Gi');
});

test('memcg kills: at least VPA’s OOM bump of the limit, above the observed peak', () => {
  const limit = 8 * GI;
  const cgroup = series(200, (i) => (i === 50 ? 8 * GI - MI : 5 * GI));
  const kills = killsOf([{ scope: 'memcg', gpuSignature: 'false', samples: series(200, (i) => (i < 50 ? 0 : 2)), bornInWindow: false }]);
  assert.equal(kills.memcg, 2);
  const { recommendation } = recommend(
    evidence([{ pod: 'p', cgroup, gpuInRam: [], vram: [] }], { kills, current: { request: limit, limit } }),
    policy,
  );
  assert.ok(recommendation.kind === 'sized');
  assert.equal(recommendation.case, 'memcg-kills');
  const vpa = Math.max(limit + 100 * MI, limit * 1.2);
  assert.equal(recommendation.targetBytes, vpa);
  assert.equal(recommendation.memory.text, '10Gi'); // 9.6 Gi up to the next whole Gi
  assert.equal(recommendation.lowerSaves, undefined);
  assert.match(recommendation.reason, /memcg/);
});

test('global kills with the GPU signature: true footprint × (1 + headroom), the declaration and the node advice', () => {
  const cgroup = series(200, () => 6 * GI);
  const gpu = series(200, (i) => (i === 120 ? 18 * GI : 10 * GI));
  const kills = killsOf([{ scope: 'global', gpuSignature: 'true', samples: series(200, (i) => (i < 120 ? 0 : 1)), bornInWindow: false }]);
  const { recommendation } = recommend(
    evidence([{ pod: 'p', cgroup, gpuInRam: gpu, vram: [] }], { kills, unifiedMemory: true, current: { request: 8 * GI, limit: 8 * GI } }),
    policy,
  );
  assert.ok(recommendation.kind === 'sized');
  assert.equal(recommendation.case, 'global-gpu-kills');
  assert.ok(Math.abs(recommendation.targetBytes - 24 * GI * 1.3) < 1);
  assert.equal(recommendation.memory.text, '32Gi'); // 31.2 Gi up to the next whole Gi
  assert.match(recommendation.reason, /would not have prevented/);
  assert.equal(recommendation.gpuMemory?.value.text, '18Gi');
  assert.ok(recommendation.notes.some((note) => /tainted nodes/.test(note) && /system-reserved/.test(note)));
});

test('global kills without the GPU signature: this container stays as it is, the node is named', () => {
  const kills = killsOf([{ scope: 'global', gpuSignature: 'false', samples: series(200, (i) => (i < 9 ? 0 : 1)), bornInWindow: false }]);
  const pressure = [
    { node: 'gpu-node-3', at: START + 900, biggestPods: [{ pod: 'ml/trainer-0', bytes: 60 * GI }], biggestPodsWhen: 'kill' as const },
  ];
  const { recommendation } = recommend(
    evidence([{ pod: 'p', cgroup: series(200, () => GI), gpuInRam: [], vram: [] }], { kills, pressure }),
    policy,
  );
  assert.equal(recommendation.kind, 'unchanged');
  assert.ok(recommendation.kind === 'unchanged');
  assert.match(recommendation.reason, /gpu-node-3/);
  assert.deepEqual(recommendation.pressure, pressure);
});

test('too little data: no number, and the reason', () => {
  const few = recommend(evidence([{ pod: 'p', cgroup: series(99, () => GI, 600), gpuInRam: [], vram: [] }]), policy).recommendation;
  assert.equal(few.kind, 'too-little-data');
  assert.ok(few.kind === 'too-little-data');
  assert.match(few.reason, /99 samples/);
  const short = recommend(evidence([{ pod: 'p', cgroup: series(150, () => GI, 60), gpuInRam: [], vram: [] }]), policy).recommendation;
  assert.ok(short.kind === 'too-little-data');
  assert.match(short.reason, /2\.5 h/);
  const agentsOnly = recommend(
    evidence([{ pod: 'p', cgroup: series(1, () => GI), gpuInRam: [], vram: [] }], { basis: 'since-start' }),
    policy,
  );
  assert.ok(agentsOnly.recommendation.kind === 'too-little-data');
  assert.match(agentsOnly.recommendation.reason, /since the container started/);
  const apiOnly = recommend(evidence([], { basis: 'api-only', kills: withKubeletReports(NO_KILLS, 2) }), policy);
  assert.equal(apiOnly.recommendation.kind, 'no-figures');
});

test('lower than today: says what it saves', () => {
  const { recommendation } = recommend(
    evidence([{ pod: 'p', cgroup: series(200, () => GI), gpuInRam: [], vram: [] }], { current: { request: 8 * GI, limit: 8 * GI } }),
    policy,
  );
  assert.ok(recommendation.kind === 'sized');
  assert.equal(recommendation.memory.text, '1178Mi'); // 1 GiB + 15 % = 1177.6 MiB
  assert.equal(recommendation.lowerSaves, 8 * GI - 1178 * MI);
});

test('kills the kubelet reported with no agent record keep today’s limit', () => {
  const kills = withKubeletReports(NO_KILLS, 1);
  assert.equal(kills.kubeletUnknown, 1);
  const { recommendation } = recommend(evidence([{ pod: 'p', cgroup: series(200, () => GI), gpuInRam: [], vram: [] }], { kills }), policy);
  assert.ok(recommendation.kind === 'sized');
  assert.equal(recommendation.memory.text, '4Gi');
  assert.ok(recommendation.notes.some((note) => /cause unknown/.test(note)));
});

test('the kernel’s high-water mark is shown beside a recommendation it exceeds', () => {
  const { recommendation } = recommend(
    evidence([{ pod: 'p', cgroup: series(200, () => GI), gpuInRam: [], vram: [] }], { kernelPeak: 31 * GI }),
    policy,
  );
  assert.ok(recommendation.kind === 'sized');
  assert.ok(recommendation.notes.some((note) => note.includes('31Gi') && /page cache/.test(note)));
});

test('broken samples are dropped, not peaks; a GPU gap is skipped, not read as 0', () => {
  const cgroup = [...series(150, () => GI), { t: START + 151 * STEP, v: Number.NaN }, { t: START + 152 * STEP, v: -5 }];
  const gpu = series(149, () => GI); // no GPU value at the 150th cgroup sample
  const { observed } = recommend(evidence([{ pod: 'p', cgroup, gpuInRam: gpu, vram: [] }]), policy);
  assert.equal(observed.trueFootprintPeak?.bytes, 2 * GI);
  assert.equal(observed.samples, 149);
  assert.equal(observed.dropped, 3);
});

test('a counter reset (restarted agent) counts from 0; a series born in the window counts its first value', () => {
  const values = [0, 1, 1, 3, 0, 1, 2];
  let expected = 0;
  for (let i = 1; i < values.length; i++) expected += values[i]! >= values[i - 1]! ? values[i]! - values[i - 1]! : values[i]!;
  assert.equal(counterIncrease(values.map((v, i) => ({ t: i, v }))), expected);
  assert.equal(expected, 5);
  assert.equal(counterIncrease([{ t: 0, v: 2 }], true), 2);
  assert.equal(counterIncrease([{ t: 0, v: 2 }], false), 0);
});

test('rounding: the quantity every gpumem remedy suggests, never below the bytes', () => {
  const random = mulberry32(7);
  for (let i = 0; i < 2000; i++) {
    const bytes = Math.floor(random() * 64 * GI) + 1;
    const rounded = roundUpForPeople(bytes);
    assert.ok(rounded.bytes >= bytes);
    const step = bytes < 4 * GI ? MI : GI;
    assert.ok(rounded.bytes - bytes < step, `${bytes} → ${rounded.text}`);
    const match = /^(\d+)(Mi|Gi)$/.exec(rounded.text);
    assert.ok(match, rounded.text);
    assert.equal(Number(match[1]) * (match[2] === 'Mi' ? MI : GI), rounded.bytes);
  }
  assert.equal(roundUpForPeople(1023.5 * MI).text, '1Gi');
  assert.equal(roundUpForPeople(4 * GI + 1).text, '5Gi');
});
