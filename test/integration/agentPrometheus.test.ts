// `gpumem agent` end to end with real parts: three real agent processes (`node src/cli/main.ts agent`) probe chroot
// fixture roots laid out as the DaemonSet sees a node (the node under /host; test/helpers/fixtureRoot.ts): a Strix
// Halo node with a GTT-heavy pod and a global OOM kill in its kernel log, a HAMi node with nvidia-smi (one pod within
// its quota, one over it: test/helpers/nvidiaSmiRoot.ts), a plain node. The API
// simulator serves their pods. Debian's Prometheus scrapes them every second; the test waits for two scrapes and
// asserts each series through Prometheus's HTTP API against the analysis of the same capture: values equal,
// labels right. Then a new kill is written to the kernel log: the counter goes to 1 once, stays there, and a
// restarted agent does not count the old kills again. The endpoints, promtool on each live scrape, SIGTERM, and
// an agent without API access (UID labels and the reason) are checked too.
//
// Needs root (chroot, mknod) and the prometheus package (prometheus, promtool); skips with the reason otherwise.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { Sample } from '../../src/core/agent/exposition.ts';
import { nodeSamples } from '../../src/core/agent/nodeSamples.ts';
import { podIdentities, podNamesOfIdentities } from '../../src/core/agent/podIdentities.ts';
import { parsePromText } from '../../src/core/agent/promText.ts';
import type { Inspection } from '../../src/core/inspectionRun/analyze.ts';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { runProbe } from '../../src/core/inspectionRun/runProbe.ts';
import { hamiPodQuotas } from '../../src/core/kube/hamiPodQuotas.ts';
import { ClusterClient } from '../../src/kube/clusterClient.ts';
import { LocalTransport } from '../../src/transports/local.ts';
import type { AgentProcess } from '../helpers/agentProcess.ts';
import { startAgentProcess, stopAgentProcess } from '../helpers/agentProcess.ts';
import { runCli } from '../helpers/cli.ts';
import { buildApuNode, buildPlainNode, fixtureRootsUnavailable } from '../helpers/fixtureRoot.ts';
import type { Fixture } from '../helpers/fixtureRoot.ts';
import { buildHamiNvidiaNode } from '../helpers/nvidiaSmiRoot.ts';
import type { PrometheusProcess } from '../helpers/prometheusProcess.ts';
import { prometheusUnavailable, startPrometheus } from '../helpers/prometheusProcess.ts';
import type { HamiNvidiaFacts } from '../helpers/nvidiaSmiRoot.ts';
import type { ApuFacts } from '../helpers/apuNode.ts';
import { completeFixtures, loadFixtures, mergeFixtures, parseFixtures } from '../simulator/fixtures.ts';
import { startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';
import { waitFor as pollUntil } from '../helpers/waitFor.ts';

const SKIP = fixtureRootsUnavailable() ?? prometheusUnavailable() ?? false;
const ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };
const T = { timeout: 240_000 };

const waitFor = <V>(what: string, probe: () => Promise<V | undefined> | V | undefined, timeoutMs = 60_000): Promise<V> =>
  pollUntil(what, probe, { timeoutMs, pollMs: 250 });

/** `gpumem agent` on a fixture root (test/helpers/agentProcess.ts); resolves once it serves. */
function startAgent(
  node: string,
  fixture: Fixture<unknown>,
  options: { kubeconfig?: string; port?: number; events?: boolean; extraArgs?: readonly string[] },
): Promise<AgentProcess> {
  return startAgentProcess({ node, root: fixture.root, hostRoot: fixture.hostRoot, ...options });
}

interface PromSeries {
  readonly metric: Record<string, string>;
  readonly value: [number, string];
}

async function query(base: string, promql: string): Promise<PromSeries[]> {
  const response = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await response.json()) as { status: string; data?: { result: PromSeries[] }; error?: string };
  if (body.status !== 'success') throw new Error(`${promql}: ${body.error ?? response.status}`);
  return body.data?.result ?? [];
}

function withoutTarget(labels: Record<string, string>): Record<string, string> {
  const { job: _job, instance: _instance, __name__: _name, ...rest } = labels;
  return rest;
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  // Prometheus drops labels with an empty value: compare without them.
  const clean = (labels: Record<string, string>) => Object.entries(labels).filter(([, value]) => value !== '');
  const x = clean(a);
  const y = clean(b);
  return x.length === y.length && x.every(([key, value]) => b[key] === value);
}

describe('gpumem agent, scraped by a real Prometheus', { skip: SKIP }, () => {
  let sim: Simulator;
  let work: string;
  let kubeconfig: string;
  let prometheus: PrometheusProcess | undefined;
  let base: string;
  const fixtures: { node: string; fixture: Fixture<unknown> }[] = [];
  const agents = new Map<string, AgentProcess>();
  const expected = new Map<string, { inspection: Inspection; samples: Sample[] }>();

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'gpumem-agent-prom-'));
    // The agents as the DaemonSet's pods (for gpumem fleet's agents source, through the pod proxy).
    const agentPods = parseFixtures(
      [
        'apiVersion: v1\nkind: Namespace\nmetadata: {name: gpumem-system}',
        // The cluster's Prometheus, as kube-prometheus names and labels it (found by gpumem fleet without a URL).
        'apiVersion: v1\nkind: Namespace\nmetadata: {name: monitoring}',
        'apiVersion: v1\nkind: Service\nmetadata: {name: prometheus-k8s, namespace: monitoring, labels: {app.kubernetes.io/name: prometheus, app.kubernetes.io/component: prometheus}}\nspec: {ports: [{name: web, port: 9090, targetPort: web}]}',
        ...['strix-node-1', 'gpu-node-7', 'web-node-3'].map(
          (node) =>
            `apiVersion: v1\nkind: Pod\nmetadata: {name: gpumem-agent-${node}, namespace: gpumem-system, labels: {app.kubernetes.io/name: gpumem-agent}}\nspec: {nodeName: ${node}, containers: [{name: agent, image: ghcr.io/gpumem/gpumem-agent:0.1.0}]}\nstatus: {phase: Running}`,
        ),
      ].join('\n---\n'),
      { source: 'agent pods' },
    );
    sim = await startSimulator({ fixtures: completeFixtures(mergeFixtures(loadFixtures(), agentPods)), roots: false });
    kubeconfig = join(work, 'kubeconfig');
    writeFileSync(kubeconfig, sim.kubeconfig('admin'), { mode: 0o600 });
    fixtures.push(
      { node: 'strix-node-1', fixture: buildApuNode({ hostRoot: '/host' }) },
      { node: 'gpu-node-7', fixture: buildHamiNvidiaNode('host', { hostRoot: '/host' }) },
      { node: 'web-node-3', fixture: buildPlainNode({ hostRoot: '/host' }) },
    );
    // The analysis of the same capture, with the pods the API serves: what every series must equal.
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfig('admin'));
    const client = new ClusterClient({ name: 'sim', kubeConfig: kc });
    for (const { node, fixture } of fixtures) {
      const { pods } = await client.listPodsOnNode(node);
      const identities = podIdentities(pods);
      const transport = new LocalTransport({ command: ['chroot', fixture.root, '/bin/sh', '-s'], env: ENV });
      const run = await runProbe(transport, { scope: 'node', hostRoot: fixture.hostRoot, timeoutMs: 60_000 });
      await transport.close();
      const inspection = analyzeCaptureText(run.captureText, {
        target: node,
        podNames: podNamesOfIdentities(identities),
        hamiQuotas: hamiPodQuotas(pods),
      });
      assert.ok(inspection.node, `${node}: a node capture`);
      expected.set(node, { inspection, samples: nodeSamples(inspection.node, node, identities) });
    }
    await client.dispose(0);
    for (const { node, fixture } of fixtures) {
      // The agent that posts Events sizes its remedy with --headroom 25, as a DaemonSet given that argument does.
      const events = node === 'strix-node-1';
      const agent = await startAgent(node, fixture, { kubeconfig, events, ...(events ? { extraArgs: ['--headroom', '25'] } : {}) });
      agents.set(node, agent);
      sim.setPodProxy('gpumem-system', `gpumem-agent-${node}`, 9400, `http://127.0.0.1:${agent.port}`);
    }
    prometheus = await startPrometheus({
      dir: work,
      scrapeTargets: [...agents.values()].map((agent) => `127.0.0.1:${agent.port}`),
      env: ENV,
    });
    base = prometheus.base;
    sim.setServiceProxy('monitoring', 'prometheus-k8s', 'web', base);
    // Two scrapes of every agent.
    await waitFor(
      'two scrapes of each agent',
      async () => {
        const counts = await query(base, 'count_over_time(gpumem_probe_cycles_total[5m])');
        return counts.length === 3 && counts.every((series) => Number(series.value[1]) >= 2) ? true : undefined;
      },
      90_000,
    );
  });

  after(async () => {
    await prometheus?.stop();
    for (const agent of agents.values()) await stopAgentProcess(agent);
    for (const { fixture } of fixtures) fixture.cleanup();
    await sim?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test('every node, pod, container and HAMi series equals the analysis of the same capture, with its labels', T, async () => {
    for (const { node } of fixtures) {
      const want = expected.get(node);
      assert.ok(want);
      // The *_max_bytes series are the maxima over the agent's looks, not one analysis: checked against the current
      // series below (the fixtures stand still, so each maximum is the value the analysis gives).
      const got = await query(base, `{__name__=~"gpumem_(node|pod|container|hami)_.+", __name__!~".+_max_bytes", node="${node}"}`);
      const gotSamples = got.map((series) => ({
        name: series.metric['__name__'] ?? '',
        labels: withoutTarget(series.metric),
        value: Number(series.value[1]),
      }));
      assert.ok(want.samples.length > 0, `${node}: samples expected`);
      for (const sample of want.samples) {
        const match = gotSamples.filter((candidate) => candidate.name === sample.name && sameLabels(candidate.labels, sample.labels));
        assert.equal(match.length, 1, `${node}: ${sample.name} ${JSON.stringify(sample.labels)} in Prometheus`);
        assert.equal(match[0]?.value, sample.value, `${node}: ${sample.name} ${JSON.stringify(sample.labels)}`);
      }
      assert.equal(gotSamples.length, want.samples.length, `${node}: no series the analysis does not have`);
      for (const [max, current] of [
        ['gpumem_pod_unaccounted_max_bytes', 'gpumem_pod_unaccounted_bytes'],
        ['gpumem_pod_true_footprint_max_bytes', 'gpumem_pod_true_footprint_bytes'],
        ['gpumem_pod_vram_max_bytes', 'gpumem_pod_vram_bytes'],
      ] as const) {
        const currents: Sample[] = want.samples.filter((sample) => sample.name === current);
        const maxima = await query(base, `${max}{node="${node}"}`);
        assert.equal(maxima.length, currents.length, `${node}: one ${max} per ${current}`);
        for (const sample of currents) {
          const match = maxima.find((series) => sameLabels(withoutTarget(series.metric), { ...sample.labels }));
          assert.equal(Number(match?.value[1]), sample.value, `${node}: ${max} ${JSON.stringify(sample.labels)}`);
        }
      }
    }
    // The headline numbers from the fixture's own facts, not from the analysis above: the APU node's memory and GTT,
    // and its GPU pod by namespace and name with its cgroup, limit, GTT and true footprint (cgroup + the GTT its
    // processes hold, which the memcg does not count).
    const apuFacts = (fixtures.find((entry) => entry.node === 'strix-node-1')?.fixture as Fixture<ApuFacts>).facts;
    const one = async (promql: string): Promise<number> => {
      const answer = await query(base, promql);
      assert.equal(answer.length, 1, promql);
      return Number(answer[0]?.value[1]);
    };
    assert.equal(await one('gpumem_node_memory_total_bytes{node="strix-node-1"}'), apuFacts.memTotal);
    assert.equal(await one('gpumem_node_memory_available_bytes{node="strix-node-1"}'), apuFacts.memAvailable);
    assert.equal(await one('sum(gpumem_node_gtt_used_bytes{node="strix-node-1"})'), apuFacts.gttUsed);
    assert.equal(await one('sum(gpumem_node_gtt_total_bytes{node="strix-node-1"})'), apuFacts.gttTotal);
    const pod = `node="strix-node-1", uid="${apuFacts.podUid}"`;
    const [gtt] = await query(base, `gpumem_pod_gtt_bytes{${pod}}`);
    assert.ok(gtt?.metric['namespace'] && gtt.metric['pod'], 'the pod is named from the API');
    assert.equal(Number(gtt.value[1]), apuFacts.podGtt);
    assert.equal(await one(`gpumem_pod_cgroup_memory_bytes{${pod}}`), apuFacts.memoryCurrent);
    assert.equal(await one(`gpumem_pod_memory_limit_bytes{${pod}}`), apuFacts.memoryMax);
    assert.equal(await one(`gpumem_pod_true_footprint_bytes{${pod}}`), apuFacts.memoryCurrent + apuFacts.podGtt);
    const [api] = await query(base, 'gpumem_kubernetes_api_up{node="gpu-node-7"}');
    assert.equal(api?.value[1], '1');
    // HAMi: the pod over its quota is bypassed, the one within it enforced, each by namespace and name.
    const hami = fixtures.find((entry) => entry.node === 'gpu-node-7')?.fixture as Fixture<HamiNvidiaFacts>;
    const state = async (uid: string) => {
      const pod = expected.get('gpu-node-7')?.inspection.podNames.get(uid)?.split('/')[1];
      assert.ok(pod, `the API names pod ${uid}`);
      return (await query(base, `gpumem_hami_enforcement{node="gpu-node-7", pod="${pod}"} == 1`)).map((series) => series.metric['state']);
    };
    assert.deepEqual(await state(hami.facts.bypassed.podUid), ['bypassed']);
    assert.deepEqual(await state(hami.facts.enforced.podUid), ['enforced']);
    const [vram] = await query(base, `sum(gpumem_pod_vram_bytes{node="gpu-node-7", uid="${hami.facts.bypassed.podUid}"})`);
    assert.equal(Number(vram?.value[1]), hami.facts.bypassedUsedMiB * 1024 * 1024);
  });

  test('the OOM counter: the log at start is the baseline, a new kill counts once, a restart does not count again', T, async () => {
    const node = 'strix-node-1';
    const fixture = fixtures.find((entry) => entry.node === node)?.fixture;
    assert.ok(fixture);
    const kills = expected.get(node)?.inspection.node?.oom?.kills ?? [];
    assert.equal(kills.length, 1, 'the fixture has one global kill');
    const victim = kills[0]?.victim.podUid;
    assert.ok(victim);
    const counter = `gpumem_oom_kills_total{node="${node}", scope="global", uid="${victim}"}`;
    const total = async () => (await query(base, `sum(${counter})`)).map((series) => Number(series.value[1]))[0];
    assert.equal(await total(), 0, 'the kill already in the log is not counted');
    const [lastKill] = await query(base, `max(gpumem_oom_kill_last_timestamp_seconds{node="${node}", uid="${victim}"})`);
    assert.equal(Number(lastKill?.value[1]), Date.parse(kills[0]?.timestamp ?? '') / 1000, 'its time is served');

    // A second report, as the kernel writes it: the same lines with a new pid, a minute later.
    const kernLog = join(fixture.root, fixture.hostRoot, 'var/log/kern.log');
    const lines = readFileSync(kernLog, 'utf8').split('\n');
    const first = lines.findIndex((line) => line.includes('invoked oom-killer'));
    const last = lines.findIndex((line) => line.includes('Out of memory: Killed process'));
    assert.ok(first >= 0 && last > first, 'the fixture log holds one whole OOM report');
    const pid = String(kills[0]?.victim.pid ?? '');
    // The report again, for a new victim pid and at a later hour (the fixture's report is before 10:00).
    const again = (suffix: string, hour: string) =>
      `${lines
        .slice(first, last + 1)
        .map((line) => line.replaceAll(pid, `${pid}${suffix}`).replace(/T\d\d:/, `T${hour}:`))
        .join('\n')}\n`;
    appendFileSync(kernLog, again('7', '21'));
    await waitFor('the new kill counted', async () => ((await total()) === 1 ? true : undefined), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 3500)); // three more cycles and scrapes
    assert.equal(await total(), 1, 'counted once, not on every read of the log');

    // --events: a Warning GlobalOOMKill on the pod, saying what gpumem found; a second kill updates it.
    const victimName = expected.get(node)?.inspection.podNames.get(victim) ?? '';
    const [namespace, podName] = victimName.split('/');
    assert.ok(namespace && podName, 'the API names the victim');
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfig('admin'));
    const client = new ClusterClient({ name: 'sim', kubeConfig: kc });
    const gpumemEvents = async () =>
      (await client.core.listNamespacedEvent({ namespace, fieldSelector: 'reason=GlobalOOMKill' })).items.filter(
        (event) => event.involvedObject.uid === victim,
      );
    const [posted] = await waitFor('the GlobalOOMKill Event', async () =>
      (await gpumemEvents()).length === 1 ? gpumemEvents() : undefined,
    );
    assert.equal(posted?.type, 'Warning');
    assert.equal(posted?.involvedObject.name, podName);
    assert.equal(posted?.count, 1);
    assert.match(
      posted?.message ?? '',
      /global OOM kill of .+: the node ran out of memory; this pod's memory limit was not what killed it\./,
    );
    assert.match(posted?.message ?? '', /of GTT \(GPU memory in system RAM\) held by this pod is not charged to its cgroup/);
    assert.match(posted?.message ?? '', /Size the limit to cgroup memory plus GPU memory with 25 % headroom/, '--headroom 25');
    assert.equal(posted?.source?.component, 'gpumem-agent');
    appendFileSync(kernLog, again('8', '22'));
    await waitFor('the second new kill counted', async () => ((await total()) === 2 ? true : undefined), 30_000);
    const updated = await waitFor('the Event updated', async () => {
      const list = await gpumemEvents();
      return list.length === 1 && list[0]?.count === 2 ? list : undefined;
    });
    assert.equal(updated.length, 1, 'a repeat updates the Event, it does not add one');
    await client.dispose(0);

    const agent = agents.get(node);
    assert.ok(agent);
    const cycles = async () => Number((await query(base, `gpumem_probe_cycles_total{node="${node}"}`))[0]?.value[1] ?? NaN);
    const before = await cycles();
    assert.equal(await stopAgentProcess(agent), 0, 'SIGTERM: a clean exit');
    assert.match(agent.stderr(), /SIGTERM: stopping/);
    const restarted = await startAgent(node, fixture, { kubeconfig, port: agent.port });
    agents.set(node, restarted);
    // The counter of cycles restarts: a scrape of the new process.
    await waitFor(
      'a scrape of the restarted agent after its first cycle',
      async () => {
        const now = await cycles();
        return now >= 1 && now < before ? true : undefined;
      },
      30_000,
    );
    assert.equal(await total(), 0, 'after a restart the kills are the baseline: not counted again');
    assert.match(restarted.stderr(), /kernel log baseline: 3 OOM kill\(s\) already in the log are not counted/);
  });

  test('endpoints: /metrics passes promtool, /healthz and /readyz answer, nothing else is served', T, async () => {
    const agent = agents.get('gpu-node-7');
    assert.ok(agent);
    const url = `http://127.0.0.1:${agent.port}`;
    const metrics = await fetch(`${url}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(metrics.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await metrics.text();
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
    assert.deepEqual(parsePromText(text).problems, []);
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    assert.equal((await fetch(`${url}/readyz`)).status, 200);
    assert.equal((await fetch(`${url}/capture`)).status, 404, 'no raw capture endpoint');
    assert.equal((await fetch(`${url}/metrics`, { method: 'POST', body: 'x' })).status, 405);
    const head = await fetch(`${url}/metrics`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
    assert.ok(!text.includes('pid='), 'no pid label');
    const facts = (fixtures.find((entry) => entry.node === 'gpu-node-7')?.fixture as Fixture<HamiNvidiaFacts>).facts;
    for (const secret of facts.secrets) assert.ok(!text.includes(secret), 'no secret of an environ reaches /metrics');
  });

  test('without API access the agent still serves: pods by UID only, and the reason', T, async () => {
    const plain = fixtures.find((entry) => entry.node === 'web-node-3')?.fixture;
    assert.ok(plain);
    const nobodyConfig = join(work, 'kubeconfig-nobody');
    writeFileSync(nobodyConfig, sim.kubeconfig('nobody'), { mode: 0o600 });
    for (const [label, options, reason] of [
      ['no kubeconfig', {}, 'no-credentials'],
      ['RBAC refused', { kubeconfig: nobodyConfig }, 'forbidden'],
    ] as const) {
      const agent = await startAgent('web-node-3', plain, options);
      try {
        const url = `http://127.0.0.1:${agent.port}/metrics`;
        const text = await waitFor(`${label}: a scrape with the reason`, async () => {
          const body = await (await fetch(url)).text();
          return body.includes(`gpumem_kubernetes_api_up{node="web-node-3",reason="${reason}"} 0`) &&
            body.includes('gpumem_pod_cgroup_memory_bytes')
            ? body
            : undefined;
        });
        const pods = parsePromText(text).samples.filter((sample) => sample.name === 'gpumem_pod_cgroup_memory_bytes');
        assert.ok(pods.length > 0);
        assert.ok(
          pods.every((sample) => sample.labels['uid'] && !('pod' in sample.labels)),
          `${label}: UID labels only`,
        );
        assert.match(agent.stderr(), reason === 'forbidden' ? /Kubernetes API forbidden/ : /no Kubernetes API/);
      } finally {
        await stopAgentProcess(agent);
      }
    }
  });
  test(
    'gpumem fleet: from Prometheus and from the agents through the pod proxy, the same nodes, pods over limit and HAMi bypass',
    T,
    async () => {
      interface FleetJson {
        line: string;
        worst: string;
        verdicts: { id: string; title: string }[];
        nodes: { node: string; vendor?: string; unifiedMemory?: boolean; globalKills: number }[];
        topOverLimit: { uid: string; namespace?: string; pod?: string; overBy: number }[];
        kills: { global: number; meaning: string };
        hamiBypassed: number;
        source: { kind: string };
      }
      const fleet = async (args: readonly string[]) => {
        // Not spawnSync: the simulator answers from this process's event loop.
        const run = await runCli(['fleet', '--kubeconfig', kubeconfig, '--format', 'json', ...args], {
          env: { ...ENV, HOME: tmpdir() },
          timeoutMs: 60_000,
        });
        assert.equal(run.code, 1, `${args.join(' ')}: warnings and errors give 1: ${run.stderr}`);
        return JSON.parse(run.stdout) as FleetJson;
      };
      const fromProm = await fleet(['--prometheus', base, '--window', '1h']);
      const fromAgents = await fleet(['--source', 'agents']);
      // No URL: the Prometheus service found in the cluster, read through the API server's service proxy.
      const fromService = await fleet(['--window', '1h']);
      assert.equal(fromService.source.kind, 'prometheus');
      assert.match(JSON.stringify(fromService.source), /Prometheus service monitoring\/prometheus-k8s through the API server/);
      assert.equal(fromService.hamiBypassed, fromProm.hamiBypassed);
      assert.deepEqual(
        fromService.topOverLimit.map((row) => row.uid),
        fromProm.topOverLimit.map((row) => row.uid),
      );
      assert.equal(fromProm.source.kind, 'prometheus');
      assert.equal(fromAgents.source.kind, 'agents');
      for (const summary of [fromProm, fromAgents]) {
        assert.deepEqual(summary.nodes.map((n) => n.node).sort(), ['gpu-node-7', 'strix-node-1', 'web-node-3']);
        const apu = expected
          .get('strix-node-1')
          ?.inspection.node?.pods.find((pod) => pod.limit !== undefined && (pod.trueFootprint ?? 0) > pod.limit);
        assert.ok(apu, 'the APU fixture has a pod over its limit once GTT is counted');
        const over = summary.topOverLimit.find((row) => row.uid === apu.podUid);
        assert.ok(over, `${summary.source.kind}: the APU pod is over its limit`);
        assert.equal(over.overBy, (apu.trueFootprint ?? 0) - (apu.limit ?? 0));
        assert.ok(over.namespace && over.pod, 'named');
        assert.equal(summary.hamiBypassed, 1, `${summary.source.kind}: the HAMi pod over its quota`);
        const ids = summary.verdicts.map((v) => v.id);
        assert.ok(ids.includes('fleet.pods-over-limit') && ids.includes('fleet.hami-bypassed'), ids.join(', '));
        assert.equal(summary.worst, 'error');
        assert.match(summary.line, /pods? over (its|their) limit once GPU memory is counted/);
        assert.equal(summary.nodes.find((n) => n.node === 'strix-node-1')?.vendor, 'amd', 'from the node labels');
      }
      // Kills: Prometheus counts the window (the two written by the OOM test, across the agent's restart).
      assert.equal(fromProm.kills.meaning, 'window');
      assert.ok(fromProm.kills.global >= 2, `global kills in the window: ${fromProm.kills.global}`);
      assert.ok(fromProm.verdicts.some((v) => v.id === 'fleet.global-oom'));
      assert.equal(fromAgents.kills.meaning, 'since-agent-start');
      // The pod table as CSV.
      const csv = await runCli(['fleet', '--kubeconfig', kubeconfig, '--prometheus', base, '--format', 'csv'], {
        env: { ...ENV, HOME: tmpdir() },
        timeoutMs: 60_000,
      });
      assert.match(csv.stdout, /^list,namespace,pod,uid,node,cgroup_bytes,limit_bytes/);
      assert.ok(csv.stdout.includes(',strix-node-1,'));
      // A Prometheus that is not there: exit 2, the fleet could not be read.
      const down = await runCli(['fleet', '--prometheus', 'http://127.0.0.1:9', '--source', 'prometheus'], {
        env: { ...ENV, HOME: tmpdir() },
        timeoutMs: 60_000,
      });
      assert.equal(down.code, 2, down.stderr);
      assert.match(down.stderr, /the fleet could not be read: Prometheus answered no query/);
    },
  );
});
