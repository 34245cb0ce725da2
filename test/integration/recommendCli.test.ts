// `gpumem recommend` itself (node src/cli/main.ts, a child process) against the API simulator's demo cluster: the
// StatefulSet llama whose pod the node's global OOM killer took with the GPU signature, the CronJob's Job whose pod hit
// its memory limit (the kubelet says OOMKilled), the hami-scheduler Deployment through its ReplicaSet. Without a
// Prometheus the figures come from the real gpumem agents on the fixture nodes (test/simulator/demoAgents.ts), read
// through the API server's pod proxy, since each container started and with no number; a Prometheus URL that refuses
// is a note, not a failure; without agents only the API's termination reasons remain. Expected figures are read from
// the node root's files (the container cgroup's memory.current less inactive_file, as cAdvisor computes the working
// set) and from the APU scenario's facts (test/helpers/apuNode.ts), never from the code under test.
// Cost: one simulator, the agents' first probes (a few seconds), five CLI runs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { makeCliHome, runCli } from '../helpers/cli.ts';
import type { CliHome } from '../helpers/cli.ts';
import { containerId, fixtureRootsUnavailable } from '../helpers/fixtureRoot.ts';
import { chrootUnavailable } from '../unit/helpers/probeRoot.ts';
import { agentReportsPod, startDemoAgents } from '../simulator/demoAgents.ts';
import type { DemoAgents } from '../simulator/demoAgents.ts';
import { loadFixtures } from '../simulator/fixtures.ts';
import { startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';

const GiB = 1024 ** 3;
const SKIP = fixtureRootsUnavailable() ?? chrootUnavailable();
const T = { timeout: 120_000 };
const LLAMA_UID = 'b7f3c2a4-9e1d-4f6b-8a2c-5d0e7f1a3b96';

interface JsonRow {
  readonly workload: { readonly kind: string; readonly namespace: string; readonly name: string };
  readonly container: string;
  readonly observed: {
    readonly cgroupPeakBytes: number | null;
    readonly gpuInRamPeakBytes: number | null;
    readonly trueFootprintPeakBytes: number | null;
    readonly kernelPeakBytes: number | null;
  };
  readonly kills: { readonly memcg: number; readonly globalGpu: number; readonly globalOther: number; readonly kubeletUnknown: number };
  readonly recommendation: { readonly kind: string; readonly reason?: string };
}

interface JsonOut {
  readonly source: string;
  readonly window: string;
  readonly basis: string;
  readonly sources: readonly string[];
  readonly rows: readonly JsonRow[];
}

/** A port that refuses: bound, then closed, so nothing listens there. */
async function refusingPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

describe('gpumem recommend against the demo cluster (simulator, real agents)', { skip: SKIP }, () => {
  let sim: Simulator;
  let agents: DemoAgents | undefined;
  let home: CliHome;

  before(async () => {
    sim = await startSimulator({ fixtures: loadFixtures() });
    home = makeCliHome('gpumem-recommend-cli-', { demo: sim.kubeconfig('admin') });
    agents = await startDemoAgents(sim, home.kubeconfigs['demo'] as string);
    await agentReportsPod(agents, 'strix-node-1', 'llama-0');
  });

  after(async () => {
    await agents?.stop();
    await sim?.close();
    home?.cleanup();
  });

  const recommend = (...args: string[]) =>
    runCli(['recommend', '--kubeconfig', home.kubeconfigs['demo'] as string, ...args], { env: home.env, timeoutMs: 60_000 });
  const rowOf = (out: JsonOut, name: string, container: string): JsonRow => {
    const row = out.rows.find((one) => one.workload.name === name && one.container === container);
    assert.ok(row, `a row for ${name}/${container}: ${JSON.stringify(out.rows.map((one) => `${one.workload.name}/${one.container}`))}`);
    return row;
  };

  /** The llama container's working set now, from its cgroup files in the node root (cAdvisor's formula). */
  function llamaWorkingSet(): { workingSet: number; peak: number } {
    const root = sim.nodeRoot('strix-node-1');
    assert.ok(root);
    const pod = `kubepods-burstable-pod${LLAMA_UID.replace(/-/g, '_')}.slice`;
    const dir = join(
      root,
      'sys/fs/cgroup/kubepods.slice/kubepods-burstable.slice',
      pod,
      `cri-containerd-${containerId('llama-server-restart-1')}.scope`,
    );
    const current = Number(readFileSync(join(dir, 'memory.current'), 'utf8').trim());
    const stat = readFileSync(join(dir, 'memory.stat'), 'utf8');
    const inactive = Number(/^inactive_file (\d+)$/m.exec(stat)?.[1] ?? 0);
    const peak = Number(readFileSync(join(dir, 'memory.peak'), 'utf8').trim().split(/\s+/)[0]);
    return { workingSet: current - inactive, peak };
  }

  test('no Prometheus: the agents figures, since each container started, per container, and no number (exit 0)', T, async () => {
    const run = await recommend('-n', 'default,kube-system', '--format', 'json');
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      /no Prometheus[^\n]*: figures from the gpumem agents' \/metrics, since each container started \(no history, so no number\)/,
    );
    const out = JSON.parse(run.stdout) as JsonOut;
    assert.equal(out.basis, 'since-start');
    assert.equal(out.window, 'since each container started');
    assert.match(out.source, /^the \/metrics of 3 gpumem agents through the API server/);
    assert.ok(out.sources.some((one) => /since each container started/.test(one)));

    // The StatefulSet: its pod's figures from the agent, GPU memory its container's own (the scenario's 18 + 12 GiB GTT).
    const llama = rowOf(out, 'llama', 'llama');
    assert.equal(llama.workload.kind, 'StatefulSet');
    const { workingSet, peak } = llamaWorkingSet();
    assert.equal(llama.observed.cgroupPeakBytes, workingSet);
    assert.equal(llama.observed.gpuInRamPeakBytes, 30 * GiB);
    assert.equal(llama.observed.trueFootprintPeakBytes, workingSet + 30 * GiB);
    assert.equal(llama.observed.kernelPeakBytes, peak);
    assert.equal(llama.kills.globalGpu, 1, "the global kill with the GPU signature in the node's kernel log");
    assert.equal(llama.recommendation.kind, 'too-little-data');
    assert.match(llama.recommendation.reason ?? '', /since the container started/);

    // The CronJob (through its Job): no agent series for its pod; the kubelet's OOMKilled, cause unknown.
    const embed = rowOf(out, 'embed-nightly', 'embed');
    assert.equal(embed.workload.kind, 'CronJob');
    assert.equal(embed.observed.cgroupPeakBytes, null);
    assert.deepEqual(embed.kills, { memcg: 0, globalGpu: 0, globalOther: 0, kubeletUnknown: 1 });
    assert.equal(embed.recommendation.kind, 'too-little-data');

    // The Deployment (through its ReplicaSet), and the DaemonSet: every container, no figures for pods no node root holds.
    const scheduler = rowOf(out, 'hami-scheduler', 'kube-scheduler');
    assert.equal(scheduler.workload.kind, 'Deployment');
    rowOf(out, 'hami-scheduler', 'vgpu-scheduler-extender');
    assert.deepEqual(out.rows.map((one) => `${one.workload.kind} ${one.workload.namespace}/${one.workload.name}/${one.container}`).sort(), [
      'CronJob default/embed-nightly/embed',
      'DaemonSet kube-system/hami-device-plugin/device-plugin',
      'DaemonSet kube-system/hami-device-plugin/vgpu-monitor',
      'Deployment kube-system/hami-scheduler/kube-scheduler',
      'Deployment kube-system/hami-scheduler/vgpu-scheduler-extender',
      'StatefulSet default/llama/llama',
    ]);

    const table = await recommend('-n', 'default');
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /window since each container started\./);
    assert.match(
      table.stdout,
      /StatefulSet default\/llama, container llama\n[^]*?\(now, from the agents: no history; the kernel's memory\.peak since the container started: /,
    );
    assert.doesNotMatch(table.stdout, /14d/);
  });

  test('a Prometheus URL that refuses: a note, then the agents (exit 0, not 2)', T, async () => {
    const port = await refusingPort();
    const run = await recommend('-n', 'default', '--prometheus', `http://127.0.0.1:${port}`, '--format', 'json');
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      new RegExp(`Prometheus at 127\\.0\\.0\\.1:${port} did not answer \\([^\\n]*\\): figures from the gpumem agents`),
    );
    const out = JSON.parse(run.stdout) as JsonOut;
    assert.equal(out.basis, 'since-start');
    assert.equal(rowOf(out, 'llama', 'llama').kills.globalGpu, 1);
  });

  test('no agents: the API termination reasons only, labelled so, no figures (exit 0)', T, async () => {
    await agents?.stop();
    agents = undefined;
    for (const pod of sim.state.list('pods', 'gpumem-system')) sim.state.remove('pods', 'gpumem-system', String(pod.metadata.name));
    const run = await recommend('-n', 'default', '--format', 'json');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /no gpumem agent runs in the cluster: only the API's last termination reasons are read, no figures/);
    const out = JSON.parse(run.stdout) as JsonOut;
    assert.equal(out.basis, 'api-only');
    assert.deepEqual(out.sources, ["the API's last termination reasons"]);
    for (const [name, container] of [
      ['llama', 'llama'],
      ['embed-nightly', 'embed'],
    ] as const) {
      const row = rowOf(out, name, container);
      assert.equal(row.recommendation.kind, 'no-figures');
      assert.equal(row.observed.trueFootprintPeakBytes, null);
      assert.equal(row.kills.kubeletUnknown, 1, `${name}: the kubelet's OOMKilled, cause unknown`);
    }
  });

  test('nothing readable: an unreachable cluster is exit 2', T, async () => {
    const port = await refusingPort();
    const text = sim.kubeconfig('admin').replace(sim.url, `https://127.0.0.1:${port}`);
    const broken = makeCliHome('gpumem-recommend-cli-broken-', { broken: text });
    try {
      const run = await runCli(['recommend', '--kubeconfig', broken.kubeconfigs['broken'] as string, '-n', 'default'], {
        env: broken.env,
        timeoutMs: 60_000,
      });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /gpumem recommend: nothing could be read: /);
    } finally {
      broken.cleanup();
    }
  });
});
