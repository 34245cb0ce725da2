// Workloads with several pod templates, live: a KubeRay RayCluster (head group, two worker groups), a
// LeaderWorkerSet (leader and worker templates) and a RayJob, as their operators leave them in a cluster
// (helpers/multiTemplateCluster.ts). Each pod is matched to its own template and each template gets its own rows from
// its own pods' figures; the cache's trimmed objects give the same; arbitrary input never throws. The figures are
// hand-written per pod; the expected values are those figures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { trimPod, trimWorkload } from '../../src/core/live/trimObject.ts';
import { editManifest } from '../../src/core/rightsizing/manifestEdit.ts';
import { strategicMergePatch } from '../../src/core/rightsizing/patch.ts';
import { changesOf, recommendationRows } from '../../src/core/rightsizing/rows.ts';
import type { RecommendationRow } from '../../src/core/rightsizing/rows.ts';
import { matchPods } from '../../src/core/rightsizing/workloadPods.ts';
import { figures, GiB, kindOf, objects, pods, RAY_MANIFEST, rows, templatesOf } from './helpers/multiTemplateCluster.ts';

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

test('a Kubeflow PyTorchJob: master and worker pods each their replica spec, by the lowercased replica-type label', () => {
  // kubeflow/training-operator examples/pytorch/simple.yaml's shape; its pods as the operator creates them (owned by
  // the job, labelled with training.kubeflow.org/job-name, replica-type in lower case, replica-index, job-role).
  const template = (memory: string) => ({
    spec: {
      containers: [
        { name: 'pytorch', image: 'kubeflow/pytorch-dist-mnist:latest', resources: { limits: { memory, 'nvidia.com/gpu': '1' } } },
      ],
    },
  });
  const job = {
    apiVersion: 'kubeflow.org/v1',
    kind: 'PyTorchJob',
    metadata: { name: 'pytorch-simple', namespace: 'kubeflow', uid: 'u-ptj' },
    spec: {
      pytorchReplicaSpecs: {
        Master: { replicas: 1, restartPolicy: 'OnFailure', template: template('8Gi') },
        Worker: { replicas: 2, restartPolicy: 'OnFailure', template: template('12Gi') },
      },
    },
  };
  const pod = (type: string, index: number) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `pytorch-simple-${type}-${index}`,
      namespace: 'kubeflow',
      uid: `u-${type}-${index}`,
      labels: {
        'training.kubeflow.org/job-name': 'pytorch-simple',
        'training.kubeflow.org/operator-name': 'pytorchjob-controller',
        'training.kubeflow.org/replica-type': type,
        'training.kubeflow.org/replica-index': String(index),
        ...(type === 'master' ? { 'training.kubeflow.org/job-role': 'master' } : {}),
      },
      ownerReferences: [{ apiVersion: 'kubeflow.org/v1', kind: 'PyTorchJob', name: 'pytorch-simple', uid: 'u-ptj', controller: true }],
    },
  });
  const matching = matchPods([job], [pod('master', 0), pod('worker', 0), pod('worker', 1)]);
  assert.deepEqual(matching.unmatched, []);
  assert.deepEqual(templatesOf(matching, 'PyTorchJob', 'pytorch-simple'), {
    'pytorch-simple-master-0': 'pytorchReplicaSpecs[Master]',
    'pytorch-simple-worker-0': 'pytorchReplicaSpecs[Worker]',
    'pytorch-simple-worker-1': 'pytorchReplicaSpecs[Worker]',
  });
  const rowsOut = recommendationRows({ matching, figures: undefined, basis: 'history', apiOomKills: new Map(), headroomPercent: 20 });
  assert.deepEqual(
    rowsOut.map((row) => `${row.template} ${row.container} ${row.current.limit?.text}`),
    ['pytorchReplicaSpecs[Master] pytorch 8Gi', 'pytorchReplicaSpecs[Worker] pytorch 12Gi'],
  );
  // A replica spec is a map entry: a merge patch can name it.
  const patch = strategicMergePatch({
    ref: { apiVersion: 'kubeflow.org/v1', kind: 'PyTorchJob', namespace: 'kubeflow', name: 'pytorch-simple' },
    template: 'pytorchReplicaSpecs[Worker]',
    containers: [{ container: 'pytorch', memory: '16Gi' }],
    annotations: new Map(),
  });
  const manifest = stringify(job);
  const edited = editManifest(manifest, {
    ref: { apiVersion: 'kubeflow.org/v1', kind: 'PyTorchJob', namespace: 'kubeflow', name: 'pytorch-simple' },
    template: 'pytorchReplicaSpecs[Worker]',
    containers: [{ container: 'pytorch', memory: '16Gi' }],
    annotations: new Map(),
  });
  const after = parse(edited.text) as typeof job;
  assert.deepEqual(after.spec.pytorchReplicaSpecs.Master, job.spec.pytorchReplicaSpecs.Master);
  assert.deepEqual(after.spec.pytorchReplicaSpecs.Worker.template.spec.containers[0]?.resources, {
    limits: { memory: '16Gi', 'nvidia.com/gpu': '1' },
    requests: { memory: '16Gi' },
  });
  assert.equal(patch.kind, 'patch');
  assert.match(
    patch.kind === 'patch' ? patch.text : '',
    /spec:\n  pytorchReplicaSpecs:\n    Worker:\n      template:\n        spec:\n          containers:\n            - name: pytorch\n/,
  );
});
