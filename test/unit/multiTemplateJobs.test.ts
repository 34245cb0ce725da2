// Live matching of the batch kinds whose pod templates sit in a named list: a JobSet's replicated jobs (its pods come
// through the batch/v1 Jobs it owns) and a Volcano Job's tasks (its kind is named Job too), matched per template,
// edited by the item's name, patched not at all (a merge patch of a custom resource replaces a list whole).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse, stringify } from 'yaml';
import { lintText } from '../../src/core/lint.ts';
import { judgeLive } from '../../src/core/live/liveFindings.ts';
import { liveKey, liveSnapshot } from '../../src/core/live/liveSnapshot.ts';
import { trimPod, trimWorkload } from '../../src/core/live/trimObject.ts';
import { liveTemplates } from '../../src/core/rightsizing/liveContainers.ts';
import { editManifest } from '../../src/core/rightsizing/manifestEdit.ts';
import { strategicMergePatch } from '../../src/core/rightsizing/patch.ts';
import { recommendationRows } from '../../src/core/rightsizing/rows.ts';
import { matchPods } from '../../src/core/rightsizing/workloadPods.ts';
import { templatesOf } from './helpers/multiTemplateCluster.ts';

// kubernetes-sigs/jobset examples/simple/driver-worker-success-policy.yaml's shape (a leader and a workers replicated
// job), with memory limits and a GPU on the workers added.
const container = (name: string, memory: string, gpu: boolean) => ({
  name,
  image: 'bash:latest',
  resources: { limits: { memory, ...(gpu ? { 'nvidia.com/gpu': '1' } : {}) }, requests: { memory } },
});
const replicatedJob = (name: string, completions: number, memory: string, gpu: boolean) => ({
  name,
  replicas: 1,
  template: {
    spec: {
      backoffLimit: 0,
      completions,
      parallelism: completions,
      template: { spec: { containers: [container(name === 'leader' ? 'leader' : 'worker', memory, gpu)] } },
    },
  },
});
const JOBSET = {
  apiVersion: 'jobset.x-k8s.io/v1alpha2',
  kind: 'JobSet',
  metadata: { name: 'success-policy', namespace: 'batch', uid: 'u-js' },
  spec: {
    successPolicy: { operator: 'All', targetReplicatedJobs: ['workers'] },
    replicatedJobs: [replicatedJob('leader', 1, '4Gi', false), replicatedJob('workers', 2, '16Gi', true)],
  },
};
const JOBSET_OWNER = { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', name: 'success-policy', uid: 'u-js', controller: true };
// The controller labels each Job and its pods with the JobSet's and the replicated job's names (jobset_types.go
// JobSetNameKey, ReplicatedJobNameKey; jobset_controller.go labelAndAnnotateObject); a Job is named
// <jobset>-<replicated job>-<index> (placement.GenJobName) and owned by the JobSet.
const jobsetLabels = (replicated: string) => ({
  'jobset.sigs.k8s.io/jobset-name': 'success-policy',
  'jobset.sigs.k8s.io/replicatedjob-name': replicated,
  'jobset.sigs.k8s.io/replicatedjob-replicas': '1',
  'jobset.sigs.k8s.io/job-index': '0',
});
const childJob = (replicated: string) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: {
    name: `success-policy-${replicated}-0`,
    namespace: 'batch',
    uid: `u-job-${replicated}`,
    labels: jobsetLabels(replicated),
    ownerReferences: [JOBSET_OWNER],
  },
  spec: {
    selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': `u-job-${replicated}` } },
    template: JOBSET.spec.replicatedJobs.find((one) => one.name === replicated)!.template.spec.template,
  },
});
const jobsetPod = (replicated: string, index: number, labels: Record<string, string> = jobsetLabels(replicated)) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: `success-policy-${replicated}-0-${index}-x${index}`,
    namespace: 'batch',
    uid: `u-pod-${replicated}-${index}`,
    labels: {
      ...labels,
      'batch.kubernetes.io/controller-uid': `u-job-${replicated}`,
      'batch.kubernetes.io/job-name': `success-policy-${replicated}-0`,
    },
    ownerReferences: [
      { apiVersion: 'batch/v1', kind: 'Job', name: `success-policy-${replicated}-0`, uid: `u-job-${replicated}`, controller: true },
    ],
  },
  spec: { nodeName: 'gpu-1' },
});
const JOBSET_OBJECTS = [JOBSET, childJob('leader'), childJob('workers')];
const JOBSET_PODS = [jobsetPod('leader', 0), jobsetPod('workers', 0), jobsetPod('workers', 1)];
const JOBSET_REF = { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: 'batch', name: 'success-policy' };

/** The snapshot of context prod over a day of hand-written figures, as live mode would hold it. */
function handWrittenSnapshot(
  matching: ReturnType<typeof matchPods>,
  rows: ReturnType<typeof recommendationRows>,
  pods?: readonly unknown[],
): ReturnType<typeof liveSnapshot> {
  return liveSnapshot({
    context: 'prod',
    defaultNamespace: 'default',
    source: 'hand-written',
    window: '1d',
    windowSeconds: 86_400,
    fetchedAtMs: 0,
    matching,
    rows,
    ...(pods ? { pods } : {}),
  });
}

test('a JobSet: each pod runs its replicated job, by the JobSet labels; its Jobs only carry the pods', () => {
  const matching = matchPods(JOBSET_OBJECTS, JOBSET_PODS);
  assert.deepEqual(matching.unmatched, []);
  assert.deepEqual(
    matching.workloads.map((one) => `${one.ref.kind} ${one.ref.name}`),
    ['JobSet success-policy'],
  );
  assert.deepEqual(templatesOf(matching, 'JobSet', 'success-policy'), {
    'success-policy-leader-0-0-x0': 'replicatedJobs[leader]',
    'success-policy-workers-0-0-x0': 'replicatedJobs[workers]',
    'success-policy-workers-0-1-x1': 'replicatedJobs[workers]',
  });
  const templates = liveTemplates(JOBSET);
  assert.equal(templates.kind, 'templates');
  assert.deepEqual(
    templates.kind === 'templates'
      ? templates.templates.map((one) => `${one.role} ${one.containers.map((c) => c.limit?.text).join()}`)
      : [],
    ['replicatedJobs[leader] 4Gi', 'replicatedJobs[workers] 16Gi'],
  );
  const rows = recommendationRows({ matching, figures: undefined, basis: 'history', apiOomKills: new Map(), headroomPercent: 20 });
  assert.deepEqual(
    rows.map((row) => `${row.template} ${row.container} ${row.current.limit?.text}`),
    ['replicatedJobs[leader] leader 4Gi', 'replicatedJobs[workers] worker 16Gi'],
  );
  // The editor's cache keeps trimmed objects: they match the same way.
  const trimmed = matchPods(
    JOBSET_OBJECTS.map((one) => trimWorkload(one, one.kind, one.apiVersion)),
    JOBSET_PODS.map((one) => trimPod(one)),
  );
  assert.deepEqual(templatesOf(trimmed, 'JobSet', 'success-policy'), templatesOf(matching, 'JobSet', 'success-policy'));
});

test("a JobSet pod of a replicated job the JobSet no longer has, or without the operator's labels, is reported, not guessed", () => {
  const { 'jobset.sigs.k8s.io/replicatedjob-name': _dropped, ...unlabelled } = jobsetLabels('workers');
  const matching = matchPods(JOBSET_OBJECTS, [
    jobsetPod('workers', 0, jobsetLabels('evaluator')),
    jobsetPod('workers', 1, unlabelled),
    jobsetPod('leader', 0, { ...jobsetLabels('leader'), 'jobset.sigs.k8s.io/jobset-name': 'other' }),
  ]);
  assert.deepEqual(templatesOf(matching, 'JobSet', 'success-policy'), {});
  assert.deepEqual(
    matching.unmatched.map((one) =>
      one.reason.replace(/^owned by JobSet success-policy, but which of its templates it runs is unknown: /, ''),
    ),
    [
      'it runs replicatedJobs[evaluator], which the live JobSet does not have',
      'no jobset.sigs.k8s.io/replicatedjob-name label',
      'its jobset.sigs.k8s.io/jobset-name label is other, not success-policy',
    ],
  );
});

test("a JobSet's change lands in its replicated job, found by name in a file that orders them otherwise; no merge patch", () => {
  const manifest = stringify({
    ...JOBSET,
    metadata: { name: 'success-policy', namespace: 'batch' },
    spec: { ...JOBSET.spec, replicatedJobs: [...JOBSET.spec.replicatedJobs].reverse() },
  });
  const change = {
    ref: JOBSET_REF,
    template: 'replicatedJobs[workers]',
    containers: [{ container: 'worker', memory: '24Gi' }],
    annotations: new Map(),
  };
  const edited = editManifest(manifest, change);
  assert.equal(edited.found, true);
  assert.deepEqual(edited.skipped, []);
  const after = parse(edited.text) as typeof JOBSET;
  const before = parse(manifest) as typeof JOBSET;
  assert.deepEqual(after.spec.replicatedJobs[1], before.spec.replicatedJobs[1]);
  assert.equal(after.spec.replicatedJobs[0]?.name, 'workers');
  assert.deepEqual(after.spec.replicatedJobs[0]?.template.spec.template.spec.containers[0]?.resources, {
    limits: { memory: '24Gi', 'nvidia.com/gpu': '1' },
    requests: { memory: '24Gi' },
  });
  const missing = editManifest(manifest, { ...change, template: 'replicatedJobs[evaluator]' });
  assert.equal(missing.text, manifest);
  assert.match(missing.skipped.join('\n'), /no pod template replicatedJobs\[evaluator\] in the manifest/);
  const patch = strategicMergePatch(change);
  assert.equal(patch.kind, 'none');
  assert.match(patch.kind === 'none' ? patch.reason : '', /replicatedJobs\[workers\] sits in a list.*--apply/);
});

// volcano-sh/volcano example/integrations/tensorflow/tf-example-gpu.yaml's shape (a ps task and a worker task, both
// with a container named tensorflow), with memory limits added. Volcano names a pod <job>-<task>-<index>
// (pkg/controllers/job/helpers PodNameFmt), owns it directly and labels it with the job's and the task's names.
const VOLCANO_API = 'batch.volcano.sh/v1alpha1';
const task = (name: string, replicas: number, memory: string, gpu: boolean) => ({
  replicas,
  name,
  template: { spec: { containers: [container('tensorflow', memory, gpu)], restartPolicy: 'OnFailure' } },
});
const VOLCANO_JOB = {
  apiVersion: VOLCANO_API,
  kind: 'Job',
  metadata: { name: 'tensorflow-benchmark-gpu', namespace: 'batch', uid: 'u-vcjob' },
  spec: { minAvailable: 4, schedulerName: 'volcano', tasks: [task('ps', 1, '2Gi', false), task('worker', 3, '12Gi', true)] },
};
const volcanoPod = (taskName: string, index: number, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: `tensorflow-benchmark-gpu-${taskName}-${index}`,
    namespace: 'batch',
    uid: `u-vc-${taskName}-${index}`,
    labels: labels ?? {
      'volcano.sh/job-name': 'tensorflow-benchmark-gpu',
      'volcano.sh/job-namespace': 'batch',
      'volcano.sh/queue-name': 'default',
      'volcano.sh/task-spec': taskName,
      'volcano.sh/task-index': String(index),
    },
    ownerReferences: [{ apiVersion: VOLCANO_API, kind: 'Job', name: 'tensorflow-benchmark-gpu', uid: 'u-vcjob', controller: true }],
  },
  spec: { nodeName: 'gpu-1' },
});
// A batch/v1 Job of the same namespace and name, with its own pod: the two must never stand for each other.
const BATCH_JOB = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'tensorflow-benchmark-gpu', namespace: 'batch', uid: 'u-batchjob' },
  spec: {
    selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u-batchjob' } },
    template: { spec: { containers: [container('tensorflow', '1Gi', true)] } },
  },
};
const BATCH_POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'tensorflow-benchmark-gpu-abcde',
    namespace: 'batch',
    uid: 'u-batch-pod',
    labels: { 'batch.kubernetes.io/controller-uid': 'u-batchjob' },
    ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'tensorflow-benchmark-gpu', uid: 'u-batchjob', controller: true }],
  },
};
const VOLCANO_PODS = [volcanoPod('ps', 0), volcanoPod('worker', 0), volcanoPod('worker', 1), volcanoPod('worker', 2)];

test("a Volcano Job: each pod runs its task, by Volcano's labels; a batch Job of the same name stays apart", () => {
  const matching = matchPods([VOLCANO_JOB, BATCH_JOB], [...VOLCANO_PODS, BATCH_POD]);
  assert.deepEqual(matching.unmatched, []);
  const volcano = matching.workloads.find((one) => one.ref.apiVersion === VOLCANO_API);
  const batch = matching.workloads.find((one) => one.ref.apiVersion === 'batch/v1');
  assert.deepEqual(Object.fromEntries(volcano?.pods.map((pod) => [pod.name, pod.template]) ?? []), {
    'tensorflow-benchmark-gpu-ps-0': 'tasks[ps]',
    'tensorflow-benchmark-gpu-worker-0': 'tasks[worker]',
    'tensorflow-benchmark-gpu-worker-1': 'tasks[worker]',
    'tensorflow-benchmark-gpu-worker-2': 'tasks[worker]',
  });
  assert.deepEqual(
    batch?.pods.map((pod) => [pod.name, pod.template]),
    [['tensorflow-benchmark-gpu-abcde', undefined]],
  );
  const rows = recommendationRows({ matching, figures: undefined, basis: 'history', apiOomKills: new Map(), headroomPercent: 20 });
  assert.deepEqual(
    rows.map((row) => `${row.workload.apiVersion} ${row.template} ${row.container} ${row.current.limit?.text}`),
    [`${VOLCANO_API} tasks[ps] tensorflow 2Gi`, `${VOLCANO_API} tasks[worker] tensorflow 12Gi`, 'batch/v1 undefined tensorflow 1Gi'],
  );
  // The live snapshot keys them apart: a manifest's Volcano Job finds the Volcano Job, a batch Job the batch Job.
  const snapshot = handWrittenSnapshot(matching, rows);
  const ofVolcano = snapshot.workloads.get(liveKey('Job', 'batch', 'tensorflow-benchmark-gpu', VOLCANO_API));
  const ofBatch = snapshot.workloads.get(liveKey('Job', 'batch', 'tensorflow-benchmark-gpu', 'batch/v1'));
  assert.deepEqual([ofVolcano?.pods.total, ofVolcano?.rows.length], [4, 2]);
  assert.deepEqual([ofBatch?.pods.total, ofBatch?.rows.length], [1, 1]);
  // The cache's trimmed objects: a Volcano Job keeps its tasks, and matches the same way.
  const trimmed = matchPods(
    [VOLCANO_JOB, BATCH_JOB].map((one) => trimWorkload(one, one.kind, one.apiVersion)),
    [...VOLCANO_PODS, BATCH_POD].map((one) => trimPod(one)),
  );
  assert.deepEqual(
    trimmed.workloads.map((one) => one.pods.map((pod) => pod.template ?? '-').join()),
    matching.workloads.map((one) => one.pods.map((pod) => pod.template ?? '-').join()),
  );
});

test("a Volcano Job's pod of a removed task, or from a Volcano that labels no task, is reported, not guessed", () => {
  const matching = matchPods(
    [VOLCANO_JOB],
    [volcanoPod('chief', 0), volcanoPod('worker', 0, { 'volcano.sh/job-name': 'tensorflow-benchmark-gpu' })],
  );
  assert.deepEqual(
    matching.unmatched.map((one) =>
      one.reason.replace(/^owned by Job tensorflow-benchmark-gpu, but which of its templates it runs is unknown: /, ''),
    ),
    ['it runs tasks[chief], which the live Job does not have', 'no volcano.sh/task-spec label'],
  );
});

test("a Volcano Job's change lands in its task, found by name; the batch Job of the same name is left alone; no merge patch", () => {
  const manifest = [BATCH_JOB, { ...VOLCANO_JOB, spec: { ...VOLCANO_JOB.spec, tasks: [...VOLCANO_JOB.spec.tasks].reverse() } }]
    .map((one) => stringify({ ...one, metadata: { name: one.metadata.name, namespace: 'batch' } }))
    .join('---\n');
  const change = {
    ref: { apiVersion: VOLCANO_API, kind: 'Job', namespace: 'batch', name: 'tensorflow-benchmark-gpu' },
    template: 'tasks[worker]',
    containers: [{ container: 'tensorflow', memory: '20Gi' }],
    annotations: new Map(),
  };
  const edited = editManifest(manifest, change);
  assert.equal(edited.found, true);
  assert.deepEqual(edited.skipped, []);
  const [batchBefore, volcanoBefore] = manifest.split('---\n').map((one) => parse(one) as typeof VOLCANO_JOB);
  const [batchAfter, volcanoAfter] = edited.text.split('---\n').map((one) => parse(one) as typeof VOLCANO_JOB);
  assert.deepEqual(batchAfter, batchBefore);
  assert.deepEqual(volcanoAfter?.spec.tasks[1], volcanoBefore?.spec.tasks[1]);
  assert.equal(volcanoAfter?.spec.tasks[0]?.name, 'worker');
  assert.deepEqual(volcanoAfter?.spec.tasks[0]?.template.spec.containers[0]?.resources, {
    limits: { memory: '20Gi', 'nvidia.com/gpu': '1' },
    requests: { memory: '20Gi' },
  });
  const patch = strategicMergePatch(change);
  assert.equal(patch.kind, 'none');
  assert.match(patch.kind === 'none' ? patch.reason : '', /tasks\[worker\] sits in a list.*--apply/);
});

test('in the editor, a Volcano Job and a batch Job of the same name in one file are each judged on their own live object', () => {
  const manifest = [BATCH_JOB, VOLCANO_JOB]
    .map((one) =>
      stringify({ apiVersion: one.apiVersion, kind: one.kind, metadata: { name: one.metadata.name, namespace: 'batch' }, spec: one.spec }),
    )
    .join('---\n');
  const matching = matchPods([VOLCANO_JOB, BATCH_JOB], [...VOLCANO_PODS, BATCH_POD]);
  const rows = recommendationRows({ matching, figures: undefined, basis: 'history', apiOomKills: new Map(), headroomPercent: 20 });
  const snapshot = handWrittenSnapshot(matching, rows, [...VOLCANO_PODS, BATCH_POD]);
  const summaries = lintText(manifest).containers;
  const judged = judgeLive(summaries, snapshot, { headroomPercent: 20, rules: {}, nowMs: 0, text: manifest });
  assert.deepEqual(
    summaries.map((one) => `${one.object.apiVersion} ${one.role ?? '-'} ${one.container}`),
    ['batch/v1 - tensorflow', `${VOLCANO_API} tasks[worker] tensorflow`],
  );
  assert.equal(judged.matched, 2);
  assert.deepEqual(
    judged.lenses.map((one) => one.title.replace(/ · no usage figures.*/, '')),
    ['live in prod: 1 pod', 'live in prod: 3 pods'],
  );
  // Each is compared with its own live object: no drift, though the two limits differ (1Gi, 12Gi).
  assert.deepEqual(
    judged.findings.filter((one) => one.ruleId === 'manifest-drift'),
    [],
  );
});
