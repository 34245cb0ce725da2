// Connection reuse of ClusterClient (src/kube/sharedDispatcher.ts) against the API simulator, counted where it
// happens: the simulator's HTTPS server counts the TLS handshakes it completes and the connections open now.
// - client-node 2.0.1 on its own: N sequential lists are N TLS connections (the control: it shows the
//   counter counts, and fails the day client-node pools by itself, when sharedDispatcher.ts can go);
// - one ClusterClient: N sequential lists over one connection, or two: undici hands a connection to the next
//   request only once it has processed the end of the previous response, so a request sent in the same tick
//   as the previous body resolved opens a second one; the pool then holds both and never grows with N.
//   A watch and lists side by side: one more, for the watch;
// - pod exec (WebSocket) still works through the client's KubeConfig;
// - new TLS material (a rotated client certificate) gets a new pool, and the old one is closed;
// - dispose(): the pool's sockets are closed (the server sees them go), and the client still answers, with a
//   connection per request.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { ClusterClient } from '../../src/kube/clusterClient.ts';
import { PodExecTransport } from '../../src/kube/podExecTransport.ts';
import { fixtureRootsUnavailable } from '../helpers/fixtureRoot.ts';
import { chrootUnavailable } from '../unit/helpers/probeRoot.ts';
import { loadFixtures } from '../simulator/fixtures.ts';
import { startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';
import { eventually } from '../helpers/asserts.ts';

const NO_ROOTS = fixtureRootsUnavailable() ?? chrootUnavailable();
const T = { timeout: 60_000 };
const N = 12;

describe('ClusterClient: one keep-alive connection pool per context', () => {
  let sim: Simulator;
  const clients: ClusterClient[] = [];

  before(async () => {
    sim = await startSimulator({ fixtures: loadFixtures(), roots: !NO_ROOTS });
  });

  after(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await sim.close();
  });

  function kubeConfig(user = 'admin'): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfig(user));
    return kc;
  }

  function newClient(user = 'admin'): ClusterClient {
    const kc = kubeConfig(user);
    const client = new ClusterClient({ name: kc.getCurrentContext(), kubeConfig: kc });
    clients.push(client);
    return client;
  }

  /** Waits until the connections the server holds open settle (the previous test's idle ones are gone). */
  async function quiet(): Promise<void> {
    await eventually('no TLS connection open', () => sim.state.openTlsConnections() === 0, 15_000);
  }

  test(`control: client-node alone opens a TLS connection per request (${N} lists, ${N} handshakes)`, T, async () => {
    await quiet();
    const core = kubeConfig().makeApiClient(CoreV1Api);
    const before = sim.state.tlsConnections;
    for (let i = 0; i < N; i++) assert.equal((await core.listNode()).items.length, 5);
    assert.equal(sim.state.tlsConnections - before, N);
  });

  test(`one ClusterClient: ${2 * N} sequential requests over at most two TLS connections`, T, async () => {
    await quiet();
    const client = newClient();
    const before = sim.state.tlsConnections;
    for (let i = 0; i < N; i++) {
      assert.equal((await client.listNodes()).length, 5);
      await client.listPodsOnNode('strix-node-1');
    }
    const handshakes = sim.state.tlsConnections - before;
    assert.ok(handshakes >= 1 && handshakes <= 2, `${2 * N} requests took ${handshakes} TLS connections`);
    assert.equal(client.connections.built, 1);
    assert.equal(client.connections.state.kind, 'shared');
  });

  test('a watch and lists side by side: the watch keeps one connection, the lists share another', T, async () => {
    await quiet();
    const client = newClient();
    const before = sim.state.tlsConnections;
    const watchesBefore = sim.state.openWatches();
    const seen: string[][] = [];
    const stop = client.watchPodsOnNode('strix-node-1', (pods) => seen.push(pods.map((pod) => pod.metadata?.name ?? '')));
    try {
      await eventually('the first report of the watch', () => seen.length > 0);
      await eventually('the watch is open on the server', () => sim.state.openWatches() > watchesBefore);
      for (let i = 0; i < N; i++) await client.listNodes();
      const name = `keepalive-${Date.now().toString(36)}`;
      sim.state.put({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'default' },
        spec: { nodeName: 'strix-node-1', containers: [{ name: 'c', image: 'busybox:1.36' }] },
      });
      await eventually('the watch reports the new pod', () => seen.at(-1)?.includes(name));
      sim.state.remove('pods', 'default', name);
      assert.ok(
        sim.state.tlsConnections - before <= 3,
        `the watch's list, its watch and ${N} lists took ${sim.state.tlsConnections - before} TLS connections`,
      );
    } finally {
      stop();
    }
  });

  test("pod exec (WebSocket) still works through the client's KubeConfig", { ...T, skip: NO_ROOTS ?? false }, async () => {
    const client = newClient();
    await client.listNodes();
    const transport = new PodExecTransport({
      kubeConfig: client.kubeConfig,
      client,
      namespace: 'default',
      pod: 'llama-0',
      container: 'llama',
    });
    try {
      const result = await transport.run({ script: 'echo exec-ok\n', timeoutMs: 30_000, maxOutputBytes: 65_536 });
      assert.equal(result.stdout, 'exec-ok\n');
      assert.equal(result.exitCode, 0);
    } finally {
      await transport.close();
    }
    assert.equal((await client.listNodes()).length, 5, 'lists go on after the exec');
  });

  test('new TLS material (a rotated client certificate) gets a new pool; the old one is closed', T, async () => {
    await quiet();
    const client = newClient();
    await client.listNodes();
    await client.listNodes();
    assert.equal(client.connections.built, 1);
    assert.ok(sim.state.openTlsConnections() >= 1, 'the pool keeps its connection open');
    // The user's certificate changes under the same context (an exec plugin or a file rotated it).
    const limited = parseYaml(sim.kubeconfig('limited')) as { users: { user: Record<string, string> }[] };
    const user = client.kubeConfig.getCurrentUser() as unknown as Record<string, string>;
    user['certData'] = limited.users[0]?.user['client-certificate-data'] ?? '';
    user['keyData'] = limited.users[0]?.user['client-key-data'] ?? '';
    const mark = sim.state.requests.length;
    await client.listNodes();
    assert.equal(client.connections.built, 2);
    assert.deepEqual(
      sim.state.requests.slice(mark).map((r) => r.user),
      ['limited'],
      'the new certificate was used',
    );
    await eventually("the old pool's connection is closed", () => sim.state.openTlsConnections() === 1);
  });

  test("dispose(): the pool's connections are closed, and the client still answers with a connection per request", T, async () => {
    await quiet();
    const client = newClient();
    for (let i = 0; i < 3; i++) await client.listNodes();
    assert.ok(sim.state.openTlsConnections() >= 1, 'the idle keep-alive connections stay open');
    await client.dispose();
    assert.equal(client.connections.state.kind, 'disposed');
    await eventually('the server sees the pooled connection closed', () => sim.state.openTlsConnections() === 0);
    const before = sim.state.tlsConnections;
    assert.equal((await client.listNodes()).length, 5);
    assert.equal((await client.listNodes()).length, 5);
    assert.equal(sim.state.tlsConnections - before, 2, 'after dispose, as client-node does by itself');
    await client.dispose(); // idempotent
  });
});
