// The agent's metric contract from real analyses: node, pod, HAMi and OOM samples equal to what the inspection
// computed, hostile label values escaped, the OOM counter counted once (and not again after a restart), every
// exposition accepted by Debian's promtool, and the docs listing every family.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AgentSnapshot } from '../../src/core/agent/agentSamples.ts';
import { renderAgentMetrics } from '../../src/core/agent/agentSamples.ts';
import { MAX_LABEL_VALUE, renderExposition } from '../../src/core/agent/exposition.ts';
import { METRIC_FAMILIES } from '../../src/core/agent/metricContract.ts';
import type { PodIdentity } from '../../src/core/agent/nodeSamples.ts';
import { nodeMetricFacts, nodeSamples } from '../../src/core/agent/nodeSamples.ts';
import { advanceOomLedger, EMPTY_LEDGER, killUnixSeconds, MAX_OOM_SERIES, oomSamples } from '../../src/core/agent/oomLedger.ts';
import { podIdentities } from '../../src/core/agent/podIdentities.ts';
import { eventBody, eventName, eventWorthy, globalOomEventMessage, MAX_EVENT_MESSAGE } from '../../src/core/agent/oomEvent.ts';
import { parsePromText } from '../../src/core/agent/promText.ts';
import type { Inspection } from '../../src/core/inspectionRun/analyze.ts';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import type { HamiPodQuota } from '../../src/core/verdicts/hami/hamiQuota.ts';
import { containerDir, GiB, MiB, nodeCapture, STRIX_HALO } from './helpers/nodeCapture.ts';
import type { NodeSpec } from './helpers/nodeCapture.ts';
import { H100, H100_ROW, OTHER, pidFiles, POD, withNvidia } from './helpers/nvidiaCapture.ts';

const TRAINER = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';
const VICTIM = '0d4e1f3a-7c2b-4b8e-9f00-1a2b3c4d5e6f';
const CONTAINER_ID = '0001'.repeat(16);

const promtool = spawnSync('promtool', ['--version']).status === 0;

/** `promtool check metrics` on an exposition: its exit status and what it printed. */
function promtoolCheck(text: string): { status: number | null; output: string } {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

function oomLines(uid: string, comm: string, pid: number, at: string): string {
  return [
    `[${at}] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=${containerDir({ uid }, 1)},task=${comm},pid=${pid},uid=0`,
    `[${at}] Out of memory: Killed process ${pid} (${comm}) total-vm:41656kB, anon-rss:2120kB, file-rss:4kB, shmem-rss:0kB, UID:0 pgtables:48kB oom_score_adj:1000`,
  ].join('\n');
}

function strixNode(kernelLog: string): NodeSpec {
  return {
    hostname: 'strix-1',
    kernel: '7.1.0-gpumem',
    memTotal: 128 * GiB,
    memAvailable: 41 * GiB,
    gpuActive: 55 * GiB,
    gpus: [{ ...STRIX_HALO, gttUsed: 54 * GiB }],
    dmemCapacity: 'drm/0000:c5:00.0/vram 536870912\n',
    pods: [
      {
        uid: TRAINER,
        current: 6 * GiB,
        max: 32 * GiB,
        processes: [{ pid: 4242, comm: 'python3', fds: [{ fd: 7, client: '11', gtt: 30 * GiB, vram: 256 * MiB, pdev: '0000:c5:00.0' }] }],
      },
      {
        uid: VICTIM,
        current: 2 * GiB,
        max: 16 * GiB,
        processes: [{ pid: 6161, comm: 'vllm-worker', fds: [{ fd: 4, client: '13', gtt: 6 * GiB }] }],
      },
    ],
    kernelLog,
  };
}

function analyse(text: string, names?: ReadonlyMap<string, string>, quotas?: ReadonlyMap<string, HamiPodQuota>): Inspection {
  return analyzeCaptureText(text, { target: 't', ...(names ? { podNames: names } : {}), ...(quotas ? { hamiQuotas: quotas } : {}) });
}

const identities = new Map<string, PodIdentity>([
  [TRAINER, { namespace: 'llm', name: 'trainer-0', containers: new Map([[CONTAINER_ID, 'train']]) }],
  [VICTIM, { namespace: 'llm', name: 'vllm-7d9f', containers: new Map() }],
]);

function value(
  samples: readonly { name: string; labels: Record<string, string>; value: number }[],
  name: string,
  labels: Record<string, string>,
) {
  const found = samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, expected]) => sample.labels[key] === expected),
  );
  assert.equal(found.length, 1, `one ${name} ${JSON.stringify(labels)}: ${found.length}`);
  return found[0]?.value;
}

test('Strix Halo: node and pod samples are the inspection’s own numbers, labelled from the API', () => {
  const inspection = analyse(nodeCapture(strixNode('')));
  const node = inspection.node;
  assert.ok(node);
  const samples = nodeSamples(node, 'strix-1', identities);
  assert.ok(
    samples.every((sample) => sample.labels['node'] === 'strix-1'),
    'every sample carries node',
  );
  assert.equal(value(samples, 'gpumem_node_memory_total_bytes', {}), 128 * GiB);
  assert.equal(value(samples, 'gpumem_node_memory_available_bytes', {}), 41 * GiB, "the fixture's MemAvailable");
  assert.equal(value(samples, 'gpumem_node_gpu_active_bytes', {}), 55 * GiB);
  assert.equal(value(samples, 'gpumem_node_gtt_used_bytes', { card: 'card1' }), 54 * GiB);
  assert.equal(value(samples, 'gpumem_node_gtt_total_bytes', { card: 'card1' }), 96 * GiB);
  assert.equal(value(samples, 'gpumem_node_vram_total_bytes', { card: 'card1' }), 512 * MiB);
  assert.equal(value(samples, 'gpumem_node_dmem_capacity_bytes', { region: 'drm/0000:c5:00.0/vram' }), 512 * MiB);
  assert.equal(value(samples, 'gpumem_node_gpu_reclaim_bytes', {}), 64 * MiB);
  const trainer = { namespace: 'llm', pod: 'trainer-0', uid: TRAINER };
  assert.equal(value(samples, 'gpumem_pod_cgroup_memory_bytes', trainer), 6 * GiB);
  assert.equal(value(samples, 'gpumem_pod_memory_limit_bytes', trainer), 32 * GiB);
  assert.equal(value(samples, 'gpumem_pod_gtt_bytes', trainer), 30 * GiB);
  assert.equal(value(samples, 'gpumem_pod_unaccounted_bytes', trainer), 30 * GiB);
  // cgroup 6 GiB + the GTT its own process holds, 30 GiB, uncounted by the memcg.
  assert.equal(value(samples, 'gpumem_pod_true_footprint_bytes', trainer), 36 * GiB);
  assert.equal(value(samples, 'gpumem_pod_vram_bytes', { ...trainer, gpu: '0000:c5:00.0' }), 256 * MiB);
  // Without the API: the UID alone.
  const bare = nodeSamples(node, 'strix-1', new Map());
  const cgroup = bare.find((sample) => sample.name === 'gpumem_pod_cgroup_memory_bytes' && sample.labels['uid'] === TRAINER);
  assert.deepEqual(cgroup?.labels, { node: 'strix-1', uid: TRAINER });
});

test('the exposition: HELP and TYPE per family, read back exactly, accepted by promtool; hostile labels escaped', (t) => {
  const hostile = 'a"b\\c\nd\u202e<img src=x>';
  const names = new Map<string, PodIdentity>([[TRAINER, { namespace: 'ns', name: hostile, containers: new Map() }]]);
  const inspection = analyse(nodeCapture(strixNode('')));
  assert.ok(inspection.node);
  const exposition = renderExposition(nodeSamples(inspection.node, 'strix-1', names));
  assert.equal(exposition.dropped, 0);
  assert.match(exposition.text, /^# HELP gpumem_node_memory_total_bytes .+\n# TYPE gpumem_node_memory_total_bytes gauge\n/);
  // The text format escapes backslash, quote and newline only (prometheus/docs, exposition_formats.md); the rest
  // (U+202E, <) is written as it is.
  assert.ok(exposition.text.includes('pod="a\\"b\\\\c\\nd\u202e<img src=x>"'), 'the whole value, escaped');
  assert.ok(exposition.text.includes('pod="a\\"b\\\\c\\nd'), 'quote, backslash and newline escaped as the format says');
  const parsed = parsePromText(exposition.text);
  assert.deepEqual(parsed.problems, []);
  assert.equal(parsed.samples.length, exposition.series);
  const back = parsed.samples.find((sample) => sample.name === 'gpumem_pod_gtt_bytes' && sample.labels['uid'] === TRAINER);
  assert.equal(back?.labels['pod'], hostile, 'the value reads back unchanged');
  assert.equal(back?.value, 30 * GiB);
  assert.equal(parsed.types.get('gpumem_pod_gtt_bytes'), 'gauge');
  if (!promtool) return t.skip('promtool is not installed (Debian package prometheus)');
  const check = promtoolCheck(exposition.text);
  assert.equal(check.status, 0, check.output);
});

test('a label value past 1,024 characters is cut and marked, so every line reads back (found by the long fuzz run)', () => {
  // The long run (seed 168661840) gave the capture's kernel= 60,000 blanks: build_info's line passed 64 KiB.
  const kernel = `${' '.repeat(70_000)}7.1.0-gpumem`;
  const emoji = `${'x'.repeat(MAX_LABEL_VALUE - 2)}\u{1F600}tail`;
  const exposition = renderExposition([
    { name: 'gpumem_build_info', labels: { node: 'n', version: '0.1.0', kernel }, value: 1 },
    { name: 'gpumem_pod_gtt_bytes', labels: { node: 'n', uid: 'u', namespace: 'ns', pod: emoji }, value: 1 },
    { name: 'gpumem_pod_gtt_bytes', labels: { node: 'n', uid: 'u2', namespace: 'ns', pod: 'short' }, value: 2 },
  ]);
  const parsed = parsePromText(exposition.text);
  assert.deepEqual(parsed.problems, []);
  assert.equal(parsed.samples.length, 3);
  const build = parsed.samples.find((sample) => sample.name === 'gpumem_build_info');
  assert.equal(build?.labels['kernel']?.length, MAX_LABEL_VALUE);
  assert.ok(build?.labels['kernel']?.endsWith('…'));
  // Never inside a surrogate pair: the emoji that straddles the cut goes whole.
  const pod = parsed.samples.find((sample) => sample.labels['uid'] === 'u')?.labels['pod'] ?? '';
  assert.equal(pod, `${'x'.repeat(MAX_LABEL_VALUE - 2)}…`);
  assert.equal(parsed.samples.find((sample) => sample.labels['uid'] === 'u2')?.labels['pod'], 'short');
});

test('non-finite values, unknown families and foreign labels are dropped, never written', () => {
  const exposition = renderExposition([
    { name: 'gpumem_node_memory_total_bytes', labels: { node: 'n' }, value: Infinity },
    { name: 'gpumem_node_memory_available_bytes', labels: { node: 'n' }, value: NaN },
    { name: 'gpumem_made_up', labels: { node: 'n' }, value: 1 },
    { name: 'gpumem_node_memory_total_bytes', labels: { node: 'n', pid: '42' }, value: 1 },
    { name: 'gpumem_node_memory_total_bytes', labels: { node: 'n' }, value: 2 ** 60 },
    { name: 'gpumem_node_memory_total_bytes', labels: { node: 'n' }, value: 5 },
  ]);
  assert.equal(exposition.dropped, 5, 'Infinity, NaN, the unknown family, the pid label, the repeated label set');
  assert.ok(!/Inf|NaN|pid=|made_up/.test(exposition.text));
  // Past 2^53 the shortest text that reads back as the same float64, as Prometheus parses it.
  assert.match(exposition.text, /gpumem_node_memory_total_bytes\{node="n"\} 1152921504606847000\n/);
  assert.equal(parsePromText(exposition.text).samples[0]?.value, 2 ** 60);
});

test('OOM kills: the first read is the baseline; a new kill counts once; the same log again, a restart and a cut log do not', () => {
  const first = oomLines(VICTIM, 'vllm-worker', 6161, '100.000001');
  const second = oomLines(VICTIM, 'vllm-worker', 6262, '200.000001');
  const at = (log: string) => analyse(nodeCapture(strixNode(log)), new Map([[VICTIM, 'llm/vllm-7d9f']]));
  const inspection = at(`${first}\n`);
  const kills = inspection.node?.oom?.kills ?? [];
  assert.equal(kills.length, 1);
  assert.match(kills[0]?.id ?? '', /^oom\.global-gtt:/, 'the fixture kill has the GPU signature');
  const podUids = [TRAINER, VICTIM];
  const now = 1_767_225_600_000;
  const options = (baseline: boolean) => ({ baseline, nowMs: now, uptimeSeconds: 1000, podUids });
  const baseline = advanceOomLedger(EMPTY_LEDGER, kills, options(true));
  assert.equal(baseline.newKills.length, 0);
  const count = (ledger: typeof baseline.ledger, signature = 'true') =>
    oomSamples(ledger, 'strix-1', identities).find(
      (sample) =>
        sample.name === 'gpumem_oom_kills_total' &&
        sample.labels['uid'] === VICTIM &&
        sample.labels['scope'] === 'global' &&
        sample.labels['gpu_signature'] === signature,
    )?.value;
  assert.equal(count(baseline.ledger), 0, 'known, not counted');
  // Zero series for every pod up front: the first kill is an increase, not a series born at 1.
  const zero = oomSamples(baseline.ledger, 'strix-1', identities).filter(
    (s) => s.name === 'gpumem_oom_kills_total' && s.labels['uid'] === TRAINER,
  );
  assert.deepEqual(zero.map((s) => [s.labels['scope'], s.labels['gpu_signature'], s.value]).sort(), [
    ['global', 'false', 0],
    ['global', 'true', 0],
    ['memcg', 'false', 0],
  ]);
  const last = oomSamples(baseline.ledger, 'strix-1', identities).find(
    (s) => s.name === 'gpumem_oom_kill_last_timestamp_seconds' && s.labels['uid'] === VICTIM,
  );
  assert.equal(last?.value, Math.round((now / 1000 - 1000 + 100.000001) * 1000) / 1000, 'boot time + the kernel stamp, to the ms');

  const both = at(`${first}\n${second}\n`).node?.oom?.kills ?? [];
  const next = advanceOomLedger(baseline.ledger, both, options(false));
  assert.equal(next.newKills.length, 1);
  assert.equal(next.newKills[0]?.victim.pid, 6262);
  assert.equal(count(next.ledger), 1);
  const again = advanceOomLedger(next.ledger, both, options(false));
  assert.equal(again.newKills.length, 0, 'the same log read again');
  assert.equal(count(again.ledger), 1);
  // A read cut short (only the second kill), then the full log again: nothing new.
  const cut = advanceOomLedger(again.ledger, both.slice(1), options(false));
  const full = advanceOomLedger(cut.ledger, both, options(false));
  assert.equal(full.newKills.length, 0);
  assert.equal(count(full.ledger), 1);
  // An unreadable log (undefined) forgets nothing and counts nothing.
  const blind = advanceOomLedger(full.ledger, undefined, options(false));
  assert.equal(advanceOomLedger(blind.ledger, both, options(false)).newKills.length, 0);
  // A restarted agent: a new ledger whose first read is the baseline.
  const restarted = advanceOomLedger(EMPTY_LEDGER, both, options(true));
  assert.equal(restarted.newKills.length, 0);
  assert.equal(count(restarted.ledger), 0);
});

test('OOM series stay bounded: pods that come and go never grow the ledger past its cap', () => {
  let ledger = EMPTY_LEDGER;
  for (let i = 0; i < 3000; i++) {
    const uid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    ledger = advanceOomLedger(ledger, [], { baseline: false, nowMs: i, uptimeSeconds: 10, podUids: [uid] }).ledger;
  }
  assert.ok(ledger.series.size <= MAX_OOM_SERIES, `${ledger.series.size}`);
});

test('kill timestamps: only a bracketed seconds-since-boot stamp within the uptime is placed on the clock', () => {
  const kill = analyse(nodeCapture(strixNode(`${oomLines(VICTIM, 'x', 1, '100.5')}\n`))).node?.oom?.verdicts[0];
  assert.ok(kill);
  assert.equal(killUnixSeconds(kill, 2_000_000, 1000), 2000 - 1000 + 100.5);
  assert.equal(killUnixSeconds(kill, 2_000_000, undefined), undefined);
  assert.equal(killUnixSeconds(kill, 2_000_000, 50), undefined, 'a stamp after the uptime is from an earlier boot');
});

test('HAMi: quota per container and GPU, one enforcement series per state (bypassed over the quota, enforced under it)', (t) => {
  const quotas = new Map<string, HamiPodQuota>([
    [POD.uid, { devices: new Map([[H100, 4000]]) }],
    [OTHER.uid, { devices: new Map([[H100, 8000]]) }],
  ]);
  const text = withNvidia(nodeCapture({ kernel: '6.8.0-60-generic', memTotal: 512 * GiB, pods: [POD, OTHER] }), {
    'nvidia-smi.gpu': { body: H100_ROW, rc: 0 },
    'nvidia-smi.apps': { body: `${H100}, 501, python3, 9000\n${H100}, 601, vllm, 7000\n`, rc: 0 },
    'nvidia-smi.pids': {
      files: [
        ...pidFiles(501, containerDir(POD, 1), 'python3', 'CUDA_DISABLE_CONTROL=true\n'),
        ...pidFiles(601, containerDir(OTHER, 2), 'vllm', 'CUDA_DEVICE_MEMORY_LIMIT_0=8000m\n'),
      ],
    },
  });
  const inspection = analyse(text, undefined, quotas);
  assert.ok(inspection.node);
  const names = new Map<string, PodIdentity>([
    [POD.uid, { namespace: 'team-a', name: 'train', containers: new Map([['0001'.repeat(16), 'cuda']]) }],
  ]);
  const samples = nodeSamples(inspection.node, 'h100-1', names);
  const bypassed = { namespace: 'team-a', pod: 'train', container: 'cuda' };
  assert.equal(value(samples, 'gpumem_hami_enforcement', { ...bypassed, state: 'bypassed' }), 1);
  assert.equal(value(samples, 'gpumem_hami_enforcement', { ...bypassed, state: 'enforced' }), 0);
  assert.equal(value(samples, 'gpumem_hami_enforcement', { ...bypassed, state: 'unknown' }), 0);
  assert.equal(value(samples, 'gpumem_hami_quota_bytes', { ...bypassed, gpu: '0' }), 4000 * MiB);
  // The other pod is unknown to the API: labelled by its UID, its container by the short id.
  const other = { pod: OTHER.uid, container: '0002'.repeat(3) };
  assert.equal(value(samples, 'gpumem_hami_enforcement', { ...other, state: 'enforced' }), 1);
  assert.equal(value(samples, 'gpumem_pod_vram_bytes', { uid: POD.uid, gpu: '0' }), 9000 * MiB);
  assert.equal(value(samples, 'gpumem_node_vram_total_bytes', { card: 'nvidia0' }), 81559 * MiB);
  assert.ok(!samples.some((sample) => sample.name === 'gpumem_node_gpu_active_bytes'), 'no GPUActive line (6.8): absent, not 0');
  if (!promtool) return t.skip('promtool is not installed');
  const check = promtoolCheck(renderExposition(samples).text);
  assert.equal(check.status, 0, check.output);
});

test('a whole scrape: agent health, build info, API state; promtool accepts it; docs/agent.md lists every family', (t) => {
  const inspection = analyse(nodeCapture(strixNode(`${oomLines(VICTIM, 'vllm-worker', 6161, '100.000001')}\n`)));
  assert.ok(inspection.node);
  const snapshot: AgentSnapshot = {
    status: {
      nodeName: 'strix-1',
      version: '0.1.0',
      cycles: 3,
      errors: new Map([['probe-timeout', 1]]),
      lastDurationSeconds: 0.25,
      lastSuccessSeconds: 1_767_225_600,
      api: { kind: 'unavailable', reason: 'forbidden', detail: 'pods is forbidden' },
    },
    node: nodeMetricFacts(inspection.node),
    ledger: advanceOomLedger(EMPTY_LEDGER, inspection.node.oom?.kills, {
      baseline: true,
      nowMs: 1_767_225_600_000,
      uptimeSeconds: 1000,
      podUids: [TRAINER, VICTIM],
    }).ledger,
    identities,
  };
  const exposition = renderAgentMetrics(snapshot);
  const parsed = parsePromText(exposition.text);
  const one = (name: string, labels: Record<string, string> = {}) => value(parsed.samples as never, name, labels);
  assert.equal(one('gpumem_probe_errors_total', { reason: 'probe-timeout' }), 1);
  assert.equal(one('gpumem_probe_errors_total', { reason: 'probe-failed' }), 0, 'every reason from the start');
  assert.equal(one('gpumem_probe_cycles_total'), 3);
  assert.equal(one('gpumem_kubernetes_api_up', { reason: 'forbidden' }), 0);
  assert.equal(one('gpumem_build_info', { version: '0.1.0', kernel: '7.1.0-gpumem' }), 1);
  const names = new Set(parsed.samples.map((sample) => sample.name));
  for (const sample of parsed.samples) assert.ok(!('pid' in sample.labels) && !('comm' in sample.labels), 'no process labels');
  assert.ok(names.has('gpumem_oom_kills_total'));
  const docs = readFileSync(new URL('../../docs/agent.md', import.meta.url), 'utf8');
  for (const family of METRIC_FAMILIES) {
    assert.ok(docs.includes(`\`${family.name}\``), `docs/agent.md documents ${family.name}`);
    const labels = ['node', ...family.labels].map((label) => `\`${label}\``).join(', ');
    assert.ok(docs.includes(labels), `docs/agent.md gives the labels of ${family.name}: ${labels}`);
  }
  if (!promtool) return t.skip('promtool is not installed');
  const check = promtoolCheck(exposition.text);
  assert.equal(check.status, 0, check.output);
  assert.doesNotThrow(() => execFileSync('promtool', ['check', 'metrics'], { input: exposition.text }));
});

test('pod identities from the API: namespace, name, container names by runtime id without its prefix', () => {
  const pods = [
    {
      metadata: { uid: TRAINER, name: 'trainer-0', namespace: 'llm' },
      status: { containerStatuses: [{ name: 'train', containerID: `containerd://${CONTAINER_ID}` }] },
    },
    { metadata: { uid: VICTIM, name: 'v' }, status: { containerStatuses: [{ name: 'x' }] } },
    { metadata: { name: 'no-uid' } },
    'not an object',
  ];
  const map = podIdentities(pods);
  assert.equal(map.size, 2);
  assert.equal(map.get(TRAINER)?.containers.get(CONTAINER_ID), 'train');
  assert.equal(map.get(VICTIM)?.namespace, 'default');
});

test('the GlobalOOMKill Event: only for global kills of a named pod; what gpumem found; one name per pod and run', () => {
  const inspection = analyse(nodeCapture(strixNode(`${oomLines(VICTIM, 'vllm-worker', 6161, '100.000001')}\n`)));
  const kill = inspection.node?.oom?.verdicts[0];
  assert.ok(kill && inspection.node);
  assert.equal(eventWorthy(kill, identities.get(VICTIM)), true);
  assert.equal(eventWorthy(kill, undefined), false, 'a pod the API does not name gets no Event');
  const message = globalOomEventMessage(kill, inspection.node);
  assert.match(message, /^gpumem: global OOM kill of vllm-worker \(pid 6161\): the node ran out of memory; this pod's memory limit/);
  assert.match(message, /6 GiB of GTT \(GPU memory in system RAM\) held by this pod is not charged to its cgroup/);
  assert.match(message, /memory\.current 2 GiB of its 16 GiB limit, true footprint 8 GiB\./);
  assert.match(message, /Size the limit to cgroup memory plus GPU memory with 30 % headroom/, 'the default headroom');
  assert.match(globalOomEventMessage(kill, inspection.node, 25), /with 25 % headroom/, "the agent's --headroom 25");
  assert.ok(message.length <= MAX_EVENT_MESSAGE);
  const long = eventName('p'.repeat(300), '6560a1b2');
  assert.equal(long.length, 253);
  assert.ok(long.endsWith('.gpumem-oom-6560a1b2'));
  const body = eventBody(kill, identities.get(VICTIM) as PodIdentity, { name: 'x', nodeName: 'strix-1', message, at: new Date(0) });
  assert.deepEqual(body['involvedObject'], { apiVersion: 'v1', kind: 'Pod', namespace: 'llm', name: 'vllm-7d9f', uid: VICTIM });
  assert.equal(body['reason'], 'GlobalOOMKill');
  assert.equal(body['type'], 'Warning');
});

test("the agent's state between cycles holds the samples' facts, not the inspection", async () => {
  const { setFlagsFromString } = await import('node:v8');
  const { runInNewContext } = await import('node:vm');
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const { manyPodsNode, nodeCapture } = await import('./helpers/nodeCapture.ts');
  // Collected objects are reported by a FinalizationRegistry: deterministic, where a heap-size delta is MiB-noisy.
  // (That no string of the capture stays either is captureRetention.test.ts's: strings cannot be registered.)
  const collected = new Set<string>();
  const registry = new FinalizationRegistry<string>((what) => collected.add(what));
  // The facts made in a scope of their own: once it returns, nothing of the test refers to the inspection.
  const facts = (() => {
    const inspection = analyzeCaptureText(nodeCapture(manyPodsNode(400)), { target: 'n' });
    const node = inspection.node ?? assert.fail('no node');
    registry.register(inspection, 'the inspection');
    registry.register(node.model, 'its model');
    registry.register(node.model.gpuProcesses, 'its DRM clients');
    return nodeMetricFacts(node);
  })();
  for (let i = 0; i < 20 && collected.size < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.deepEqual([...collected].sort(), ['its DRM clients', 'its model', 'the inspection']);
  assert.equal(facts.pods.length, 400);
});
