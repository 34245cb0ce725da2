// Workloads with several pod templates, live: a KubeRay RayCluster (head group, two worker groups) and a
// LeaderWorkerSet (leader and worker templates), as their operators leave them in a cluster
// (test/simulator/fixtures-groups/ray-lws.yaml: the upstream samples' shapes, the labels and owner chains the
// operators write, with the upstream source files named there). Each pod is matched to its own template, each
// template gets its own rows from its own pods' figures, and the edit, the patch, the live findings and the hover
// address that template only. The figures are hand-written per pod; the expected values are those figures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { lintText } from '../../src/core/lint.ts';
import { judgeLive } from '../../src/core/live/liveFindings.ts';
import { liveLayerModel } from '../../src/core/live/liveLayerModel.ts';
import { liveSnapshot } from '../../src/core/live/liveSnapshot.ts';
import { trimPod, trimWorkload } from '../../src/core/live/trimObject.ts';
import { editManifest } from '../../src/core/rightsizing/manifestEdit.ts';
import { strategicMergePatch } from '../../src/core/rightsizing/patch.ts';
import { workloadPatches } from '../../src/core/rightsizing/recommendationsModel.ts';
import { changesOf, recommendationRows } from '../../src/core/rightsizing/rows.ts';
import type { RecommendationRow } from '../../src/core/rightsizing/rows.ts';
import type { ContainerFigures, PodFigures, PromFigures } from '../../src/core/rightsizing/figures.ts';
import { NO_KILLS } from '../../src/core/rightsizing/kills.ts';
import { matchPods } from '../../src/core/rightsizing/workloadPods.ts';

const GiB = 1024 ** 3;
const FIXTURE = join(import.meta.dirname, '../simulator/fixtures-groups/ray-lws.yaml');
const all = parseAllDocuments(readFileSync(FIXTURE, 'utf8')).map((doc) => doc.toJS() as Record<string, unknown>);
const kindOf = (object: unknown) => (object as { kind: string }).kind;
const objects = all.filter((one) => kindOf(one) !== 'Pod');
const pods = all.filter((one) => kindOf(one) === 'Pod');

const templatesOf = (matching: ReturnType<typeof matchPods>, kind: string, name: string) => {
  const workload = matching.workloads.find((one) => one.ref.kind === kind && one.ref.name === name);
  assert.ok(workload, `${kind} ${name} is a workload`);
  return Object.fromEntries(workload.pods.map((pod) => [pod.name, pod.template]));
};

test('each pod is matched to its workload and to the template it runs; the LWS StatefulSets are no workloads', () => {
  const matching = matchPods(objects, pods);
  assert.deepEqual(matching.unmatched, []);
  assert.deepEqual(matching.workloads.map((one) => `${one.ref.kind} ${one.ref.name}`).sort(), [
    'LeaderWorkerSet vllm',
    'RayCluster rc-demo',
  ]);
  assert.deepEqual(templatesOf(matching, 'RayCluster', 'rc-demo'), {
    'rc-demo-head-x7k2p': 'headGroupSpec',
    'rc-demo-workergroup-worker-q4m8d': 'workerGroupSpecs[workergroup]',
    'rc-demo-gpu-group-worker-z9t5r': 'workerGroupSpecs[gpu-group]',
  });
  // The workers come through their StatefulSet, owned by the leader pod, whose StatefulSet the LWS owns.
  assert.deepEqual(templatesOf(matching, 'LeaderWorkerSet', 'vllm'), {
    'vllm-0': 'leaderTemplate',
    'vllm-0-1': 'workerTemplate',
    'vllm-0-2': 'workerTemplate',
  });
});

test('an LWS without a leaderTemplate: its leader runs the workerTemplate', () => {
  const lws = structuredClone(objects.find((one) => kindOf(one) === 'LeaderWorkerSet')) as {
    spec: { leaderWorkerTemplate: Record<string, unknown> };
  };
  delete lws.spec.leaderWorkerTemplate['leaderTemplate'];
  const matching = matchPods([...objects.filter((one) => kindOf(one) !== 'LeaderWorkerSet'), lws], pods);
  assert.deepEqual(templatesOf(matching, 'LeaderWorkerSet', 'vllm'), {
    'vllm-0': 'workerTemplate',
    'vllm-0-1': 'workerTemplate',
    'vllm-0-2': 'workerTemplate',
  });
});

test('a pod of a worker group the cluster no longer has, or without the operator labels, is reported, not guessed', () => {
  const ray = structuredClone(objects.find((one) => kindOf(one) === 'RayCluster')) as { spec: { workerGroupSpecs: unknown[] } };
  ray.spec.workerGroupSpecs = ray.spec.workerGroupSpecs.slice(0, 1);
  const unlabelled = structuredClone(pods.find((one) => (one as { metadata: { name: string } }).metadata.name === 'vllm-0-2')) as {
    metadata: { labels: Record<string, string> };
  };
  delete unlabelled.metadata.labels['leaderworkerset.sigs.k8s.io/worker-index'];
  const rest = pods.filter((one) => (one as { metadata: { name: string } }).metadata.name !== 'vllm-0-2');
  const matching = matchPods([...objects.filter((one) => kindOf(one) !== 'RayCluster'), ray], [...rest, unlabelled]);
  assert.deepEqual(
    matching.unmatched.map((one) => one.name),
    ['rc-demo-gpu-group-worker-z9t5r', 'vllm-0-2'],
  );
  assert.match(matching.unmatched[0]!.reason, /runs workerGroupSpecs\[gpu-group\], which the live RayCluster does not have/);
  assert.match(matching.unmatched[1]!.reason, /no leaderworkerset\.sigs\.k8s\.io\/worker-index label/);
});

test('a RayJob: its RayCluster and submitter Job only carry its pods; head, worker group and submitter each their template', () => {
  // KubeRay's RayJob controller creates the RayCluster <rayjob>-<suffix> owned by the RayJob (ray.io/originated-from-crd
  // labels), and the submitter as a Job owned by the RayJob (K8sJobMode); the cluster's pods carry the usual labels.
  const owned = (kind: string, name: string, uid: string, apiVersion = 'ray.io/v1') => [{ apiVersion, kind, name, uid, controller: true }];
  const template = (container: string) => ({ spec: { containers: [{ name: container, resources: { limits: { memory: '4Gi' } } }] } });
  const rayJob = {
    apiVersion: 'ray.io/v1',
    kind: 'RayJob',
    metadata: { name: 'train', namespace: 'ml', uid: 'u-job' },
    spec: {
      entrypoint: 'python train.py',
      rayClusterSpec: {
        headGroupSpec: { template: template('ray-head') },
        workerGroupSpecs: [{ groupName: 'gpu', template: template('ray-worker') }],
      },
      submitterPodTemplate: template('ray-job-submitter'),
    },
  };
  const cluster = {
    apiVersion: 'ray.io/v1',
    kind: 'RayCluster',
    metadata: { name: 'train-x2k9d', namespace: 'ml', uid: 'u-rc', ownerReferences: owned('RayJob', 'train', 'u-job') },
    spec: rayJob.spec.rayClusterSpec,
  };
  const submitter = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'train', namespace: 'ml', uid: 'u-submit', ownerReferences: owned('RayJob', 'train', 'u-job') },
    spec: { template: template('ray-job-submitter') },
  };
  const pod = (name: string, labels: Record<string, string>, owner: ReturnType<typeof owned>) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ml', uid: `u-${name}`, labels, ownerReferences: owner },
  });
  const rayPod = (name: string, type: string, group: string) =>
    pod(
      name,
      { 'ray.io/cluster': 'train-x2k9d', 'ray.io/node-type': type, 'ray.io/group': group },
      owned('RayCluster', 'train-x2k9d', 'u-rc'),
    );
  const matching = matchPods(
    [rayJob, cluster, submitter],
    [
      rayPod('train-x2k9d-head-abcde', 'head', 'headgroup'),
      rayPod('train-x2k9d-gpu-worker-fghij', 'worker', 'gpu'),
      pod('train-7qz4m', { 'batch.kubernetes.io/job-name': 'train' }, owned('Job', 'train', 'u-submit', 'batch/v1')),
    ],
  );
  assert.deepEqual(matching.unmatched, []);
  assert.deepEqual(
    matching.workloads.map((one) => one.ref.kind),
    ['RayJob'],
  );
  assert.deepEqual(templatesOf(matching, 'RayJob', 'train'), {
    'train-x2k9d-head-abcde': 'headGroupSpec',
    'train-x2k9d-gpu-worker-fghij': 'workerGroupSpecs[gpu]',
    'train-7qz4m': 'submitterPodTemplate',
  });
  const rowsOut = recommendationRows({ matching, figures: undefined, basis: 'history', apiOomKills: new Map(), headroomPercent: 20 });
  assert.deepEqual(
    rowsOut.map((row) => `${row.template} ${row.container}`),
    ['headGroupSpec ray-head', 'workerGroupSpecs[gpu] ray-worker', 'submitterPodTemplate ray-job-submitter'],
  );
});

/** Per pod: its one container's working set and GPU memory in RAM (GiB), over 24 h of samples. */
const USE: Record<string, { container: string; cgroup: number; gpu: number }> = {
  'rc-demo-head-x7k2p': { container: 'ray-head', cgroup: 6, gpu: 0 },
  'rc-demo-workergroup-worker-q4m8d': { container: 'ray-worker', cgroup: 3, gpu: 0 },
  'rc-demo-gpu-group-worker-z9t5r': { container: 'ray-worker', cgroup: 10, gpu: 12 },
  'vllm-0': { container: 'vllm-leader', cgroup: 8, gpu: 20 },
  'vllm-0-1': { container: 'vllm-worker', cgroup: 5, gpu: 14 },
  'vllm-0-2': { container: 'vllm-worker', cgroup: 6, gpu: 18 },
};

function figures(): PromFigures {
  const containers = new Map<string, ContainerFigures>();
  const podFigures = new Map<string, PodFigures>();
  for (const [pod, use] of Object.entries(USE)) {
    containers.set(`groups/${pod}/${use.container}`, {
      cgroupPeak: use.cgroup * GiB,
      trueFootprintPeak: (use.cgroup + use.gpu) * GiB,
      samples: 2880,
      first: 0,
      last: 86_400,
      kernelPeak: undefined,
      kubeletOom: false,
    });
    podFigures.set(`groups/${pod}`, {
      gpuInRamPeak: use.gpu * GiB,
      gpuMaxBetweenScrapes: undefined,
      vramPeak: undefined,
      kills: NO_KILLS,
      agentCgroupPeak: undefined,
      agentTrueFootprintPeak: undefined,
      agentSamples: 0,
      agentFirst: undefined,
      agentLast: undefined,
    });
  }
  return { containers, pods: podFigures, pressure: new Map(), sources: ['hand-written'], problems: [] };
}

function rows(): RecommendationRow[] {
  return recommendationRows({
    matching: matchPods(objects, pods),
    figures: figures(),
    basis: 'history',
    apiOomKills: new Map(),
    headroomPercent: 20,
  });
}

test('one row per container of each template, from that template pods only', () => {
  const byTemplate = new Map(rows().map((row) => [`${row.workload.name} ${row.template} ${row.container}`, row]));
  assert.deepEqual([...byTemplate.keys()].sort(), [
    'rc-demo headGroupSpec ray-head',
    'rc-demo workerGroupSpecs[gpu-group] ray-worker',
    'rc-demo workerGroupSpecs[workergroup] ray-worker',
    'vllm leaderTemplate vllm-leader',
    'vllm workerTemplate vllm-worker',
  ]);
  const peak = (key: string) => byTemplate.get(key)?.observed.trueFootprintPeak;
  assert.deepEqual(peak('rc-demo headGroupSpec ray-head'), { bytes: 6 * GiB, at: undefined, pod: 'rc-demo-head-x7k2p' });
  assert.deepEqual(peak('rc-demo workerGroupSpecs[workergroup] ray-worker'), {
    bytes: 3 * GiB,
    at: undefined,
    pod: 'rc-demo-workergroup-worker-q4m8d',
  });
  assert.deepEqual(peak('rc-demo workerGroupSpecs[gpu-group] ray-worker'), {
    bytes: 22 * GiB,
    at: undefined,
    pod: 'rc-demo-gpu-group-worker-z9t5r',
  });
  assert.deepEqual(peak('vllm leaderTemplate vllm-leader'), { bytes: 28 * GiB, at: undefined, pod: 'vllm-0' });
  // The higher of the two workers.
  assert.deepEqual(peak('vllm workerTemplate vllm-worker'), { bytes: 24 * GiB, at: undefined, pod: 'vllm-0-2' });
  assert.equal(byTemplate.get('vllm workerTemplate vllm-worker')?.current.limit?.text, '20Gi');
  assert.equal(byTemplate.get('vllm leaderTemplate vllm-leader')?.current.limit?.text, '24Gi');
});

test('the trimmed cache objects give the same matching and rows as the API objects', () => {
  const trimmed = matchPods(
    objects.map((one) => trimWorkload(one, kindOf(one), (one as { apiVersion: string }).apiVersion)),
    pods.map((one) => trimPod(one)),
  );
  const original = matchPods(objects, pods);
  assert.deepEqual(
    trimmed.workloads.map((one) => one.pods),
    original.workloads.map((one) => one.pods),
  );
  const inputs = { figures: figures(), basis: 'history' as const, apiOomKills: new Map<string, number>(), headroomPercent: 20 };
  const strip = (list: RecommendationRow[]) => list.map((row) => ({ ...row, workload: { ...row.workload } }));
  assert.deepEqual(
    strip(recommendationRows({ matching: trimmed, ...inputs })),
    strip(recommendationRows({ matching: original, ...inputs })),
  );
});

// The manifest as a user keeps it: the worker groups in another order than the cluster's, comments kept.
const RAY_MANIFEST = `# rc-demo as kept in git
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: rc-demo
  namespace: groups
spec:
  headGroupSpec:
    template:
      spec:
        containers:
        - name: ray-head
          resources:
            limits: {cpu: "1", memory: 8Gi}
            requests: {cpu: "1", memory: 8Gi}
  workerGroupSpecs:
  - groupName: gpu-group
    template:
      spec:
        containers:
        - name: ray-worker
          resources:
            limits: {cpu: "4", memory: 16Gi, nvidia.com/gpu: "1"}
            requests: {cpu: "4", memory: 16Gi, nvidia.com/gpu: "1"}
  - groupName: workergroup
    template:
      spec:
        containers:
        - name: ray-worker
          resources:
            limits: {cpu: "1", memory: 4Gi}
            requests: {cpu: "1", memory: 4Gi}
`;

test('the edit of a worker group lands in that group, found by its groupName, and nowhere else', () => {
  const change = changesOf(rows()).find((one) => one.ref.name === 'rc-demo' && one.template === 'workerGroupSpecs[gpu-group]');
  assert.ok(change);
  // 22 GiB true footprint + 20 % headroom, rounded up by the recommendation: above today's 16Gi.
  const memory = change.containers[0]?.memory;
  assert.ok(memory && memory !== '16Gi');
  const outcome = editManifest(RAY_MANIFEST, change);
  assert.equal(outcome.found, true);
  assert.deepEqual(outcome.skipped, []);
  const after = parseAllDocuments(outcome.text)[0]!.toJS() as {
    spec: { headGroupSpec: unknown; workerGroupSpecs: { groupName: string; template: unknown }[] };
  };
  const before = parseAllDocuments(RAY_MANIFEST)[0]!.toJS() as typeof after;
  assert.deepEqual(after.spec.headGroupSpec, before.spec.headGroupSpec);
  assert.deepEqual(after.spec.workerGroupSpecs[1], before.spec.workerGroupSpecs[1]);
  const gpu = after.spec.workerGroupSpecs[0] as {
    template: { spec: { containers: { resources: Record<string, Record<string, string>> }[] } };
  };
  assert.equal(gpu.template.spec.containers[0]?.resources['limits']?.['memory'], memory);
  assert.equal(gpu.template.spec.containers[0]?.resources['requests']?.['memory'], memory);
  assert.ok(outcome.text.startsWith('# rc-demo as kept in git\n'));
  // A template the manifest does not have is reported, not edited elsewhere.
  const missing = editManifest(RAY_MANIFEST, { ...change, template: 'workerGroupSpecs[tpu]' });
  assert.equal(missing.text, RAY_MANIFEST);
  assert.match(missing.skipped.join('\n'), /no pod template workerGroupSpecs\[tpu\] in the manifest/);
});

test('patches name the template: an LWS template and the Ray head by their path, a worker group not at all', () => {
  const changes = changesOf(rows());
  const worker = changes.find((one) => one.template === 'workerTemplate');
  assert.ok(worker);
  const patch = strategicMergePatch(worker);
  assert.equal(patch.kind, 'patch');
  const document = parseAllDocuments(patch.kind === 'patch' ? patch.text : '')[0]!.toJS() as Record<string, unknown>;
  assert.deepEqual(document['spec'], {
    leaderWorkerTemplate: {
      workerTemplate: {
        spec: {
          containers: [
            {
              name: 'vllm-worker',
              resources: { requests: { memory: worker.containers[0]?.memory }, limits: { memory: worker.containers[0]?.memory } },
            },
          ],
        },
        ...(worker.annotations.size > 0 ? { metadata: { annotations: Object.fromEntries(worker.annotations) } } : {}),
      },
    },
  });
  const group = changes.find((one) => one.template === 'workerGroupSpecs[gpu-group]');
  assert.ok(group);
  const none = strategicMergePatch(group);
  assert.equal(none.kind, 'none');
  assert.match(none.kind === 'none' ? none.reason : '', /sits in a list/);
});

// kubernetes-sigs/lws docs/examples/vllm/GPU/lws.yaml's shape, trimmed to what the judgement reads.
const LWS_MANIFEST = `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: vllm
  namespace: groups
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 3
    leaderTemplate:
      spec:
        containers:
          - name: vllm-leader
            image: vllm/vllm-openai:latest
            resources:
              limits:
                nvidia.com/gpu: "1"
                memory: 24Gi
              requests:
                memory: 24Gi
    workerTemplate:
      spec:
        containers:
          - name: vllm-worker
            image: vllm/vllm-openai:latest
            resources:
              limits:
                nvidia.com/gpu: "1"
                memory: 20Gi
              requests:
                memory: 20Gi
`;

function snapshot() {
  const matching = matchPods(objects, pods);
  return liveSnapshot({
    context: 'prod',
    defaultNamespace: 'default',
    source: 'hand-written figures',
    window: '1d',
    windowSeconds: 86_400,
    fetchedAtMs: 1_000_000,
    matching,
    rows: rows(),
    pods,
    figures: figures(),
  });
}

test('live findings, lens and hover of an LWS: each container judged on its own template and pods, the fix on its template', () => {
  const lint = lintText(LWS_MANIFEST);
  const summaries = lint.containers;
  assert.deepEqual(
    summaries.map((one) => `${one.role} ${one.container}`),
    ['leaderTemplate vllm-leader', 'workerTemplate vllm-worker'],
  );
  const judged = judgeLive(summaries, snapshot(), { headroomPercent: 20, rules: {}, nowMs: 1_000_000, text: LWS_MANIFEST });
  assert.equal(judged.matched, 2);
  const [leaderLens, workerLens] = judged.lenses;
  assert.match(leaderLens?.title ?? '', /^live in prod: 1 pod · peak true footprint 28 GiB/);
  assert.match(workerLens?.title ?? '', /^live in prod: 2 pods · peak true footprint 24 GiB/);
  // No drift: each container is compared with its own live template.
  assert.deepEqual(
    judged.findings.filter((one) => one.ruleId === 'manifest-drift').map((one) => one.message),
    [],
  );
  const over = judged.findings.filter((one) => one.ruleId === 'observed-footprint-over-limit');
  assert.deepEqual(
    over.map((one) => one.container),
    ['vllm-leader', 'vllm-worker'],
  );
  // The worker's fix changes the workerTemplate only.
  const edit = over[1]?.fixOnRequest?.build(LWS_MANIFEST)?.edits[0];
  assert.ok(edit);
  const fixed = LWS_MANIFEST.slice(0, edit.start) + edit.newText + LWS_MANIFEST.slice(edit.end);
  const after = parseAllDocuments(fixed)[0]!.toJS() as { spec: { leaderWorkerTemplate: Record<string, unknown> } };
  const before = parseAllDocuments(LWS_MANIFEST)[0]!.toJS() as typeof after;
  assert.deepEqual(after.spec.leaderWorkerTemplate['leaderTemplate'], before.spec.leaderWorkerTemplate['leaderTemplate']);
  assert.notDeepEqual(after.spec.leaderWorkerTemplate['workerTemplate'], before.spec.leaderWorkerTemplate['workerTemplate']);

  const layer = liveLayerModel(
    LWS_MANIFEST,
    summaries,
    {
      snapshot: snapshot(),
      headroomPercent: 20,
      rules: {},
      staleAfterMs: 60_000,
      commentOnFix: false,
      inspectPodCommand: 'gpumem.inspectPod',
    },
    1_000_000,
  );
  const [leaderHover, workerHover] = layer.hovers.map((one) => one.markdown);
  assert.match(leaderHover ?? '', /vllm-0\b/);
  assert.doesNotMatch(leaderHover ?? '', /vllm-0-1/);
  assert.match(workerHover ?? '', /vllm-0-1/);
  assert.match(workerHover ?? '', /vllm-0-2/);
  assert.doesNotMatch(workerHover ?? '', /command:gpumem\.inspectPod\?[^)]*%22vllm-0%22/);
});

test('on arbitrary JSON in the template places, matching, rows, trimming and edits never throw', () => {
  // Shapes near the real ones, so the walk reaches the templates: any JSON where a template, a group list or a
  // label map should be.
  const rayLike = fc.record({
    apiVersion: fc.constantFrom('ray.io/v1', 'leaderworkerset.x-k8s.io/v1'),
    kind: fc.constantFrom('RayCluster', 'RayJob', 'RayService', 'LeaderWorkerSet'),
    metadata: fc.record({ name: fc.constantFrom('rc-demo', 'vllm'), uid: fc.constant('u-top') }),
    spec: fc.oneof(
      fc.jsonValue(),
      fc.record({
        headGroupSpec: fc.jsonValue(),
        workerGroupSpecs: fc.array(fc.record({ groupName: fc.jsonValue(), template: fc.jsonValue() })),
      }),
      fc.record({ leaderWorkerTemplate: fc.record({ leaderTemplate: fc.jsonValue(), workerTemplate: fc.jsonValue() }) }),
    ),
  });
  const pod = fc.record({
    metadata: fc.record({
      name: fc.constantFrom('p1', 'p2'),
      uid: fc.constantFrom('p1', 'p2'),
      labels: fc.oneof(
        fc.jsonValue(),
        fc.dictionary(
          fc.constantFrom(
            'ray.io/cluster',
            'ray.io/node-type',
            'ray.io/group',
            'leaderworkerset.sigs.k8s.io/name',
            'leaderworkerset.sigs.k8s.io/worker-index',
          ),
          fc.string(),
        ),
      ),
      ownerReferences: fc.constant([{ kind: 'RayCluster', name: 'rc-demo', uid: 'u-top', controller: true }]),
    }),
  });
  fc.assert(
    fc.property(rayLike, fc.array(pod, { maxLength: 3 }), (workload, somePods) => {
      const matching = matchPods([workload], somePods);
      const rowsOut = recommendationRows({ matching, figures: undefined, basis: 'history', apiOomKills: new Map(), headroomPercent: 20 });
      const trimmed = trimWorkload(workload, workload.kind, workload.apiVersion);
      assert.deepEqual(JSON.parse(JSON.stringify(trimmed)), trimmed);
      for (const change of changesOf(rowsOut)) {
        editManifest(RAY_MANIFEST, change);
        strategicMergePatch(change);
      }
    }),
    { seed: 36, numRuns: 300 },
  );
});

test("a Ray worker pod's own manifest (the Clusters view's Open Manifest) is judged as its worker group's container", () => {
  const podManifest = `apiVersion: v1
kind: Pod
metadata:
  name: rc-demo-gpu-group-worker-z9t5r
  namespace: groups
spec:
  containers:
  - name: ray-worker
    image: rayproject/ray:2.41.0-gpu
    resources:
      limits: {cpu: "4", memory: 16Gi, nvidia.com/gpu: "1"}
      requests: {cpu: "4", memory: 16Gi, nvidia.com/gpu: "1"}
`;
  const layer = liveLayerModel(
    podManifest,
    lintText(podManifest).containers,
    {
      snapshot: snapshot(),
      headroomPercent: 20,
      rules: {},
      staleAfterMs: 60_000,
      commentOnFix: false,
      inspectPodCommand: 'gpumem.inspectPod',
    },
    1_000_000,
  );
  // The gpu-group's row (22 GiB), not the CPU group's (3 GiB) whose container has the same name.
  assert.match(layer.lenses[0]?.title ?? '', /live in prod: 1 pod · peak true footprint 22 GiB/);
  assert.match(layer.hovers[0]?.markdown ?? '', /rc-demo-gpu-group-worker-z9t5r/);
  assert.doesNotMatch(layer.hovers[0]?.markdown ?? '', /rc-demo-workergroup-worker-q4m8d/);
});

test('without the LWS object (its CRD not readable), its leader StatefulSet is a workload of its own, as before', () => {
  const matching = matchPods(
    objects.filter((one) => kindOf(one) !== 'LeaderWorkerSet'),
    pods,
  );
  const names = (kind: string) =>
    matching.workloads.filter((one) => one.ref.kind === kind).map((one) => `${one.ref.name}: ${one.pods.map((pod) => pod.name).join(',')}`);
  // The workers' StatefulSet is still carried by the leader pod, which is there; their owner chain ends at the LWS.
  assert.deepEqual(names('StatefulSet'), ['vllm: ']);
  assert.deepEqual(
    matching.unmatched.map((one) => one.name),
    ['vllm-0', 'vllm-0-1', 'vllm-0-2'],
  );
  assert.match(matching.unmatched[0]!.reason, /owner LeaderWorkerSet vllm is not in the cluster/);
});

test("Copy patch of a RayCluster: the head's patch document, and a comment for each worker group saying why none", () => {
  const patch = workloadPatches(rows()).get('RayCluster/groups/rc-demo');
  assert.equal(patch?.kind, 'patch');
  const text = patch?.kind === 'patch' ? patch.text : '';
  const documents = parseAllDocuments(text).map((doc) => doc.toJS() as Record<string, unknown> | null);
  const head = documents.find((one) => one !== null && JSON.stringify(one).includes('headGroupSpec'));
  assert.deepEqual(Object.keys((head?.['spec'] ?? {}) as object), ['headGroupSpec']);
  assert.match(text, /# workerGroupSpecs\[gpu-group\]: no patch \(workerGroupSpecs\[gpu-group\] sits in a list/);
});
