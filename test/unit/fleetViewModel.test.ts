// The fleet view's pure half: the typed protocol (exactly its messages, nothing else), the view model built from a
// FleetSummary (texts, stacked-bar shares, facets, top pods, the OOM chart capped at 48 points, HAMi, the source
// line), the node table's filters and sort, the virtualised list's range, and a 5,000-node fleet end to end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FleetFacts, KillPoint, NodeFacts, PodFacts } from '../../src/core/fleet/facts.ts';
import { FLEET_PROTOCOL, FLEET_PROTOCOL_VERSION, parseFleetPanelState } from '../../src/core/fleet/fleetProtocol.ts';
import {
  buildFleetViewModel,
  filterNodes,
  MAX_CHART_POINTS,
  NO_FILTER,
  nodeRowSummary,
  sortNodes,
  visibleRange,
} from '../../src/core/fleet/fleetViewModel.ts';
import { parseWindow } from '../../src/core/fleet/promFacts.ts';
import { summarizeFleet } from '../../src/core/fleet/summary.ts';

const GiB = 1024 ** 3;
const AT = 1_767_225_600;
const DAY = parseWindow('24h') ?? assert.fail('24h');
const WEEK = parseWindow('7d') ?? assert.fail('7d');

function node(name: string, over: Partial<NodeFacts> = {}): NodeFacts {
  return {
    node: name,
    memTotal: 128 * GiB,
    memAvailable: 64 * GiB,
    cgroup: 32 * GiB,
    unaccounted: 16 * GiB,
    peakUsed: undefined,
    gttUsed: 16 * GiB,
    pods: 2,
    vendor: 'amd',
    unifiedMemory: true,
    labels: { 'kubernetes.io/hostname': name, pool: 'apu' },
    lastSeen: AT - 10,
    ...over,
  };
}

function pod(n: string, nodeName: string, namespace: string, over: Partial<PodFacts> = {}): PodFacts {
  return {
    node: nodeName,
    namespace,
    pod: `pod-${n}`,
    uid: `00000000-0000-4000-8000-${n.padStart(12, '0')}`,
    cgroup: 4 * GiB,
    limit: 16 * GiB,
    unaccounted: 2 * GiB,
    footprint: 6 * GiB,
    peakFootprint: undefined,
    ...over,
  };
}

function facts(over: Partial<FleetFacts> = {}): FleetFacts {
  return {
    source: { kind: 'prometheus', description: 'Prometheus at prom:9090' },
    window: DAY,
    at: AT,
    nodes: [
      node('strix-1', { cgroup: 60 * GiB, unaccounted: 60 * GiB }),
      node('h100-1', { vendor: 'nvidia', unifiedMemory: false, memTotal: 512 * GiB, labels: { pool: 'h100' } }),
      node('mystery', { memTotal: undefined, vendor: undefined, unifiedMemory: undefined, labels: {} }),
    ],
    pods: [
      pod('1', 'strix-1', 'llm', { unaccounted: 30 * GiB, footprint: 34 * GiB, peakFootprint: 36 * GiB }),
      pod('2', 'h100-1', 'train'),
      pod('3', 'h100-1', 'llm', { namespace: undefined, pod: undefined }),
      pod('4', 'h100-1', 'llm', { unaccounted: 0 }),
    ],
    podCounts: { total: 3, overLimit: 1 },
    kills: [
      { node: 'strix-1', namespace: 'llm', pod: 'pod-1', uid: 'u1', scope: 'global', gpuSignature: true, count: 2 },
      { node: 'h100-1', namespace: 'train', pod: 'pod-2', uid: 'u2', scope: 'memcg', gpuSignature: false, count: 1 },
    ],
    killsMeaning: 'window',
    killsOverTime: [],
    hami: [{ node: 'h100-1', namespace: 'train', pod: 'pod-2', container: 'main', state: 'bypassed', quotaBytes: 4 * GiB }],
    silentNodes: [],
    problems: [],
    ...over,
  };
}

/** A command or request on the wire, as the page sends it (through JSON, as postMessage clones it). */
const wire = (method: string, params: Record<string, unknown>, id?: string): unknown =>
  JSON.parse(JSON.stringify({ v: FLEET_PROTOCOL_VERSION, method, params, ...(id !== undefined ? { id } : {}) }));

test('protocol: the webview messages, exactly', () => {
  const commands: [string, Record<string, unknown>][] = [
    ['ready', {}],
    ['refresh', {}],
    ['scan', {}],
    ['setWindow', { window: '1h' }],
    ['setWindow', { window: '7d' }],
    ['openNode', { node: 'strix-1' }],
    ['openPod', { namespace: 'llm', pod: 'vllm-0', uid: 'u-1', node: 'strix-1' }],
    ['openPod', { namespace: '', pod: '', uid: 'u-1', node: 'strix-1' }],
  ];
  for (const [method, params] of commands)
    assert.deepEqual(FLEET_PROTOCOL.parseWebviewMessage(wire(method, params)), {
      kind: 'command',
      message: { v: FLEET_PROTOCOL_VERSION, method, params },
    });
  for (const format of ['markdown', 'json', 'csv'])
    assert.deepEqual(FLEET_PROTOCOL.parseWebviewMessage(wire('export', { format }, 'page-1')), {
      kind: 'request',
      message: { v: FLEET_PROTOCOL_VERSION, id: 'page-1', method: 'export', params: { format } },
    });
  const bad: unknown[] = [
    null,
    undefined,
    'ready',
    [],
    {},
    { type: 'ready' },
    { v: 1, method: 'ready', params: {} },
    wire('Ready', {}),
    wire('ready', { extra: 1 }),
    wire('refresh', { window: '24h' }),
    wire('scan', { concurrency: 64 }),
    wire('scan', { namespace: 'kube-system' }),
    wire('setWindow', { window: '2h' }),
    wire('setWindow', { window: ['24h'] }),
    wire('setWindow', {}),
    wire('openNode', { node: '' }),
    wire('openNode', { node: 'a'.repeat(254) }),
    wire('openNode', { node: 'a\nb' }),
    wire('openNode', { node: 7 }),
    wire('openPod', { namespace: 'llm', pod: 'p', uid: '', node: 'n' }),
    wire('openPod', { namespace: 'llm', pod: 'p', uid: 'u', node: 'n', extra: true }),
    wire('openPod', { namespace: 'llm', pod: 'p', uid: 'u' }),
    wire('openPod', { namespace: 1, pod: 'p', uid: 'u', node: 'n' }),
    wire('export', { format: 'markdown' }),
    wire('openDocs', { docsId: 'x' }),
    wire('__proto__', {}),
    wire('toString', {}),
  ];
  for (const message of bad)
    assert.deepEqual(FLEET_PROTOCOL.parseWebviewMessage(message), { kind: 'invalid', id: undefined }, JSON.stringify(message));
  // A request that is not right, with a usable id, is answered (with an error) rather than left waiting.
  for (const params of [{ format: 'html' }, { format: 'markdown', path: '/etc/passwd' }, {}])
    assert.deepEqual(FLEET_PROTOCOL.parseWebviewMessage(wire('export', params, 'page-2')), { kind: 'invalid', id: 'page-2' });
  assert.deepEqual(FLEET_PROTOCOL.parseWebviewMessage(wire('export', { format: 'csv' }, 'bad id!')), { kind: 'invalid', id: undefined });
});

test('protocol: the host messages the webview takes, and the export answers', () => {
  const model = buildFleetViewModel(summarizeFleet(facts()), { context: 'demo' });
  const host = (method: string, params: Record<string, unknown>): unknown => ({ v: FLEET_PROTOCOL_VERSION, method, params });
  assert.equal(FLEET_PROTOCOL.parseHostNotification(host('state', { viewModel: model }))?.method, 'state');
  assert.deepEqual(FLEET_PROTOCOL.parseHostNotification(host('progress', { text: 'reading' })), host('progress', { text: 'reading' }));
  assert.deepEqual(FLEET_PROTOCOL.parseHostNotification(host('error', { message: 'no' })), host('error', { message: 'no' }));
  assert.deepEqual(
    FLEET_PROTOCOL.parseHostNotification(host('error', { message: 'no agent', offerScan: true })),
    host('error', { message: 'no agent', offerScan: true }),
  );
  assert.deepEqual(
    FLEET_PROTOCOL.parseHostNotification(host('error', { message: 'no', offerScan: 'yes' })),
    host('error', { message: 'no' }),
  );
  for (const bad of [
    host('state', { viewModel: { ...model, version: 2 } }),
    host('state', { viewModel: null }),
    host('progress', { text: 1 }),
    host('exported', { format: 'csv', outcome: 'saved', detail: '/tmp/a.csv' }),
    host('other', {}),
    { type: 'progress', text: 'reading' },
    { v: 1, method: 'progress', params: { text: 'reading' } },
  ])
    assert.equal(FLEET_PROTOCOL.parseHostNotification(bad), undefined, JSON.stringify(bad).slice(0, 80));
  // The export's answer: where the file went, checked on the page's side.
  const request = FLEET_PROTOCOL.request('page-3', 'export', { format: 'csv' });
  const answer = JSON.parse(JSON.stringify(FLEET_PROTOCOL.response(request, { kind: 'saved', path: '/tmp/a.csv' }))) as unknown;
  assert.deepEqual(FLEET_PROTOCOL.parseHostNotification(answer)?.params, {
    id: 'page-3',
    ok: true,
    result: { kind: 'saved', path: '/tmp/a.csv' },
  });
  assert.deepEqual(FLEET_PROTOCOL.parseRequestResult('export', { kind: 'saved', path: '/tmp/a.csv' }), {
    kind: 'saved',
    path: '/tmp/a.csv',
  });
  assert.deepEqual(FLEET_PROTOCOL.parseRequestResult('export', { kind: 'cancelled' }), { kind: 'cancelled' });
  for (const result of [{ kind: 'saved', path: '' }, { kind: 'saved' }, { kind: 'copied' }, null])
    assert.equal(FLEET_PROTOCOL.parseRequestResult('export', result), undefined, JSON.stringify(result));
  assert.deepEqual(FLEET_PROTOCOL.errorResponse('page-3', 'disk full').params, { id: 'page-3', ok: false, error: 'disk full' });
});

test('protocol: a restored panel keeps which fleet it shows, and a saved state that is not one is refused', () => {
  const eks = 'arn:aws:eks:us-west-2:123456789012:cluster/gpu-prod';
  assert.deepEqual(parseFleetPanelState({ version: 1, context: eks, window: '7d' }), { version: 1, context: eks, window: '7d' });
  assert.deepEqual(
    FLEET_PROTOCOL.parseHostNotification({
      v: FLEET_PROTOCOL_VERSION,
      method: 'panel',
      params: { state: { version: 1, context: 'demo', window: '1h' } },
    })?.params,
    { state: { version: 1, context: 'demo', window: '1h' } },
  );
  // The workbench keeps whatever a page saved: an old or tampered state restores nothing (the panel is closed).
  for (const bad of [
    undefined,
    null,
    'demo',
    { version: 2, context: 'demo', window: '1h' },
    { version: 1, context: '', window: '1h' },
    { version: 1, context: 'demo\u001b[2J', window: '1h' },
    { version: 1, context: 'x'.repeat(1025), window: '1h' },
    { version: 1, context: 'demo', window: '30d' },
    { version: 1, context: 7, window: '1h' },
  ])
    assert.equal(parseFleetPanelState(bad), undefined, JSON.stringify(bad)?.slice(0, 80));
  assert.equal(
    FLEET_PROTOCOL.parseHostNotification({
      v: FLEET_PROTOCOL_VERSION,
      method: 'panel',
      params: { state: { version: 1, context: 'demo' } },
    }),
    undefined,
  );
});

test('view model: the verdict line, verdicts, source line and node rows with their bar shares', () => {
  const summary = summarizeFleet(facts());
  const model = buildFleetViewModel(summary, { context: 'demo', notes: ["the nodes' labels could not be read: no"] });
  assert.equal(model.header.line, summary.line);
  assert.equal(model.header.worst, 'error');
  assert.equal(model.header.badge, 'ERROR');
  assert.equal(model.header.context, 'demo');
  assert.equal(model.header.sourceLine, 'Prometheus at prom:9090 · window 24h · 3 GPU nodes, 3 pods · read 00:00:00 UTC');
  assert.deepEqual(
    model.verdicts.map((v) => v.id),
    summary.verdicts.map((v) => v.id),
  );
  assert.ok(model.verdicts.every((v) => v.docs.startsWith('https://') && v.remedy.length > 0));
  assert.deepEqual(
    model.nodes.map((row) => [row.rank, row.node, row.tone]),
    [
      [1, 'strix-1', 'error'],
      [2, 'h100-1', 'ok'],
      [3, 'mystery', 'ok'],
    ],
  );
  const [strix, h100, mystery] = model.nodes;
  assert.ok(strix && h100 && mystery);
  assert.equal(strix.risk.text, '94 %');
  assert.equal(strix.cgroup.text, '60 GiB');
  assert.equal(strix.unaccounted.text, '60 GiB');
  assert.equal(strix.free.text, '8 GiB');
  assert.deepEqual(strix.bar, { cgroup: 60 / 128, unaccounted: 60 / 128, free: 8 / 128 });
  assert.equal(h100.vendorText, 'NVIDIA');
  assert.equal(h100.unified, false);
  assert.deepEqual(h100.namespaces, ['llm', 'train'], 'the namespaces of the pod rows on the node');
  assert.equal(mystery.bar, null, 'no MemTotal: no bar');
  assert.equal(mystery.risk.text, '—');
  assert.equal(mystery.vendor, 'unknown');
  assert.match(nodeRowSummary(strix), /2 global OOM kills \(2 with the GPU signature\)/);
  assert.match(
    nodeRowSummary(strix),
    /^strix-1: \d+ % of MemTotal 128 GiB in use, cgroups 60 GiB, GPU memory outside cgroups 60 GiB, free /,
  );
  assert.equal('summary' in strix, false, 'not sent for every node: the webview makes it for the rows on screen');
  assert.deepEqual(model.problems, ["the nodes' labels could not be read: no"]);
});

test('view model: a node using more than MemTotal has a full bar in proportion', () => {
  const model = buildFleetViewModel(summarizeFleet(facts({ nodes: [node('x', { memTotal: 100, cgroup: 150, unaccounted: 50 })] })), {
    context: 'c',
  });
  assert.deepEqual(model.nodes[0]?.bar, { cgroup: 0.75, unaccounted: 0.25, free: 0 });
});

test('view model: facets, top pods, HAMi and the kills as totals (no history)', () => {
  const model = buildFleetViewModel(summarizeFleet(facts()), { context: 'demo' });
  assert.deepEqual(model.facets.vendors, [
    { value: 'amd', text: 'AMD', count: 1 },
    { value: 'nvidia', text: 'NVIDIA', count: 1 },
    { value: 'unknown', text: 'unknown', count: 1 },
  ]);
  assert.deepEqual(model.facets.unified, { yes: 1, no: 1, unknown: 1 });
  assert.deepEqual(model.facets.labelKeys, ['kubernetes.io/hostname', 'pool']);
  assert.deepEqual(model.facets.namespaces, ['llm', 'train']);
  assert.deepEqual(
    model.overLimit.map((row) => [row.name, row.overBy.text, row.footprint.text, row.node, row.uid.slice(-1)]),
    [['llm/pod-1', '20 GiB', '36 GiB', 'strix-1', '1']],
  );
  assert.equal(model.unaccounted[0]?.name, 'llm/pod-1');
  const unnamed = model.unaccounted.find((row) => row.pod === '');
  assert.ok(unnamed, 'a pod without names is listed by UID');
  assert.match(unnamed.name, /^pod 0000/);
  assert.equal(unnamed.namespace, '');
  assert.deepEqual(model.hami, [
    {
      name: 'train/pod-2',
      namespace: 'train',
      pod: 'pod-2',
      container: 'main',
      node: 'h100-1',
      state: 'bypassed',
      quota: { value: 4 * GiB, text: '4 GiB' },
    },
  ]);
  assert.equal(model.kills.chart.mode, 'totals');
  assert.deepEqual(model.kills.chart.labels, ['kills in 24h']);
  assert.deepEqual(
    model.kills.chart.series.map((s) => [s.scope, s.data]),
    [
      ['global', [2]],
      ['memcg', [1]],
    ],
  );
  assert.match(model.kills.chart.description, /2 global, 1 cgroup \(memcg\), 0 unknown scope/);
  assert.deepEqual(model.kills.totals, { global: 2, globalGpu: 2, memcg: 1, unknown: 0 });
  assert.deepEqual(
    model.kills.rows.map((row) => [row.name, row.scope, row.count]),
    [
      ['llm/pod-1', 'global', 2],
      ['train/pod-2', 'memcg', 1],
    ],
  );
});

test('view model: kills over time by scope, never more than 48 points', () => {
  const step = 300;
  const points: KillPoint[] = [];
  for (let i = 0; i < 289; i++) {
    points.push({ t: AT - (288 - i) * step, scope: 'global', count: i % 10 === 0 ? 1 : 0 });
    points.push({ t: AT - (288 - i) * step, scope: 'memcg', count: 0.5 });
  }
  const model = buildFleetViewModel(summarizeFleet(facts({ killsOverTime: points })), { context: 'demo' });
  const chart = model.kills.chart;
  assert.equal(chart.mode, 'over-time');
  assert.ok(chart.labels.length <= MAX_CHART_POINTS, `${chart.labels.length} points`);
  assert.equal(chart.labels.length, Math.ceil(289 / Math.ceil(289 / MAX_CHART_POINTS)));
  assert.deepEqual(
    chart.series.map((s) => s.scope),
    ['global', 'memcg'],
    'a scope with no kill is no series',
  );
  for (const series of chart.series) assert.equal(series.data.length, chart.labels.length);
  const sum = (scope: string) => chart.series.find((s) => s.scope === scope)?.data.reduce((a, b) => a + b, 0);
  assert.equal(sum('global'), 29, 'merging steps keeps every kill');
  assert.equal(sum('memcg'), 289 * 0.5);
  assert.equal(chart.labels.at(-1), '00:00', 'the last step ends at the facts time (UTC)');
  // A week: dates in the labels.
  const week = buildFleetViewModel(summarizeFleet(facts({ window: WEEK, killsOverTime: [{ t: AT, scope: 'unknown', count: 3 }] })), {
    context: 'c',
  });
  assert.deepEqual(week.kills.chart.labels, ['01-01 00:00']);
  assert.deepEqual(
    week.kills.chart.series.map((s) => s.scope),
    ['unknown'],
  );
});

test('node table: filters by vendor, unified memory, label and namespace; sort with unknowns last', () => {
  const rows = buildFleetViewModel(summarizeFleet(facts()), { context: 'demo' }).nodes;
  const names = (list: readonly { node: string }[]) => list.map((row) => row.node);
  assert.deepEqual(names(filterNodes(rows, NO_FILTER)), ['strix-1', 'h100-1', 'mystery']);
  assert.deepEqual(names(filterNodes(rows, { ...NO_FILTER, vendor: 'nvidia' })), ['h100-1']);
  assert.deepEqual(names(filterNodes(rows, { ...NO_FILTER, unified: 'yes' })), ['strix-1']);
  assert.deepEqual(names(filterNodes(rows, { ...NO_FILTER, unified: 'no' })), ['h100-1']);
  assert.deepEqual(names(filterNodes(rows, { ...NO_FILTER, label: 'pool=apu' })), ['strix-1']);
  assert.deepEqual(names(filterNodes(rows, { ...NO_FILTER, label: ' pool = h100 ' })), ['h100-1']);
  assert.deepEqual(names(filterNodes(rows, { ...NO_FILTER, label: 'pool' })), ['strix-1', 'h100-1']);
  assert.deepEqual(names(filterNodes(rows, { ...NO_FILTER, label: 'pool=none' })), []);
  assert.deepEqual(names(filterNodes(rows, { ...NO_FILTER, namespace: 'llm' })), ['strix-1', 'h100-1']);
  assert.deepEqual(names(filterNodes(rows, { ...NO_FILTER, namespace: 'train', vendor: 'amd' })), []);

  assert.deepEqual(names(sortNodes(rows, 'node', 'ascending')), ['h100-1', 'mystery', 'strix-1']);
  assert.deepEqual(names(sortNodes(rows, 'memTotal', 'descending')), ['h100-1', 'strix-1', 'mystery']);
  assert.deepEqual(names(sortNodes(rows, 'memTotal', 'ascending')), ['strix-1', 'h100-1', 'mystery'], 'unknown last either way');
  assert.deepEqual(names(sortNodes(rows, 'risk', 'descending')), ['strix-1', 'h100-1', 'mystery']);
  assert.deepEqual(names(sortNodes(rows, 'rank', 'descending')), ['mystery', 'h100-1', 'strix-1']);
  assert.deepEqual(names(sortNodes(rows, 'kills', 'descending')), ['strix-1', 'h100-1', 'mystery'], 'ties in rank order');
  assert.deepEqual(names(rows), ['strix-1', 'h100-1', 'mystery'], 'sorting copies');
});

test('virtualised list: the visible range with overscan, clamped', () => {
  assert.deepEqual(visibleRange(5000, 0, 400, 28), { first: 0, end: 23 });
  assert.deepEqual(visibleRange(5000, 28 * 1000, 400, 28), { first: 992, end: 1023 });
  assert.deepEqual(visibleRange(5000, 28 * 5000, 400, 28), { first: 4992, end: 5000 });
  assert.deepEqual(visibleRange(0, 0, 400, 28), { first: 0, end: 0 });
  assert.deepEqual(visibleRange(10, -50, 400, 28), { first: 0, end: 10 });
});

test('5,000 nodes and 50,000 pods: every node listed, filters and sorts complete', () => {
  const nodes: NodeFacts[] = [];
  const pods: PodFacts[] = [];
  for (let n = 0; n < 5000; n++) {
    const name = `gpu-node-${String(n).padStart(5, '0')}`;
    const apu = n % 10 === 0;
    nodes.push(
      node(name, {
        vendor: apu ? 'amd' : n % 3 === 0 ? 'nvidia' : 'amd',
        unifiedMemory: apu,
        cgroup: (n % 97) * GiB,
        unaccounted: apu ? (n % 13) * GiB : 0,
        labels: { pool: apu ? 'apu' : 'dgpu', zone: `z${n % 4}` },
      }),
    );
    for (let p = 0; p < 10; p++) pods.push(pod(String(n * 10 + p), name, `team-${(n + p) % 25}`, { unaccounted: p * GiB }));
  }
  const summary = summarizeFleet(facts({ nodes, pods, podCounts: { total: pods.length, overLimit: 0 }, kills: [], hami: [] }), 50);
  const model = buildFleetViewModel(summary, { context: 'big' });
  assert.equal(model.nodes.length, 5000, 'the virtualised table gets every node');
  assert.equal(new Set(model.nodes.map((row) => row.node)).size, 5000);
  assert.deepEqual(
    model.nodes.map((row) => row.rank),
    Array.from({ length: 5000 }, (_, i) => i + 1),
  );
  assert.equal(model.unaccounted.length, 50, 'the top pods are cut to top');
  assert.equal(model.facets.namespaces.length, 25);
  assert.equal(
    model.facets.vendors.find((v) => v.value === 'amd')?.count,
    5000 - model.facets.vendors.find((v) => v.value === 'nvidia')!.count,
  );
  assert.equal(filterNodes(model.nodes, { ...NO_FILTER, label: 'pool=apu' }).length, 500);
  assert.equal(filterNodes(model.nodes, { ...NO_FILTER, unified: 'yes', label: 'zone=z0' }).length, 250);
  assert.equal(filterNodes(model.nodes, { ...NO_FILTER, namespace: 'team-3' }).length, (5000 * 10) / 25);
  const sorted = sortNodes(model.nodes, 'cgroup', 'descending');
  assert.equal(sorted.length, 5000);
  for (let i = 1; i < sorted.length; i++) assert.ok((sorted[i - 1]?.cgroup.value ?? 0) >= (sorted[i]?.cgroup.value ?? 0));
  // What the webview gets crosses postMessage as JSON: it survives the round trip.
  const copy = JSON.parse(JSON.stringify(model)) as typeof model;
  assert.equal(
    FLEET_PROTOCOL.parseHostNotification({ v: FLEET_PROTOCOL_VERSION, method: 'state', params: { viewModel: copy } })?.method,
    'state',
  );
  assert.equal(copy.nodes.length, 5000);
});
