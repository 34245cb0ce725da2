// The simulator's pods/log and pod events, driven by the REAL @kubernetes/client-node (readNamespacedPodLog,
// listNamespacedEvent): text/plain with container, tailLines, limitBytes and previous as the API server
// applies them, its 400s (no container named in a multi-container pod, an unknown container, no previous
// instance), 404 for a missing pod, RBAC on the pods/log subresource, and events selected by
// involvedObject.uid. No exec: runs without root.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { loadFixtures } from '../simulator/fixtures.ts';
import { startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';

const T = { timeout: 30_000 };
const NS = 'kube-system';
const PLUGIN = 'hami-device-plugin-x7k2p';

async function failure(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof k8s.ApiException, String(error));
    const body = typeof error.body === 'string' && error.body !== '' ? (JSON.parse(error.body) as { message?: string }) : {};
    return { code: error.code, message: body.message ?? '' };
  }
  assert.fail('the call succeeded');
}

describe('simulator pods/log and pod events', () => {
  let sim: Simulator;
  let core: k8s.CoreV1Api;
  let limited: k8s.CoreV1Api;

  before(async () => {
    sim = await startSimulator({
      fixtures: loadFixtures(),
      roots: false,
      users: [{ name: 'pods-only', rules: [{ verbs: ['get', 'list'], resources: ['pods'] }] }],
    });
    const kc = new k8s.KubeConfig();
    kc.loadFromString(sim.kubeconfig('admin'));
    core = kc.makeApiClient(k8s.CoreV1Api);
    const lkc = new k8s.KubeConfig();
    lkc.loadFromString(sim.kubeconfig('pods-only'));
    limited = lkc.makeApiClient(k8s.CoreV1Api);
  });

  after(async () => {
    await sim?.close();
  });

  test('a container log from the fixtures, its last lines and its first bytes', T, async () => {
    const all = await core.readNamespacedPodLog({ namespace: NS, name: PLUGIN, container: 'device-plugin' });
    assert.equal(all.split('\n').filter(Boolean).length, 4);
    assert.match(all, /Serving device plugin/);
    const tail = await core.readNamespacedPodLog({ namespace: NS, name: PLUGIN, container: 'device-plugin', tailLines: 2 });
    assert.equal(tail.split('\n').filter(Boolean).length, 2);
    assert.ok(all.endsWith(tail), 'the last two lines');
    const head = await core.readNamespacedPodLog({ namespace: NS, name: PLUGIN, container: 'device-plugin', limitBytes: 10 });
    assert.equal(head, all.slice(0, 10));
    const last = sim.state.requests.filter((r) => r.path.includes('/log')).at(-1);
    assert.match(
      last?.path ?? '',
      /^\/api\/v1\/namespaces\/kube-system\/pods\/hami-device-plugin-x7k2p\/log\?container=device-plugin&limitBytes=10/,
    );
  });

  test('setPodLog, the previous instance, and a container without a log', T, async () => {
    sim.state.setPodLog(NS, PLUGIN, 'vgpu-monitor', 'one\ntwo\nthree\n');
    assert.equal(await core.readNamespacedPodLog({ namespace: NS, name: PLUGIN, container: 'vgpu-monitor', tailLines: 1 }), 'three\n');
    const previous = await core.readNamespacedPodLog({
      namespace: NS,
      name: 'hami-device-plugin-m4t9z',
      container: 'device-plugin',
      previous: true,
    });
    assert.match(previous, /failed to initialize NVML/);
    assert.equal(await core.readNamespacedPodLog({ namespace: NS, name: 'hami-device-plugin-m4t9z', container: 'vgpu-monitor' }), '');
  });

  test("the API server's refusals: 400s, 404 and RBAC on pods/log", T, async () => {
    const noContainer = await failure(core.readNamespacedPodLog({ namespace: NS, name: PLUGIN }));
    assert.equal(noContainer.code, 400);
    assert.match(
      noContainer.message,
      /a container name must be specified for pod hami-device-plugin-x7k2p, choose one of: \[device-plugin vgpu-monitor\]/,
    );
    const unknown = await failure(core.readNamespacedPodLog({ namespace: NS, name: PLUGIN, container: 'nope' }));
    assert.equal(unknown.code, 400);
    assert.match(unknown.message, /container nope is not valid for pod hami-device-plugin-x7k2p/);
    const noPrevious = await failure(
      core.readNamespacedPodLog({ namespace: NS, name: PLUGIN, container: 'device-plugin', previous: true }),
    );
    assert.equal(noPrevious.code, 400);
    assert.match(noPrevious.message, /previous terminated container "device-plugin" in pod "hami-device-plugin-x7k2p" not found/);
    const missing = await failure(core.readNamespacedPodLog({ namespace: NS, name: 'gone', container: 'x' }));
    assert.equal(missing.code, 404);
    const forbidden = await failure(limited.readNamespacedPodLog({ namespace: NS, name: PLUGIN, container: 'device-plugin' }));
    assert.equal(forbidden.code, 403);
    assert.match(forbidden.message, /cannot get resource "pods\/log" in API group "" in the namespace "kube-system"/);
  });

  test('events of one pod by involvedObject.uid', T, async () => {
    const pod = await core.readNamespacedPod({ namespace: 'ml', name: 'trainer-0' });
    const uid = pod.metadata?.uid ?? '';
    const other = await core.readNamespacedPod({ namespace: 'ml', name: 'static-infer-0' });
    for (const [name, target, reason] of [
      ['trainer-0.1', pod, 'Scheduled'],
      ['static-infer-0.1', other, 'Pulled'],
    ] as const)
      sim.state.put({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace: 'ml' },
        involvedObject: { kind: 'Pod', namespace: 'ml', name: target.metadata?.name, uid: target.metadata?.uid },
        reason,
        message: `${reason} by the test`,
        type: 'Normal',
      });
    const list = await core.listNamespacedEvent({ namespace: 'ml', fieldSelector: `involvedObject.uid=${uid}` });
    assert.deepEqual(
      list.items.map((event) => event.reason),
      ['Scheduled'],
    );
  });
});
