// The fleet panel's Recommendations section: the view model built from right-sizing rows (each cell against what
// the test itself expects from the row it made), the patch each workload's Copy patch copies (read back as YAML),
// the sort of every column (checked pair by pair, not against the sort under test), and the protocol's checks of
// the section's messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parse } from 'yaml';
import { FLEET_PROTOCOL, FLEET_PROTOCOL_VERSION } from '../../src/core/fleet/fleetProtocol.ts';
import { LIVE_WORKLOAD_KINDS } from '../../src/core/rightsizing/liveKinds.ts';
import type { RecommendHeader } from '../../src/core/rightsizing/format.ts';
import type { KillCounts } from '../../src/core/rightsizing/kills.ts';
import { NO_KILLS } from '../../src/core/rightsizing/kills.ts';
import type { Recommendation } from '../../src/core/rightsizing/recommend.ts';
import { buildRecommendationsView, workloadPatches } from '../../src/core/rightsizing/recommendationsModel.ts';
import type { RecommendationRowView } from '../../src/core/rightsizing/recommendationsView.ts';
import {
  ageText,
  RECOMMENDATION_SORT_KEYS,
  RECOMMENDATIONS_VIEW_VERSION,
  sortRecommendationRows,
} from '../../src/core/rightsizing/recommendationsView.ts';
import type { RecommendationRow } from '../../src/core/rightsizing/rows.ts';
import { AGENT_CGROUP_NOTE } from '../../src/core/rightsizing/rows.ts';
import { mulberry32 } from '../helpers/random.ts';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

const HEADER: RecommendHeader = {
  source: 'Prometheus at prom.example:9090 (20 queries)',
  window: '14d',
  sources: ['cAdvisor container_memory_working_set_bytes', 'the recording rule namespace_pod_container:gpumem_true_footprint_bytes'],
  problems: [],
};

interface RowSpec {
  kind?: string;
  apiVersion?: string;
  namespace?: string;
  name: string;
  container: string;
  request?: [string, number];
  limit?: [string, number];
  recommendation: Recommendation;
  cgroup?: number;
  gpu?: number;
  vram?: number;
  footprint?: number;
  kernel?: number;
  kills?: Partial<KillCounts>;
  samples?: number;
  hours?: number;
  notes?: string[];
}

function row(spec: RowSpec): RecommendationRow {
  const peak = (bytes: number | undefined) => (bytes === undefined ? undefined : { bytes, at: undefined, pod: `${spec.name}-0` });
  return {
    workload: {
      apiVersion: spec.apiVersion ?? 'apps/v1',
      kind: spec.kind ?? 'Deployment',
      namespace: spec.namespace ?? 'ml',
      name: spec.name,
      uid: `uid-${spec.name}`,
    },
    container: spec.container,
    current: {
      name: spec.container,
      request: spec.request ? { text: spec.request[0], bytes: spec.request[1] } : undefined,
      limit: spec.limit ? { text: spec.limit[0], bytes: spec.limit[1] } : undefined,
      usesGpu: spec.gpu !== undefined,
    },
    observed: {
      cgroupPeak: peak(spec.cgroup),
      gpuInRamPeak: peak(spec.gpu),
      vramPeak: peak(spec.vram),
      trueFootprintPeak: peak(spec.footprint),
      samples: spec.samples ?? 0,
      hours: spec.hours ?? 0,
      dropped: 0,
    },
    kernelPeak: spec.kernel,
    kills: { ...NO_KILLS, ...spec.kills },
    recommendation: spec.recommendation,
    notes: spec.notes ?? [],
  };
}

const sized = (text: string, bytes: number, extra: Partial<Extract<Recommendation, { kind: 'sized' }>> = {}): Recommendation => ({
  kind: 'sized',
  case: 'no-kills',
  targetBytes: bytes,
  memory: { text, bytes },
  gpuMemory: undefined,
  lowerSaves: undefined,
  reason: 'no OOM kills: request = limit = peak working set + 15 % (as KRR simple strategy)',
  notes: [],
  ...extra,
});

/** An APU Deployment with a GPU server (global GPU kills) and a proxy with too little data; a StatefulSet with no number. */
function fixtureRows(): RecommendationRow[] {
  return [
    row({
      name: 'llm',
      container: 'server',
      request: ['16Gi', 16 * GiB],
      limit: ['16Gi', 16 * GiB],
      recommendation: sized('40Gi', 40 * GiB, {
        case: 'global-gpu-kills',
        gpuMemory: { key: 'gpumem.io/gpu-memory', value: { text: '30Gi', bytes: 30 * GiB } },
        reason: '2 global OOM kill(s) with the GPU signature',
        notes: ['On the node: keep GPU pods on dedicated, tainted nodes'],
      }),
      cgroup: 14 * GiB,
      gpu: 30 * GiB,
      footprint: 30 * GiB + 500 * MiB,
      kernel: 15 * GiB,
      kills: { globalGpu: 2, kubeletUnknown: 1 },
      samples: 40_320,
      hours: 336,
    }),
    row({
      name: 'llm',
      container: 'proxy',
      request: ['512Mi', 512 * MiB],
      recommendation: { kind: 'too-little-data', reason: 'only 42 samples (at least 100 are needed)' },
      cgroup: 200 * MiB,
      footprint: 200 * MiB,
      samples: 42,
      hours: 0.7,
    }),
    row({
      kind: 'StatefulSet',
      name: 'db',
      container: 'postgres',
      limit: ['4Gi', 4 * GiB],
      request: ['8Gi', 8 * GiB],
      recommendation: sized('2Gi', 2 * GiB, { lowerSaves: 6 * GiB }),
      cgroup: 1.5 * GiB,
      footprint: 1.5 * GiB,
      samples: 20_000,
      hours: 330,
      notes: [AGENT_CGROUP_NOTE],
    }),
    row({
      kind: 'Job',
      apiVersion: 'batch/v1',
      name: 'once',
      container: 'work',
      recommendation: { kind: 'no-figures', reason: "no agent and no Prometheus: only the API's last termination reasons are known" },
      kills: { kubeletUnknown: 1 },
    }),
  ];
}

const view = (rows: RecommendationRow[], header = HEADER) =>
  buildRecommendationsView({
    context: 'prod-eu',
    namespaces: ['ml'],
    rows,
    header,
    notes: ['List cronjobs: forbidden'],
    headroomPercent: 30,
    readAtMs: Date.UTC(2026, 11, 7, 19, 30, 12),
  });

test('view model: today, recommended, why, the peaks with their sources, kills and data of each row', () => {
  const model = view(fixtureRows());
  assert.equal(model.version, RECOMMENDATIONS_VIEW_VERSION);
  assert.equal(model.header.readAtText, '2026-12-07 19:30:12 UTC');
  assert.equal(model.header.scope, 'namespace ml');
  // 3 workloads, 4 containers; to change: llm/server (40Gi vs 16Gi) and db (2Gi vs 4Gi); without a number: proxy and once.
  assert.equal(model.header.line, '3 workloads, 4 containers: 2 to change, 2 without a number');
  assert.deepEqual(model.notes, ['List cronjobs: forbidden']);
  const [server, proxy, db, once] = model.rows as [
    RecommendationRowView,
    RecommendationRowView,
    RecommendationRowView,
    RecommendationRowView,
  ];

  assert.equal(server.workloadText, 'Deployment ml/llm');
  assert.equal(server.workloadKey, 'Deployment/ml/llm');
  assert.deepEqual([server.request.text, server.limit.text], ['16Gi', '16Gi']);
  assert.deepEqual(server.recommended, {
    kind: 'sized',
    text: '40Gi',
    bytes: 40 * GiB,
    gpuMemory: 'gpumem.io/gpu-memory: 30Gi',
    lower: null,
  });
  assert.equal(server.reason, '2 global OOM kill(s) with the GPU signature');
  assert.deepEqual(server.notes, ['On the node: keep GPU pods on dedicated, tainted nodes']);
  assert.deepEqual(server.observed.cgroup, { text: '14 GiB', bytes: 14 * GiB, source: 'cAdvisor: working set' });
  assert.equal(server.observed.gpuInRam.text, '30 GiB');
  assert.match(server.observed.gpuInRam.source, /agent/);
  assert.equal(server.observed.trueFootprint.bytes, 30 * GiB + 500 * MiB);
  assert.equal(server.observed.trueFootprint.source, 'recording rule: cgroup + GPU in RAM, same sample');
  assert.deepEqual(server.observed.vram, { text: '–', bytes: null, source: 'no series' });
  assert.match(server.observed.kernelPeak.source, /memory\.peak/);
  assert.equal(server.kills.total, 3);
  assert.equal(server.kills.text, '2 global with the GPU signature, 1 reported by the kubelet, cause unknown');
  assert.equal(server.data.text, '40,320 samples over 336.0 h');
  assert.deepEqual(server.patch, { kind: 'patch' });
  assert.equal(server.openable, true);

  // No number: says so, and why; its workload still has a patch (the server's).
  assert.equal(proxy.recommended.text, 'no number');
  assert.equal(proxy.recommended.bytes, null);
  assert.equal(proxy.reason, 'only 42 samples (at least 100 are needed)');
  assert.equal(proxy.request.text, '512Mi');
  assert.equal(proxy.limit.text, 'unset');
  assert.deepEqual(proxy.patch, { kind: 'patch' });

  assert.equal(db.recommended.lower, 'lower: saves 6 GiB');
  assert.equal(db.observed.cgroup.source, 'gpumem agent: pod memory.current, with cache');
  assert.match(db.observed.trueFootprint.source, /agent/);
  assert.deepEqual(db.notes, [AGENT_CGROUP_NOTE]);

  assert.equal(once.recommended.text, 'no number');
  assert.equal(once.data.text, 'no samples');
  assert.equal(once.patch.kind, 'none');
  assert.match(once.patch.kind === 'none' ? once.patch.reason : '', /^no number: no agent and no Prometheus/);
});

test('view model: without the recording rule the true footprint says it was summed by a subquery; all namespaces', () => {
  // As figures.ts says it when the rule answered nothing.
  const header: RecommendHeader = {
    ...HEADER,
    sources: ['cAdvisor container_memory_working_set_bytes', 'the true footprint summed by a subquery (the recording rule is not loaded)'],
  };
  const model = buildRecommendationsView({
    context: 'c',
    namespaces: [],
    rows: fixtureRows().slice(0, 1),
    header,
    notes: [],
    headroomPercent: 25,
    readAtMs: 0,
  });
  assert.equal(model.header.scope, 'all namespaces');
  assert.equal(model.rows[0]?.observed.trueFootprint.source, 'subquery: cgroup + GPU in RAM, same sample');
  assert.equal(
    buildRecommendationsView({ ...{ context: 'c', namespaces: [], header, notes: [], headroomPercent: 25, readAtMs: 0 }, rows: [] }).header
      .line,
    'No workload with a pod template in these namespaces.',
  );
});

test('Copy patch: one strategic-merge patch per workload with the recommended memory of its sized containers', () => {
  const rows = fixtureRows();
  const patches = workloadPatches(rows);
  assert.deepEqual([...patches.keys()].sort(), ['Deployment/ml/llm', 'StatefulSet/ml/db']);
  const llm = patches.get('Deployment/ml/llm');
  assert.equal(llm?.kind, 'patch');
  const doc: unknown = parse(llm?.kind === 'patch' ? llm.text : '');
  assert.deepEqual(doc, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'llm', namespace: 'ml' },
    spec: {
      template: {
        metadata: { annotations: { 'gpumem.io/gpu-memory': '30Gi' } },
        // The proxy has no number: it is not in the patch.
        spec: { containers: [{ name: 'server', resources: { requests: { memory: '40Gi' }, limits: { memory: '40Gi' } } }] },
      },
    },
  });
  const db = patches.get('StatefulSet/ml/db');
  const dbDoc = parse(db?.kind === 'patch' ? db.text : '') as {
    spec: { template: { spec: { containers: { resources: { limits: { memory: string } } }[] } } };
  };
  assert.equal(dbDoc.spec.template.spec.containers[0]?.resources.limits.memory, '2Gi');
});

test('age of the figures beside their source', () => {
  const t = Date.UTC(2026, 0, 1);
  assert.equal(ageText(t, t + 20_000), 'just now');
  assert.equal(ageText(t, t - 5_000), 'just now');
  assert.equal(ageText(t, t + 4 * 60_000 + 10_000), '4 min ago');
  assert.equal(ageText(t, t + 3 * 3_600_000), '3 h ago');
  assert.equal(ageText(t, t + 72 * 3_600_000), '3 d ago');
});

/** The value each column sorts by, as the test reads it off the cells. */
function expectedValue(rowView: RecommendationRowView, key: (typeof RECOMMENDATION_SORT_KEYS)[number]): string | number | null {
  if (key === 'workload') return rowView.workloadText;
  if (key === 'container') return rowView.container;
  if (key === 'request' || key === 'limit') return rowView[key].bytes;
  if (key === 'recommended') return rowView.recommended.bytes;
  if (key === 'kills') return rowView.kills.memcg + rowView.kills.globalGpu + rowView.kills.globalOther + rowView.kills.kubeletUnknown;
  if (key === 'data') return rowView.data.samples;
  return rowView.observed[key].bytes;
}

test('sort: every column both ways, by bytes not text, unknowns last, ties in the host order', () => {
  const random = mulberry32(3535);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
  const maybe = (bytes: number): number | undefined => (random() < 0.25 ? undefined : bytes);
  const rows: RecommendationRow[] = [];
  for (let i = 0; i < 60; i++) {
    const bytes = pick([900 * MiB, GiB, 2 * GiB, 10 * GiB, 1.5 * GiB]);
    rows.push(
      row({
        kind: pick(['Deployment', 'StatefulSet', 'Job']),
        name: pick(['a', 'b', 'zeta', 'Alpha']),
        container: pick(['x', 'y', 'main']),
        request: random() < 0.3 ? undefined : ['1Gi', pick([GiB, 512 * MiB, 4 * GiB])],
        limit: random() < 0.3 ? undefined : ['1Gi', pick([GiB, 512 * MiB, 4 * GiB])],
        recommendation: random() < 0.3 ? { kind: 'too-little-data', reason: 'few' } : sized('1Gi', pick([GiB, 3 * GiB, 100 * MiB])),
        cgroup: maybe(bytes),
        gpu: maybe(pick([0, GiB, 20 * GiB])),
        vram: maybe(pick([GiB, 8 * GiB])),
        footprint: maybe(bytes * 2),
        kills: { memcg: pick([0, 0, 1]), globalGpu: pick([0, 2]) },
        samples: pick([0, 50, 5000]),
      }),
    );
  }
  const model = view(rows);
  for (const key of RECOMMENDATION_SORT_KEYS) {
    for (const direction of ['ascending', 'descending'] as const) {
      const sorted = sortRecommendationRows(model.rows, key, direction);
      assert.deepEqual(
        sorted.map((one) => one.order).sort((a, b) => a - b),
        model.rows.map((one) => one.order),
        `${key}: a permutation`,
      );
      for (let i = 1; i < sorted.length; i++) {
        const a = sorted[i - 1] as RecommendationRowView;
        const b = sorted[i] as RecommendationRowView;
        const x = expectedValue(a, key);
        const y = expectedValue(b, key);
        const where = `${key} ${direction} at ${i}: ${String(x)} then ${String(y)}`;
        if (x === null) {
          assert.equal(y, null, `${where}: unknowns last`);
          assert.ok(a.order < b.order, `${where}: unknowns in the host order`);
          continue;
        }
        if (y === null) continue;
        const cmp = typeof x === 'number' && typeof y === 'number' ? Math.sign(x - y) : Math.sign(String(x).localeCompare(String(y), 'en'));
        assert.ok(direction === 'ascending' ? cmp <= 0 : cmp >= 0, where);
        if (cmp === 0) assert.ok(a.order < b.order, `${where}: ties in the host order`);
      }
    }
  }
  // Bytes, not text: 900 MiB sorts below 1.5 GiB although "9" > "1".
  const two = view([
    row({ name: 'big', container: 'c', cgroup: 1.5 * GiB, recommendation: sized('2Gi', 2 * GiB) }),
    row({ name: 'small', container: 'c', cgroup: 900 * MiB, recommendation: sized('1Gi', GiB) }),
  ]);
  assert.deepEqual(
    sortRecommendationRows(two.rows, 'cgroup', 'ascending').map((one) => one.observed.cgroup.text),
    ['900 MiB', '1.5 GiB'],
  );
});

const wire = (method: string, params: unknown, id?: string): unknown =>
  JSON.parse(JSON.stringify({ v: FLEET_PROTOCOL_VERSION, method, params, ...(id !== undefined ? { id } : {}) }));

test('protocol: Open live manifest and Copy patch name a workload of a kind gpumem reads, and nothing else', () => {
  const target = { kind: 'StatefulSet', namespace: 'default', name: 'llama' };
  assert.deepEqual(FLEET_PROTOCOL.parseWebviewMessage(wire('openWorkload', target)), {
    kind: 'command',
    message: { v: FLEET_PROTOCOL_VERSION, method: 'openWorkload', params: target },
  });
  assert.deepEqual(FLEET_PROTOCOL.parseWebviewMessage(wire('copyPatch', target, 'page-7')), {
    kind: 'request',
    message: { v: FLEET_PROTOCOL_VERSION, id: 'page-7', method: 'copyPatch', params: target },
  });
  const refused = [
    { ...target, kind: 'Pod' },
    { ...target, kind: 'Secret' },
    { ...target, namespace: '' },
    { ...target, name: 'a\nb' },
    { ...target, name: 'x'.repeat(254) },
    { ...target, name: ' ' },
    { ...target, name: 'Llama' },
    { ...target, namespace: 'a.b' },
    { ...target, extra: 1 },
    { kind: 'Deployment', name: 'web' },
    { ...target, name: 7 },
  ];
  for (const params of refused) {
    assert.deepEqual(
      FLEET_PROTOCOL.parseWebviewMessage(wire('openWorkload', params)),
      { kind: 'invalid', id: undefined },
      JSON.stringify(params),
    );
    // An invalid request keeps its id, so the host can answer it with an error.
    assert.deepEqual(FLEET_PROTOCOL.parseWebviewMessage(wire('copyPatch', params, 'page-8')), { kind: 'invalid', id: 'page-8' });
  }
  // The webview's check of the answer.
  assert.deepEqual(FLEET_PROTOCOL.parseRequestResult('copyPatch', { kind: 'copied' }), { kind: 'copied' });
  assert.equal(FLEET_PROTOCOL.parseRequestResult('copyPatch', { kind: 'saved', path: '/x' }), undefined);
});

test('protocol: the Recommendations notification carries a view model of this version, else it is dropped', () => {
  const model = view(fixtureRows());
  const parsed = FLEET_PROTOCOL.parseHostNotification(wire('recommendations', { viewModel: model }));
  assert.equal(parsed?.method, 'recommendations');
  assert.deepEqual(parsed?.method === 'recommendations' ? parsed.params.viewModel : undefined, JSON.parse(JSON.stringify(model)));
  for (const bad of [{ ...model, version: 2 }, { ...model, rows: 'x' }, { ...model, header: null }, 'model']) {
    assert.equal(FLEET_PROTOCOL.parseHostNotification(wire('recommendations', { viewModel: bad })), undefined);
  }
});

test('protocol fuzz: whatever a page sends, a workload target is exactly a kind gpumem reads and two bounded names', () => {
  const value = fc.oneof(
    fc.string({ maxLength: 300, unit: 'binary' }),
    fc.constantFrom(...LIVE_WORKLOAD_KINDS),
    fc.integer(),
    fc.constant(null),
  );
  const params = fc.oneof(
    fc.dictionary(fc.constantFrom('kind', 'namespace', 'name', 'extra'), value),
    // Near misses: the three keys, each value a name or not.
    fc.record({
      kind: fc.oneof(fc.constantFrom(...LIVE_WORKLOAD_KINDS), value),
      namespace: fc.oneof(fc.stringMatching(/^[a-z0-9]{1,10}$/), value),
      name: fc.oneof(fc.stringMatching(/^[a-z0-9]{1,8}(\.[a-z0-9]{1,8})?$/), value),
    }),
  );
  let accepted = 0;
  fc.assert(
    fc.property(params, fc.constantFrom('openWorkload', 'copyPatch'), (sent, method) => {
      const parsed = FLEET_PROTOCOL.parseWebviewMessage(wire(method, sent, method === 'copyPatch' ? 'page-1' : undefined));
      if (parsed.kind === 'invalid') return;
      accepted++;
      const target = parsed.message.params as Record<string, unknown>;
      assert.deepEqual(Object.keys(target).sort(), ['kind', 'name', 'namespace']);
      assert.ok((LIVE_WORKLOAD_KINDS as readonly unknown[]).includes(target.kind));
      // Kubernetes names (checked here with their own patterns): a DNS label, a DNS subdomain.
      assert.match(String(target.namespace), /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
      assert.ok(String(target.name).length <= 253);
      for (const label of String(target.name).split('.')) assert.match(label, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      assert.deepEqual(target, JSON.parse(JSON.stringify(sent)));
    }),
    { seed: 3536, numRuns: 3_000 },
  );
  assert.ok(accepted > 20, `valid targets were generated too (${accepted})`);
});
