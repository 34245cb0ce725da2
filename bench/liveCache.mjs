// The editor's live cache (src/live/watchedSource.ts) holding 500 workloads: 500 Deployments, each with its current
// and two older ReplicaSets and three pods, as an API server returns them (managedFields, the last-applied
// annotation, statuses). Measured: the heap the synced cache adds (after gc), against the target of 20 MiB, and as a
// ratio to the baseline measured in the same run: the same objects held as one list returns them (what a read
// without trimming would keep). `node --expose-gc bench/liveCache.mjs` runs it alone; bench/run.mjs stores it under
// `liveCache`. The simulator runs in this process; its objects are loaded before the baseline heap is taken.
import { KubeConfig } from '@kubernetes/client-node';
import { ClusterClient } from '../src/kube/clusterClient.ts';
import { WatchedSource } from '../src/live/watchedSource.ts';
import { readWorkloads } from '../src/rightsizing/readWorkloads.ts';
import { completeFixtures, loadFixtures } from '../test/simulator/fixtures.ts';
import { startSimulator } from '../test/simulator/server.ts';
import { MiB, mib } from './stats.mjs';

const WORKLOADS = 500;
const NAMESPACE = 'bench';
const TARGET_BYTES = 20 * MiB;

const gc = typeof globalThis.gc === 'function' ? globalThis.gc : () => {};

function heapAfterGc() {
  for (let i = 0; i < 4; i++) gc();
  return process.memoryUsage().heapUsed;
}

/** The managedFields an apply and a controller write: a few KiB per object, never read by gpumem. */
function managedFields(manager) {
  const fields = {};
  for (let i = 0; i < 40; i++) fields[`f:field${i}`] = { '.': {}, [`f:sub${i}`]: {} };
  return [
    { manager, operation: 'Apply', apiVersion: 'apps/v1', time: '2026-12-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: fields },
    {
      manager: 'kube-controller-manager',
      operation: 'Update',
      apiVersion: 'apps/v1',
      time: '2026-12-01T00:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': fields },
    },
  ];
}

function podSpec(name) {
  return {
    containers: [
      {
        name: 'server',
        image: `registry.example/${name}:v1.2.3`,
        args: ['--model', `/models/${name}`, '--gpu-memory-utilization', '0.9', '--max-model-len', '32768'],
        env: Array.from({ length: 12 }, (_, i) => ({ name: `ENV_${i}`, value: `value-${i}-${name}` })),
        resources: { requests: { memory: '48Gi', cpu: '8' }, limits: { memory: '48Gi', 'amd.com/gpu': '1' } },
        volumeMounts: [{ name: 'models', mountPath: '/models' }],
        ports: [{ name: 'http', containerPort: 8000 }],
      },
    ],
    volumes: [{ name: 'models', persistentVolumeClaim: { claimName: `${name}-models` } }],
  };
}

function objects(i) {
  const name = `llm-${i}`;
  const labels = { app: name, team: `team-${i % 7}` };
  const template = { metadata: { labels }, spec: podSpec(name) };
  const lastApplied = JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: { template } });
  const out = [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name,
        namespace: NAMESPACE,
        uid: `d-${i}`,
        labels,
        annotations: { 'deployment.kubernetes.io/revision': '3', 'kubectl.kubernetes.io/last-applied-configuration': lastApplied },
        managedFields: managedFields('kubectl'),
      },
      spec: { replicas: 3, selector: { matchLabels: labels }, template },
      status: { replicas: 3, readyReplicas: 3, conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' }] },
    },
  ];
  for (const revision of [1, 2, 3]) {
    const hash = `${i}r${revision}`;
    out.push({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${name}-${hash}`,
        namespace: NAMESPACE,
        uid: `rs-${hash}`,
        labels: { ...labels, 'pod-template-hash': hash },
        annotations: { 'deployment.kubernetes.io/revision': String(revision) },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: `d-${i}`, controller: true }],
        managedFields: managedFields('kube-controller-manager'),
      },
      spec: { replicas: revision === 3 ? 3 : 0, selector: { matchLabels: { ...labels, 'pod-template-hash': hash } }, template },
    });
  }
  for (let p = 0; p < 3; p++) {
    const hash = `${i}r3`;
    out.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${name}-${hash}-${p}`,
        namespace: NAMESPACE,
        uid: `p-${i}-${p}`,
        labels: { ...labels, 'pod-template-hash': hash },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${name}-${hash}`, uid: `rs-${hash}`, controller: true }],
        managedFields: managedFields('kubelet'),
      },
      spec: { ...podSpec(name), nodeName: `node-${(i + p) % 50}` },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [
          {
            name: 'server',
            ready: true,
            restartCount: 1,
            image: `registry.example/${name}:v1.2.3`,
            imageID: `registry.example/${name}@sha256:${'0'.repeat(64)}`,
            containerID: `containerd://${String(i).padStart(64, '0')}`,
            state: { running: { startedAt: '2026-12-06T10:00:00Z' } },
            lastState: { terminated: { reason: 'OOMKilled', exitCode: 137, finishedAt: '2026-12-06T09:59:50Z' } },
          },
        ],
      },
    });
  }
  return out;
}

/** Lets pooled sockets and pending callbacks finish, so what the heap holds afterwards is what is kept. */
function settle() {
  return new Promise((resolve) => setTimeout(resolve, 500));
}

async function waitReady(source) {
  const deadline = Date.now() + 120_000;
  while (source.state().kind !== 'ready') {
    if (Date.now() > deadline) throw new Error(`the live cache did not get ready: ${JSON.stringify(source.state())}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function runLiveCacheBench() {
  const sim = await startSimulator({ fixtures: completeFixtures(loadFixtures()), roots: false });
  try {
    sim.state.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    let count = 0;
    for (let i = 0; i < WORKLOADS; i++)
      for (const object of objects(i)) {
        sim.state.put(object);
        count++;
      }
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfig('admin', { namespace: NAMESPACE }));
    const client = new ClusterClient({ name: kc.getCurrentContext(), kubeConfig: kc }, { requestTimeoutMs: 60_000 });

    // Warm-up: the simulator builds its sorted lists and the client its connection once, outside the measurements.
    await readWorkloads(client, [NAMESPACE], new AbortController().signal);
    await settle();

    const start = heapAfterGc();
    const source = new WatchedSource({
      client,
      window: { label: '7d', seconds: 7 * 86_400 },
      headroomPercent: 30,
      figuresFrom: { kind: 'none', reason: 'no Prometheus in this benchmark' },
      rebuildDelayMs: 50,
    });
    source.setNamespaces([NAMESPACE]);
    await waitReady(source);
    await settle();
    const workloads = source.snapshot()?.workloads.size ?? 0;
    const cacheBytes = heapAfterGc() - start;
    const objectsHeld = source.objectCount;
    source.dispose();
    await settle();

    // Baseline: the same objects held as the lists return them (a read that keeps what it listed).
    const before = heapAfterGc();
    const held = await readWorkloads(client, [NAMESPACE], new AbortController().signal);
    await settle();
    const rawBytes = heapAfterGc() - before;
    const listed = held.objects.length + held.pods.length;
    await client.dispose(0);
    const result = {
      workloads,
      objectsInCluster: count,
      objectsListed: listed,
      objectsHeld,
      cacheBytes,
      rawListBytes: rawBytes,
      ratioToRawList: rawBytes > 0 ? cacheBytes / rawBytes : undefined,
      targetBytes: TARGET_BYTES,
      pass: cacheBytes <= TARGET_BYTES && workloads === WORKLOADS,
    };
    console.log("\n== live cache (the editor's list+watch of 500 workloads) ==");
    console.log(
      `${workloads} workloads, ${objectsHeld} objects held: ${mib(cacheBytes)} of heap (target ≤ ${mib(TARGET_BYTES, 0)}) ` +
        `vs ${mib(rawBytes)} for the same ${listed} objects as listed (ratio ${result.ratioToRawList?.toFixed(2)}) ` +
        `${result.pass ? 'PASS' : 'FAIL'}`,
    );
    return result;
  } finally {
    await sim.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runLiveCacheBench();
