// The fleet summary (src/core/fleet/): facts from Prometheus answers and from agents' expositions, the verdict line,
// the ranking, the top pods, kills and HAMi, the reports with hostile names, the CSV, and the constant query set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderExposition } from '../../src/core/agent/exposition.ts';
import { parsePromText } from '../../src/core/agent/promText.ts';
import { agentFleetFacts } from '../../src/core/fleet/agentFacts.ts';
import { withClusterNodes } from '../../src/core/fleet/clusterNodes.ts';
import type { FleetFacts } from '../../src/core/fleet/facts.ts';
import { fleetPodsCsv, fleetToJson, fleetToMarkdown, fleetToText } from '../../src/core/fleet/fleetReport.ts';
import type { PromAnswer, PromVectorSample } from '../../src/core/prometheus/answer.ts';
import { fleetQueries, parseWindow, podDetailQueries, promFleetFacts, rankedUids } from '../../src/core/fleet/promFacts.ts';
import { summarizeFleet } from '../../src/core/fleet/summary.ts';
import { summarizeNode } from '../../src/core/kube/nodes.ts';
import { csvCell } from '../../src/core/text/escape.ts';

const GiB = 1024 ** 3;
const DAY = parseWindow('24h');
assert.ok(DAY);

function vec(rows: readonly [Record<string, string>, number][]): PromAnswer {
  return { kind: 'vector', samples: rows.map(([metric, value]): PromVectorSample => ({ metric, value: [1_767_225_600, String(value)] })) };
}

const UID_A = 'aaaaaaaa-0000-4000-8000-000000000001';
const UID_B = 'bbbbbbbb-0000-4000-8000-000000000002';

/** Two nodes: strix-1 with a pod 20 GiB over its limit and a global GPU kill; h100-1 with a bypassed HAMi pod. */
function answers(): Map<string, PromAnswer> {
  const strix = { node: 'strix-1' };
  const h100 = { node: 'h100-1' };
  const podA = { node: 'strix-1', namespace: 'llm', pod: 'vllm-0', uid: UID_A };
  const podB = { node: 'h100-1', namespace: 'train', pod: 'job-1', uid: UID_B };
  return new Map<string, PromAnswer>([
    [
      'memTotal',
      vec([
        [strix, 128 * GiB],
        [h100, 512 * GiB],
      ]),
    ],
    [
      'memAvailable',
      vec([
        [strix, 10 * GiB],
        [h100, 400 * GiB],
      ]),
    ],
    [
      'cgroup',
      vec([
        [strix, 20 * GiB],
        [h100, 64 * GiB],
      ]),
    ],
    [
      'unaccounted',
      vec([
        [strix, 96 * GiB],
        [h100, 0],
      ]),
    ],
    [
      'pods',
      vec([
        [strix, 3],
        [h100, 8],
      ]),
    ],
    [
      'peakUsed',
      vec([
        [strix, 120 * GiB],
        [h100, 70 * GiB],
      ]),
    ],
    ['gttUsed', vec([[strix, 96 * GiB]])],
    ['amdCards', vec([[strix, 1]])],
    ['nvidiaGpus', vec([[h100, 8]])],
    [
      'lastSeen',
      vec([
        [strix, 1_767_225_590],
        [h100, 1_767_225_595],
      ]),
    ],
    ['podTotal', vec([[{}, 11]])],
    ['overLimitCount', vec([[{}, 1]])],
    ['topUnaccounted', vec([[podA, 60 * GiB]])],
    ['topOverLimit', vec([[podA, 20 * GiB]])],
    [
      'kills',
      vec([
        [{ ...podA, scope: 'global', gpu_signature: 'true' }, 0.98],
        [{ ...podB, scope: 'memcg', gpu_signature: 'false' }, 2],
      ]),
    ],
    ['hami', vec([[{ node: 'h100-1', namespace: 'train', pod: 'job-1', container: 'cuda', state: 'bypassed' }, 1]])],
    ['hamiQuota', vec([[{ node: 'h100-1', namespace: 'train', pod: 'job-1', container: 'cuda' }, 4 * GiB]])],
    [
      'podCurrent',
      vec([
        [{ __name__: 'gpumem_pod_cgroup_memory_bytes', ...podA }, 4 * GiB],
        [{ __name__: 'gpumem_pod_memory_limit_bytes', ...podA }, 16 * GiB],
        [{ __name__: 'gpumem_pod_unaccounted_bytes', ...podA }, 30 * GiB],
        [{ __name__: 'gpumem_pod_true_footprint_bytes', ...podA }, 34 * GiB],
      ]),
    ],
    ['podPeak', vec([[podA, 36 * GiB]])],
    ['killsOverTime', { kind: 'failed', reason: 'HTTP 503: overloaded' }],
  ]);
}

function facts(): FleetFacts {
  return promFleetFacts(answers(), { at: 1_767_225_600, window: DAY as NonNullable<typeof DAY>, description: 'Prometheus at test' });
}

test('windows: durations PromQL accepts, from 5 minutes to 90 days', () => {
  assert.deepEqual(parseWindow('24h'), { label: '24h', seconds: 86_400 });
  assert.equal(parseWindow('7d')?.seconds, 604_800);
  for (const bad of ['1s', '4m', '91d', '24 h', '1h; drop', '', '99999d']) assert.equal(parseWindow(bad), undefined, bad);
});

test('the query set is constant, whatever the fleet: the same names and texts for any window and size', () => {
  const one = fleetQueries(DAY as NonNullable<typeof DAY>, 20);
  assert.equal(Object.keys(one).length, 17);
  assert.ok(Object.values(one).every((query) => !query.includes('undefined')));
  assert.match(one['peakUsed'] ?? '', /max_over_time\(.+\[24h:288s\]\)/);
  assert.match(one['kills'] ?? '', /increase\(gpumem_oom_kills_total\[24h\]\)/);
  assert.match(one['topOverLimit'] ?? '', /^topk\(20, /);
  // The detail queries match exactly the ranked UIDs, regex metacharacters escaped inside the PromQL string.
  assert.deepEqual(rankedUids(answers()), [UID_A]);
  const detail = podDetailQueries(['a.b', 'c"d'], DAY as NonNullable<typeof DAY>);
  assert.ok(detail['podCurrent']?.includes('uid=~"a\\\\.b|c\\"d"'), detail['podCurrent']);
  assert.deepEqual(podDetailQueries([], DAY as NonNullable<typeof DAY>), {});
});

test('Prometheus answers become facts; the summary ranks, counts and judges them', () => {
  const f = facts();
  assert.deepEqual(f.problems, ['query killsOverTime: HTTP 503: overloaded'], 'a failed query is a problem, not a failure');
  const summary = summarizeFleet(f);
  assert.deepEqual(
    summary.nodes.map((node) => [node.node, node.vendor, node.gpuKills, Math.round((node.risk ?? 0) * 100)]),
    [
      ['strix-1', 'amd', 1, 94],
      ['h100-1', 'nvidia', 0, 14],
    ],
    'the node with a GPU kill first; risk from the peak',
  );
  assert.equal(summary.kills.global, 1, '0.98 of a kill from increase() is one kill');
  assert.equal(summary.kills.globalGpu, 1);
  assert.equal(summary.kills.memcg, 2);
  const [over] = summary.topOverLimit;
  assert.equal(over?.uid, UID_A);
  assert.equal(over?.overBy, 20 * GiB, 'the peak footprint (36 GiB) against the limit (16 GiB)');
  assert.equal(summary.hamiBypassed, 1);
  assert.equal(summary.hami[0]?.quotaBytes, 4 * GiB);
  assert.deepEqual(
    summary.verdicts.map((v) => [v.id, v.severity]),
    [
      ['fleet.global-oom', 'error'],
      ['fleet.hami-bypassed', 'error'],
      ['fleet.pods-over-limit', 'warning'],
      ['fleet.node-near-full', 'warning'],
      ['fleet.read-problem', 'info'],
    ],
  );
  assert.equal(
    summary.line,
    '1 global OOM kill in 24h, with the GPU signature; 1 HAMi container bypassing its quota; 1 pod over its limit once GPU memory is counted; 1 node within 10 % of MemTotal once GPU memory is counted.',
  );
  assert.equal(summary.worst, 'error');
});

test('a quiet fleet says so; stale agents and GPU nodes without an agent are a warning', () => {
  const quiet: FleetFacts = {
    ...facts(),
    kills: [],
    hami: [],
    pods: [],
    podCounts: { total: 11, overLimit: 0 },
    problems: [],
    nodes: facts().nodes.map((n) => ({ ...n, peakUsed: 10 * GiB })),
  };
  const summary = summarizeFleet(quiet);
  assert.equal(summary.line, '2 GPU nodes, 11 pods: no pod over its limit once GPU memory is counted, no global OOM kill in 24h.');
  assert.equal(summary.worst, 'none');
  const stale = summarizeFleet({ ...quiet, at: quiet.at + 3600 });
  assert.deepEqual(
    stale.verdicts.map((v) => v.id),
    ['fleet.agents-silent'],
  );
  assert.equal(stale.worst, 'warning');
  assert.ok(stale.nodes.every((node) => node.stale));
});

test("the API's nodes: vendor and unified memory from labels, and GPU nodes no agent reported", () => {
  const node = (name: string, labels: Record<string, string>) =>
    summarizeNode({ metadata: { name, labels }, status: { capacity: { memory: '128Gi' } } });
  const merged = withClusterNodes(facts(), [
    node('strix-1', { 'amd.com/gpu.device-id': '1586', 'feature.node.kubernetes.io/amd-gpu': 'true' }),
    node('h100-1', { 'nvidia.com/gpu.present': 'true' }),
    node('h100-2', { 'nvidia.com/gpu.present': 'true' }),
    node('web-1', {}),
  ]);
  const strix = merged.nodes.find((n) => n.node === 'strix-1');
  assert.equal(strix?.unifiedMemory, true);
  assert.equal(strix?.labels['amd.com/gpu.device-id'], '1586');
  assert.deepEqual(merged.silentNodes, ['h100-2'], 'a GPU node without an agent; a CPU node is not one');
});

test('from the agents: the same facts from their expositions; kills since each agent started', () => {
  const node = 'strix-1';
  const pod = { node, namespace: 'llm', pod: 'vllm-0', uid: UID_A };
  const text = renderExposition([
    { name: 'gpumem_node_memory_total_bytes', labels: { node }, value: 128 * GiB },
    { name: 'gpumem_node_gtt_total_bytes', labels: { node, card: 'card1' }, value: 96 * GiB },
    { name: 'gpumem_pod_cgroup_memory_bytes', labels: pod, value: 4 * GiB },
    { name: 'gpumem_pod_memory_limit_bytes', labels: pod, value: 16 * GiB },
    { name: 'gpumem_pod_unaccounted_bytes', labels: pod, value: 30 * GiB },
    { name: 'gpumem_pod_true_footprint_bytes', labels: pod, value: 34 * GiB },
    { name: 'gpumem_oom_kills_total', labels: { ...pod, scope: 'global', gpu_signature: 'true' }, value: 1 },
    { name: 'gpumem_probe_last_success_timestamp_seconds', labels: { node }, value: 1_767_225_590 },
  ]).text;
  const agentFacts = agentFleetFacts(
    [
      { kind: 'read', agent: 'gpumem-agent-1', samples: parsePromText(text).samples },
      { kind: 'failed', agent: 'agent pod gpumem-agent-2', node: 'h100-1', reason: 'HTTP 503: connection refused' },
    ],
    { at: 1_767_225_600, window: DAY as NonNullable<typeof DAY> },
  );
  assert.equal(agentFacts.killsMeaning, 'since-agent-start');
  assert.deepEqual(agentFacts.problems, ['agent pod gpumem-agent-2 on node h100-1: HTTP 503: connection refused']);
  const summary = summarizeFleet(agentFacts);
  assert.equal(summary.nodes[0]?.vendor, 'amd');
  assert.equal(summary.nodes[0]?.cgroup, 4 * GiB);
  assert.equal(summary.topOverLimit[0]?.overBy, 18 * GiB);
  assert.equal(summary.kills.globalGpu, 1);
  assert.match(summary.line, /1 global OOM kill since the agents started, with the GPU signature/);
});

test('reports: hostile names escaped for the terminal, Markdown and CSV; JSON keeps exact numbers', () => {
  const hostile = '=cmd|"x"\u001b[31m<img src=x>|\n';
  const f = facts();
  const summary = summarizeFleet({
    ...f,
    pods: f.pods.map((pod) => ({ ...pod, pod: hostile })),
    nodes: f.nodes.map((n) => (n.node === 'strix-1' ? { ...n, node: `strix|${hostile}` } : n)),
  });
  const text = fleetToText(summary);
  assert.ok(!text.includes('\u001b'), 'no escape sequence reaches a terminal');
  assert.match(text, /^gpumem fleet: 2 GPU nodes from Prometheus at test, window 24h\n/);
  const md = fleetToMarkdown(summary);
  // The hostile name, cell by cell, as a Markdown table must hold it: each | escaped as \|, ESC shown as the text
  // \x1b (its backslash escaped, \\x1b), [ escaped, < and > as entities, the trailing newline a space entity.
  const cell = String.raw`=cmd\|"x"\\x1b\[31m&lt;img src=x&gt;\|&#32;`;
  assert.deepEqual(
    md.split('\n').filter((line) => line.includes('cmd')),
    [
      String.raw`| strix\|` + cell + ' | 94 % | 128 GiB | 20 GiB | 96 GiB | 3 | 0 |',
      `| llm/${cell} | strix-1 | 36 GiB | 16 GiB | 20 GiB | 30 GiB |`,
      `| llm/${cell} | strix-1 | 36 GiB | 16 GiB | 20 GiB | 30 GiB |`,
    ],
  );
  assert.ok(!md.includes('<img'), 'no raw HTML in the Markdown');
  const csv = fleetPodsCsv(summary);
  const [header, row] = csv.split('\r\n');
  assert.equal(
    header,
    'list,namespace,pod,uid,node,cgroup_bytes,limit_bytes,unaccounted_bytes,footprint_bytes,peak_footprint_bytes,over_by_bytes',
  );
  assert.ok(row?.startsWith('over-limit,llm,"\'=cmd|""x""'), `formula defused, quotes doubled: ${row}`);
  const json = JSON.parse(JSON.stringify(fleetToJson(summary))) as { topOverLimit: { overBy: number }[]; kills: { meaning: string } };
  assert.equal(json.topOverLimit[0]?.overBy, 20 * GiB);
  assert.equal(json.kills.meaning, 'window');
});

test('csv cells: RFC 4180 quoting and formula defusing', () => {
  assert.equal(csvCell('plain'), 'plain');
  assert.equal(csvCell('a,b'), '"a,b"');
  assert.equal(csvCell('say "hi"'), '"say ""hi"""');
  assert.equal(csvCell('=1+1'), "'=1+1");
  assert.equal(csvCell('-2'), "'-2");
  assert.equal(csvCell('@SUM(A1)'), "'@SUM(A1)");
  assert.equal(csvCell('line\nbreak'), '"line\nbreak"');
});
