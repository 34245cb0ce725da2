// Workloads with several pod templates against the API simulator and Debian's Prometheus, through the real CLI: the
// simulator serves the KubeRay RayCluster rc-demo (head group, CPU group `workergroup`, GPU group `gpu-group`) and
// the LeaderWorkerSet vllm (leader vllm-0, workers vllm-0-1 and vllm-0-2 through the workers' StatefulSet owned by
// the leader pod) and the JobSet success-policy (a leader and a workers replicated job, through their Jobs) as
// custom resources (test/simulator/fixtures-groups/ray-lws.yaml and jobset.yaml, with the upstream sources named
// there). Six hours of each pod's series, generated here with a different peak per pod, become TSDB blocks by
// promtool. `gpumem recommend` gives each template its own row from its own pods' figures, `gpumem lint --live`
// prints one lens per container with its template's pods and peak, and `gpumem recommend --apply` changes the
// template whose pods needed it, found by its groupName in a manifest whose groups are in another order than the
// cluster's. The editor's list+watch cache finds the custom resources by one discovery request per API group, sees a
// worker added by watch in its group, and on a cluster without those CRDs asks once, gets 404 and notes nothing.
// Expected figures come from the generated samples, not from the code under test. Cost: one simulator (and a second
// without the CRDs for a moment), one Prometheus on promtool blocks, three CLI runs (about 13 s). Skips without the
// prometheus package.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { KubeConfig } from '@kubernetes/client-node';
import { liveKey } from '../../src/core/live/liveSnapshot.ts';
import { ClusterClient } from '../../src/kube/clusterClient.ts';
import { WatchedSource } from '../../src/live/watchedSource.ts';
import { readWorkloadYaml } from '../../src/rightsizing/readWorkload.ts';
import { lintText } from '../../src/core/lint.ts';
import { eventually } from '../helpers/asserts.ts';
import { LWS_MANIFEST, RAY_MANIFEST } from '../unit/helpers/multiTemplateCluster.ts';
import { runCli } from '../helpers/cli.ts';
import type { PrometheusProcess } from '../helpers/prometheusProcess.ts';
import { prometheusUnavailable, startPrometheus } from '../helpers/prometheusProcess.ts';
import { loadFixtures } from '../simulator/fixtures.ts';
import { startSimulator } from '../simulator/server.ts';
import type { Simulator } from '../simulator/server.ts';

const SKIP = prometheusUnavailable() ?? false;
const GiB = 1024 ** 3;
const STEP = 60;
const HOURS = 6;

/** Each pod of the fixture: its container, uid, and its peak working set and GPU memory in RAM (GiB) at one sample. */
const PODS = [
  { pod: 'rc-demo-head-x7k2p', uid: '5c0d4e1a-7a51-4f0e-9d9b-2b1e6c3a9f02', container: 'ray-head', ws: 6, gpu: 0 },
  { pod: 'rc-demo-workergroup-worker-q4m8d', uid: '5c0d4e1a-7a51-4f0e-9d9b-2b1e6c3a9f03', container: 'ray-worker', ws: 3, gpu: 0 },
  { pod: 'rc-demo-gpu-group-worker-z9t5r', uid: '5c0d4e1a-7a51-4f0e-9d9b-2b1e6c3a9f04', container: 'ray-worker', ws: 10, gpu: 12 },
  { pod: 'vllm-0', uid: '6d1e5f2b-8b62-4a1f-8eac-3c2f7d4b0a03', container: 'vllm-leader', ws: 8, gpu: 20 },
  { pod: 'vllm-0-1', uid: '6d1e5f2b-8b62-4a1f-8eac-3c2f7d4b0a05', container: 'vllm-worker', ws: 5, gpu: 14 },
  { pod: 'vllm-0-2', uid: '6d1e5f2b-8b62-4a1f-8eac-3c2f7d4b0a06', container: 'vllm-worker', ws: 6, gpu: 18 },
  { pod: 'success-policy-leader-0-0-k2x7q', uid: '7e2f6a3c-9c73-4b2a-9fbd-4d3a8e5c1b04', container: 'leader', ws: 3, gpu: 0 },
  { pod: 'success-policy-workers-0-0-p8d3m', uid: '7e2f6a3c-9c73-4b2a-9fbd-4d3a8e5c1b05', container: 'worker', ws: 6, gpu: 12 },
  { pod: 'success-policy-workers-0-1-w5n9r', uid: '7e2f6a3c-9c73-4b2a-9fbd-4d3a8e5c1b06', container: 'worker', ws: 8, gpu: 13 },
];

/** Six hours of samples: each pod at 60 % of its peak, and at its peak (working set and GPU memory together) once. */
function writeHistory(file: string, now: number): void {
  const end = Math.floor(now / STEP) * STEP - STEP;
  const start = end - HOURS * 3600;
  const peakAt = end - 2 * 3600;
  const lines: string[] = [];
  const family = (name: string, series: [Record<string, string>, (t: number) => number][]) => {
    lines.push(`# TYPE ${name} gauge`);
    for (const [labels, value] of series) {
      const text = Object.entries(labels)
        .map(([key, one]) => `${key}="${one}"`)
        .join(',');
      for (let t = start; t <= end; t += STEP) lines.push(`${name}{${text}} ${value(t)} ${t}`);
    }
  };
  const at = (peak: number) => (t: number) => (t === peakAt ? peak : Math.round(peak * 0.6)) * GiB;
  family(
    'container_memory_working_set_bytes',
    PODS.map((one) => [{ namespace: 'groups', pod: one.pod, container: one.container }, at(one.ws)]),
  );
  const gpuPods = PODS.filter((one) => one.gpu > 0);
  const where = (one: (typeof PODS)[number]) => ({ node: 'web-node-3', namespace: 'groups', pod: one.pod, uid: one.uid });
  family(
    'gpumem_pod_unaccounted_bytes',
    gpuPods.map((one) => [where(one), at(one.gpu)]),
  );
  family(
    'gpumem_container_unaccounted_bytes',
    gpuPods.map((one) => [{ ...where(one), container: one.container }, at(one.gpu)]),
  );
  lines.push('# EOF', '');
  writeFileSync(file, lines.join('\n'));
}

// The manifests as kept in git (the unit tests' own): the worker groups in another order than the cluster's.
const RAY = RAY_MANIFEST;
const LWS = LWS_MANIFEST;

interface JsonRow {
  readonly workload: { readonly kind: string; readonly name: string };
  readonly template?: string;
  readonly container: string;
  readonly observed: { readonly trueFootprintPeakBytes: number | null; readonly gpuInRamPeakBytes: number | null };
  readonly recommendation: { readonly kind: string; readonly memory?: { readonly text: string } };
}

type Resources = { resources: { limits: Record<string, string>; requests: Record<string, string> } };

const WINDOW = { label: '7d', seconds: 7 * 86_400 };
const NO_FIGURES = { kind: 'none', reason: 'the watch cache alone' } as const;

function clientFor(kubeconfig: string): ClusterClient {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  return new ClusterClient({ name: kc.getCurrentContext(), kubeConfig: kc }, { requestTimeoutMs: 5_000 });
}

/** Discovery requests for the custom workloads' API groups. */
const discoveries = (simulator: Simulator) =>
  simulator.state.requests.filter((one) =>
    /^\/apis\/(ray\.io\/v1|leaderworkerset\.x-k8s\.io\/v1|kubeflow\.org\/v1|jobset\.x-k8s\.io\/v1alpha2|batch\.volcano\.sh\/v1alpha1)(\?|$)/.test(
      one.path,
    ),
  ).length;

describe('RayCluster and LeaderWorkerSet templates against the simulator and a real Prometheus', { skip: SKIP }, () => {
  let sim: Simulator;
  let prometheus: PrometheusProcess | undefined;
  let work: string;
  let kubeconfig: string;
  const env = () => ({ PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: work });
  const recommend = (...args: string[]) =>
    runCli(
      ['recommend', '--kubeconfig', kubeconfig, '-n', 'groups', '--prometheus', prometheus?.base ?? '', '--window', `${HOURS}h`, ...args],
      { env: env(), timeoutMs: 120_000 },
    );

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'gpumem-multi-template-'));
    writeHistory(join(work, 'history.om'), Math.floor(Date.now() / 1000));
    const blocks = spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', join(work, 'history.om'), join(work, 'tsdb')], {
      encoding: 'utf8',
    });
    assert.equal(blocks.status, 0, blocks.stderr);
    prometheus = await startPrometheus({ dir: work, tsdb: join(work, 'tsdb') });
    sim = await startSimulator({ fixtures: loadFixtures(undefined, { groups: true }), roots: false });
    kubeconfig = join(work, 'kubeconfig');
    writeFileSync(kubeconfig, sim.kubeconfig('admin', { namespace: 'groups' }), { mode: 0o600 });
  });

  after(async () => {
    await sim?.close();
    await prometheus?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  let rows: readonly JsonRow[] = [];

  test('recommend: one row per template, each from its own pods (the LWS workers: the higher of the two)', async () => {
    const run = await recommend('--format', 'json');
    assert.equal(run.code, 1, `exit 1: some container should change\n${run.stderr}`);
    rows = (JSON.parse(run.stdout) as { rows: JsonRow[] }).rows;
    const peaks = Object.fromEntries(
      rows.map((row) => [
        `${row.workload.kind} ${row.workload.name} ${row.template} ${row.container}`,
        row.observed.trueFootprintPeakBytes,
      ]),
    );
    assert.deepEqual(peaks, {
      'RayCluster rc-demo headGroupSpec ray-head': 6 * GiB,
      'RayCluster rc-demo workerGroupSpecs[workergroup] ray-worker': 3 * GiB,
      'RayCluster rc-demo workerGroupSpecs[gpu-group] ray-worker': (10 + 12) * GiB,
      'LeaderWorkerSet vllm leaderTemplate vllm-leader': (8 + 20) * GiB,
      'LeaderWorkerSet vllm workerTemplate vllm-worker': (6 + 18) * GiB,
      // The JobSet's pods come through its Jobs; each replicated job from its own pods.
      'JobSet success-policy replicatedJobs[leader] leader': 3 * GiB,
      'JobSet success-policy replicatedJobs[workers] worker': (8 + 13) * GiB,
    });
  });

  test('lint --live: one lens per container, with its template pods and peak', async () => {
    const dir = join(work, 'lint');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'ray.yaml'), RAY);
    writeFileSync(join(dir, 'lws.yaml'), LWS);
    const run = await runCli(
      [
        'lint',
        '--live',
        '--kubeconfig',
        kubeconfig,
        '--prometheus',
        prometheus?.base ?? '',
        '--window',
        `${HOURS}h`,
        join(dir, 'ray.yaml'),
        join(dir, 'lws.yaml'),
      ],
      { env: env(), timeoutMs: 120_000 },
    );
    const lens = (file: string, text: string, container: string, nth = 0) => {
      const line = text.split('\n').reduce<number[]>((at, one, i) => (one.includes(`- name: ${container}`) ? [...at, i + 1] : at), [])[nth];
      const found = run.stdout.split('\n').find((one) => one.startsWith(`${join(dir, file)}:${line}: live in gpumem-demo:`));
      assert.ok(found, `${file}:${line} ${container}\n${run.stdout}\n${run.stderr}`);
      return found;
    };
    // The GPU containers only (the linter summarises those): the GPU worker group and both LWS templates.
    assert.match(
      lens('ray.yaml', RAY, 'ray-worker', 0),
      /live in gpumem-demo: 1 pod · peak true footprint 22 GiB \(cgroup 10 GiB \+ GPU memory in RAM 12 GiB\) vs limit 16Gi/,
    );
    assert.match(
      lens('lws.yaml', LWS, 'vllm-leader'),
      /live in gpumem-demo: 1 pod · peak true footprint 28 GiB \(cgroup 8 GiB \+ GPU memory in RAM 20 GiB\) vs limit 24Gi/,
    );
    assert.match(
      lens('lws.yaml', LWS, 'vllm-worker'),
      /live in gpumem-demo: 2 pods · peak true footprint 24 GiB \(cgroup 6 GiB \+ GPU memory in RAM 18 GiB\) vs limit 20Gi/,
    );
    assert.match(run.stderr, /gpumem lint: live: gpumem-demo: 3 containers matched, 0 not in the cluster/);
    assert.doesNotMatch(run.stdout, /manifest-drift/);
  });

  test('recommend --apply: each template gets its own recommendation, the Ray worker group found by its groupName', async () => {
    const dir = join(work, 'apply');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'ray.yaml'), RAY);
    writeFileSync(join(dir, 'lws.yaml'), LWS);
    const run = await recommend('--apply', dir);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /2 file\(s\) written/);
    const memoryOf = (template: string) => {
      const row = rows.find((one) => one.template === template);
      assert.equal(row?.recommendation.kind, 'sized', template);
      return row?.recommendation.memory?.text;
    };
    const ray = parseAllDocuments(readFileSync(join(dir, 'ray.yaml'), 'utf8'))[0]?.toJS() as {
      spec: {
        headGroupSpec: { template: { spec: { containers: Resources[] } } };
        workerGroupSpecs: { groupName: string; template: { spec: { containers: Resources[] } } }[];
      };
    };
    const container = (group: string) =>
      ray.spec.workerGroupSpecs.find((one) => one.groupName === group)?.template.spec.containers[0]?.resources;
    assert.equal(container('gpu-group')?.limits['memory'], memoryOf('workerGroupSpecs[gpu-group]'));
    assert.equal(container('gpu-group')?.requests['memory'], memoryOf('workerGroupSpecs[gpu-group]'));
    assert.equal(container('workergroup')?.limits['memory'], memoryOf('workerGroupSpecs[workergroup]'));
    assert.equal(ray.spec.headGroupSpec.template.spec.containers[0]?.resources.limits['memory'], memoryOf('headGroupSpec'));
    // The GPU stays where it was: only memory lines change.
    assert.equal(container('gpu-group')?.limits['nvidia.com/gpu'], '1');
    const lws = parseAllDocuments(readFileSync(join(dir, 'lws.yaml'), 'utf8'))[0]?.toJS() as {
      spec: { leaderWorkerTemplate: Record<'leaderTemplate' | 'workerTemplate', { spec: { containers: Resources[] } }> };
    };
    const { leaderTemplate, workerTemplate } = lws.spec.leaderWorkerTemplate;
    assert.equal(leaderTemplate.spec.containers[0]?.resources.limits['memory'], memoryOf('leaderTemplate'));
    assert.equal(workerTemplate.spec.containers[0]?.resources.limits['memory'], memoryOf('workerTemplate'));
    assert.notEqual(memoryOf('leaderTemplate'), memoryOf('workerTemplate'));
  });

  test('the list+watch cache: the CRDs found once by discovery, a worker added by watch goes to its group', async () => {
    const client = clientFor(sim.kubeconfig('admin', { namespace: 'groups' }));
    const source = new WatchedSource({ client, window: WINDOW, headroomPercent: 30, figuresFrom: NO_FIGURES, rebuildDelayMs: 20 });
    try {
      const before = discoveries(sim);
      source.setNamespaces(['groups']);
      const ray = liveKey('RayCluster', 'groups', 'rc-demo');
      const lws = liveKey('LeaderWorkerSet', 'groups', 'vllm');
      await eventually(
        'both custom workloads in the snapshot',
        () => source.snapshot()?.workloads.has(ray) === true && source.snapshot()?.workloads.has(lws) === true,
      );
      const templates = (key: string) =>
        Object.fromEntries((source.snapshot()?.workloads.get(key)?.podLines ?? []).map((pod) => [pod.name, pod.template]));
      assert.deepEqual(templates(lws), { 'vllm-0': 'leaderTemplate', 'vllm-0-1': 'workerTemplate', 'vllm-0-2': 'workerTemplate' });
      // The JobSet (jobset.x-k8s.io/v1alpha2) is watched too; its pods come through the batch Jobs it owns.
      const jobset = liveKey('JobSet', 'groups', 'success-policy');
      await eventually('the JobSet in the snapshot', () => source.snapshot()?.workloads.has(jobset) === true);
      assert.deepEqual(templates(jobset), {
        'success-policy-leader-0-0-k2x7q': 'replicatedJobs[leader]',
        'success-policy-workers-0-0-p8d3m': 'replicatedJobs[workers]',
        'success-policy-workers-0-1-w5n9r': 'replicatedJobs[workers]',
      });
      assert.ok(!source.snapshot()?.workloads.has(liveKey('Job', 'groups', 'success-policy-workers-0')), 'its Jobs only carry its pods');
      const worker = sim.state.get('pods', 'groups', 'rc-demo-gpu-group-worker-z9t5r');
      assert.ok(worker);
      sim.state.put({ ...worker, metadata: { ...worker.metadata, name: 'rc-demo-gpu-group-worker-b3n7k', uid: 'uid-second-gpu-worker' } });
      await eventually(
        'the second GPU worker in its group',
        () => templates(ray)['rc-demo-gpu-group-worker-b3n7k'] === 'workerGroupSpecs[gpu-group]',
      );
      assert.equal(templates(ray)['rc-demo-head-x7k2p'], 'headGroupSpec');
      // One discovery request per API group (ray.io, leaderworkerset.x-k8s.io, kubeflow.org, jobset.x-k8s.io,
      // batch.volcano.sh), whatever the namespaces. Discovery runs in the background, one group after the other.
      await eventually('every API group asked', () => discoveries(sim) - before === 5);
      source.setNamespaces(['groups', 'default']);
      await eventually('ready again', () => source.state().kind === 'ready');
      assert.equal(discoveries(sim) - before, 5);
    } finally {
      source.dispose();
      await client.dispose();
    }
  });

  test('a cluster without the CRDs: one 404 per API group, no note, the built-in kinds as before', async () => {
    const bare = await startSimulator({ fixtures: loadFixtures(), roots: false });
    const client = clientFor(bare.kubeconfig('admin'));
    const source = new WatchedSource({ client, window: WINDOW, headroomPercent: 30, figuresFrom: NO_FIGURES, rebuildDelayMs: 20 });
    try {
      source.setNamespaces(['default']);
      await eventually('ready', () => source.state().kind === 'ready');
      const state = source.state();
      assert.ok(state.kind === 'ready');
      assert.deepEqual(
        state.notes.filter((one) => /ray\.io|leaderworkerset/.test(one)),
        [],
      );
      assert.ok(state.snapshot.workloads.has(liveKey('StatefulSet', 'default', 'llama')));
      // Discovery runs in the background, one group after the other, and is not asked again by a refresh.
      await eventually('every API group asked', () => discoveries(bare) === 5);
      await source.refresh();
      assert.equal(discoveries(bare), 5);
      assert.ok(bare.state.requests.every((one) => !one.path.includes('/rayclusters') && !one.path.includes('/leaderworkersets')));
    } finally {
      source.dispose();
      await client.dispose();
      await bare.close();
    }
  });

  test("Open live manifest: the RayCluster's and the LWS's YAML as the API serves them, linted per template", async () => {
    const client = clientFor(sim.kubeconfig('admin', { namespace: 'groups' }));
    try {
      const ray = await readWorkloadYaml(client, { kind: 'RayCluster', namespace: 'groups', name: 'rc-demo' });
      const lws = await readWorkloadYaml(client, { kind: 'LeaderWorkerSet', namespace: 'groups', name: 'vllm' });
      const jobset = await readWorkloadYaml(client, { kind: 'JobSet', namespace: 'groups', name: 'success-policy' });
      assert.match(jobset, /^apiVersion: jobset\.x-k8s\.io\/v1alpha2\nkind: JobSet\n/);
      assert.deepEqual(
        lintText(jobset).containers.map((one) => `${one.role} ${one.container}`),
        ['replicatedJobs[workers] worker'],
      );
      assert.match(ray, /^apiVersion: ray\.io\/v1\nkind: RayCluster\n/);
      assert.deepEqual(
        lintText(ray).containers.map((one) => `${one.role} ${one.container}`),
        ['workerGroupSpecs[gpu-group] ray-worker'],
      );
      assert.deepEqual(
        lintText(lws).containers.map((one) => `${one.role} ${one.container}`),
        ['leaderTemplate vllm-leader', 'workerTemplate vllm-worker'],
      );
      // A kind the cluster does not serve is the API's 404, as for a workload deleted since.
      await assert.rejects(readWorkloadYaml(client, { kind: 'RayService', namespace: 'groups', name: 'serve' }), /not.found|404/i);
    } finally {
      await client.dispose();
    }
  });
});
