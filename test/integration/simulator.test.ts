// The Kubernetes API simulator (test/simulator/) driven by the REAL @kubernetes/client-node 2.x: TLS with
// client certificates and bearer tokens, 401/403 bodies, discovery, list/get/watch with selectors and
// pagination, watch bookmarks, timeouts and the 410 Expired (with client-node's Watch and informer), pod
// create/delete, exec over v5, v4 and channel.k8s.io with stdin/stdout/stderr and the exit status, the real
// node probe in a `kubectl debug node/…`-style pod, RBAC messages, every injected fault (each followed by
// the debug pod's deletion), the bench-scale generator and the standalone demo CLI.
//
// Exec tests need root (chroot, mknod, mount). Every simulator, process, mount and temp dir is released in
// after() hooks, on failure too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import { WebSocketHandler } from '@kubernetes/client-node/dist/web-socket-handler.js';
import { parse as parseYaml } from 'yaml';
import { parseCapture } from '../../src/core/probe/capture.ts';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { buildProbeScript, newNonce } from '../../src/core/probe/script.ts';
import { fixtureRootsUnavailable } from '../helpers/fixtureRoot.ts';
import { chrootUnavailable } from '../unit/helpers/probeRoot.ts';
import { FIXTURES_DIR, generateCluster, loadFixtures } from '../simulator/fixtures.ts';
import { mountPoints } from '../simulator/roots.ts';
import { DEMO_CONTEXT, DEMO_GIT_VERSION, startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';
import { WebSocket } from '../simulator/wsTypes.ts';
import type { WsSocket } from '../simulator/wsTypes.ts';

const NO_ROOTS = fixtureRootsUnavailable() ?? chrootUnavailable();
const T = { timeout: 60_000 };
const DEBUG_NS = 'gpumem-debug';

// ------------------------------------------------------------------------------------------------
// Helpers

function kubeConfigFor(sim: Simulator, user: string, options?: Parameters<Simulator['kubeconfig']>[1]): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(sim.kubeconfig(user, options));
  return kc;
}

interface ApiFailure {
  readonly code: number;
  readonly status: Record<string, unknown> | undefined;
}

/** Awaits a client-node call that must fail; returns the HTTP code and the parsed Status body. */
async function failure(promise: Promise<unknown>): Promise<ApiFailure> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof k8s.ApiException) {
      const body = err.body as unknown;
      return {
        code: err.code,
        status:
          typeof body === 'string' && body !== ''
            ? (JSON.parse(body) as Record<string, unknown>)
            : (body as Record<string, unknown> | undefined),
      };
    }
    throw err;
  }
  assert.fail('the call succeeded');
}

interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

interface Credentials {
  readonly cert?: string;
  readonly key?: string;
  readonly token?: string;
}

function credentials(sim: Simulator, user: string): Credentials {
  const doc = parseYaml(sim.kubeconfig(user)) as { users: { user: Record<string, string> }[] };
  const u = doc.users[0]?.user ?? {};
  return {
    ...(u['client-certificate-data'] ? { cert: Buffer.from(u['client-certificate-data'], 'base64').toString() } : {}),
    ...(u['client-key-data'] ? { key: Buffer.from(u['client-key-data'], 'base64').toString() } : {}),
    ...(u['token'] ? { token: u['token'] } : {}),
  };
}

function raw(sim: Simulator, path: string, creds: Credentials = {}, method = 'GET', body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${sim.url}${path}`,
      {
        method,
        ca: sim.ca,
        ...(creds.cert ? { cert: creds.cert, key: creds.key } : {}),
        headers: {
          Accept: 'application/json',
          ...(creds.token ? { Authorization: `Bearer ${creds.token}` } : {}),
          ...(body ? { 'Content-Type': 'application/json' } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface ExecRun {
  readonly stdout: string;
  readonly stderr: string;
  readonly status: k8s.V1Status | undefined;
  readonly closeCode: number;
  readonly protocol: string;
}

/** Runs a command through client-node's Exec; `protocols` forces the offered subprotocol list. */
async function execRun(
  kc: k8s.KubeConfig,
  namespace: string,
  pod: string,
  container: string,
  command: string[],
  stdin: Readable | null,
  protocols?: string[],
): Promise<ExecRun> {
  const handler = protocols
    ? new WebSocketHandler(kc, (uri: string, _offered: string[], opts: object) => new WebSocket(uri, protocols, opts))
    : undefined;
  const exec = new k8s.Exec(kc, handler);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  let status: k8s.V1Status | undefined;
  const ws = (await exec.exec(
    namespace,
    pod,
    container,
    command,
    stdout,
    stderr,
    stdin,
    false,
    (s) => (status = s),
  )) as unknown as WsSocket;
  const closeCode = await new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  return { stdout: out, stderr: err, status, closeCode, protocol: ws.protocol };
}

function exitCodeOf(status: k8s.V1Status | undefined): number | undefined {
  if (!status) return undefined;
  if (status.status === 'Success') return 0;
  const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
  return cause?.message === undefined ? undefined : Number(cause.message);
}

function debugPod(node: string): k8s.V1Pod {
  return {
    metadata: {
      generateName: `gpumem-node-debug-${node}-`,
      labels: { 'app.kubernetes.io/managed-by': 'gpumem', 'gpumem.dev/probe': 'node' },
    },
    spec: {
      nodeName: node,
      hostPID: true,
      restartPolicy: 'Never',
      activeDeadlineSeconds: 600,
      tolerations: [{ operator: 'Exists' }],
      containers: [
        { name: 'debugger', image: 'busybox', command: ['sleep', '3600'], volumeMounts: [{ name: 'host-root', mountPath: '/host' }] },
      ],
      volumes: [{ name: 'host-root', hostPath: { path: '/' } }],
    },
  };
}

async function waitFor<V>(what: string, probe: () => Promise<V | undefined> | V | undefined, timeoutMs = 10_000): Promise<V> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function waitRunning(core: k8s.CoreV1Api, namespace: string, name: string): Promise<k8s.V1Pod> {
  return waitFor(`pod ${namespace}/${name} Running`, async () => {
    const pod = await core.readNamespacedPod({ namespace, name });
    return pod.status?.phase === 'Running' ? pod : undefined;
  });
}

/** Every debug pod created so far was deleted, is gone, and left no mount behind. */
async function assertDebugPodsCleaned(sim: Simulator): Promise<void> {
  for (const created of sim.state.createdPods.filter((p) => p.namespace === DEBUG_NS)) {
    assert.ok(
      sim.state.deletedPods.some((d) => d.uid === created.uid),
      `debug pod ${created.name} was deleted`,
    );
    await sim.state.waitForPodGone(created.namespace, created.name);
  }
  assert.deepEqual(
    sim.state.list('pods', DEBUG_NS).map((p) => p.metadata.name),
    [],
    'no debug pod left',
  );
  assert.deepEqual(sim.state.mounts(), [], 'no /host bind left mounted');
  assert.equal(sim.state.runningExecs(), 0, 'no exec left running');
}

// ------------------------------------------------------------------------------------------------

describe('API simulator with the fixture cluster, through client-node', () => {
  let sim: Simulator;
  let admin: k8s.KubeConfig;
  let core: k8s.CoreV1Api;
  let pkiDir = '';

  before(async () => {
    sim = await startSimulator({ fixtures: loadFixtures(), podStartDelayMs: 80, podStopDelayMs: 40, bookmarkIntervalMs: 150 });
    pkiDir = join(sim.caFile, '..');
    admin = kubeConfigFor(sim, 'admin');
    core = admin.makeApiClient(k8s.CoreV1Api);
  });

  after(async () => {
    const dirs = sim?.state.rootDirectories() ?? [];
    await sim?.close();
    assert.equal(existsSync(pkiDir), false, 'the PKI directory is removed');
    for (const dir of dirs) assert.equal(existsSync(dir), false, `root ${dir} is removed`);
    assert.deepEqual(
      mountPoints().filter((m) => dirs.some((d) => m.startsWith(d))),
      [],
      'nothing mounted under a root',
    );
    assert.deepEqual(sim?.state.cleanupProblems ?? [], []);
  });

  describe('authentication and discovery', () => {
    test('client certificate over TLS: /version, discovery and a node list', T, async () => {
      const version = await admin.makeApiClient(k8s.VersionApi).getCode();
      assert.equal(version.gitVersion, DEMO_GIT_VERSION);
      assert.equal(admin.getCurrentContext(), DEMO_CONTEXT);
      assert.equal(admin.getCurrentCluster()?.server, sim.url);
      const coreResources = await core.getAPIResources();
      assert.ok(coreResources.resources.some((r) => r.name === 'pods' && r.namespaced && r.verbs.includes('watch')));
      assert.ok(coreResources.resources.some((r) => r.name === 'pods/exec'));
      const apps = await admin.makeApiClient(k8s.AppsV1Api).getAPIResources();
      assert.deepEqual(apps.resources.map((r) => r.name).sort(), ['daemonsets', 'deployments', 'replicasets', 'statefulsets']);
      const batch = await admin.makeApiClient(k8s.BatchV1Api).getAPIResources();
      assert.deepEqual(batch.resources.map((r) => r.name).sort(), ['cronjobs', 'jobs']);
      const groups = await admin.makeApiClient(k8s.ApisApi).getAPIVersions();
      assert.ok(groups.groups.some((g) => g.name === 'apps'));
      assert.ok(groups.groups.some((g) => g.name === 'batch'));
      const nodes = await core.listNode();
      assert.deepEqual(
        nodes.items.map((n) => n.metadata?.name),
        ['gpu-node-7', 'gpu-node-8', 'secure-node-1', 'strix-node-1', 'web-node-3'],
      );
      assert.match(nodes.metadata?.resourceVersion ?? '', /^\d+$/);
      const who = credentials(sim, 'admin');
      assert.ok(who.cert && who.key && !who.token, 'the admin kubeconfig carries a client certificate');
    });

    test('bearer token: the viewer reads, and its kubeconfig holds no certificate', T, async () => {
      const creds = credentials(sim, 'viewer');
      assert.equal(creds.token, 'gpumem-demo-viewer-token');
      assert.equal(creds.cert, undefined);
      const viewer = kubeConfigFor(sim, 'viewer').makeApiClient(k8s.CoreV1Api);
      assert.equal((await viewer.listNode()).items.length, 5);
      const last = sim.state.requests.filter((r) => r.path === '/api/v1/nodes').at(-1);
      assert.equal(last?.user, 'viewer');
    });

    test('no credentials, a wrong token or a foreign certificate: 401 with the Status body', T, async () => {
      for (const creds of [{}, { token: 'not-a-token' }] as Credentials[]) {
        const res = await raw(sim, '/api/v1/nodes', creds);
        assert.equal(res.status, 401);
        assert.equal(res.headers['content-type'], 'application/json');
        assert.deepEqual(JSON.parse(res.body), {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'Unauthorized',
          reason: 'Unauthorized',
          code: 401,
        });
      }
      // client-node on a kubeconfig user without credentials: ApiException 401 (it drops the body on 401).
      const kc = new k8s.KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: 'c', server: sim.url, caData: Buffer.from(sim.ca).toString('base64') }],
        users: [{ name: 'u' }],
        contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
        currentContext: 'x',
      });
      const f = await failure(kc.makeApiClient(k8s.CoreV1Api).listNode());
      assert.equal(f.code, 401);
      const other = await startSimulator({ fixtures: loadFixtures(), roots: false });
      try {
        const foreign = credentials(other, 'admin');
        const res = await raw(sim, '/api/v1/nodes', foreign);
        assert.equal(res.status, 401, 'a certificate from another CA authenticates nobody');
      } finally {
        await other.close();
      }
      const healthz = await raw(sim, '/readyz', credentials(sim, 'admin'));
      assert.equal(healthz.body, 'ok');
    });
  });

  describe('list, get, selectors, pagination', () => {
    test('get: node and pod objects as the fixtures wrote them, completed like a real cluster', T, async () => {
      const apu = await core.readNode({ name: 'strix-node-1' });
      assert.equal(apu.metadata?.labels?.['amd.com/gpu.device-id'], '1586');
      assert.equal(apu.status?.capacity?.['amd.com/gpu'], '1');
      assert.equal(apu.status?.conditions?.find((c) => c.type === 'MemoryPressure')?.status, 'True');
      assert.ok(apu.spec?.taints?.some((t) => t.key === 'amd.com/gpu'));
      assert.ok(apu.metadata?.uid && apu.metadata.resourceVersion);
      const llama = await core.readNamespacedPod({ namespace: 'default', name: 'llama-0' });
      const cs = llama.status?.containerStatuses?.[0];
      assert.equal(cs?.lastState?.terminated?.reason, 'OOMKilled');
      assert.ok((cs?.restartCount ?? 0) > 0);
      assert.equal(llama.status?.qosClass, 'Burstable');
      assert.equal(llama.status?.hostIP, '10.0.4.21');
      assert.equal(llama.metadata?.uid, 'b7f3c2a4-9e1d-4f6b-8a2c-5d0e7f1a3b96', 'the uid the node root accounts GTT to');

      const rawNode = JSON.parse((await raw(sim, '/api/v1/nodes/strix-node-1', credentials(sim, 'admin'))).body) as Record<string, unknown>;
      assert.equal(rawNode['kind'], 'Node');
      assert.equal(rawNode['apiVersion'], 'v1');
      const rawList = JSON.parse((await raw(sim, '/api/v1/nodes', credentials(sim, 'admin'))).body) as {
        kind: string;
        apiVersion: string;
        metadata: Record<string, unknown>;
        items: Record<string, unknown>[];
      };
      assert.equal(rawList.kind, 'NodeList');
      assert.match(String(rawList.metadata['resourceVersion']), /^\d+$/);
      assert.equal(rawList.items[0]?.['kind'], undefined, 'list items carry no TypeMeta, as from the API server');

      const missing = await failure(core.readNamespacedPod({ namespace: 'default', name: 'nope' }));
      assert.equal(missing.code, 404);
      assert.deepEqual(missing.status, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'pods "nope" not found',
        reason: 'NotFound',
        details: { name: 'nope', kind: 'pods' },
        code: 404,
      });
      const ns = await core.readNamespace({ name: 'gpumem-debug' });
      assert.equal(ns.status?.phase, 'Active');
    });

    test('HAMi: the register annotation in both formats, device-plugin and scheduler pods by label', T, async () => {
      const json = await core.readNode({ name: 'gpu-node-7' });
      const devices = JSON.parse(json.metadata?.annotations?.['hami.io/node-nvidia-register'] ?? '[]') as {
        id: string;
        count: number;
        devmem: number;
      }[];
      assert.equal(devices[0]?.id, 'GPU-6f1d2c3b-8a4e-4b2f-9c1d-0e7a5b3c2d1f');
      assert.equal(devices[0]?.count, 10);
      assert.equal(json.status?.capacity?.['nvidia.com/gpu'], '10');
      const csv = await core.readNode({ name: 'gpu-node-8' });
      assert.match(
        csv.metadata?.annotations?.['hami.io/node-nvidia-register'] ?? '',
        /^(GPU-[0-9a-f-]+,10,40960,100,NVIDIA-[^,]+,0,true,\d,hami-core:){2}$/,
      );
      const onNode = await core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=gpu-node-7' });
      const byName = new Map(onNode.items.map((p) => [p.metadata?.name, p]));
      assert.deepEqual([...byName.keys()].sort(), ['hami-device-plugin-x7k2p', 'static-infer-0', 'trainer-0']);
      assert.equal(byName.get('trainer-0')?.metadata?.annotations?.['hami.io/bind-phase'], 'success');
      assert.match(
        byName.get('trainer-0')?.metadata?.annotations?.['hami.io/vgpu-devices-allocated'] ?? '',
        /^GPU-[0-9a-f-]+,NVIDIA,8192,50:;$/,
      );
      assert.ok(
        byName.get('static-infer-0')?.spec?.containers[0]?.env?.some((e) => e.name === 'CUDA_DISABLE_CONTROL' && e.value === 'true'),
      );
      const plugin = await core.listPodForAllNamespaces({
        labelSelector: 'app.kubernetes.io/component=hami-device-plugin',
        fieldSelector: 'spec.nodeName=gpu-node-7',
      });
      assert.deepEqual(
        plugin.items.map((p) => p.metadata?.name),
        ['hami-device-plugin-x7k2p'],
      );
      assert.equal(
        plugin.items[0]?.status?.containerStatuses?.every((c) => c.ready),
        true,
      );
      const broken = await core.listNamespacedPod({
        namespace: 'kube-system',
        fieldSelector: 'spec.nodeName=gpu-node-8',
        labelSelector: 'app.kubernetes.io/component=hami-device-plugin',
      });
      assert.equal(broken.items[0]?.status?.containerStatuses?.[0]?.state?.waiting?.reason, 'CrashLoopBackOff');
      const apps = admin.makeApiClient(k8s.AppsV1Api);
      const ds = await apps.listNamespacedDaemonSet({
        namespace: 'kube-system',
        labelSelector: 'app.kubernetes.io/component=hami-device-plugin',
      });
      assert.equal(ds.items[0]?.status?.numberReady, 1);
      const deploys = await apps.listDeploymentForAllNamespaces({ labelSelector: 'app.kubernetes.io/component=hami-scheduler' });
      assert.deepEqual(
        deploys.items.map((d) => `${d.metadata?.namespace}/${d.metadata?.name}`),
        ['kube-system/hami-scheduler'],
      );
      const scheduler = await core.listPodForAllNamespaces({
        labelSelector: 'app.kubernetes.io/component=hami-scheduler,hami.io/scheduler-role=leader',
      });
      assert.equal(scheduler.items.length, 1);
    });

    test('field selectors: spec.nodeName, metadata.name, metadata.namespace, status.phase!=, and an unsupported field', T, async () => {
      const apu = await core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=strix-node-1' });
      assert.deepEqual(
        apu.items.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`),
        ['default/embed-nightly-29420160-q7wzt', 'default/llama-0', 'monitoring/node-exporter-7xq2d'],
      );
      const named = await core.listPodForAllNamespaces({ fieldSelector: 'metadata.name=trainer-0' });
      assert.deepEqual(
        named.items.map((p) => p.metadata?.namespace),
        ['ml'],
      );
      const ns = await core.listPodForAllNamespaces({ fieldSelector: 'metadata.namespace=web,spec.nodeName=web-node-3' });
      assert.deepEqual(
        ns.items.map((p) => p.metadata?.name),
        ['api', 'worker'],
      );
      const all = await core.listPodForAllNamespaces();
      assert.equal((await core.listPodForAllNamespaces({ fieldSelector: 'status.phase!=Running' })).items.length, 0);
      assert.equal((await core.listPodForAllNamespaces({ fieldSelector: 'status.phase!=Pending' })).items.length, all.items.length);
      const notOnNode = await core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName!=gpu-node-7' });
      assert.equal(notOnNode.items.length, all.items.length - 3);
      const bad = await failure(core.listPodForAllNamespaces({ fieldSelector: 'spec.foo=bar' }));
      assert.equal(bad.code, 400);
      assert.equal(bad.status?.['message'], 'field label not supported: spec.foo');
      assert.equal(bad.status?.['reason'], 'BadRequest');
      const unsched = await core.listNode({ fieldSelector: 'spec.unschedulable=false' });
      assert.equal(unsched.items.length, 5);
    });

    test('label selectors: =, !=, in, notin, existence, non-existence; a malformed one is a 400', T, async () => {
      const names = async (labelSelector: string) =>
        (await core.listPodForAllNamespaces({ labelSelector })).items.map((p) => p.metadata?.name).sort();
      assert.deepEqual(await names('app.kubernetes.io/component=hami-device-plugin'), [
        'hami-device-plugin-m4t9z',
        'hami-device-plugin-x7k2p',
      ]);
      assert.deepEqual(await names('app.kubernetes.io/component in (hami-scheduler, hami-device-plugin)'), [
        'hami-device-plugin-m4t9z',
        'hami-device-plugin-x7k2p',
        'hami-scheduler-6d9c7b8f5-q8w2r',
      ]);
      assert.deepEqual(await names('app.kubernetes.io/component,app.kubernetes.io/component notin (hami-device-plugin)'), [
        'hami-scheduler-6d9c7b8f5-q8w2r',
      ]);
      assert.deepEqual(await names('hami.io/scheduler-role'), ['hami-scheduler-6d9c7b8f5-q8w2r']);
      assert.deepEqual(await names('app in (llama,trainer),app!=trainer'), ['llama-0']);
      assert.deepEqual(await names('!app,!app.kubernetes.io/component'), ['embed-nightly-29420160-q7wzt', 'node-exporter-7xq2d']);
      const nodes = (await core.listNode({ labelSelector: 'gpu=on' })).items.map((n) => n.metadata?.name);
      assert.deepEqual(nodes, ['gpu-node-7', 'gpu-node-8']);
      const bad = await failure(core.listPodForAllNamespaces({ labelSelector: 'app in (a' }));
      assert.equal(bad.code, 400);
      assert.match(String(bad.status?.['message']), /unable to parse requirement/);
    });

    test(
      'workload owners as their controllers write them: Deployment → ReplicaSet → Pod, StatefulSet → Pod, CronJob → Job → Pod',
      T,
      async () => {
        const apps = admin.makeApiClient(k8s.AppsV1Api);
        const batch = admin.makeApiClient(k8s.BatchV1Api);
        const controllerOf = (refs: k8s.V1OwnerReference[] | undefined) => {
          const ref = refs?.find((r) => r.controller === true);
          return ref ? `${ref.kind}/${ref.name}/${ref.uid}` : undefined;
        };
        const uidOf = (o: { metadata?: k8s.V1ObjectMeta }) => `${o.metadata?.name}/${o.metadata?.uid}`;

        const deployment = await apps.readNamespacedDeployment({ namespace: 'kube-system', name: 'hami-scheduler' });
        const replicaSets = await apps.listNamespacedReplicaSet({ namespace: 'kube-system', labelSelector: 'pod-template-hash=6d9c7b8f5' });
        assert.equal(replicaSets.items.length, 1);
        const rs = replicaSets.items[0] as k8s.V1ReplicaSet;
        assert.equal(controllerOf(rs.metadata?.ownerReferences), `Deployment/${uidOf(deployment)}`);
        assert.equal(rs.spec?.selector.matchLabels?.['pod-template-hash'], rs.metadata?.labels?.['pod-template-hash']);
        const rsPods = await core.listNamespacedPod({
          namespace: 'kube-system',
          labelSelector: Object.entries(rs.spec?.selector.matchLabels ?? {})
            .map(([k, v]) => `${k}=${v}`)
            .join(','),
        });
        assert.deepEqual(
          rsPods.items.map((p) => controllerOf(p.metadata?.ownerReferences)),
          [`ReplicaSet/${uidOf(rs)}`],
        );

        const sts = await apps.listStatefulSetForAllNamespaces();
        assert.deepEqual(
          sts.items.map((s) => `${s.metadata?.namespace}/${s.metadata?.name}`),
          ['default/llama'],
        );
        const llama = await core.readNamespacedPod({ namespace: 'default', name: 'llama-0' });
        assert.equal(controllerOf(llama.metadata?.ownerReferences), `StatefulSet/${uidOf(sts.items[0] as k8s.V1StatefulSet)}`);
        assert.equal(llama.status?.containerStatuses?.[0]?.lastState?.terminated?.reason, 'OOMKilled');

        const cronJob = await batch.readNamespacedCronJob({ namespace: 'default', name: 'embed-nightly' });
        const jobs = await batch.listJobForAllNamespaces({ labelSelector: 'batch.kubernetes.io/job-name' });
        assert.equal(jobs.items.length, 1);
        const job = jobs.items[0] as k8s.V1Job;
        assert.equal(controllerOf(job.metadata?.ownerReferences), `CronJob/${uidOf(cronJob)}`);
        assert.equal(cronJob.status?.active?.[0]?.uid, job.metadata?.uid);
        const jobPods = await core.listNamespacedPod({
          namespace: 'default',
          labelSelector: `batch.kubernetes.io/controller-uid=${job.spec?.selector?.matchLabels?.['batch.kubernetes.io/controller-uid']}`,
        });
        assert.deepEqual(
          jobPods.items.map((p) => controllerOf(p.metadata?.ownerReferences)),
          [`Job/${uidOf(job)}`],
        );
        const killed = jobPods.items[0]?.status?.containerStatuses?.[0];
        assert.equal(killed?.lastState?.terminated?.reason, 'OOMKilled');
        assert.equal(killed?.restartCount, 1);
        assert.equal((await batch.listJobForAllNamespaces({ fieldSelector: 'status.successful=1' })).items.length, 0);

        // A watch of Jobs sees one added as the Job controller would (list, then watch from its resourceVersion).
        const seen: string[] = [];
        let abort: AbortController | undefined;
        const done = new Promise<unknown>((resolve) => {
          void new k8s.Watch(admin)
            .watch(
              '/apis/batch/v1/namespaces/default/jobs',
              { resourceVersion: jobs.metadata?.resourceVersion },
              (type, obj: k8s.V1Job) => seen.push(`${type} ${obj.kind} ${obj.metadata?.name}`),
              resolve,
            )
            .then((controller) => (abort = controller));
        });
        await waitFor('the watch to be open', () => (sim.state.openWatches() > 0 ? true : undefined));
        sim.state.put({
          ...structuredClone(job),
          metadata: { name: 'embed-nightly-29421600', namespace: 'default' },
          kind: 'Job',
          apiVersion: 'batch/v1',
        } as never);
        await waitFor('ADDED', () => (seen.length > 0 ? true : undefined));
        sim.state.remove('jobs', 'default', 'embed-nightly-29421600');
        await waitFor('DELETED', () => (seen.length > 1 ? true : undefined));
        abort?.abort();
        await done;
        assert.deepEqual(seen, ['ADDED Job embed-nightly-29421600', 'DELETED Job embed-nightly-29421600']);
      },
    );

    test("events: a node's SystemOOM through involvedObject field selectors", T, async () => {
      const events = await core.listEventForAllNamespaces({ fieldSelector: 'involvedObject.kind=Node,involvedObject.name=strix-node-1' });
      const oom = events.items.filter((e) => e.reason === 'SystemOOM');
      assert.equal(oom.length, 1);
      assert.equal(oom[0]?.message, 'System OOM encountered, victim process: llama-server, pid: 398211');
      assert.equal(oom[0]?.type, 'Warning');
      assert.equal(oom[0]?.source?.component, 'kubelet');
      const age = Date.now() - new Date(oom[0]?.lastTimestamp ?? 0).getTime();
      assert.ok(age > 0 && age < 3_600_000, 'recent (a real cluster keeps events for an hour)');
      const inDefault = await core.listNamespacedEvent({ namespace: 'default', fieldSelector: 'reason=SystemOOM' });
      assert.equal(inDefault.items.length, 1);
      assert.equal(
        (await core.listEventForAllNamespaces({ fieldSelector: 'involvedObject.kind=Node,involvedObject.name=web-node-3' })).items.length,
        0,
      );
    });

    test('limit/continue pagination walks every pod once; a compacted continue token is a 410', T, async () => {
      const all = (await core.listPodForAllNamespaces()).items.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`);
      const paged: string[] = [];
      let token: string | undefined;
      let pages = 0;
      do {
        const page = await core.listPodForAllNamespaces({ limit: 3, ...(token ? { _continue: token } : {}) });
        paged.push(...page.items.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`));
        if (page.metadata?._continue) assert.equal(page.metadata.remainingItemCount, all.length - paged.length);
        token = page.metadata?._continue;
        pages++;
      } while (token);
      assert.deepEqual(paged, all);
      assert.equal(pages, Math.ceil(all.length / 3));
      const first = await core.listPodForAllNamespaces({ limit: 2 });
      const node = sim.state.get('nodes', undefined, 'gpu-node-8');
      assert.ok(node);
      sim.state.put(node); // a change after the token's resourceVersion, then etcd-style compaction
      sim.state.store.compact();
      const expired = await failure(core.listPodForAllNamespaces({ limit: 2, _continue: first.metadata?._continue ?? '' }));
      assert.equal(expired.code, 410);
      assert.equal(expired.status?.['reason'], 'Expired');
    });
  });

  describe('watch', () => {
    test('ADDED, MODIFIED (Pending → Running), DELETED of a created pod on a node-scoped watch, and BOOKMARKs', T, async () => {
      const list = await core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=web-node-3' });
      const seen: string[] = [];
      let bookmarks = 0;
      const watch = new k8s.Watch(admin);
      const done = new Promise<unknown>((resolve) => {
        void watch
          .watch(
            '/api/v1/pods',
            { resourceVersion: list.metadata?.resourceVersion, fieldSelector: 'spec.nodeName=web-node-3', allowWatchBookmarks: true },
            (type, obj: k8s.V1Pod) => {
              if (type === 'BOOKMARK') bookmarks++;
              else seen.push(`${type} ${obj.metadata?.name ?? ''} ${obj.status?.phase ?? ''}`);
            },
            resolve,
          )
          .then((controller) => (abort = controller));
      });
      let abort: AbortController | undefined;
      await waitFor('the watch to be open', () => (sim.state.openWatches() > 0 ? true : undefined));
      const created = await core.createNamespacedPod({
        namespace: 'web',
        body: {
          metadata: { name: 'watch-me' },
          spec: { nodeName: 'web-node-3', containers: [{ name: 'c', image: 'busybox', command: ['sleep', '60'] }] },
        },
      });
      assert.equal(created.status?.phase, 'Pending');
      await waitFor('Running', () => (seen.some((s) => s === 'MODIFIED watch-me Running') ? true : undefined));
      await core.createNamespacedPod({
        namespace: 'web',
        body: { metadata: { name: 'elsewhere' }, spec: { nodeName: 'gpu-node-8', containers: [{ name: 'c', image: 'busybox' }] } },
      });
      await core.deleteNamespacedPod({ namespace: 'web', name: 'watch-me', gracePeriodSeconds: 0 });
      await core.deleteNamespacedPod({ namespace: 'web', name: 'elsewhere', gracePeriodSeconds: 0 });
      await waitFor('DELETED', () => (seen.some((s) => s.startsWith('DELETED watch-me')) ? true : undefined));
      await waitFor('a bookmark', () => (bookmarks > 0 ? true : undefined));
      abort?.abort();
      await done;
      assert.equal(seen[0], 'ADDED watch-me Pending');
      assert.ok(seen.includes('MODIFIED watch-me Running'));
      assert.ok(!seen.some((s) => s.includes('elsewhere')), 'the field selector applies to the watch');
    });

    test('a compacted resourceVersion: an ERROR event with the 410 Expired Status, then the stream ends', T, async () => {
      sim.state.store.compact();
      const events: { type: string; obj: Record<string, unknown> }[] = [];
      const err = await new Promise<unknown>((resolve) => {
        void new k8s.Watch(admin).watch(
          '/api/v1/nodes',
          { resourceVersion: '1' },
          (type, obj: Record<string, unknown>) => events.push({ type, obj }),
          resolve,
        );
      });
      assert.equal(err, null, 'the server ends the stream (done without an error)');
      assert.equal(events.length, 1);
      assert.equal(events[0]?.type, 'ERROR');
      const status = events[0]?.obj ?? {};
      assert.equal(status['kind'], 'Status');
      assert.equal(status['code'], 410);
      assert.equal(status['reason'], 'Expired');
      assert.match(String(status['message']), /^too old resource version: 1 \(\d+\)$/);
    });

    test('timeoutSeconds ends the watch; an informer re-lists after an expired watch and keeps up', T, async () => {
      const started = Date.now();
      const err = await new Promise<unknown>((resolve) => {
        void new k8s.Watch(admin).watch('/api/v1/namespaces', { timeoutSeconds: 1 }, () => undefined, resolve);
      });
      assert.equal(err, null);
      assert.ok(Date.now() - started >= 900 && Date.now() - started < 5000);

      const listCalls = () => sim.state.requests.filter((r) => r.method === 'GET' && r.path === '/api/v1/nodes').length;
      const informer = k8s.makeInformer(admin, '/api/v1/nodes', () => core.listNode());
      const updates: string[] = [];
      const errors: unknown[] = [];
      informer.on('update', (n) => updates.push(n.metadata?.name ?? ''));
      informer.on('error', (e) => errors.push(e));
      await informer.start();
      try {
        const before = listCalls();
        await waitFor('the informer watch', () => (sim.state.openWatches() > 0 ? true : undefined));
        sim.setFault({ expireWatches: true });
        await waitFor('a re-list', () => (listCalls() > before ? true : undefined));
        await waitFor('the new watch', () => (sim.state.openWatches() > 0 ? true : undefined));
        const node = sim.state.get('nodes', undefined, 'web-node-3');
        assert.ok(node);
        node.metadata.labels = { ...node.metadata.labels, 'gpumem.dev/touched': 'yes' };
        sim.state.put(node);
        await waitFor('the update', () => (updates.includes('web-node-3') ? true : undefined));
        assert.deepEqual(errors, []);
      } finally {
        await informer.stop();
      }
    });
  });

  describe('exec', { skip: NO_ROOTS ?? false }, () => {
    test('v5: stdin, stdout, stderr, the exit status on channel 3 and the close signal', T, async () => {
      const ok = await execRun(
        admin,
        'ml',
        'trainer-0',
        'trainer',
        ['sh', '-c', 'cat; echo to-stderr >&2'],
        Readable.from(['from stdin\n']),
      );
      assert.equal(ok.protocol, 'v5.channel.k8s.io');
      assert.equal(ok.stdout, 'from stdin\n', 'stdin reached the command and its EOF (255,0) ended cat');
      assert.equal(ok.stderr, 'to-stderr\n');
      assert.deepEqual(JSON.parse(JSON.stringify(ok.status)), { metadata: {}, status: 'Success' });
      const failed = await execRun(admin, 'ml', 'trainer-0', 'trainer', ['sh', '-c', 'cat /etc/hostname; exit 3'], null);
      assert.equal(failed.stdout, 'trainer-0\n');
      assert.equal(exitCodeOf(failed.status), 3);
      assert.deepEqual(JSON.parse(JSON.stringify(failed.status)), {
        metadata: {},
        status: 'Failure',
        message: 'command terminated with non-zero exit code: error executing command [sh -c cat /etc/hostname; exit 3], exit code 3',
        reason: 'NonZeroExitCode',
        details: { causes: [{ reason: 'ExitCode', message: '3' }] },
      });
      const env = await execRun(admin, 'ml', 'static-infer-0', 'static-infer', ['env'], null);
      assert.match(env.stdout, /^CUDA_DISABLE_CONTROL=true$/m, 'the container env reaches the command');
      const record = sim.state.execs.at(-1);
      assert.equal(record?.result?.exitCode, 0);
    });

    test('v4 (forced protocol list): output and exit status; ending stdin early closes the socket (client-node)', T, async () => {
      const stdin = new PassThrough();
      stdin.write('over-v4\n');
      const run = await execRun(admin, 'ml', 'trainer-0', 'trainer', ['sh', '-c', 'read x; echo "got $x"; echo oops >&2; exit 5'], stdin, [
        'v4.channel.k8s.io',
      ]);
      stdin.end();
      assert.equal(run.protocol, 'v4.channel.k8s.io');
      assert.equal(run.stdout, 'got over-v4\n');
      assert.equal(run.stderr, 'oops\n');
      assert.equal(exitCodeOf(run.status), 5);
      // v4 has no close signal: client-node closes the whole socket when stdin ends, killing the command.
      const early = await execRun(
        admin,
        'ml',
        'trainer-0',
        'trainer',
        ['sh', '-c', 'read x; sleep 2; echo "late $x"'],
        Readable.from(['x\n']),
        ['v4.channel.k8s.io'],
      );
      assert.equal(early.status, undefined);
      assert.equal(early.stdout, '');
      await waitFor('the exec record', () => sim.state.execs.at(-1)?.result);
      assert.equal(sim.state.execs.at(-1)?.result?.clientClosed, true);
      const both = await execRun(admin, 'ml', 'trainer-0', 'trainer', ['true'], null, ['v4.channel.k8s.io', 'v5.channel.k8s.io']);
      assert.equal(both.protocol, 'v4.channel.k8s.io', "the client's order decides, as wsstream does");
    });

    test('channel.k8s.io with a raw WebSocket: the ready frame, stdout, and the pre-v4 error text', T, async () => {
      const creds = credentials(sim, 'admin');
      const run = (cmd: string[]) =>
        new Promise<{ frames: Buffer[]; code: number; protocol: string }>((resolve, reject) => {
          const q = new URLSearchParams([...cmd.map((c): [string, string] => ['command', c]), ['stdout', 'true'], ['stderr', 'true']]);
          const ws = new WebSocket(
            `wss://127.0.0.1:${sim.port}/api/v1/namespaces/ml/pods/trainer-0/exec?${q.toString()}`,
            ['channel.k8s.io'],
            { ca: sim.ca, cert: creds.cert, key: creds.key },
          );
          const frames: Buffer[] = [];
          ws.on('message', (d) => frames.push(d));
          ws.on('error', reject);
          ws.on('close', (code) => resolve({ frames, code, protocol: ws.protocol }));
        });
      const ok = await run(['echo', 'hi']);
      assert.equal(ok.protocol, 'channel.k8s.io');
      assert.deepEqual([...(ok.frames[0] ?? [])], [1], 'an empty frame on stdout first');
      assert.equal(Buffer.concat(ok.frames.filter((f) => f[0] === 1).map((f) => f.subarray(1))).toString(), 'hi\n');
      assert.equal(
        ok.frames.some((f) => f[0] === 3),
        false,
        'nothing on the error channel on success',
      );
      assert.equal(ok.code, 1000);
      const bad = await run(['sh', '-c', 'exit 7']);
      const error = bad.frames.find((f) => f[0] === 3);
      assert.equal(
        error?.subarray(1).toString(),
        'command terminated with non-zero exit code: error executing command [sh -c exit 7], exit code 7',
      );
    });

    test('exec errors: distroless image, container choice, completed pod, unknown protocol, RBAC 403', T, async () => {
      const distroless = await execRun(admin, 'web', 'api', 'api', ['sh', '-c', 'true'], null);
      assert.equal(distroless.status?.status, 'Failure');
      assert.equal(distroless.status?.reason, 'InternalError');
      assert.match(
        distroless.status?.message ?? '',
        /OCI runtime exec failed: exec failed: unable to start container process: exec: "sh": executable file not found in \$PATH: unknown$/,
      );
      const creds = credentials(sim, 'admin');
      const upgrade = (path: string, protocols: string[], who: Credentials = creds) =>
        new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
          const ws = new WebSocket(`wss://127.0.0.1:${sim.port}${path}`, protocols, {
            ca: sim.ca,
            ...(who.cert ? { cert: who.cert, key: who.key } : {}),
            ...(who.token ? { headers: { Authorization: `Bearer ${who.token}` } } : {}),
          });
          ws.on('unexpected-response', (_req, res) => {
            let text = '';
            res.on('data', (d: Buffer) => (text += d.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
          });
          ws.on('open', () => reject(new Error('the upgrade succeeded')));
          ws.on('error', () => undefined);
        });
      const multi = await upgrade('/api/v1/namespaces/kube-system/pods/hami-device-plugin-x7k2p/exec?command=sh&stdout=true', [
        'v5.channel.k8s.io',
      ]);
      assert.equal(multi.status, 400);
      assert.equal(
        multi.body['message'],
        'a container name must be specified for pod hami-device-plugin-x7k2p, choose one of: [device-plugin vgpu-monitor]',
      );
      const wrong = await upgrade('/api/v1/namespaces/ml/pods/trainer-0/exec?command=sh&stdout=true&container=nope', ['v5.channel.k8s.io']);
      assert.equal(wrong.body['message'], 'container nope is not valid for pod trainer-0');
      const proto = await upgrade('/api/v1/namespaces/ml/pods/trainer-0/exec?command=sh&stdout=true', ['v9.channel.k8s.io']);
      assert.equal(proto.status, 400);
      const limited = credentials(sim, 'limited');
      const denied = await upgrade('/api/v1/namespaces/default/pods/llama-0/exec?command=sh&stdout=true', ['v5.channel.k8s.io'], limited);
      assert.equal(denied.status, 403);
      assert.equal(
        denied.body['message'],
        'pods "llama-0" is forbidden: User "limited" cannot create resource "pods/exec" in API group "" in the namespace "default"',
      );
      assert.deepEqual(denied.body['details'], { name: 'llama-0', kind: 'pods' });
      const allowed = await execRun(kubeConfigFor(sim, 'limited'), 'ml', 'trainer-0', 'trainer', ['cat', '/etc/hostname'], null);
      assert.equal(allowed.stdout, 'trainer-0\n');
      const done = await core.createNamespacedPod({
        namespace: 'web',
        body: { metadata: { name: 'finished' }, spec: { nodeName: 'web-node-3', containers: [{ name: 'c', image: 'busybox' }] } },
      });
      sim.state.put({
        ...(sim.state.get('pods', 'web', 'finished') as NonNullable<ReturnType<Simulator['state']['get']>>),
        status: { phase: 'Succeeded' },
      });
      const completed = await upgrade('/api/v1/namespaces/web/pods/finished/exec?command=sh&stdout=true', ['v5.channel.k8s.io']);
      assert.equal(completed.body['message'], 'cannot exec into a container in a completed pod; current phase is Succeeded');
      await core.deleteNamespacedPod({ namespace: 'web', name: done.metadata?.name ?? '' });
    });

    test('the real node probe in a kubectl-debug-style pod on every node, ending with the done marker', T, async () => {
      for (const node of ['strix-node-1', 'gpu-node-7', 'web-node-3', 'secure-node-1']) {
        const created = await core.createNamespacedPod({ namespace: DEBUG_NS, body: debugPod(node) });
        const name = created.metadata?.name ?? '';
        try {
          await waitRunning(core, DEBUG_NS, name);
          assert.equal(sim.state.mounts().length, 1, 'the node root is bind-mounted at /host');
          const nonce = newNonce();
          const run = await execRun(
            admin,
            DEBUG_NS,
            name,
            'debugger',
            ['sh', '-s'],
            Readable.from([buildProbeScript({ scope: 'node', nonce, hostRoot: '/host' })]),
          );
          assert.equal(exitCodeOf(run.status), 0, `${node}: ${run.stderr}`);
          assert.equal(run.stdout.trimEnd().split('\n').at(-1), `@@gpumem:${nonce}:done@@`, `${node}: the done marker is last`);
          const capture = parseCapture(run.stdout);
          assert.equal(capture.complete, true, `${node}: ${capture.problems.join('; ')}`);
          assert.equal(capture.root, '/host');
          if (node === 'strix-node-1') {
            const inspection = analyzeCaptureText(run.stdout, {
              target: `node/${node}`,
              podNames: new Map([['b7f3c2a4-9e1d-4f6b-8a2c-5d0e7f1a3b96', 'default/llama-0']]),
            });
            assert.ok(
              inspection.node?.pods.some((p) => p.podUid === 'b7f3c2a4-9e1d-4f6b-8a2c-5d0e7f1a3b96'),
              'the APU pod is accounted',
            );
            // /host/proc/<pid>/fd links resolve to the DRM render node, as the kernel's magic links do on a node.
            const ls = await execRun(admin, DEBUG_NS, name, 'debugger', ['ls', '-lL', '/host/proc/4102/fd/5'], null);
            assert.match(ls.stdout, /^c\S+\s+\d+\s+\S+\s+\S+\s+226,\s+128 /);
            const overLimit = inspection.verdicts.find((v) => v.id === 'memory.pod-over-limit-in-reality');
            assert.ok(overLimit, inspection.verdicts.map((v) => v.id).join(', '));
            assert.match(overLimit.title, /default\/llama-0/);
          }
        } finally {
          await core.deleteNamespacedPod({ namespace: DEBUG_NS, name });
        }
      }
      await assertDebugPodsCleaned(sim);
    });

    test('the real container probe in the HAMi pods: trainer enforced, static-infer bypassed', T, async () => {
      const verdicts: Record<string, string | undefined> = {};
      for (const [pod, container] of [
        ['trainer-0', 'trainer'],
        ['static-infer-0', 'static-infer'],
      ] as const) {
        const nonce = newNonce();
        const run = await execRun(
          admin,
          'ml',
          pod,
          container,
          ['sh', '-s'],
          Readable.from([buildProbeScript({ scope: 'container', nonce })]),
        );
        assert.equal(exitCodeOf(run.status), 0, run.stderr);
        assert.equal(run.stdout.trimEnd().split('\n').at(-1), `@@gpumem:${nonce}:done@@`);
        const inspection = analyzeCaptureText(run.stdout, { target: `ml/${pod}/${container}` });
        assert.deepEqual(inspection.problems, []);
        verdicts[pod] = inspection.hami?.verdict;
      }
      assert.deepEqual(verdicts, { 'trainer-0': 'enforced', 'static-infer-0': 'bypassed' });
    });

    test('pod lifecycle: validation, conflicts, events, activeDeadlineSeconds', T, async () => {
      const invalid = await failure(
        core.createNamespacedPod({ namespace: 'web', body: { metadata: { name: 'broken' }, spec: { containers: [] } } }),
      );
      assert.equal(invalid.code, 422);
      assert.equal(invalid.status?.['message'], 'Pod "broken" is invalid: spec.containers: Required value');
      assert.equal(invalid.status?.['reason'], 'Invalid');
      const noNs = await failure(
        core.createNamespacedPod({
          namespace: 'nope',
          body: { metadata: { name: 'x' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
        }),
      );
      assert.equal(noNs.code, 404);
      assert.equal(noNs.status?.['message'], 'namespaces "nope" not found');
      const pod = await core.createNamespacedPod({
        namespace: 'web',
        body: {
          metadata: { name: 'deadline' },
          spec: {
            nodeName: 'web-node-3',
            activeDeadlineSeconds: 3,
            containers: [{ name: 'c', image: 'busybox', command: ['sleep', '60'] }],
          },
        },
      });
      assert.ok(pod.metadata?.uid && pod.metadata.creationTimestamp && pod.metadata.resourceVersion);
      assert.equal(pod.spec?.restartPolicy, 'Always', 'defaults applied');
      const dup = await failure(
        core.createNamespacedPod({
          namespace: 'web',
          body: { metadata: { name: 'deadline' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
        }),
      );
      assert.equal(dup.code, 409);
      assert.equal(dup.status?.['message'], 'pods "deadline" already exists');
      // The deadline counts from status.startTime, as the kubelet's does: 3 s leaves a loaded machine time to see Running.
      await waitRunning(core, 'web', 'deadline');
      const events = await core.listNamespacedEvent({ namespace: 'web', fieldSelector: 'involvedObject.name=deadline' });
      assert.deepEqual(
        events.items.map((e) => e.reason),
        ['Scheduled', 'Pulled', 'Created', 'Started'],
      );
      const failed = await waitFor('DeadlineExceeded', async () => {
        const p = await core.readNamespacedPod({ namespace: 'web', name: 'deadline' });
        return p.status?.phase === 'Failed' ? p : undefined;
      });
      assert.equal(failed.status?.reason, 'DeadlineExceeded');
      await core.deleteNamespacedPod({ namespace: 'web', name: 'deadline' });
      await sim.state.waitForPodGone('web', 'deadline');
    });
  });

  describe('RBAC', () => {
    test('403 messages as the API server writes them, and SelfSubjectAccessReview', T, async () => {
      const limited = kubeConfigFor(sim, 'limited');
      const create = await failure(
        limited.makeApiClient(k8s.CoreV1Api).createNamespacedPod({ namespace: DEBUG_NS, body: debugPod('secure-node-1') }),
      );
      assert.equal(create.code, 403);
      assert.deepEqual(create.status, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'pods is forbidden: User "limited" cannot create resource "pods" in API group "" in the namespace "gpumem-debug"',
        reason: 'Forbidden',
        details: { kind: 'pods' },
        code: 403,
      });
      assert.equal(sim.state.createdPods.filter((p) => p.user === 'limited').length, 0);
      const nobody = kubeConfigFor(sim, 'nobody');
      const nodes = await failure(nobody.makeApiClient(k8s.CoreV1Api).listNode());
      assert.equal(
        nodes.status?.['message'],
        'nodes is forbidden: User "nobody" cannot list resource "nodes" in API group "" at the cluster scope',
      );
      const pod = await failure(nobody.makeApiClient(k8s.CoreV1Api).readNamespacedPod({ namespace: 'default', name: 'llama-0' }));
      assert.equal(
        pod.status?.['message'],
        'pods "llama-0" is forbidden: User "nobody" cannot get resource "pods" in API group "" in the namespace "default"',
      );
      assert.deepEqual(pod.status?.['details'], { name: 'llama-0', kind: 'pods' });
      const ds = await failure(nobody.makeApiClient(k8s.AppsV1Api).listNamespacedDaemonSet({ namespace: 'kube-system' }));
      assert.equal(
        ds.status?.['message'],
        'daemonsets.apps is forbidden: User "nobody" cannot list resource "daemonsets" in API group "apps" in the namespace "kube-system"',
      );
      assert.deepEqual(ds.status?.['details'], { group: 'apps', kind: 'daemonsets' });
      const viewerDelete = await failure(
        kubeConfigFor(sim, 'viewer').makeApiClient(k8s.CoreV1Api).deleteNamespacedPod({ namespace: 'ml', name: 'trainer-0' }),
      );
      assert.equal(
        viewerDelete.status?.['message'],
        'pods "trainer-0" is forbidden: User "viewer" cannot delete resource "pods" in API group "" in the namespace "ml"',
      );

      const authz = limited.makeApiClient(k8s.AuthorizationV1Api);
      const canI = async (namespace: string, verb: string, resource: string, subresource?: string) =>
        (
          await authz.createSelfSubjectAccessReview({
            body: { spec: { resourceAttributes: { namespace, verb, resource, ...(subresource ? { subresource } : {}) } } },
          })
        ).status?.allowed;
      assert.equal(await canI(DEBUG_NS, 'create', 'pods'), false);
      assert.equal(await canI('ml', 'create', 'pods'), true);
      assert.equal(await canI('ml', 'create', 'pods', 'exec'), true);
      assert.equal(await canI('default', 'create', 'pods', 'exec'), false);
      assert.equal(await canI('default', 'list', 'pods'), true);
    });
  });

  describe("faults, each followed by the debug pod's deletion", { skip: NO_ROOTS ?? false }, () => {
    const startDebugPod = async (node = 'strix-node-1'): Promise<string> => {
      const created = await core.createNamespacedPod({ namespace: DEBUG_NS, body: debugPod(node) });
      const name = created.metadata?.name ?? '';
      await waitRunning(core, DEBUG_NS, name);
      return name;
    };
    const deleteDebugPod = async (name: string): Promise<void> => {
      await core.deleteNamespacedPod({ namespace: DEBUG_NS, name });
      await assertDebugPodsCleaned(sim);
    };

    after(() => sim.setFault(null));

    test('latency on every request', T, async () => {
      sim.setFault({ latencyMs: 250 });
      try {
        const started = Date.now();
        await core.listNode();
        assert.ok(Date.now() - started >= 250);
        const name = await startDebugPod();
        const run = await execRun(admin, DEBUG_NS, name, 'debugger', ['echo', 'slow'], null);
        assert.equal(run.stdout, 'slow\n');
        await deleteDebugPod(name);
      } finally {
        sim.setFault({ latencyMs: 0 });
      }
    });

    test('forced 401 on node lists; 403 and 500 on the exec upgrade; the debug pod is deleted', T, async () => {
      sim.setFault({ forceStatus: [{ method: 'GET', path: '/api/v1/nodes', code: 401 }] });
      assert.equal((await failure(core.listNode())).code, 401);
      assert.equal((await core.listNamespace()).items.length > 0, true, 'other paths still work');
      sim.setFault({ forceStatus: [] });
      const name = await startDebugPod();
      for (const code of [403, 500]) {
        sim.setFault({ forceStatus: [{ path: /\/exec\?/, code }] });
        await assert.rejects(execRun(admin, DEBUG_NS, name, 'debugger', ['true'], null), (err: unknown) => {
          assert.match(String((err as { message?: string }).message ?? err), new RegExp(`Unexpected server response: ${code}`));
          return true;
        });
      }
      sim.setFault({ forceStatus: [] });
      await deleteDebugPod(name);
    });

    test('forced 500 on pod create and on pod delete, once: a retry succeeds and the pod is gone', T, async () => {
      sim.setFault({ forceStatus: [{ method: 'POST', path: `/api/v1/namespaces/${DEBUG_NS}/pods`, code: 500, times: 1 }] });
      const first = await failure(core.createNamespacedPod({ namespace: DEBUG_NS, body: debugPod('gpu-node-7') }));
      assert.equal(first.code, 500);
      assert.equal(first.status?.['reason'], 'InternalError');
      const name = await startDebugPod('gpu-node-7');
      sim.setFault({ forceStatus: [{ method: 'DELETE', path: `/api/v1/namespaces/${DEBUG_NS}/pods`, code: 500, times: 1 }] });
      assert.equal((await failure(core.deleteNamespacedPod({ namespace: DEBUG_NS, name }))).code, 500);
      assert.ok(sim.state.get('pods', DEBUG_NS, name), 'the failed delete left the pod');
      await deleteDebugPod(name);
    });

    test('the exec WebSocket dropped mid-probe after N bytes of stdout', T, async () => {
      const name = await startDebugPod();
      sim.setFault({ dropExecAfterStdoutBytes: 4096 });
      try {
        const nonce = newNonce();
        const run = await execRun(
          admin,
          DEBUG_NS,
          name,
          'debugger',
          ['sh', '-s'],
          Readable.from([buildProbeScript({ scope: 'node', nonce, hostRoot: '/host' })]),
        );
        assert.equal(run.closeCode, 1006, 'closed without a close frame');
        assert.equal(run.status, undefined, 'no status arrives');
        assert.ok(Buffer.byteLength(run.stdout) <= 4096 && run.stdout.length > 0);
        assert.equal(parseCapture(run.stdout).complete, false);
        const record = await waitFor('the exec end', () => sim.state.execs.at(-1)?.result);
        assert.equal(record.dropped, true);
        assert.equal(sim.state.runningExecs(), 0, 'the command was killed');
      } finally {
        sim.setFault({ dropExecAfterStdoutBytes: undefined });
      }
      await deleteDebugPod(name);
    });

    test('an expired watch on the debug pod (410) while it starts', T, async () => {
      const created = await core.createNamespacedPod({ namespace: DEBUG_NS, body: debugPod('web-node-3') });
      const name = created.metadata?.name ?? '';
      const events: string[] = [];
      const done = new Promise<unknown>((resolve) => {
        void new k8s.Watch(admin).watch(
          `/api/v1/namespaces/${DEBUG_NS}/pods`,
          { fieldSelector: `metadata.name=${name}`, resourceVersion: created.metadata?.resourceVersion },
          (type, obj: Record<string, unknown>) => {
            events.push(type === 'ERROR' ? `ERROR ${String(obj['code'])}` : type);
          },
          resolve,
        );
      });
      await waitFor('the watch', () => (sim.state.openWatches() > 0 ? true : undefined));
      sim.setFault({ expireWatches: true });
      assert.equal(await done, null);
      assert.equal(events.at(-1), 'ERROR 410');
      await waitRunning(core, DEBUG_NS, name);
      await deleteDebugPod(name);
    });

    test('pod creation refused for a user (RBAC) and an image that never pulls', T, async () => {
      sim.setFault({ denyPodCreate: ['admin'] });
      const refused = await failure(core.createNamespacedPod({ namespace: DEBUG_NS, body: debugPod('strix-node-1') }));
      assert.equal(refused.code, 403);
      assert.equal(
        refused.status?.['message'],
        'pods is forbidden: User "admin" cannot create resource "pods" in API group "" in the namespace "gpumem-debug"',
      );
      sim.setFault({ denyPodCreate: [], podWaitingReason: 'ImagePullBackOff' });
      const created = await core.createNamespacedPod({ namespace: DEBUG_NS, body: debugPod('strix-node-1') });
      const name = created.metadata?.name ?? '';
      const waiting = await waitFor('ImagePullBackOff', async () => {
        const p = await core.readNamespacedPod({ namespace: DEBUG_NS, name });
        return p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff' ? p : undefined;
      });
      assert.equal(waiting.status?.phase, 'Pending');
      sim.setFault({ podWaitingReason: undefined });
      await deleteDebugPod(name);
    });
  });
});

// ------------------------------------------------------------------------------------------------

describe('bench-scale generator', () => {
  let sim: Simulator | undefined;
  after(async () => {
    await sim?.close();
  });

  test('500 nodes and 5,000 pods in memory, served and paged', T, async () => {
    const fixtures = generateCluster({ nodes: 500, podsPerNode: 10 });
    assert.equal(fixtures.objects.filter((o) => o.kind === 'Node').length, 500);
    assert.equal(fixtures.objects.filter((o) => o.kind === 'Pod').length, 5000);
    assert.deepEqual(
      generateCluster({ nodes: 3, podsPerNode: 2, now: 0 }),
      generateCluster({ nodes: 3, podsPerNode: 2, now: 0 }),
      'deterministic',
    );
    sim = await startSimulator({ fixtures, roots: false });
    const core = kubeConfigFor(sim, 'admin').makeApiClient(k8s.CoreV1Api);
    const nodes = await core.listNode();
    assert.equal(nodes.items.length, 500);
    const hami = nodes.items.filter((n) => n.metadata?.annotations?.['hami.io/node-nvidia-register']);
    assert.ok(hami.some((n) => n.metadata?.annotations?.['hami.io/node-nvidia-register']?.startsWith('[')));
    assert.ok(hami.some((n) => n.metadata?.annotations?.['hami.io/node-nvidia-register']?.endsWith(':')));
    const pods = await core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${nodes.items[1]?.metadata?.name ?? ''}` });
    assert.equal(pods.items.length, 10);
    let total = 0;
    let token: string | undefined;
    do {
      const page = await core.listPodForAllNamespaces({ limit: 1000, ...(token ? { _continue: token } : {}) });
      total += page.items.length;
      token = page.metadata?._continue;
    } while (token);
    assert.equal(total, 5000);
  });
});

// ------------------------------------------------------------------------------------------------

describe('simulator options', () => {
  const sims: Simulator[] = [];
  after(async () => {
    for (const s of sims.splice(0)) await s.close();
  });

  test('anonymous: /version is public, resources are RBAC-forbidden to system:anonymous', T, async () => {
    const sim = await startSimulator({ fixtures: loadFixtures(), roots: false, anonymous: true });
    sims.push(sim);
    const version = await raw(sim, '/version');
    assert.equal(version.status, 200);
    assert.equal((JSON.parse(version.body) as { gitVersion: string }).gitVersion, DEMO_GIT_VERSION);
    const nodes = await raw(sim, '/api/v1/nodes');
    assert.equal(nodes.status, 403);
    assert.equal(
      (JSON.parse(nodes.body) as { message: string }).message,
      'nodes is forbidden: User "system:anonymous" cannot list resource "nodes" in API group "" at the cluster scope',
    );
    const api = await raw(sim, '/api');
    assert.equal((JSON.parse(api.body) as { message: string }).message, 'forbidden: User "system:anonymous" cannot get path "/api"');
  });

  test('the bounded watch history: an old resourceVersion expires, a recent one replays', T, async () => {
    const sim = await startSimulator({ fixtures: loadFixtures(), roots: false, historyLimit: 10 });
    sims.push(sim);
    const kc = kubeConfigFor(sim, 'admin');
    const start = sim.state.resourceVersion;
    for (let i = 0; i < 300; i++) {
      const node = sim.state.get('nodes', undefined, 'web-node-3');
      assert.ok(node);
      node.metadata.annotations = { ...node.metadata.annotations, 'gpumem.dev/tick': String(i) };
      sim.state.put(node);
    }
    const collect = (rv: number) =>
      new Promise<string[]>((resolve) => {
        const seen: string[] = [];
        void new k8s.Watch(kc).watch(
          '/api/v1/nodes',
          { resourceVersion: String(rv), timeoutSeconds: 1 },
          (type, obj: Record<string, unknown>) => seen.push(type === 'ERROR' ? `ERROR ${String(obj['code'])}` : type),
          () => resolve(seen),
        );
      });
    assert.deepEqual(await collect(start), ['ERROR 410']);
    assert.deepEqual(await collect(sim.state.resourceVersion - 3), ['MODIFIED', 'MODIFIED', 'MODIFIED']);
  });
});

// ------------------------------------------------------------------------------------------------

describe('the standalone demo cluster (main.ts)', { skip: NO_ROOTS ?? false }, () => {
  let child: ChildProcess | undefined;
  let dir = '';
  after(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('labelled demo cluster, kubeconfig written, SIGTERM stops it and unmounts the debug pod', T, async () => {
    dir = mkdtempSync(join(tmpdir(), 'gpumem-sim-demo-'));
    const kubeconfigFile = join(dir, 'kubeconfig');
    child = spawn(process.execPath, [join(FIXTURES_DIR, '..', 'main.ts'), '--port', '0', '--write-kubeconfig', kubeconfigFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    await waitFor(`the demo to listen (stderr: ${err})`, () => (out.includes('Ctrl-C') ? true : undefined), 30_000);
    assert.match(out, /gpumem demo cluster/);
    const kc = new k8s.KubeConfig();
    kc.loadFromString(readFileSync(kubeconfigFile, 'utf8'));
    assert.equal(kc.getCurrentContext(), DEMO_CONTEXT);
    assert.ok(kc.getContexts().some((c) => c.name === `${DEMO_CONTEXT}-limited`));
    assert.equal((await kc.makeApiClient(k8s.VersionApi).getCode()).gitVersion, DEMO_GIT_VERSION);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const created = await core.createNamespacedPod({ namespace: DEBUG_NS, body: debugPod('strix-node-1') });
    await waitRunning(core, DEBUG_NS, created.metadata?.name ?? '');
    const ours = `/gpumem-sim-${child.pid ?? 0}-`;
    const mounted = mountPoints().filter((m) => m.includes(ours) && m.endsWith('/host'));
    assert.ok(mounted.length >= 1, "the debug pod's /host is mounted");
    const exited = new Promise<number | null>((resolve) => child?.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.deepEqual(
      mountPoints().filter((m) => m.includes(ours)),
      [],
      'every mount of the demo is gone',
    );
    assert.equal(
      readdirSync(tmpdir()).some((d) => d.startsWith(ours.slice(1))),
      false,
      'its roots are removed',
    );
  });
});
