// The editor's live sources against the API simulator, through the real client-node: the read-once source and the
// list+watch cache find the demo cluster's StatefulSet llama (its pod llama-0 on strix-node-1, OOMKilled in its last
// state) and CronJob embed-nightly in `default`; the watch cache sees a Deployment added after it synced, with its
// ReplicaSet and pod, and the pod's deletion, without another list; a cluster nothing listens for turns both sources
// to failed with one sentence. No Prometheus here (figures: none), so no kill has a cause beyond the kubelet's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { liveKey } from '../../src/core/live/liveSnapshot.ts';
import type { LiveSnapshot } from '../../src/core/live/liveSnapshot.ts';
import { ClusterClient } from '../../src/kube/clusterClient.ts';
import { ReadOnceSource } from '../../src/live/liveSource.ts';
import type { LiveSource } from '../../src/live/liveSource.ts';
import { WatchedSource } from '../../src/live/watchedSource.ts';
import { eventually } from '../helpers/asserts.ts';
import { completeFixtures, loadFixtures } from '../simulator/fixtures.ts';
import type { KubeObject } from '../simulator/objects.ts';
import { startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';

const WINDOW = { label: '7d', seconds: 7 * 86_400 };
const NO_FIGURES = { kind: 'none', reason: 'no Prometheus in this test' } as const;

function clientFor(kubeconfig: string): ClusterClient {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  return new ClusterClient({ name: kc.getCurrentContext(), kubeConfig: kc }, { requestTimeoutMs: 5_000 });
}

const webObjects = (): KubeObject[] =>
  [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default', uid: 'd-web', annotations: { 'deployment.kubernetes.io/revision': '1' } },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', resources: { limits: { memory: '1Gi' } } }] },
        },
      },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: 'web-5c',
        namespace: 'default',
        uid: 'rs-web',
        annotations: { 'deployment.kubernetes.io/revision': '1' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'd-web', controller: true }],
      },
      spec: { selector: { matchLabels: { app: 'web' } } },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'web-5c-q',
        namespace: 'default',
        uid: 'p-web',
        labels: { app: 'web' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5c', uid: 'rs-web', controller: true }],
      },
      spec: { nodeName: 'web-node-3', containers: [{ name: 'web', image: 'nginx' }] },
      status: { phase: 'Running' },
    },
  ] as unknown as KubeObject[];

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

function expectDemo(snapshot: LiveSnapshot | undefined): void {
  assert.ok(snapshot, 'a snapshot');
  const llama = snapshot.workloads.get(liveKey('StatefulSet', 'default', 'llama'));
  assert.deepEqual(llama?.pods, { total: 1, oldTemplate: 0 });
  const [pod] = llama?.podLines ?? [];
  assert.equal(pod?.name, 'llama-0');
  assert.equal(pod?.node, 'strix-node-1');
  // The fixture's llama-0 has OOMKilled as its container's last state; without an agent's count its cause is unknown.
  assert.equal(pod?.lastKill?.container, 'llama');
  assert.equal(pod?.lastKill?.cause.value.kind, 'unknown');
  assert.equal(pod?.trueFootprintPeak, undefined);
  assert.ok(snapshot.workloads.has(liveKey('CronJob', 'default', 'embed-nightly')), 'the CronJob, its Job folded in');
  assert.ok(
    !snapshot.workloads.has(liveKey('Job', 'default', 'embed-nightly-29420160')),
    'a Job of a CronJob is not a workload of its own',
  );
  assert.match(snapshot.source, /^the Kubernetes API only/);
}

describe('live sources against the simulator', () => {
  let sim: Simulator;
  const sources: LiveSource[] = [];
  const clients: ClusterClient[] = [];

  before(async () => {
    sim = await startSimulator({ fixtures: completeFixtures(loadFixtures()), roots: false });
  });

  after(async () => {
    for (const source of sources) source.dispose();
    for (const client of clients) await client.dispose(0);
    await sim?.close();
  });

  function track<T extends LiveSource>(source: T, client: ClusterClient): T {
    sources.push(source);
    clients.push(client);
    return source;
  }

  test('read once: the demo workloads of the context namespace, with their pods', async () => {
    const client = clientFor(sim.kubeconfig('admin'));
    const source = track(new ReadOnceSource({ client, window: WINDOW, headroomPercent: 30, figuresFrom: NO_FIGURES }), client);
    const seen: string[] = [];
    source.onDidChange((state) => seen.push(state.kind));
    assert.equal(source.state().kind, 'idle');
    await source.refresh();
    assert.deepEqual(seen, ['reading', 'ready']);
    expectDemo(source.snapshot());
  });

  test('list+watch: synced, then a Deployment added and its pod deleted arrive by watch', async () => {
    const client = clientFor(sim.kubeconfig('admin'));
    const source = track(
      new WatchedSource({ client, window: WINDOW, headroomPercent: 30, figuresFrom: NO_FIGURES, rebuildDelayMs: 20 }),
      client,
    );
    source.setNamespaces(['default', 'default']);
    assert.deepEqual(source.namespaces, ['default']);
    await eventually('the watch cache ready', () => source.state().kind === 'ready');
    expectDemo(source.snapshot());
    const key = liveKey('Deployment', 'default', 'web');
    assert.equal(source.snapshot()?.workloads.has(key), false);
    const lists = sim.state.createdPods.length;
    for (const object of webObjects()) sim.state.put(object);
    await eventually('the Deployment and its pod', () => source.snapshot()?.workloads.get(key)?.pods.total === 1);
    assert.equal(source.snapshot()?.workloads.get(key)?.podLines[0]?.node, 'web-node-3');
    sim.state.remove('pods', 'default', 'web-5c-q');
    await eventually('the pod gone', () => source.snapshot()?.workloads.get(key)?.pods.total === 0);
    assert.equal(sim.state.createdPods.length, lists, 'never writes: no pod created');
    assert.ok(source.objectCount > 0);
  });

  test('an unreachable cluster: both sources fail with one sentence', async () => {
    const port = await closedPort();
    const kubeconfig = sim.kubeconfig('admin').replace(sim.url, `https://127.0.0.1:${port}`);
    const once = clientFor(kubeconfig);
    const readOnce = track(new ReadOnceSource({ client: once, window: WINDOW, headroomPercent: 30, figuresFrom: NO_FIGURES }), once);
    await readOnce.refresh();
    const state = readOnce.state();
    assert.equal(state.kind, 'failed');
    assert.match(state.kind === 'failed' ? state.reason : '', /could not be read: .*(ECONNREFUSED|refused)/);
    assert.equal(readOnce.snapshot(), undefined);

    const watchedClient = clientFor(kubeconfig);
    const watched = track(
      new WatchedSource({
        client: watchedClient,
        window: WINDOW,
        headroomPercent: 30,
        figuresFrom: NO_FIGURES,
        minBackoffMs: 50,
        maxBackoffMs: 200,
      }),
      watchedClient,
    );
    watched.setNamespaces([]);
    await eventually('the watch cache failed', () => watched.state().kind === 'failed');
    const failed = watched.state();
    assert.match(failed.kind === 'failed' ? failed.reason : '', /could not be read: /);
  });
});
