// `gpumem fleet --source scan` against the API simulator with 60 simulated GPU nodes (its bench-scale generator:
// Strix Halo APU and HAMi NVIDIA nodes; more than seven times the cap, so the cap is reached and held for most of the
// scan): the node debug pod on every ready GPU node, 8 at a time (counted in the
// simulator), through the real client-node code, each capture analysed. Faults: pod creation refused on some
// nodes, pods that never start on others, a node that is not ready, and a Ctrl-C at a random moment. After every
// run no gpumem pod is left.
//
// Needs root (the simulator's exec runs in chroot roots); skipped otherwise.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeCliHome, runCli } from '../helpers/cli.ts';
import type { CliHome } from '../helpers/cli.ts';
import { eventually } from '../helpers/asserts.ts';
import { fixtureRootsUnavailable } from '../helpers/fixtureRoot.ts';
import { mulberry32 } from '../helpers/random.ts';
import { completeFixtures, generateCluster, mergeFixtures, parseFixtures } from '../simulator/fixtures.ts';
import { startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';
import { chrootUnavailable } from '../unit/helpers/probeRoot.ts';
import { KubeConfig } from '@kubernetes/client-node';
import { parseWindow } from '../../src/core/fleet/promFacts.ts';
import { NoAgentsError, readFleet } from '../../src/fleet/readFleet.ts';
import { ClusterClient } from '../../src/kube/clusterClient.ts';

const NO_ROOTS = fixtureRootsUnavailable() ?? chrootUnavailable();
const T = { timeout: 300_000 };
const NS = 'gpumem-scan';

describe('gpumem fleet --source scan on 60 simulated GPU nodes', { skip: NO_ROOTS ?? false }, () => {
  let sim: Simulator;
  let home: CliHome | undefined;
  let gpuNodes: string[] = [];

  before(async () => {
    // 150 nodes: every 10th an APU, 3 in 10 HAMi: 60 GPU nodes (and 90 CPU nodes the scan must not touch). It was 200 GPU
    // nodes, which proved nothing more at three times the CI time.
    const cluster = generateCluster({ nodes: 150, podsPerNode: 2 });
    gpuNodes = cluster.objects
      .filter((o) => o.kind === 'Node' && !String(o.metadata.name).startsWith('cpu-'))
      .map((o) => String(o.metadata.name));
    // One GPU node is not ready: skipped with the reason.
    const notReady = cluster.objects.find((o) => o.kind === 'Node' && o.metadata.name === gpuNodes[5]);
    const conditions = (notReady?.['status'] as { conditions?: { type: string; status: string; reason?: string }[] })?.conditions ?? [];
    for (const condition of conditions)
      if (condition.type === 'Ready') Object.assign(condition, { status: 'False', reason: 'KubeletNotReady' });
    const namespace = parseFixtures(`apiVersion: v1\nkind: Namespace\nmetadata: {name: ${NS}}\n`, { source: 'scan namespace' });
    sim = await startSimulator({ fixtures: completeFixtures(mergeFixtures(cluster, namespace)), roots: true, podStartDelayMs: 40 });
    home = makeCliHome('gpumem-fleet-scan-', { admin: sim.kubeconfig('admin') });
  });

  after(async () => {
    await sim?.close();
    home?.cleanup();
  });

  const scan = (onStart?: Parameters<typeof runCli>[1]['onStart']) =>
    runCli(['fleet', '--source', 'scan', '--kubeconfig', home?.kubeconfigs['admin'] ?? '', '--debug-namespace', NS, '--format', 'json'], {
      env: home?.env ?? {},
      timeoutMs: 280_000,
      ...(onStart ? { onStart } : {}),
    });

  test('every ready GPU node scanned 8 at a time; refused and never-starting pods named with their reason; no pod left', T, async () => {
    assert.equal(gpuNodes.length, 60);
    const denied = [gpuNodes[10], gpuNodes[37]] as string[];
    const stuck = [gpuNodes[42]] as string[];
    sim.setFault({ denyPodsOnNodes: denied, podsNeverStartOnNodes: stuck });
    const created = sim.state.createdPods.length;
    // The cap, counted where it matters: the debug pods alive at once in the simulator (a terminating pod, its
    // node's scan over, does not count), sampled while the CLI runs in its own process.
    let mostAtOnce = 0;
    const sampler = setInterval(() => {
      const alive = sim.state.list('pods', NS).filter((pod) => !pod.metadata.deletionTimestamp).length;
      mostAtOnce = Math.max(mostAtOnce, alive);
    }, 2);
    const run = await scan().finally(() => clearInterval(sampler));
    sim.setFault(null);
    // Exit 1, a warning: the 4 GPU nodes the faults kept from being read (1 not ready, 2 refused, 1 never started)
    // have no current report; the generated captures themselves put no pod over its limit and hold no OOM kill.
    assert.equal(run.code, 1, `exit ${run.code}: ${run.stderr.slice(-2000)}`);
    assert.equal(mostAtOnce, 8, 'the default --scan-concurrency, 8, reached and never passed');
    const summary = JSON.parse(run.stdout) as {
      source: { kind: string; description: string };
      nodes: { node: string }[];
      problems: string[];
      kills: { meaning: string };
      verdicts: { id: string; severity: string; title: string }[];
    };
    assert.deepEqual(
      summary.verdicts.filter((verdict) => verdict.severity !== 'info').map(({ id, severity, title }) => ({ id, severity, title })),
      [{ id: 'fleet.agents-silent', severity: 'warning', title: '4 GPU nodes without a current agent report' }],
    );
    assert.equal(summary.source.kind, 'scan');
    assert.match(summary.source.description, /^a scan of 59 GPU nodes with debug pods$/);
    assert.equal(summary.kills.meaning, 'in-kernel-log');
    const read = new Set(summary.nodes.map((n) => n.node));
    assert.equal(read.size, 59 - denied.length - stuck.length, 'every ready GPU node but the faulty ones');
    assert.ok(![...read].some((n) => n.startsWith('cpu-')), 'no CPU node is scanned');
    for (const node of denied)
      assert.ok(
        summary.problems.some((p) => p.startsWith(`debug pod on node ${node}:`) && /denied|forbidden/i.test(p)),
        node,
      );
    for (const node of stuck)
      assert.ok(
        summary.problems.some((p) => p.startsWith(`debug pod on node ${node}:`) && /ImagePullBackOff/.test(p)),
        `${node}: ${summary.problems.join('\n')}`,
      );
    assert.ok(summary.problems.some((p) => p.startsWith(`debug pod on node ${gpuNodes[5]}: skipped: not ready (KubeletNotReady)`)));
    const pods = sim.state.createdPods.slice(created).filter((p) => p.namespace === NS);
    assert.equal(pods.length, 59 - denied.length, 'one debug pod per ready node whose pod was admitted');
    assert.match(run.stderr, /scanned 59\/59/);
    await eventually('no gpumem pod left', () => sim.state.list('pods', NS).length === 0);
  });

  test('a Ctrl-C at a random moment: exit 2, every debug pod deleted', T, async () => {
    const random = mulberry32(Number(process.env['FUZZ_SEED'] ?? 20261203));
    const delay = 100 + Math.floor(random() * 3000);
    // The interrupt lands while the scan runs: a random moment after it has started its first pods.
    const run = await scan((child) => {
      let armed = false;
      child.stderr?.on('data', (chunk: Buffer) => {
        if (armed || !chunk.toString('utf8').includes('scanning its GPU nodes')) return;
        armed = true;
        setTimeout(() => child.kill('SIGINT'), delay);
      });
    });
    assert.equal(run.code, 2, `after ${delay} ms: ${run.stderr.slice(-500)}`);
    assert.match(run.stderr, /cancelled/);
    await eventually('no gpumem pod left after the cancel', () => sim.state.list('pods', NS).length === 0, 60_000);
  });
});

// What the fleet view relies on (src/vscode/fleet/panel.ts): a cluster without agents is a NoAgentsError, which the
// view turns into its scan offer, never a scan by itself; and a scan the user confirmed scans even where a
// Prometheus URL is set (it had read that Prometheus instead).
describe('readFleet: no agents means an offer, a confirmed scan means a scan', { skip: NO_ROOTS ?? false }, () => {
  let sim: Simulator;
  let client: ClusterClient;
  before(async () => {
    // 20 nodes: 8 GPU nodes (2 APUs, 6 HAMi).
    const namespace = parseFixtures(`apiVersion: v1\nkind: Namespace\nmetadata: {name: ${NS}}\n`, { source: 'scan namespace' });
    sim = await startSimulator({
      fixtures: completeFixtures(mergeFixtures(generateCluster({ nodes: 20, podsPerNode: 1 }), namespace)),
      roots: true,
      podStartDelayMs: 20,
    });
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfig('admin'));
    client = new ClusterClient({ name: 'sim', kubeConfig: kc });
  });
  after(async () => {
    await sim?.close();
  });

  const window = parseWindow('24h');

  test('no agent and no scan asked for: NoAgentsError, and no pod is created', T, async () => {
    assert.ok(window);
    const created = sim.state.createdPods.length;
    await assert.rejects(readFleet({ source: 'auto', window, top: 10, client }), (error: unknown) => {
      assert.ok(error instanceof NoAgentsError, String(error));
      assert.match(error.message, /no gpumem agent runs in context sim/);
      return true;
    });
    assert.equal(sim.state.createdPods.length, created);
  });

  test('a scan with a Prometheus URL set: the GPU nodes are scanned, Prometheus is not read, the fleet so far arrives', T, async () => {
    assert.ok(window);
    const lines: string[] = [];
    const partials: { at: number; description: string; nodes: number }[] = [];
    const read = await readFleet({
      source: 'scan',
      window,
      top: 10,
      client,
      // Nothing listens on port 9: reading it would fail the read.
      prometheus: { url: 'http://127.0.0.1:9', auth: { kind: 'none' } },
      scan: {
        namespace: NS,
        image: 'busybox:1.36',
        concurrency: 4,
        timeoutMs: 60_000,
        onPartial: (facts) => partials.push({ at: performance.now(), description: facts.source.description, nodes: facts.nodes.length }),
      },
      log: (line) => lines.push(line),
    });
    assert.equal(read.summary.nodes.length, 8, lines.join('\n'));
    // Results as they arrive: the fleet so far after the first node, then at most once a second, never the last.
    assert.ok(partials.length >= 1, 'a partial fleet');
    assert.match(partials[0]?.description ?? '', /^a scan with debug pods: 1 of 8 GPU nodes read so far$/);
    for (const [i, partial] of partials.entries()) {
      const done = Number(/: (\d+) of 8/.exec(partial.description)?.[1]);
      assert.ok(done >= 1 && done < 8, partial.description);
      assert.ok(partial.nodes <= done, `${partial.nodes} nodes in a partial of ${done}`);
      if (i > 0) assert.ok(partial.at - (partials[i - 1]?.at ?? 0) >= 990, 'at most one a second');
    }
    assert.ok(!lines.some((line) => /Prometheus/.test(line)), lines.join('\n'));
    await eventually('no gpumem pod left', () => sim.state.list('pods', NS).length === 0);
  });
});
