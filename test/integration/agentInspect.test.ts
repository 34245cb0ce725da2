// Inspect Node through the node's gpumem agent pod: `gpumem inspect --node` against the API simulator, with a
// gpumem-agent pod on strix-node-1 in gpumem-system whose container root is the APU fixture laid out as the
// DaemonSet mounts the node (test/helpers/fixtureRoot.ts, the node under /host). The probe is an exec into that
// pod: no debug pod is created, and the report says which path it took. `--no-agent`, and a user who may not
// exec in gpumem-system, fall back to the debug pod with the reason.
//
// Needs root (the simulator's exec chroots into the fixture root); skipped otherwise.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeCliHome, runCli } from '../helpers/cli.ts';
import type { CliHome, CliRun } from '../helpers/cli.ts';
import { buildApuNode, fixtureRootsUnavailable } from '../helpers/fixtureRoot.ts';
import type { ApuFacts, Fixture } from '../helpers/fixtureRoot.ts';
import { completeFixtures, loadFixtures, mergeFixtures, parseFixtures } from '../simulator/fixtures.ts';
import { startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';
import { chrootUnavailable } from '../unit/helpers/probeRoot.ts';

const NO_ROOTS = fixtureRootsUnavailable() ?? chrootUnavailable();
const T = { timeout: 120_000 };
const AGENT_POD = 'gpumem-agent-x7k2p';

/** The agent's namespace and its DaemonSet pod on strix-node-1, running and ready, as the API server lists it. */
const AGENT_FIXTURES = `
apiVersion: v1
kind: Namespace
metadata: {name: gpumem-system, creationTimestamp: '@now-2d'}
---
apiVersion: v1
kind: Pod
metadata:
  name: ${AGENT_POD}
  namespace: gpumem-system
  uid: 5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d
  creationTimestamp: '@now-2d'
  labels: {app.kubernetes.io/name: gpumem-agent, app.kubernetes.io/part-of: gpumem}
spec:
  nodeName: strix-node-1
  hostPID: true
  serviceAccountName: gpumem-agent
  containers:
    - name: agent
      image: ghcr.io/gpumem/gpumem-agent:0.1.0
status:
  phase: Running
  conditions: [{type: Ready, status: 'True'}]
  containerStatuses:
    - name: agent
      ready: true
      restartCount: 0
      image: ghcr.io/gpumem/gpumem-agent:0.1.0
      imageID: ''
      containerID: containerd://${'ab'.repeat(32)}
      state: {running: {startedAt: '@now-2d'}}
`;

describe('gpumem inspect --node through the gpumem agent pod', { skip: NO_ROOTS ?? false }, () => {
  let sim: Simulator;
  let home: CliHome | undefined;
  let apu: Fixture<ApuFacts>;

  before(async () => {
    apu = buildApuNode({ hostRoot: '/host' });
    const extra = parseFixtures(AGENT_FIXTURES, { source: 'agent' });
    extra.containerRoots[`gpumem-system/${AGENT_POD}/agent`] = { prebuilt: apu.root };
    sim = await startSimulator({
      fixtures: completeFixtures(mergeFixtures(loadFixtures(), extra)),
      roots: true,
      users: [
        {
          // May read everything, and create pods (and exec) in ml only: the agent pod is out of reach.
          name: 'mlexec',
          rules: [
            { verbs: ['get', 'list', 'watch'], resources: ['*'] },
            { verbs: ['create', 'get', 'delete'], resources: ['pods', 'pods/exec'], namespaces: ['ml'] },
          ],
        },
      ],
    });
    home = makeCliHome('gpumem-agent-inspect-', { admin: sim.kubeconfig('admin'), mlexec: sim.kubeconfig('mlexec') });
  });

  after(async () => {
    await sim?.close();
    home?.cleanup();
    apu?.cleanup();
  });

  function inspect(args: readonly string[]): Promise<CliRun> {
    return runCli(['inspect', '--node', 'strix-node-1', '--format', 'json', ...args], { env: home?.env ?? {}, timeoutMs: 100_000 });
  }

  test('the probe is an exec into the agent pod: no pod created, the report names the path, the OOM kill found', T, async () => {
    const created = sim.state.createdPods.length;
    const execs = sim.state.execs.length;
    const run = await inspect(['--kubeconfig', home?.kubeconfigs['admin'] ?? '']);
    assert.equal(run.code, 1, `warnings give exit code 1; stderr: ${run.stderr}`);
    const report = JSON.parse(run.stdout) as { target: string; verdicts: { id: string }[] };
    assert.match(report.target, /^gpumem agent pod gpumem-system\/gpumem-agent-x7k2p on node\/strix-node-1/);
    assert.ok(
      report.verdicts.some((v) => v.id.startsWith('oom.global')),
      'the kern.log kill under /host is read',
    );
    assert.match(run.stderr, /through the gpumem agent pod gpumem-system\/gpumem-agent-x7k2p.*no debug pod/);
    assert.equal(sim.state.createdPods.length, created, 'no debug pod');
    const exec = sim.state.execs.slice(execs);
    assert.deepEqual(
      exec.map((e) => [e.namespace, e.pod, e.container, e.command.join(' ')]),
      [['gpumem-system', AGENT_POD, 'agent', 'sh -s']],
    );
  });

  test('--no-agent: a debug pod as before', T, async () => {
    const created = sim.state.createdPods.length;
    const run = await inspect(['--kubeconfig', home?.kubeconfigs['admin'] ?? '', '--no-agent', '--debug-namespace', 'ml']);
    assert.equal(run.code, 1, run.stderr);
    assert.match((JSON.parse(run.stdout) as { target: string }).target, /^debug pod on node\/strix-node-1/);
    assert.equal(sim.state.createdPods.length, created + 1);
  });

  test('a user who may not exec in gpumem-system: the debug pod, with the reason', T, async () => {
    const created = sim.state.createdPods.length;
    const run = await inspect(['--kubeconfig', home?.kubeconfigs['mlexec'] ?? '', '--debug-namespace', 'ml']);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /may not create pods\/exec in gpumem-system .*; using a debug pod/);
    assert.match((JSON.parse(run.stdout) as { target: string }).target, /^debug pod on node\/strix-node-1/);
    assert.equal(sim.state.createdPods.length, created + 1);
  });
});
