// The node debug pod's safety nets, against the Kubernetes API simulator (real client-node, real exec):
//   - activeDeadlineSeconds as the kubelet applies it: phase Failed, reason DeadlineExceeded, counted from
//     status.startTime; such a pod stays until something deletes it;
//   - the leftover sweep: a run first deletes its creator's finished or expired debug pods (as a SIGKILLed
//     run leaves them), never another user's pod nor one still within its deadline, and says how many;
//   - /host recursively read-only where the node's runtime reports the feature (Node status.runtimeHandlers),
//     plain read-only otherwise, and the API server's and kubelet's checks of recursiveReadOnly;
//   - the registry VS Code's deactivate() closes: an in-flight Inspect Node's pod is deleted.
// Needs root (the simulator execs into chroot fixture roots). Run:
//   npx node --test --test-concurrency=1 test/integration/debugPodSafety.test.ts
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Pod } from '@kubernetes/client-node';
import type { ClusterClient } from '../../src/kube/clusterClient.ts';
import { KubeRequestError } from '../../src/kube/clusterClient.ts';
import { DebugPodRegistry } from '../../src/kube/debugPodRegistry.ts';
import { DEBUG_POD_CREATOR_ANNOTATION, debugPodManifest, debugPodName } from '../../src/kube/debugPodSpec.ts';
import { sweepDebugPods } from '../../src/kube/debugPodSweep.ts';
import { DebugPodTransport } from '../../src/kube/debugPodTransport.ts';
import type { DebugPodTransportOptions } from '../../src/kube/debugPodTransport.ts';
import { DEBUG_POD_ROOTS_UNAVAILABLE, execRequest as request, startDebugPodCluster } from '../helpers/debugPodCluster.ts';
import type { DebugPodCluster } from '../helpers/debugPodCluster.ts';
import { eventually, transportFailure } from '../helpers/asserts.ts';
import type { Simulator } from '../simulator/server.ts';

const T = { timeout: 90_000 };
const NS = 'gpumem-safety';
const NODE = 'strix-node-1';
const ME = 'ana@laptop';
const OTHER = 'bo@desktop';

describe(
  'debug pod safety: deadlines, leftovers, recursive read-only /host, deactivate',
  { skip: DEBUG_POD_ROOTS_UNAVAILABLE ?? false },
  () => {
    let cluster: DebugPodCluster;
    let sim: Simulator;
    let admin: ClusterClient;
    const log: string[] = [];

    before(async () => {
      cluster = await startDebugPodCluster(NS);
      ({ sim, admin } = cluster);
    });

    after(() => cluster?.close());

    /** The manifest a run of `creator` creates on NODE (busybox, no tolerations). */
    function manifestOf(creator: string, deadlineSeconds: number, mount: { recursiveReadOnly: boolean; capabilities: string[] }): V1Pod {
      return debugPodManifest({
        name: debugPodName(NODE),
        namespace: NS,
        node: NODE,
        image: 'busybox:1.36',
        activeDeadlineSeconds: deadlineSeconds,
        tolerations: [],
        privileged: false,
        creator,
        ...mount,
      });
    }

    /** A debug pod as a run of `creator` creates it, left behind (its client SIGKILLed). */
    async function leftBehind(creator: string, deadlineSeconds: number): Promise<string> {
      const manifest = manifestOf(creator, deadlineSeconds, { recursiveReadOnly: false, capabilities: ['SYS_PTRACE'] });
      await admin.createPod(NS, manifest);
      return manifest.metadata?.name as string;
    }

    function pod(name: string): V1Pod | undefined {
      return cluster.pod(name);
    }

    function transportOf(extra: Partial<DebugPodTransportOptions> = {}): DebugPodTransport {
      return new DebugPodTransport({ client: admin, node: NODE, namespace: NS, creator: ME, log: (line) => log.push(line), ...extra });
    }

    function setRuntimeHandlers(handlers: unknown[] | undefined): void {
      const node = sim.state.get('nodes', undefined, NODE);
      assert.ok(node);
      const status = node['status'] as Record<string, unknown>;
      if (handlers === undefined) delete status['runtimeHandlers'];
      else status['runtimeHandlers'] = handlers;
      sim.state.put(node);
    }

    test('activeDeadlineSeconds: Failed with reason DeadlineExceeded, from startTime, and the pod stays', T, async () => {
      const name = await leftBehind(ME, 1);
      const failed = await eventually(
        'the pod fails at its deadline',
        () => (pod(name)?.status?.phase === 'Failed' ? pod(name) : undefined),
        10_000,
      );
      assert.equal(failed.status?.reason, 'DeadlineExceeded');
      assert.equal(failed.status?.message, 'Pod was active on the node longer than the specified deadline');
      const started = Date.parse(String(failed.status?.startTime));
      assert.ok(Date.now() - started >= 1000, 'not before startTime + 1 s');
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.ok(pod(name), 'nothing deletes a Failed pod');
      await admin.deletePod(NS, name, { gracePeriodSeconds: 0 });
    });

    test("a run first removes its creator's finished and expired leftovers, never another user's or a pod in use", T, async () => {
      const mine = await leftBehind(ME, 1);
      const theirs = await leftBehind(OTHER, 1);
      const inUse = await leftBehind(ME, 600);
      await eventually('both short pods ended', () => pod(mine)?.status?.phase === 'Failed' && pod(theirs)?.status?.phase === 'Failed');
      await eventually('the long pod runs', () => pod(inUse)?.status?.phase === 'Running');
      // A pod of mine still Running although past its deadline (its node stopped reporting): expired.
      const stale = await leftBehind(ME, 5);
      await eventually('the stale pod runs', () => pod(stale)?.status?.phase === 'Running');
      const stalePod = sim.state.get('pods', NS, stale);
      assert.ok(stalePod);
      (stalePod['status'] as Record<string, unknown>)['startTime'] = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
      sim.state.put(stalePod);

      const mark = log.length;
      const transport = transportOf();
      try {
        const result = await transport.run(request('echo probed\n'));
        assert.equal(result.stdout, 'probed\n');
      } finally {
        await transport.close();
      }
      const outcome = await transport.sweepOutcome();
      assert.equal(outcome?.kind, 'swept');
      const removed = outcome?.kind === 'swept' ? outcome.removed : [];
      assert.deepEqual(removed.map((line) => line.split(' ')[0]).sort(), [mine, stale].sort());
      assert.ok(
        removed.some((line) => line.startsWith(`${mine} (Failed DeadlineExceeded)`)),
        removed.join(', '),
      );
      assert.ok(
        removed.some((line) => line.startsWith(`${stale} (past its activeDeadlineSeconds (5 s))`)),
        removed.join(', '),
      );
      assert.ok(
        log.slice(mark).some((line) => line.includes(`removed 2 leftover debug pod(s) of ${ME} in ${NS}`)),
        log.slice(mark).join('\n'),
      );
      await eventually('the leftovers are gone', () => !pod(mine) && !pod(stale));
      assert.ok(pod(theirs), "another user's pod is never deleted");
      assert.ok(pod(inUse), "a pod within its deadline may be another run's: kept");
      // The new pod names its creator.
      const created = sim.state.createdPods.at(-1);
      assert.ok(created && created.namespace === NS);
      for (const name of [theirs, inUse]) await admin.deletePod(NS, name, { gracePeriodSeconds: 0 });
    });

    test('the sweep costs one list and one delete per leftover (measured), and a forbidden list skips it with the reason', T, async () => {
      const leftovers = await Promise.all(Array.from({ length: 10 }, () => leftBehind(ME, 1)));
      await eventually('all ended', () => leftovers.every((name) => pod(name)?.status?.phase === 'Failed'));
      const started = performance.now();
      const outcome = await sweepDebugPods(admin, NS, ME);
      const ms = performance.now() - started;
      assert.equal(outcome.kind === 'swept' && outcome.removed.length, 10);
      const empty = performance.now();
      assert.deepEqual(await sweepDebugPods(admin, NS, ME), { kind: 'swept', removed: [], failed: [] });
      const emptyMs = performance.now() - empty;
      process.stdout.write(`# sweep of 10 leftovers: ${ms.toFixed(0)} ms; sweep with none: ${emptyMs.toFixed(1)} ms\n`);
      sim.setFault({ forceStatus: [{ method: 'GET', path: new RegExp(`^/api/v1/namespaces/${NS}/pods\\?.*labelSelector`), code: 403 }] });
      try {
        const skipped = await sweepDebugPods(admin, NS, ME);
        assert.equal(skipped.kind, 'skipped');
        assert.match(
          skipped.kind === 'skipped' ? skipped.reason : '',
          /could not list the debug pods of namespace "gpumem-safety".*forbidden/i,
        );
      } finally {
        sim.setFault(null);
      }
    });

    /**
     * One retained run on NODE while it reports `handlers` (Node status.runtimeHandlers): how /host was mounted,
     * the mount as the API server stored it, and what the run logged.
     */
    async function runWithRuntimeHandlers(handlers: unknown[]) {
      setRuntimeHandlers(handlers);
      const transport = transportOf({ sweep: false, lifetime: { kind: 'retained' } });
      const mark = log.length;
      try {
        assert.equal((await transport.run(request('echo probed\n'))).stdout, 'probed\n');
        // Retained, so the pod (and its spec as the API server stored it) is still there after the run.
        const stored = pod(transport.lastPod ?? '');
        return {
          hostMount: transport.hostMount,
          mounts: stored?.spec?.containers[0]?.volumeMounts,
          creator: stored?.metadata?.annotations?.[DEBUG_POD_CREATOR_ANNOTATION],
          logged: log.slice(mark),
        };
      } finally {
        await transport.close();
      }
    }

    test('/host is mounted recursively read-only when the runtime reports it, plain read-only (and logged) when not', T, async () => {
      try {
        const supported = await runWithRuntimeHandlers([
          { name: '', features: { recursiveReadOnlyMounts: true, userNamespaces: false } },
          { name: 'runc', features: { recursiveReadOnlyMounts: true } },
        ]);
        assert.deepEqual(supported.hostMount, { kind: 'recursive-read-only' });
        assert.deepEqual(supported.mounts, [
          { name: 'host-root', mountPath: '/host', readOnly: true, recursiveReadOnly: 'Enabled', mountPropagation: 'None' },
        ]);
        assert.equal(supported.creator, ME);
        assert.ok(!supported.logged.some((line) => line.includes('/host is read-only at its top mount only')), supported.logged.join('\n'));

        const unsupported = await runWithRuntimeHandlers([{ name: '', features: { recursiveReadOnlyMounts: false } }]);
        assert.deepEqual(unsupported.hostMount, { kind: 'top-read-only', support: 'unsupported' });
        assert.deepEqual(unsupported.mounts, [{ name: 'host-root', mountPath: '/host', readOnly: true }]);
        assert.ok(
          unsupported.logged.some((line) => line.includes('/host is read-only at its top mount only')),
          unsupported.logged.join('\n'),
        );

        // The kubelet refuses Enabled on a runtime without the feature; the API server checks the field.
        const rro = { recursiveReadOnly: true, capabilities: [] };
        const refused = manifestOf(ME, 60, rro);
        const name = refused.metadata?.name as string;
        await admin.createPod(NS, refused);
        const waiting = await eventually(
          'the container cannot be created',
          () => pod(name)?.status?.containerStatuses?.[0]?.state?.waiting,
        );
        assert.equal(waiting.reason, 'CreateContainerConfigError');
        await admin.deletePod(NS, name, { gracePeriodSeconds: 0 });
        const bad = manifestOf(ME, 60, rro);
        const mount = bad.spec?.containers[0]?.volumeMounts?.[0];
        assert.ok(mount);
        mount.readOnly = false;
        await assert.rejects(
          admin.createPod(NS, bad),
          (error: unknown) => error instanceof KubeRequestError && /readOnly is true/.test(error.message),
        );
      } finally {
        setRuntimeHandlers(undefined);
      }
    });

    test('the registry deactivate() closes: an Inspect Node in flight loses its pod and ends cancelled', T, async () => {
      const registry = new DebugPodRegistry();
      const transport = transportOf({ sweep: false, registry });
      assert.equal(registry.size, 1);
      const run = transport.run(request('sleep 30\n', { timeoutMs: 60_000 }));
      const failure = transportFailure(run);
      const name = await eventually('the probe runs in the pod', () =>
        sim.state.execs.some((e) => e.pod === transport.lastPod) ? transport.lastPod : undefined,
      );
      await registry.closeAll();
      assert.equal(registry.size, 0);
      assert.ok(['cancelled', 'disconnected'].includes((await failure).kind));
      await eventually('the pod is deleted', () => !pod(name));
    });
  },
);
