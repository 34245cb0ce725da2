// The node debug pod kept across runs (DebugPodTransport lifetime `retained`, the inspector's live sampling on
// "Inspect Node"), against the Kubernetes API simulator: the real client-node code, the real exec WebSocket,
// the light probe run for real in the simulator's chroot root of the node (under /host).
//   - one pod for the full probe and every light probe after it (the simulator counts creates and execs);
//     the light probe's capture turns into a live sample with the node's pods;
//   - a pod gone behind the transport's back (deleted; ended at its deadline) is replaced and the run retried;
//     a pod close to its activeDeadlineSeconds is replaced before a run; an idle pod is deleted, then re-created;
//   - cancel (mid-exec, while the pod starts), close() during a start, two runs at once, a dropped exec
//     WebSocket, a 500 on create: after close() no debug pod is left, and every one created was deleted.
// Needs root (the simulator execs into chroot fixture roots). Run:
//   npx node --test --test-concurrency=1 test/integration/retainedDebugPod.test.ts
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { runProbe } from '../../src/core/inspectionRun/runProbe.ts';
import { sampleFromCapture } from '../../src/core/inspectorPanel/sample.ts';
import { newNonce } from '../../src/core/probe/script.ts';
import { buildLightProbeScript } from '../../src/core/probe/scripts/lightScript.ts';
import type { ExecRequest } from '../../src/core/probe/transport.ts';
import type { ClusterClient } from '../../src/kube/clusterClient.ts';
import { DebugPodTransport, RETAINED_DEBUG_POD_DEADLINE_SECONDS } from '../../src/kube/debugPodTransport.ts';
import type { DebugPodTransportOptions } from '../../src/kube/debugPodTransport.ts';
import { DEBUG_POD_ROOTS_UNAVAILABLE, execRequest as request, startDebugPodCluster } from '../helpers/debugPodCluster.ts';
import type { DebugPodCluster } from '../helpers/debugPodCluster.ts';
import type { PodRecord, Simulator } from '../simulator/server.ts';
import { eventually, transportFailure } from '../helpers/asserts.ts';

const T = { timeout: 90_000 };
const NS = 'gpumem-live';
const APU_NODE = 'strix-node-1';
const CPU_NODE = 'web-node-3';
const APU_POD_UID = 'b7f3c2a4-9e1d-4f6b-8a2c-5d0e7f1a3b96';

describe('the retained node debug pod (live sampling on Inspect Node)', { skip: DEBUG_POD_ROOTS_UNAVAILABLE ?? false }, () => {
  let cluster: DebugPodCluster;
  let sim: Simulator;
  let admin: ClusterClient;
  const log: string[] = [];

  before(async () => {
    cluster = await startDebugPodCluster(NS);
    ({ sim, admin } = cluster);
  });

  after(() => cluster?.close());

  afterEach(() => sim.setFault(null));

  function retained(node: string, extra: Partial<DebugPodTransportOptions> = {}): DebugPodTransport {
    return new DebugPodTransport({
      client: admin,
      node,
      namespace: NS,
      lifetime: { kind: 'retained' },
      log: (line) => log.push(line),
      ...extra,
    });
  }

  function createdSince(mark: number): PodRecord[] {
    return cluster.createdSince(mark);
  }

  function alive(): string[] {
    return cluster.alive();
  }

  /** No debug pod is left, and every one created was deleted (a DELETE accepted for its UID). */
  async function assertNoDebugPodLeft(): Promise<void> {
    await eventually('no debug pod left', () => alive().length === 0);
    for (const created of createdSince(0)) {
      assert.ok(
        sim.state.deletedPods.some((d) => d.uid === created.uid),
        `debug pod ${created.name} was deleted`,
      );
    }
  }

  function lightProbe(hostRoot: string): ExecRequest {
    return request(buildLightProbeScript({ nonce: newNonce(), hostRoot }), { timeoutMs: 15_000 });
  }

  test("one pod for the full probe and every light probe after it; each sample has the node's pods; close() deletes it", T, async () => {
    const mark = sim.state.createdPods.length;
    const execs = sim.state.execs.length;
    const transport = retained(APU_NODE);
    try {
      assert.deepEqual(transport.state, { kind: 'none' });
      const run = await runProbe(transport, { scope: 'node', hostRoot: transport.hostRoot, timeoutMs: 60_000 });
      assert.equal(run.exec.exitCode, 0, run.exec.stderr);
      const inspection = analyzeCaptureText(run.captureText, { target: transport.target });
      // The panel builds the light probe with the capture's root: /host in a debug pod.
      assert.equal(inspection.capture.root, '/host');
      const state = transport.state;
      assert.equal(state.kind, 'ready', 'the pod is kept after the full probe');
      const pod = state.kind === 'ready' ? state.name : '';
      assert.deepEqual(alive(), [pod]);
      const spec = sim.state.get('pods', NS, pod)?.['spec'] as { activeDeadlineSeconds?: number; containers: { command: string[] }[] };
      assert.equal(spec.activeDeadlineSeconds, RETAINED_DEBUG_POD_DEADLINE_SECONDS, 'a retained pod lives 1 h by default');
      assert.deepEqual(spec.containers[0]?.command, ['sleep', String(RETAINED_DEBUG_POD_DEADLINE_SECONDS)]);

      for (let i = 0; i < 3; i++) {
        const result = await transport.run(lightProbe(inspection.capture.root));
        assert.equal(result.exitCode, 0, result.stderr);
        const point = sampleFromCapture(result.stdout, Date.now());
        assert.deepEqual(point.problems, []);
        assert.ok(point.memAvailable !== null && point.memAvailable > 0, 'MemAvailable read through /host');
        assert.ok(point.targetTime !== null);
        const apu = point.pods.find((p) => p.podUid === APU_POD_UID);
        assert.ok(apu, `the APU pod is in the sample: ${JSON.stringify(point.pods.map((p) => p.podUid))}`);
        assert.ok(apu.current !== null && apu.current > 0, 'its memory.current');
      }
      assert.equal(createdSince(mark).length, 1, 'ONE debug pod for four runs');
      const ran = sim.state.execs.slice(execs);
      assert.equal(ran.length, 4, 'one exec per run');
      assert.ok(
        ran.every((e) => e.pod === pod && e.container === 'debugger'),
        'every exec in the same pod',
      );
      assert.deepEqual(transport.state, state, 'still the same pod');
    } finally {
      await transport.close();
    }
    assert.deepEqual(transport.state, { kind: 'closed' });
    await assertNoDebugPodLeft();
    assert.equal((await transportFailure(transport.run(request('true')))).kind, 'cancelled', 'a run after close() creates nothing');
    assert.deepEqual(alive(), []);
  });

  test('a pod deleted behind its back is replaced and the run retried in the new one', T, async () => {
    const mark = sim.state.createdPods.length;
    const transport = retained(CPU_NODE);
    try {
      assert.equal((await transport.run(request('echo one'))).stdout, 'one\n');
      const first = transport.lastPod ?? '';
      await admin.deletePod(NS, first, { gracePeriodSeconds: 0 });
      await eventually('the first pod is gone', () => alive().length === 0);
      const result = await transport.run(request('echo two'));
      assert.equal(result.stdout, 'two\n', 'the run succeeded in a new pod');
      const pods = createdSince(mark);
      assert.equal(pods.length, 2);
      assert.notEqual(transport.lastPod, first);
      assert.deepEqual(alive(), [transport.lastPod]);
      assert.ok(
        log.some((line) => line.includes(`${first} is gone (it was deleted): creating a new debug pod`)),
        log.join('\n'),
      );
    } finally {
      await transport.close();
    }
    await assertNoDebugPodLeft();
  });

  test('a pod the kubelet ended (activeDeadlineSeconds) is deleted and replaced', T, async () => {
    const mark = sim.state.createdPods.length;
    const transport = retained(CPU_NODE);
    try {
      await transport.run(request('true'));
      const first = transport.lastPod ?? '';
      // What the kubelet does at the deadline: the pod fails (DeadlineExceeded) and stays until deleted.
      const pod = sim.state.get('pods', NS, first);
      assert.ok(pod);
      sim.state.put({ ...pod, status: { ...(pod['status'] as object), phase: 'Failed', reason: 'DeadlineExceeded' } } as never);
      assert.equal((await transport.run(request('echo again'))).stdout, 'again\n');
      assert.equal(createdSince(mark).length, 2);
      assert.ok(
        sim.state.deletedPods.some((d) => d.name === first),
        'the failed pod was deleted',
      );
      assert.ok(
        log.some((line) => line.includes(`${first} is gone (it ended: Failed DeadlineExceeded)`)),
        log.join('\n'),
      );
      assert.deepEqual(alive(), [transport.lastPod]);
    } finally {
      await transport.close();
    }
    await assertNoDebugPodLeft();
  });

  test('a pod close to its deadline is replaced before the run', T, async () => {
    const mark = sim.state.createdPods.length;
    // 20 s of life: a 10 s run would end within the 15 s margin, so each run gets a fresh pod.
    const transport = retained(CPU_NODE, { activeDeadlineSeconds: 20 });
    try {
      await transport.run(request('true', { timeoutMs: 10_000 }));
      const first = transport.lastPod;
      await transport.run(request('true', { timeoutMs: 10_000 }));
      assert.notEqual(transport.lastPod, first);
      assert.equal(createdSince(mark).length, 2);
      assert.deepEqual(alive(), [transport.lastPod], 'the old pod was deleted first');
    } finally {
      await transport.close();
    }
    await assertNoDebugPodLeft();
  });

  test('an idle pod is deleted; the next run creates a new one', T, async () => {
    const mark = sim.state.createdPods.length;
    const transport = retained(CPU_NODE, { lifetime: { kind: 'retained', idleMs: 400 } });
    try {
      await transport.run(request('true'));
      await transport.run(request('true'));
      assert.equal(createdSince(mark).length, 1, 'runs within the idle time share the pod');
      await eventually('the idle pod is deleted', () => transport.state.kind === 'none' && alive().length === 0, 10_000);
      assert.equal((await transport.run(request('echo back'))).stdout, 'back\n');
      assert.equal(createdSince(mark).length, 2);
      assert.equal(transport.state.kind, 'ready');
    } finally {
      await transport.close();
    }
    await assertNoDebugPodLeft();
  });

  test('two runs at once share one pod (runs are queued)', T, async () => {
    const mark = sim.state.createdPods.length;
    const transport = retained(CPU_NODE);
    try {
      const [a, b] = await Promise.all([transport.run(request('echo a')), transport.run(request('echo b'))]);
      assert.deepEqual([a.stdout, b.stdout], ['a\n', 'b\n']);
      assert.equal(createdSince(mark).length, 1);
    } finally {
      await transport.close();
    }
    await assertNoDebugPodLeft();
  });

  test('cancel mid-exec keeps the pod for the next run; close() then deletes it', T, async () => {
    const mark = sim.state.createdPods.length;
    const transport = retained(CPU_NODE);
    try {
      await transport.run(request('true'));
      const controller = new AbortController();
      const running = transport.run(request('echo started; sleep 30', { signal: controller.signal }));
      await eventually('the exec is running', () => sim.state.runningExecs() > 0);
      controller.abort();
      assert.equal((await transportFailure(running)).kind, 'cancelled');
      assert.equal(transport.state.kind, 'ready');
      assert.equal((await transport.run(request('echo next'))).stdout, 'next\n');
      assert.equal(createdSince(mark).length, 1);
    } finally {
      await transport.close();
    }
    await assertNoDebugPodLeft();
  });

  test('cancel while the pod starts: the pod is deleted at once', T, async () => {
    sim.setFault({ podWaitingReason: 'ContainerCreating' });
    const transport = retained(CPU_NODE);
    const controller = new AbortController();
    try {
      const running = transport.run(request('true', { signal: controller.signal }));
      await eventually(
        'the pod exists',
        () => transport.lastPod !== undefined && sim.state.get('pods', NS, transport.lastPod) !== undefined,
      );
      assert.equal(transport.state.kind, 'starting');
      controller.abort();
      assert.equal((await transportFailure(running)).kind, 'cancelled');
      assert.deepEqual(transport.state, { kind: 'none' });
      await eventually('deleted without waiting for close()', () => alive().length === 0);
    } finally {
      await transport.close();
    }
    await assertNoDebugPodLeft();
  });

  test('close() while the pod starts: the run ends cancelled and the pod is deleted', T, async () => {
    sim.setFault({ podWaitingReason: 'ContainerCreating' });
    const transport = retained(CPU_NODE);
    const running = transport.run(request('true'));
    await eventually('the pod exists', () => transport.lastPod !== undefined && sim.state.get('pods', NS, transport.lastPod) !== undefined);
    await transport.close();
    assert.equal((await transportFailure(running)).kind, 'cancelled');
    assert.deepEqual(transport.state, { kind: 'closed' });
    await assertNoDebugPodLeft();
  });

  test('close() while a run creates the pod (before the API server answered): the pod is still deleted', T, async () => {
    sim.setFault({ latencyMs: 400 });
    const transport = retained(CPU_NODE);
    const mark = sim.state.requests.length;
    const running = transport.run(request('true'));
    await eventually('the create is on its way', () =>
      sim.state.requests.slice(mark).some((r) => r.method === 'POST' && r.path.startsWith(`/api/v1/namespaces/${NS}/pods`)),
    );
    await transport.close();
    assert.equal((await transportFailure(running)).kind, 'cancelled');
    sim.setFault(null);
    await assertNoDebugPodLeft();
  });

  test('fault: the exec WebSocket dropped mid-run: the run fails, the pod (still running) is kept, close() deletes it', T, async () => {
    const mark = sim.state.createdPods.length;
    const transport = retained(CPU_NODE);
    try {
      await transport.run(request('true'));
      sim.setFault({ dropExecAfterStdoutBytes: 64 });
      const failure = await transportFailure(
        transport.run(request('i=0; while [ $i -lt 2000 ]; do echo 0123456789abcdef; i=$((i+1)); done; sleep 5')),
      );
      assert.equal(failure.kind, 'disconnected');
      sim.setFault(null);
      assert.equal(transport.state.kind, 'ready');
      assert.equal((await transport.run(request('echo fine'))).stdout, 'fine\n');
      assert.equal(createdSince(mark).length, 1, 'a dropped socket is no reason for a new pod');
    } finally {
      await transport.close();
    }
    await assertNoDebugPodLeft();
  });

  test('fault: 500 on create: the run fails, a delete is attempted, the next run creates the pod', T, async () => {
    sim.setFault({ forceStatus: [{ method: 'POST', path: `/api/v1/namespaces/${NS}/pods`, code: 500, times: 1 }] });
    const transport = retained(CPU_NODE);
    const mark = sim.state.requests.length;
    try {
      const failure = await transportFailure(transport.run(request('true')));
      assert.equal(failure.kind, 'connect');
      assert.match(failure.kind === 'connect' ? failure.detail : '', /500/);
      assert.deepEqual(transport.state, { kind: 'none' });
      assert.ok(
        sim.state.requests.slice(mark).some((r) => r.method === 'DELETE' && r.path.includes(`/pods/${transport.lastPod}`)),
        'a create that may have happened is followed by a delete',
      );
      assert.equal((await transport.run(request('echo ok'))).stdout, 'ok\n');
      assert.equal(transport.state.kind, 'ready');
    } finally {
      await transport.close();
    }
    await assertNoDebugPodLeft();
  });

  test(
    'a log that throws (the output channel closed at shutdown) stops nothing: close() deletes the pod once and resolves',
    T,
    async () => {
      let closed = false;
      const transport = retained(CPU_NODE, {
        log: () => {
          if (closed) throw new Error('Channel has been closed');
        },
      });
      await transport.run(request('true'));
      const pod = transport.lastPod ?? '';
      const mark = sim.state.requests.length;
      closed = true;
      await transport.close();
      const deletes = sim.state.requests.slice(mark).filter((r) => r.method === 'DELETE' && r.path.includes(`/pods/${pod}`));
      assert.equal(deletes.length, 1, 'one DELETE, no retries of a delete that worked');
      assert.deepEqual(transport.cleanupFailures, []);
      await assertNoDebugPodLeft();
    },
  );

  test('a per-run transport is unchanged: a pod per run, deleted after each', T, async () => {
    const mark = sim.state.createdPods.length;
    const transport = new DebugPodTransport({ client: admin, node: CPU_NODE, namespace: NS });
    try {
      await transport.run(request('true'));
      assert.deepEqual(alive(), [], 'deleted right after the run');
      await transport.run(request('true'));
      assert.equal(createdSince(mark).length, 2);
      assert.deepEqual(transport.state, { kind: 'none' }, 'nothing retained');
    } finally {
      await transport.close();
    }
    await assertNoDebugPodLeft();
  });
});
