// A manifest judged against a live snapshot: the live CodeLens, the three live findings with their figures, source and
// age, the quick fix that sets the recommendation's resources (after which the footprint finding is gone), drift, and
// the matching by kind, namespace (the context's default for objects without one) and name. Rows are written by hand
// with the figures a cluster would give, so the expectations do not come from the code under test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixesOf, withFixesBuilt } from '../../src/core/findings.ts';
import { lintText } from '../../src/core/lint.ts';
import { judgeLive, minimalEdit } from '../../src/core/live/liveFindings.ts';
import { LIVE_RULES } from '../../src/core/live/liveRuleIds.ts';
import { liveSnapshot } from '../../src/core/live/liveSnapshot.ts';
import { isHamiEnvName } from '../../src/core/manifest/hamiEnv.ts';
import type { RecommendationRow } from '../../src/core/rightsizing/rows.ts';
import { NO_KILLS } from '../../src/core/rightsizing/kills.ts';

const GiB = 1024 ** 3;
const NOW = Date.UTC(2026, 11, 7, 12, 0, 0);

const MANIFEST = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
  namespace: ml
spec:
  selector:
    matchLabels: { app: llm }
  template:
    metadata:
      labels: { app: llm }
    spec:
      containers:
        - name: server # the model server
          image: vllm/vllm-openai:v0.11.0
          resources:
            requests:
              memory: 56Gi
            limits:
              memory: 56Gi
              amd.com/gpu: 1
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: cache
spec:
  selector:
    matchLabels: { app: cache }
  serviceName: cache
  template:
    metadata:
      labels: { app: cache }
    spec:
      containers:
        - name: redis
          image: redis:7
          resources:
            limits:
              memory: 4Gi
              nvidia.com/gpu: 1
`;

function liveObject(
  kind: string,
  name: string,
  namespace: string,
  container: string,
  limits: Record<string, string>,
  requests: Record<string, string>,
) {
  return {
    apiVersion: 'apps/v1',
    kind,
    metadata: { name, namespace, uid: `${name}-uid` },
    spec: { template: { spec: { containers: [{ name: container, resources: { limits, requests } }] } } },
  };
}

const serverObject = liveObject('Deployment', 'llm', 'ml', 'server', { memory: '48Gi', 'amd.com/gpu': '1' }, { memory: '56Gi' });
const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ml', name: 'llm', uid: 'llm-uid' };

const serverRow: RecommendationRow = {
  workload: ref,
  container: 'server',
  current: { name: 'server', request: { text: '56Gi', bytes: 56 * GiB }, limit: { text: '48Gi', bytes: 48 * GiB }, usesGpu: true },
  observed: {
    cgroupPeak: { bytes: 9 * GiB, at: undefined, pod: 'llm-0' },
    gpuInRamPeak: { bytes: 52 * GiB, at: undefined, pod: 'llm-0' },
    vramPeak: undefined,
    trueFootprintPeak: { bytes: 61 * GiB, at: undefined, pod: 'llm-0' },
    samples: 20_000,
    hours: 168,
    dropped: 0,
  },
  kernelPeak: undefined,
  kills: { ...NO_KILLS, globalGpu: 2 },
  recommendation: {
    kind: 'sized',
    case: 'global-gpu-kills',
    targetBytes: 61 * GiB * 1.3,
    memory: { text: '80Gi', bytes: 80 * GiB },
    gpuMemory: { key: 'gpumem.io/gpu-memory', value: { text: '52Gi', bytes: 52 * GiB } },
    lowerSaves: undefined,
    reason: '2 global OOM kill(s) with the GPU signature',
    notes: [],
  },
  notes: [],
};

function snapshot(rows: readonly RecommendationRow[], fetchedAtMs = NOW - 5 * 60 * 1000) {
  const cacheObject = liveObject('StatefulSet', 'cache', 'team-a', 'redis', { memory: '4Gi', 'nvidia.com/gpu': '2' }, {});
  return liveSnapshot({
    context: 'prod-eu',
    defaultNamespace: 'team-a',
    source: 'Prometheus monitoring/prometheus-k8s',
    window: '7d',
    windowSeconds: 7 * 86400,
    fetchedAtMs,
    matching: {
      workloads: [
        {
          ref,
          object: serverObject,
          pods: [1, 2, 3].map((i) => ({ name: `llm-${i}`, uid: `u${i}`, node: 'strix-1', oldTemplate: false })),
        },
        { ref: { ...ref, kind: 'StatefulSet', name: 'cache', namespace: 'team-a', uid: 'c' }, object: cacheObject, pods: [] },
      ],
      unmatched: [],
    },
    rows,
  });
}

function judge(text: string, rows: readonly RecommendationRow[] = [serverRow], fetchedAtMs?: number) {
  return judgeLive(lintText(text).containers, snapshot(rows, fetchedAtMs), { headroomPercent: 30, rules: {}, nowMs: NOW, text });
}

test('the live lens says pods, the peak true footprint and its parts against the limit, the kills and their cause, with source and age', () => {
  const result = judge(MANIFEST);
  const lens = result.lenses.find((one) => one.container === 'server');
  assert.equal(
    lens?.title,
    'live in prod-eu: 3 pods · peak true footprint 61 GiB (cgroup 9 GiB + GPU memory in RAM 52 GiB) vs limit 56Gi · 2 OOM kills in 7d: 2 global with the GPU signature — raising the limit would not have prevented the global ones (Prometheus monitoring/prometheus-k8s, 7d, read 5 min ago)',
  );
  assert.equal(result.matched, 2, 'the StatefulSet without a namespace matches in the context default namespace');
  assert.equal(result.unmatched, 0);
});

test('observed-footprint-over-limit: 61 GiB × 1.3 = 79.3 GiB is above the 56Gi request on a node where GPU memory is RAM', () => {
  const found = judge(MANIFEST).findings.filter((one) => one.ruleId === LIVE_RULES.footprintOverLimit);
  assert.equal(found.length, 1);
  assert.equal(found[0]?.severity, 'warning');
  assert.match(found[0]?.message ?? '', /peaked at 61 GiB true footprint \(cgroup 9 GiB \+ GPU memory in RAM 52 GiB, at one sample\)/);
  assert.match(found[0]?.message ?? '', /that is 79\.3 GiB, above this memory request of 56Gi/);
  assert.match(found[0]?.message ?? '', /read 5 min ago\)$/);
});

test('observed-oom-kills: global kills are information, memcg kills a warning, each with what would have prevented them', () => {
  const global = judge(MANIFEST).findings.find((one) => one.ruleId === LIVE_RULES.oomKills);
  assert.equal(global?.severity, 'info');
  assert.match(
    global?.message ?? '',
    /^2 OOM kills in 7d in prod-eu: 2 global with the GPU signature\. Raising the memory limit would not have prevented/,
  );
  const memcg = judge(MANIFEST, [{ ...serverRow, kills: { ...NO_KILLS, memcg: 1 } }]).findings.find(
    (one) => one.ruleId === LIVE_RULES.oomKills,
  );
  assert.equal(memcg?.severity, 'warning');
  assert.doesNotMatch(memcg?.message ?? '', /would not have prevented/);
});

test('manifest-drift: the memory limit and a GPU count that differ, in words; what agrees is not reported', () => {
  const drift = judge(MANIFEST)
    .findings.filter((one) => one.ruleId === LIVE_RULES.drift)
    .map((one) => one.message.replace(/ \(prod-eu, read .*\)$/, ''));
  assert.deepEqual(drift, [
    'The cluster runs memory limit 48Gi, this file says 56Gi.',
    'The live StatefulSet in prod-eu has no container redis: the file and the cluster differ.',
  ]);
  // The StatefulSet has no row for redis: the container is reported missing rather than judged. With a row, its GPU
  // count differs (the cluster runs 2).
  const cacheRow: RecommendationRow = {
    ...serverRow,
    workload: { ...ref, kind: 'StatefulSet', name: 'cache', namespace: 'team-a', uid: 'c' },
    container: 'redis',
    current: { name: 'redis', request: undefined, limit: { text: '4Gi', bytes: 4 * GiB }, usesGpu: true },
    kills: NO_KILLS,
  };
  const withCache = judge(MANIFEST, [serverRow, cacheRow])
    .findings.filter((one) => one.ruleId === LIVE_RULES.drift && one.container === 'redis')
    .map((one) => one.message.replace(/ \(prod-eu, read .*\)$/, ''));
  assert.deepEqual(withCache, ['The cluster runs nvidia.com/gpu 2, this file says 1.']);
});

test('manifest-drift: HAMi variables the file and the live template set differently, a template value left alone', () => {
  // The file turns HAMi's enforcement off and gives device 0 16000m; the cluster's template enforces 8000m on device 0
  // and sets the SM limit. LIBCUDA_LOG_LEVEL agrees; CUDA_DEVICE_MEMORY_SHARED_CACHE is a template in the file.
  const manifest = MANIFEST.replace(
    '          image: vllm/vllm-openai:v0.11.0\n',
    [
      '          image: vllm/vllm-openai:v0.11.0',
      '          env:',
      '            - { name: CUDA_DISABLE_CONTROL, value: "true" }',
      '            - { name: CUDA_DEVICE_MEMORY_LIMIT_0, value: 16000m }',
      '            - { name: LIBCUDA_LOG_LEVEL, value: "1" }',
      '            - { name: CUDA_DEVICE_MEMORY_SHARED_CACHE, value: "{{ .Values.cache }}" }',
      '            - { name: HF_HOME, value: /models }',
      '',
    ].join('\n'),
  );
  const liveEnv = [
    { name: 'CUDA_DEVICE_MEMORY_LIMIT_0', value: '8000m' },
    { name: 'CUDA_DEVICE_SM_LIMIT', value: '50' },
    { name: 'LIBCUDA_LOG_LEVEL', value: '1' },
    { name: 'CUDA_DEVICE_MEMORY_SHARED_CACHE', value: '/usr/local/vgpu/x.cache' },
    { name: 'HF_HOME', value: '/elsewhere' },
  ];
  const containers = serverObject.spec.template.spec.containers.map((one) => ({ ...one, env: liveEnv }));
  const object = { ...serverObject, spec: { template: { spec: { containers } } } };
  const base = snapshot([serverRow]);
  const workloads = new Map(base.workloads);
  const key = [...workloads.keys()].find((one) => one.includes('llm'));
  assert.ok(key);
  const workload = workloads.get(key);
  assert.ok(workload);
  workloads.set(key, { ...workload, object });
  const drift = judgeLive(
    lintText(manifest).containers,
    { ...base, workloads },
    { headroomPercent: 30, rules: {}, nowMs: NOW, text: manifest },
  )
    .findings.filter((one) => one.ruleId === LIVE_RULES.drift && one.container === 'server')
    .map((one) => one.message.replace(/ \(prod-eu, read .*\)$/, ''));
  assert.deepEqual(drift, [
    'The cluster runs memory limit 48Gi, this file says 56Gi.',
    'The cluster runs CUDA_DEVICE_MEMORY_LIMIT_0=8000m, this file says CUDA_DEVICE_MEMORY_LIMIT_0=16000m.',
    'The cluster runs CUDA_DEVICE_SM_LIMIT=50, this file does not set it.',
    'The cluster runs without CUDA_DISABLE_CONTROL, this file sets CUDA_DISABLE_CONTROL=true.',
  ]);
});

test('isHamiEnvName: the limits with a device index below 100, the switches; not lookalikes', () => {
  for (const name of [
    'CUDA_DEVICE_MEMORY_LIMIT',
    'CUDA_DEVICE_MEMORY_LIMIT_0',
    'CUDA_DEVICE_MEMORY_LIMIT_15',
    'CUDA_DEVICE_SM_LIMIT_3',
    'CUDA_DISABLE_CONTROL',
    'GPU_CORE_UTILIZATION_POLICY',
  ])
    assert.ok(isHamiEnvName(name), name);
  for (const name of [
    'CUDA_DEVICE_MEMORY_LIMIT_',
    'CUDA_DEVICE_MEMORY_LIMIT_X',
    'CUDA_DEVICE_MEMORY_LIMIT_100',
    'CUDA_VISIBLE_DEVICES',
    'cuda_disable_control',
    'NVIDIA_VISIBLE_DEVICES',
  ])
    assert.ok(!isHamiEnvName(name), name);
});

test('the quick fix sets request = limit and the GPU memory declaration; afterwards the footprint finding is gone', () => {
  const found = judge(MANIFEST).findings.find((one) => one.ruleId === LIVE_RULES.footprintOverLimit);
  assert.equal(found?.fixes.length, 0, 'judging builds no edit');
  assert.equal(found?.fixOnRequest?.title, 'Set resources from what the pods used');
  const fix = found ? fixesOf(found, MANIFEST)[0] : undefined;
  assert.equal(fix?.title, 'Set resources from what the pods used');
  const edit = fix?.edits[0];
  assert.ok(edit);
  const fixed = MANIFEST.slice(0, edit.start) + edit.newText + MANIFEST.slice(edit.end);
  assert.match(fixed, /requests:\n {14}memory: 80Gi\n/);
  assert.match(fixed, /limits:\n {14}memory: 80Gi\n {14}amd\.com\/gpu: 1\n/);
  assert.match(fixed, /gpumem\.io\/gpu-memory: 52Gi/);
  assert.match(fixed, /- name: server # the model server\n/, 'comments and layout stay');
  assert.ok(fixed.endsWith('nvidia.com/gpu: 1\n'), 'the other document is untouched');
  assert.equal(
    judge(fixed).findings.filter((one) => one.ruleId === LIVE_RULES.footprintOverLimit).length,
    0,
    '80Gi covers 61 GiB with 30 % headroom',
  );
});

test('a snapshot older than 15 minutes is marked stale, and its age is in every message', () => {
  const old = judge(MANIFEST, [serverRow], NOW - 3 * 3600 * 1000);
  assert.match(old.lenses[0]?.title ?? '', /read 3 h ago, stale\)$/);
  for (const one of old.findings) assert.match(one.message, /read 3 h ago/);
});

test('minimalEdit keeps the common prefix and suffix', () => {
  assert.deepEqual(minimalEdit('abcXYZdef', 'abc12def'), { start: 3, end: 6, newText: '12' });
  assert.deepEqual(minimalEdit('same', 'same'), { start: 4, end: 4, newText: '' });
  assert.deepEqual(minimalEdit('aaa', 'aaaa'), { start: 3, end: 3, newText: 'a' });
});

test('the fix is built on request: one offer per workload, built once per text, nothing to offer once the text says it', () => {
  const findings = judge(MANIFEST).findings.filter((one) => one.object?.name === 'llm' && one.fixOnRequest);
  assert.deepEqual(findings.map((one) => one.ruleId).sort(), [LIVE_RULES.footprintOverLimit, LIVE_RULES.oomKills]);
  const [first, second] = findings;
  assert.ok(first?.fixOnRequest && first.fixOnRequest === second?.fixOnRequest, 'the findings of one workload share it');
  const built = first.fixOnRequest.build(MANIFEST);
  assert.ok(built);
  assert.equal(first.fixOnRequest.build(MANIFEST), built, 'built once for the same text');
  const [edit] = built.edits;
  assert.ok(edit);
  const fixed = MANIFEST.slice(0, edit.start) + edit.newText + MANIFEST.slice(edit.end);
  assert.equal(first.fixOnRequest.build(fixed), undefined, 'the fixed text needs no change');
  assert.deepEqual(fixesOf(first, fixed), []);
  // A report that lists fixes (SARIF) gets it built in, and no offer left.
  const reported = withFixesBuilt(first, MANIFEST);
  assert.deepEqual(reported.fixes, [built]);
  assert.equal(reported.fixOnRequest, undefined);
});
