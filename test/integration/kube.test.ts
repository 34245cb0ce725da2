// Cluster access (src/kube) with the real @kubernetes/client-node 2.x against the API simulator
// (test/simulator): kubeconfig loading and merging from a multi-file KUBECONFIG (never written), every
// context probed (reachable, closed port, silent server, bad token), RBAC 403 as Forbidden(list, nodes),
// request timeouts, server-side field selectors (asserted on the simulator's request log), HAMi cluster
// checks, the per-node watch restarting after 410 Expired, pod exec (v5 and v4, exit codes, the output cap,
// RBAC), and the node debug pod end to end on the APU fixture node, then under every fault, asserting each
// time that the debug pod was deleted.
//
// Exec and debug-pod tests need root (chroot, mknod, mount); they are skipped otherwise. Simulators, temp
// files and servers are released in after() hooks, on failure too. No timing assertions except watchdogs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { V1Pod } from '@kubernetes/client-node';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { runProbe } from '../../src/core/inspectionRun/runProbe.ts';
import { describeContextState } from '../../src/core/kube/contextState.ts';
import type { ContextState } from '../../src/core/kube/contextState.ts';
import { systemOomEvents } from '../../src/core/kube/events.ts';
import { compareNodesGpuFirst, summarizeNode } from '../../src/core/kube/nodes.ts';
import { podHealth, summarizePod } from '../../src/core/kube/pods.ts';
import type { ExecRequest } from '../../src/core/probe/transport.ts';
import { ClusterClient, KubeRequestError } from '../../src/kube/clusterClient.ts';
import { findHamiScheduler, HAMI_DEVICE_PLUGIN_SELECTOR } from '../../src/kube/hamiLookups.ts';
import { DEBUG_CONTAINER, DEBUG_POD_LABELS, debugPodName } from '../../src/kube/debugPodSpec.ts';
import { DebugPodTransport } from '../../src/kube/debugPodTransport.ts';
import { loadKubeconfigs, resolveKubeconfigFiles } from '../../src/kube/kubeconfig.ts';
import { nodeAnalysisInputs } from '../../src/kube/nodeProbe.ts';
import type { LoadedContext, LoadedKubeconfig } from '../../src/kube/kubeconfig.ts';
import { PodExecTransport } from '../../src/kube/podExecTransport.ts';
import { fixtureRootsUnavailable } from '../helpers/fixtureRoot.ts';
import { chrootUnavailable } from '../unit/helpers/probeRoot.ts';
import { loadFixtures } from '../simulator/fixtures.ts';
import { DEMO_GIT_VERSION, startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';
import { WebSocket } from '../simulator/wsTypes.ts';
import { eventually, transportFailure } from '../helpers/asserts.ts';

const NO_ROOTS = fixtureRootsUnavailable() ?? chrootUnavailable();
const T = { timeout: 60_000 };
const DEBUG_NS = 'gpumem-debug';
const APU_POD_UID = 'b7f3c2a4-9e1d-4f6b-8a2c-5d0e7f1a3b96';

// ------------------------------------------------------------------------------------------------
// Helpers

async function kubeFailure(promise: Promise<unknown>): Promise<KubeRequestError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof KubeRequestError) return error;
    throw error;
  }
  return assert.fail('the call succeeded');
}

/** A kubeconfig document for one simulator user, with our own names. */
function kubeconfigDoc(
  sim: Simulator,
  user: string,
  names: { context: string; cluster: string; user: string },
  cluster?: Record<string, unknown>,
): { clusters: unknown[]; users: unknown[]; contexts: unknown[] } {
  const doc = parseYaml(sim.kubeconfig(user)) as {
    clusters: { cluster: Record<string, unknown> }[];
    users: { user: Record<string, unknown> }[];
  };
  return {
    clusters: [{ name: names.cluster, cluster: cluster ?? doc.clusters[0]?.cluster }],
    users: [{ name: names.user, user: doc.users[0]?.user }],
    contexts: [{ name: names.context, context: { cluster: names.cluster, user: names.user } }],
  };
}

function merge(...docs: { clusters: unknown[]; users: unknown[]; contexts: unknown[] }[]): {
  clusters: unknown[];
  users: unknown[];
  contexts: unknown[];
} {
  return { clusters: docs.flatMap((d) => d.clusters), users: docs.flatMap((d) => d.users), contexts: docs.flatMap((d) => d.contexts) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir))
    out[name] = createHash('sha256')
      .update(readFileSync(join(dir, name)))
      .digest('hex');
  return out;
}

function context(loaded: LoadedKubeconfig, name: string): LoadedContext {
  const found = loaded.contexts.find((c) => c.name === name);
  assert.ok(found, `context ${name} is listed`);
  return found;
}

function request(script: string, extra: Partial<ExecRequest> = {}): ExecRequest {
  return { script, timeoutMs: 30_000, maxOutputBytes: 1024 * 1024, ...extra };
}

// ------------------------------------------------------------------------------------------------

describe('cluster access against the simulator', () => {
  let sim: Simulator;
  let admin: ClusterClient;
  let dir: string;
  let silent: Server;
  const silentSockets = new Set<Socket>();

  before(async () => {
    sim = await startSimulator({
      fixtures: loadFixtures(),
      roots: !NO_ROOTS,
      users: [
        {
          name: 'nodelete',
          groups: ['developers'],
          rules: [
            { verbs: ['get', 'list', 'watch'], resources: ['*'] },
            { verbs: ['create'], resources: ['pods', 'pods/exec'], namespaces: [DEBUG_NS] },
          ],
        },
        { name: 'tokenuser', token: 'right-token', cert: false, rules: [{ verbs: ['get', 'list', 'watch'], resources: ['*'] }] },
      ],
    });
    dir = mkdtempSync(join(tmpdir(), 'gpumem-kube-'));
    // A server that accepts TCP connections and never answers: a firewall that drops, a dead VPN.
    silent = createServer((socket) => {
      silentSockets.add(socket);
      socket.on('close', () => silentSockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const loaded = await loadKubeconfigs({
      env: {},
      explicitPath: writeSingle('admin.yaml', kubeconfigDoc(sim, 'admin', { context: 'admin', cluster: 'sim', user: 'admin' }), 'admin'),
    });
    admin = new ClusterClient(context(loaded, 'admin'));
  });

  after(async () => {
    for (const socket of silentSockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function writeSingle(name: string, doc: { clusters: unknown[]; users: unknown[]; contexts: unknown[] }, current?: string): string {
    const file = join(dir, name);
    writeFileSync(
      file,
      stringifyYaml({ apiVersion: 'v1', kind: 'Config', preferences: {}, ...doc, ...(current ? { 'current-context': current } : {}) }),
    );
    return file;
  }

  async function clientFor(user: string, options: ConstructorParameters<typeof ClusterClient>[1] = {}): Promise<ClusterClient> {
    const file = writeSingle(`${user}.yaml`, kubeconfigDoc(sim, user, { context: user, cluster: 'sim', user }), user);
    const loaded = await loadKubeconfigs({ env: {}, explicitPath: file });
    return new ClusterClient(context(loaded, user), options);
  }

  describe('kubeconfig', () => {
    test('a multi-file KUBECONFIG merges as kubectl does, lists every context, and is never written', T, async () => {
      const dirA = join(dir, 'a');
      const dirB = join(dir, 'b');
      mkdirSync(dirA);
      mkdirSync(dirB);
      const closedPort = await freePort();
      const silentPort = (silent.address() as { port: number }).port;
      // File A: a CA file referenced RELATIVELY (resolved against A's directory), current-context set.
      writeFileSync(join(dirA, 'ca.crt'), sim.ca);
      const simCluster = { server: sim.url, 'certificate-authority': 'ca.crt' };
      const fileA = join(dirA, 'config');
      writeFileSync(
        fileA,
        stringifyYaml({
          apiVersion: 'v1',
          kind: 'Config',
          ...merge(kubeconfigDoc(sim, 'admin', { context: 'sim-admin', cluster: 'sim', user: 'admin' }, simCluster), {
            clusters: [],
            users: [],
            contexts: [{ name: 'dup', context: { cluster: 'sim', user: 'admin' } }],
          }),
          'current-context': 'sim-admin',
        }),
      );
      // File B: its own current-context (ignored: A set one first), a second definition of cluster `sim` and
      // of context `dup` pointing at a closed port (ignored: first wins), and contexts of its own.
      const doc = parseYaml(sim.kubeconfig('viewer', { auth: 'token' })) as { users: { user: Record<string, unknown> }[] };
      const fileB = join(dirB, 'config');
      writeFileSync(
        fileB,
        stringifyYaml({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [
            { name: 'sim', cluster: { server: `https://127.0.0.1:${closedPort}`, 'insecure-skip-tls-verify': true } },
            { name: 'closed', cluster: { server: `https://127.0.0.1:${closedPort}`, 'insecure-skip-tls-verify': true } },
            { name: 'silent', cluster: { server: `https://127.0.0.1:${silentPort}`, 'insecure-skip-tls-verify': true } },
          ],
          users: [
            ...merge(
              kubeconfigDoc(sim, 'limited', { context: 'x', cluster: 'x', user: 'limited' }),
              kubeconfigDoc(sim, 'nobody', { context: 'x', cluster: 'x', user: 'nobody' }),
            ).users,
            { name: 'bad-token', user: { token: 'not-the-token' } },
            { name: 'viewer', user: doc.users[0]?.user },
          ],
          contexts: [
            { name: 'sim-limited', context: { cluster: 'sim', user: 'limited', namespace: 'ml' } },
            { name: 'sim-nobody', context: { cluster: 'sim', user: 'nobody' } },
            { name: 'dup', context: { cluster: 'closed', user: 'limited' } },
            { name: 'closed-port', context: { cluster: 'closed', user: 'limited' } },
            { name: 'silent-server', context: { cluster: 'silent', user: 'limited' } },
            { name: 'bad-token', context: { cluster: 'sim', user: 'bad-token' } },
            { name: 'viewer-token', context: { cluster: 'sim', user: 'viewer' } },
            { name: 'orphan', context: { cluster: 'nowhere', user: 'limited' } },
          ],
          'current-context': 'sim-limited',
        }),
      );
      const fileC = join(dir, 'missing', 'config');
      const fileD = join(dir, 'broken.yaml');
      writeFileSync(fileD, 'clusters: [\n  - {name: ');
      const before = { a: snapshot(dirA), b: snapshot(dirB), d: readFileSync(fileD, 'utf8') };

      const env = { KUBECONFIG: [fileA, '', fileC, fileB, fileD, fileA].join(':'), HOME: dir };
      assert.deepEqual(resolveKubeconfigFiles({ env, delimiter: ':' }).files, [fileA, fileC, fileB, fileD]);
      const loaded = await loadKubeconfigs({ env, delimiter: ':' });
      assert.equal(loaded.source.origin, 'KUBECONFIG');
      assert.deepEqual(
        loaded.contexts.map((c) => c.name),
        ['sim-admin', 'dup', 'sim-limited', 'sim-nobody', 'closed-port', 'silent-server', 'bad-token', 'viewer-token', 'orphan'],
      );
      assert.equal(loaded.currentContext, 'sim-admin', 'current-context from the first file that sets it');
      assert.equal(context(loaded, 'dup').server, sim.url, 'the first definition of a context wins');
      assert.equal(context(loaded, 'sim-limited').server, sim.url, 'the first definition of a cluster wins');
      assert.equal(context(loaded, 'sim-limited').namespace, 'ml');
      assert.equal(context(loaded, 'sim-admin').file, fileA);
      assert.equal(context(loaded, 'sim-limited').file, fileB);
      assert.equal(
        context(loaded, 'sim-admin').kubeConfig.getCurrentCluster()?.caFile,
        join(dirA, 'ca.crt'),
        'relative CA resolved against its file',
      );
      assert.match(context(loaded, 'orphan').problem ?? '', /cluster "nowhere" is not defined/);
      const orphan = await new ClusterClient(context(loaded, 'orphan')).probe();
      assert.equal(orphan.kind === 'Unreachable' && orphan.cause, 'config', JSON.stringify(orphan));
      assert.deepEqual(loaded.missingFiles, [fileC]);
      assert.equal(loaded.problems.length, 1);
      assert.match(loaded.problems[0] ?? '', /broken\.yaml/);

      // Every context probed at once; each gets its own state.
      const clients = loaded.contexts.filter((c) => !c.problem).map((c) => new ClusterClient(c, { probeTimeoutMs: 1_500 }));
      const states = Object.fromEntries(
        await Promise.all(clients.map(async (client) => [client.context, await client.probe()] as const)),
      ) as Record<string, ContextState>;
      assert.deepEqual(states['sim-admin'], { kind: 'Reachable', version: DEMO_GIT_VERSION });
      assert.deepEqual(states['dup'], { kind: 'Reachable', version: DEMO_GIT_VERSION });
      assert.deepEqual(states['sim-limited'], { kind: 'Reachable', version: DEMO_GIT_VERSION });
      assert.deepEqual(states['viewer-token'], { kind: 'Reachable', version: DEMO_GIT_VERSION });
      const closed = states['closed-port'];
      assert.equal(closed?.kind === 'Unreachable' && closed.cause, 'network', JSON.stringify(closed));
      assert.match(closed?.kind === 'Unreachable' ? closed.reason : '', /ECONNREFUSED/);
      const quiet = states['silent-server'];
      assert.equal(quiet?.kind === 'Unreachable' && quiet.cause, 'timeout', JSON.stringify(quiet));
      const bad = states['bad-token'];
      assert.equal(bad?.kind === 'Unreachable' && bad.cause, 'auth', JSON.stringify(bad));
      assert.match(describeContextState(bad as ContextState, 'bad-token').message, /401 Unauthorized/);
      assert.match(describeContextState(bad as ContextState, 'bad-token').action ?? '', /Log in again/);

      // The explicit path wins over KUBECONFIG; ~/.kube/config when neither is set.
      const explicit = await loadKubeconfigs({ env, explicitPath: fileB });
      assert.equal(explicit.source.origin, 'setting');
      assert.equal(explicit.currentContext, 'sim-limited');
      mkdirSync(join(dir, '.kube'));
      writeFileSync(join(dir, '.kube', 'config'), readFileSync(fileA));
      const home = await loadKubeconfigs({ env: { HOME: dir } });
      assert.equal(home.source.origin, 'default');
      assert.deepEqual(
        home.contexts.map((c) => c.name),
        ['sim-admin', 'dup'],
      );

      // Nothing was written: same files, same bytes.
      assert.deepEqual({ a: snapshot(dirA), b: snapshot(dirB), d: readFileSync(fileD, 'utf8') }, before);
    });
  });

  describe('requests', () => {
    test('403 on list is Forbidden(list, nodes); 401 is an auth message; every request has a deadline', T, async () => {
      const nobody = await clientFor('nobody');
      const forbidden = await kubeFailure(nobody.listNodes());
      assert.deepEqual(forbidden.state, { kind: 'Forbidden', verb: 'list', resource: 'nodes' });
      assert.match(forbidden.message, /User "nobody" cannot list resource "nodes"/);
      assert.match(describeContextState(forbidden.state, 'nobody').action ?? '', /kubectl auth can-i list nodes --context nobody/);

      sim.setFault({ forceStatus: [{ path: '/api/v1/nodes', code: 401, times: 1 }] });
      try {
        const unauthorized = await kubeFailure(admin.listNodes());
        assert.equal(unauthorized.failure.kind, 'unauthorized');
        assert.equal(unauthorized.state.kind === 'Unreachable' && unauthorized.state.cause, 'auth');
      } finally {
        sim.setFault(null);
      }

      const slow = await clientFor('admin', { requestTimeoutMs: 300 });
      sim.setFault({ latencyMs: 3_000 });
      try {
        const timedOut = await kubeFailure(slow.listNodes());
        assert.equal(timedOut.failure.kind, 'timeout');
        assert.equal(timedOut.state.kind === 'Unreachable' && timedOut.state.cause, 'timeout');
        // The caller's cancellation wins over the deadline.
        const controller = new AbortController();
        const pending = slow.listNodes({ signal: controller.signal, timeoutMs: 10_000 });
        setTimeout(() => controller.abort(), 50);
        assert.equal((await kubeFailure(pending)).failure.kind, 'cancelled');
      } finally {
        sim.setFault(null);
      }
    });

    test("nodes, a node's pods by server-side field selector, node events, HAMi checks", T, async () => {
      const nodes = (await admin.listNodes()).map((node) => summarizeNode(node)).sort(compareNodesGpuFirst);
      assert.ok(nodes.length >= 5);
      const firstPlain = nodes.findIndex((node) => !node.isGpuNode);
      assert.ok(firstPlain > 0 && nodes.slice(firstPlain).every((node) => !node.isGpuNode), 'GPU nodes first');
      const apu = nodes.find((node) => node.name === 'strix-node-1');
      assert.equal(apu?.unifiedMemory.unified, true);
      assert.equal(apu?.memoryPressure?.status, 'True');
      assert.ok(apu?.taints.some((t) => t.key === 'node.kubernetes.io/memory-pressure'));
      const hami = nodes.find((node) => node.name === 'gpu-node-7');
      assert.ok((hami?.hami?.registrations[0]?.devices.length ?? 0) > 0, 'HAMi registration parsed');

      const mark = sim.state.requests.length;
      const { pods } = await admin.listPodsOnNode('strix-node-1');
      const requests = sim.state.requests.slice(mark);
      assert.ok(
        requests.some(
          (r) =>
            r.method === 'GET' &&
            r.path.startsWith('/api/v1/pods?') &&
            new URL(r.path, sim.url).searchParams.get('fieldSelector') === 'spec.nodeName=strix-node-1',
        ),
        JSON.stringify(requests),
      );
      assert.ok(
        !requests.some((r) => r.path.startsWith('/api/v1/pods') && !new URL(r.path, sim.url).searchParams.has('fieldSelector')),
        'never all pods',
      );
      assert.ok(pods.every((pod) => pod.spec?.nodeName === 'strix-node-1'));
      const llama = pods.map((pod) => summarizePod(pod)).find((pod) => pod.uid === APU_POD_UID);
      assert.equal(llama?.isGpuPod, true);
      assert.equal(llama?.oomKilled, true);
      assert.equal(llama?.qosClass, 'Burstable');

      const events = await admin.listNodeEvents('strix-node-1');
      const ooms = systemOomEvents(events, 'strix-node-1');
      assert.deepEqual(
        ooms.map((e) => [e.victim, e.pid]),
        [['llama-server', 398211]],
      );

      const plugins = (await admin.listPodsOnNode('gpu-node-7', { labelSelector: HAMI_DEVICE_PLUGIN_SELECTOR })).pods;
      const [plugin] = plugins;
      assert.ok(plugin && plugins.length === 1, 'the device plugin pod on gpu-node-7');
      assert.equal(plugin.spec?.nodeName, 'gpu-node-7');
      assert.equal(podHealth(plugin).phase, 'Running');
      const schedulers = await findHamiScheduler(admin);
      assert.ok(schedulers.some((pod) => pod.metadata?.name?.startsWith('hami-scheduler')));
      assert.deepEqual((await admin.listPodsOnNode('web-node-3', { labelSelector: HAMI_DEVICE_PLUGIN_SELECTOR })).pods, []);
    });
  });

  describe('watch', () => {
    test('the node watch restarts after 410 Expired with a fresh list, without a request storm', T, async () => {
      const mark = sim.state.requests.length;
      const openBefore = sim.state.openWatches();
      const snapshots: (readonly V1Pod[])[] = [];
      const errors: string[] = [];
      const stop = admin.watchPodsOnNode('web-node-3', (pods) => snapshots.push(pods), { onError: (f) => errors.push(f.kind) });
      try {
        await eventually('the first snapshot', () => snapshots.length > 0);
        await eventually('the watch is open', () => sim.state.openWatches() > openBefore);
        const names = (pods: readonly V1Pod[]): string[] => pods.map((pod) => pod.metadata?.name ?? '').sort();
        const listed = names((await admin.listPodsOnNode('web-node-3')).pods);
        assert.ok(listed.includes('api') && listed.includes('worker'));
        assert.deepEqual(names(snapshots[0] ?? []), listed);

        sim.state.expireWatches();
        sim.state.put({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'late-joiner', namespace: 'web' },
          spec: { nodeName: 'web-node-3', containers: [{ name: 'c', image: 'busybox' }] },
        });
        await eventually('the new pod after the re-list', () => snapshots.some((pods) => names(pods).includes('late-joiner')));
        sim.state.remove('pods', 'web', 'late-joiner');
        await eventually('the deletion through the new watch', () => !names(snapshots.at(-1) ?? []).includes('late-joiner'));

        const mine = sim.state.requests
          .slice(mark)
          .filter(
            (r) =>
              r.path.startsWith('/api/v1/pods?') &&
              new URL(r.path, sim.url).searchParams.get('fieldSelector') === 'spec.nodeName=web-node-3',
          );
        const lists = mine.filter((r) => !new URL(r.path, sim.url).searchParams.has('watch'));
        const watches = mine.filter((r) => new URL(r.path, sim.url).searchParams.get('watch') === 'true');
        assert.equal(lists.length, 3, "the watch's list, the check above, and one re-list after the 410");
        assert.ok(watches.length >= 2 && watches.length <= 4, `a new watch after the 410, no storm (${watches.length})`);
        assert.ok(new URL(watches[1]?.path ?? '', sim.url).searchParams.get('resourceVersion'), 'the new watch resumes from the re-list');
        assert.deepEqual(errors, []);
      } finally {
        stop();
      }
      await eventually('the watch closes on stop()', () => sim.state.openWatches() === openBefore);
    });
  });

  describe('pod exec', { skip: NO_ROOTS ?? false }, () => {
    test('a script on stdin with its exit code, stdout and stderr; the container picked from the pod', T, async () => {
      const transport = new PodExecTransport({ kubeConfig: admin.kubeConfig, client: admin, namespace: 'default', pod: 'llama-0' });
      try {
        const result = await transport.run(request('echo hello\necho oops >&2\ncat /etc/hostname\nexit 3\n'));
        assert.deepEqual(result, { stdout: 'hello\nllama-0\n', stderr: 'oops\n', exitCode: 3, truncated: false });
        assert.equal(transport.container, 'llama');
        const record = sim.state.execs.at(-1);
        assert.deepEqual([record?.container, record?.command, record?.protocol], ['llama', ['sh', '-s'], 'v5.channel.k8s.io']);
      } finally {
        await transport.close();
      }
    });

    test('v4 (no stdin half-close): the script still ends, with its status', T, async () => {
      const v4 = (uri: string, _offered: string[], opts: object): never => new WebSocket(uri, ['v4.channel.k8s.io'], opts) as never;
      const transport = new PodExecTransport({
        kubeConfig: admin.kubeConfig,
        namespace: 'default',
        pod: 'llama-0',
        container: 'llama',
        socketFactory: v4,
      });
      try {
        const result = await transport.run(request('echo from-v4\nfalse\n'));
        assert.equal(result.stdout, 'from-v4\n');
        assert.equal(result.exitCode, 1);
        assert.equal(sim.state.execs.at(-1)?.protocol, 'v4.channel.k8s.io');
      } finally {
        await transport.close();
      }
    });

    test('the output cap truncates and stops; RBAC refusal names create pods/exec', T, async () => {
      const transport = new PodExecTransport({ kubeConfig: admin.kubeConfig, namespace: 'default', pod: 'llama-0', container: 'llama' });
      try {
        const result = await transport.run(
          request('i=0; while [ $i -lt 5000 ]; do echo 0123456789abcdef; i=$((i+1)); done', { maxOutputBytes: 1000 }),
        );
        assert.equal(result.truncated, true);
        assert.equal(result.exitCode, null);
        assert.ok(result.stdout.length <= 1000);
      } finally {
        await transport.close();
      }
      const limited = await clientFor('limited');
      const refused = new PodExecTransport({ kubeConfig: limited.kubeConfig, client: limited, namespace: 'default', pod: 'llama-0' });
      const failure = await transportFailure(refused.run(request('true')));
      assert.equal(failure.kind, 'forbidden');
      assert.deepEqual(failure.kind === 'forbidden' && [failure.verb, failure.resource], ['create', 'pods/exec']);
    });
  });

  describe('node debug pod', { skip: NO_ROOTS ?? false }, () => {
    /** Every debug pod the simulator saw created was deleted, and none is left. */
    async function assertDebugPodsDeleted(): Promise<void> {
      await eventually('no debug pod left', () => sim.state.list('pods', DEBUG_NS).length === 0);
      for (const created of sim.state.createdPods.filter((p) => p.namespace === DEBUG_NS)) {
        assert.ok(
          sim.state.deletedPods.some((d) => d.uid === created.uid),
          `debug pod ${created.name} was deleted`,
        );
      }
    }

    function debugTransport(
      client: ClusterClient,
      node: string,
      extra: Partial<ConstructorParameters<typeof DebugPodTransport>[0]> = {},
    ): DebugPodTransport {
      return new DebugPodTransport({ client, node, namespace: DEBUG_NS, ...extra });
    }

    test('inspect the APU node end to end: runProbe in the debug pod, then analyze finds the GTT-heavy pod', T, async (t) => {
      const transport = debugTransport(admin, 'strix-node-1');
      try {
        assert.equal(transport.hostRoot, '/host');
        const run = await runProbe(transport, { scope: 'node', hostRoot: transport.hostRoot, timeoutMs: 45_000 });
        assert.equal(run.exec.exitCode, 0, run.exec.stderr);
        const { pods } = await admin.listPodsOnNode('strix-node-1');
        const podNames = new Map(pods.map((pod) => [pod.metadata?.uid ?? '', `${pod.metadata?.namespace}/${pod.metadata?.name}`]));
        const inspection = analyzeCaptureText(run.captureText, { target: transport.target, podNames });
        assert.equal(inspection.capture.root, '/host');
        const pod = inspection.node?.pods.find((p) => p.podUid === APU_POD_UID);
        assert.ok(pod, 'the APU pod is accounted');
        assert.equal(pod.limit, 16 * 2 ** 30, 'its 16 GiB limit, read through /host');
        // The node's GTT that no cgroup is charged for (mem_info_gtt_used under /host/sys).
        const node = inspection.verdicts.find((v) => v.id === 'memory.unaccounted-node');
        assert.ok(node, inspection.verdicts.map((v) => v.id).join(', '));
        assert.match(node.title, /held by the GPU and charged to no cgroup/);
        // Per-process attribution needs the fd links of /host/proc/<pid>/fd to resolve. On a real node they are
        // magic links; in the simulator they are plain symlinks to /dev/dri/renderD128, which the debug pod's
        // busybox root does not hold, so the fdinfo section is empty there and the pod-level verdict cannot appear.
        const fdinfo = inspection.capture.sections.get('fdinfo');
        if (!(fdinfo?.records ?? []).some((record) => record.path?.includes('/fdinfo/'))) {
          t.diagnostic('simulator: the debug pod root has no /dev/dri nodes, so GTT is attributed to the node, not the pod');
        } else {
          const verdict = inspection.verdicts.find((v) => v.id === 'memory.pod-over-limit-in-reality');
          assert.ok(verdict, inspection.verdicts.map((v) => v.id).join(', '));
          assert.match(verdict.title, /default\/llama-0 holds .* of GTT/);
        }
      } finally {
        await transport.close();
      }
      await assertDebugPodsDeleted();
    });

    test(
      "the APU node's kernel log is the node's: dmesg refused in the debug pod, so /host/var/log/kern.log gives the global OOM kill; a privileged pod reads it with dmesg",
      T,
      async () => {
        const node = summarizeNode(await admin.readNode('strix-node-1'));
        for (const privileged of [false, true]) {
          const transport = debugTransport(admin, 'strix-node-1', { privileged });
          try {
            const [run, inputs] = await Promise.all([
              runProbe(transport, { scope: 'node', hostRoot: transport.hostRoot, timeoutMs: 45_000 }),
              nodeAnalysisInputs(admin, node),
            ]);
            assert.equal(run.exec.exitCode, 0, run.exec.stderr);
            const inspection = analyzeCaptureText(run.captureText, { ...inputs, target: transport.target });
            const oom = inspection.node?.oom;
            assert.ok(oom, `privileged ${privileged}: a kernel log was read`);
            // This machine's own ring buffer never reaches the capture: only the node fixture's lines.
            assert.equal(
              inspection.node?.model.kernelLog?.source,
              privileged ? 'dmesg' : '/host/var/log/kern.log',
              `privileged ${privileged}`,
            );
            assert.equal(oom.summary.format, privileged ? 'dmesg' : 'syslog-iso');
            assert.match(
              run.captureText,
              privileged ? /^\[\s*0\.000000\] Linux version 7\.1\.0-9-generic /m : /missing dmesg \(not permitted or not available\)/,
            );
            assert.deepEqual(
              oom.summary.victims.map((victim) => [victim.kind, victim.comm, victim.pid, victim.podUid, victim.podName]),
              [['global', 'llama-server', 398211, APU_POD_UID, 'default/llama-0']],
              `privileged ${privileged}: the fixture's global OOM kill, with the pod the API server names`,
            );
            assert.ok(
              inspection.verdicts.some((verdict) => verdict.id.startsWith('oom.global')),
              inspection.verdicts.map((verdict) => verdict.id).join(', '),
            );
          } finally {
            await transport.close();
          }
        }
        await assertDebugPodsDeleted();
      },
    );

    test("the pod as created: pinned, hostPID, read-only /host, ours, deadline, the node's taints tolerated", T, async () => {
      const transport = debugTransport(admin, 'strix-node-1', { activeDeadlineSeconds: 120 });
      try {
        const running = transport.run(request('sleep 2; echo ok'));
        const pod = await eventually('the debug pod', () =>
          transport.lastPod ? sim.state.get('pods', DEBUG_NS, transport.lastPod) : undefined,
        );
        const spec = pod['spec'] as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
        assert.equal(spec['nodeName'], 'strix-node-1');
        assert.equal(spec['hostPID'], true);
        assert.equal(spec['restartPolicy'], 'Never');
        assert.equal(spec['activeDeadlineSeconds'], 120);
        assert.deepEqual(spec['volumes'], [{ name: 'host-root', hostPath: { path: '/' } }]);
        const container = spec['containers'][0];
        assert.equal(container.name, DEBUG_CONTAINER);
        assert.equal(container.image, 'busybox:1.36');
        assert.deepEqual(container.command, ['sleep', '120']);
        assert.deepEqual(container.volumeMounts, [{ name: 'host-root', mountPath: '/host', readOnly: true }]);
        assert.deepEqual(
          Object.fromEntries(Object.entries(pod.metadata.labels ?? {}).filter(([k]) => k in DEBUG_POD_LABELS)),
          DEBUG_POD_LABELS,
        );
        // The node's two taints; the API server's DefaultTolerationSeconds admission appends not-ready/unreachable.
        assert.deepEqual(spec['tolerations'].slice(0, 2), [
          { key: 'amd.com/gpu', operator: 'Equal', value: 'present', effect: 'NoSchedule' },
          { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
        ]);
        assert.equal((await running).stdout, 'ok\n');
        // Any node name gives a valid, short pod name.
        for (const node of ['ip-10-0-4-42.ec2.internal', 'GPU_Node.UPPER', '-'.repeat(300), 'a'.repeat(253)]) {
          assert.match(debugPodName(node), /^gpumem-debug-[a-z0-9]([-a-z0-9]*[a-z0-9])?-[0-9a-f]{5}$/);
          assert.ok(debugPodName(node).length <= 63);
        }
      } finally {
        await transport.close();
      }
      await assertDebugPodsDeleted();
    });

    describe('faults: the debug pod is deleted after each', () => {
      after(() => sim.setFault(null));

      test('latency on every request', T, async () => {
        sim.setFault({ latencyMs: 250 });
        const transport = debugTransport(admin, 'web-node-3');
        try {
          const result = await transport.run(request('echo slow-but-fine'));
          assert.equal(result.stdout, 'slow-but-fine\n');
        } finally {
          sim.setFault(null);
          await transport.close();
        }
        await assertDebugPodsDeleted();
      });

      test('500 on create: reported, and a delete is still attempted', T, async () => {
        sim.setFault({ forceStatus: [{ method: 'POST', path: `/api/v1/namespaces/${DEBUG_NS}/pods`, code: 500, times: 1 }] });
        const transport = debugTransport(admin, 'web-node-3');
        const mark = sim.state.requests.length;
        try {
          const failure = await transportFailure(transport.run(request('true')));
          assert.equal(failure.kind, 'connect');
          assert.match(failure.kind === 'connect' ? failure.detail : '', /500/);
          assert.ok(
            sim.state.requests.slice(mark).some((r) => r.method === 'DELETE' && r.path.includes(`/pods/${transport.lastPod}`)),
            'a create that may have happened is followed by a delete',
          );
        } finally {
          sim.setFault(null);
          await transport.close();
        }
        await assertDebugPodsDeleted();
      });

      test('the exec WebSocket dropped mid-run', T, async () => {
        sim.setFault({ dropExecAfterStdoutBytes: 64 });
        const transport = debugTransport(admin, 'web-node-3');
        try {
          const failure = await transportFailure(
            transport.run(request('i=0; while [ $i -lt 2000 ]; do echo 0123456789abcdef; i=$((i+1)); done; sleep 5')),
          );
          assert.equal(failure.kind, 'disconnected');
          assert.match(failure.kind === 'disconnected' ? failure.detail : '', /before the exit status/);
        } finally {
          sim.setFault(null);
          await transport.close();
        }
        await assertDebugPodsDeleted();
      });

      test('cancel mid-run', T, async () => {
        const transport = debugTransport(admin, 'web-node-3');
        const controller = new AbortController();
        const execsBefore = sim.state.execs.length;
        try {
          const running = transport.run(request('echo started; sleep 30', { signal: controller.signal }));
          await eventually('the exec is running', () => sim.state.execs.length > execsBefore && sim.state.runningExecs() > 0);
          controller.abort();
          assert.equal((await transportFailure(running)).kind, 'cancelled');
        } finally {
          await transport.close();
        }
        await assertDebugPodsDeleted();
        await eventually('the exec is gone with its pod', () => sim.state.runningExecs() === 0);
      });

      test('cancel while the pod starts', T, async () => {
        sim.setFault({ podWaitingReason: 'ContainerCreating' });
        const transport = debugTransport(admin, 'web-node-3');
        const controller = new AbortController();
        try {
          const running = transport.run(request('true', { signal: controller.signal }));
          await eventually(
            'the pod exists',
            () => transport.lastPod !== undefined && sim.state.get('pods', DEBUG_NS, transport.lastPod) !== undefined,
          );
          controller.abort();
          assert.equal((await transportFailure(running)).kind, 'cancelled');
        } finally {
          sim.setFault(null);
          await transport.close();
        }
        await assertDebugPodsDeleted();
      });

      test('a command timeout and a start timeout', T, async () => {
        const slow = debugTransport(admin, 'web-node-3');
        try {
          const failure = await transportFailure(slow.run(request('sleep 30', { timeoutMs: 500 })));
          assert.deepEqual(failure, { kind: 'timeout', phase: 'command', ms: 500 });
        } finally {
          await slow.close();
        }
        await assertDebugPodsDeleted();
        sim.setFault({ podWaitingReason: 'ContainerCreating' });
        const stuck = debugTransport(admin, 'web-node-3', { startTimeoutMs: 800 });
        try {
          const failure = await transportFailure(stuck.run(request('true')));
          assert.deepEqual(failure, { kind: 'timeout', phase: 'connect', ms: 800 });
        } finally {
          sim.setFault(null);
          await stuck.close();
        }
        await assertDebugPodsDeleted();
      });

      test('an image that cannot be pulled ends the wait at once', T, async () => {
        sim.setFault({ podWaitingReason: 'ImagePullBackOff' });
        const transport = debugTransport(admin, 'web-node-3', { image: 'registry.invalid/busybox:nope', startTimeoutMs: 30_000 });
        try {
          const failure = await transportFailure(transport.run(request('true')));
          assert.equal(failure.kind, 'connect');
          assert.match(failure.kind === 'connect' ? failure.detail : '', /cannot start: ImagePullBackOff.*registry\.invalid\/busybox:nope/);
        } finally {
          sim.setFault(null);
          await transport.close();
        }
        await assertDebugPodsDeleted();
      });

      test('RBAC: create pods refused (limited user), create refused by fault, delete pods refused', T, async () => {
        const limited = await clientFor('limited');
        const created = sim.state.createdPods.length;
        const refused = debugTransport(limited, 'secure-node-1');
        const mark = sim.state.requests.length;
        try {
          const failure = await transportFailure(refused.run(request('true')));
          assert.equal(failure.kind, 'forbidden');
          if (failure.kind !== 'forbidden') return;
          assert.deepEqual([failure.verb, failure.resource], ['create', 'pods']);
          assert.match(failure.detail, /User "limited" cannot create resource "pods" in API group "" in the namespace "gpumem-debug"/);
          assert.match(failure.detail, /needs: create, get, watch and delete on pods, and create on pods\/exec/);
          assert.equal(sim.state.createdPods.length, created, 'nothing created');
          assert.ok(!sim.state.requests.slice(mark).some((r) => r.method === 'DELETE'), 'nothing to delete');
        } finally {
          await refused.close();
        }

        sim.setFault({ denyPodCreate: ['admin'] });
        const denied = debugTransport(admin, 'strix-node-1');
        try {
          const failure = await transportFailure(denied.run(request('true')));
          assert.deepEqual(failure.kind === 'forbidden' && [failure.verb, failure.resource], ['create', 'pods']);
        } finally {
          sim.setFault(null);
          await denied.close();
        }

        const nodelete = await clientFor('nodelete');
        const leaky = debugTransport(nodelete, 'web-node-3');
        try {
          const result = await leaky.run(request('echo ran'));
          assert.equal(result.stdout, 'ran\n');
          assert.equal(leaky.cleanupFailures.length, 1);
          assert.match(leaky.cleanupFailures[0] ?? '', /forbidden: cannot delete pods/);
          assert.match(leaky.cleanupFailures[0] ?? '', new RegExp(`kubectl delete pod -n ${DEBUG_NS} ${leaky.lastPod}`));
        } finally {
          await leaky.close();
          if (leaky.lastPod) await admin.deletePod(DEBUG_NS, leaky.lastPod, { gracePeriodSeconds: 0 });
        }
        await assertDebugPodsDeleted();
      });
    });
  });
});
