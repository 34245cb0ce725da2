// Workloads with several pod templates, edited and judged live: the recommendation's edit lands in the template whose
// pods needed it (a Ray worker group found by its groupName), patches name the template, and the live findings, lens,
// hover and quick fix of each container are those of its own template (helpers/multiTemplateCluster.ts: a RayCluster
// and a LeaderWorkerSet as their operators leave them, hand-written figures per pod).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAllDocuments } from 'yaml';
import { lintText } from '../../src/core/lint.ts';
import { judgeLive } from '../../src/core/live/liveFindings.ts';
import { liveLayerModel } from '../../src/core/live/liveLayerModel.ts';
import { editManifest } from '../../src/core/rightsizing/manifestEdit.ts';
import { strategicMergePatch } from '../../src/core/rightsizing/patch.ts';
import { workloadPatches } from '../../src/core/rightsizing/recommendationsModel.ts';
import { changesOf } from '../../src/core/rightsizing/rows.ts';
import { LWS_MANIFEST, RAY_MANIFEST, rows, snapshot } from './helpers/multiTemplateCluster.ts';

/** Live mode's layer for a file against the hand-written snapshot, with the same settings and clock each time. */
function layerOf(text: string, summaries: Parameters<typeof liveLayerModel>[1]): ReturnType<typeof liveLayerModel> {
  return liveLayerModel(
    text,
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
}

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

  const layer = layerOf(LWS_MANIFEST, summaries);
  const [leaderHover, workerHover] = layer.hovers.map((one) => one.markdown);
  assert.match(leaderHover ?? '', /vllm-0\b/);
  assert.doesNotMatch(leaderHover ?? '', /vllm-0-1/);
  assert.match(workerHover ?? '', /vllm-0-1/);
  assert.match(workerHover ?? '', /vllm-0-2/);
  assert.doesNotMatch(workerHover ?? '', /command:gpumem\.inspectPod\?[^)]*%22vllm-0%22/);
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
  const layer = layerOf(podManifest, lintText(podManifest).containers);
  // The gpu-group's row (22 GiB), not the CPU group's (3 GiB) whose container has the same name.
  assert.match(layer.lenses[0]?.title ?? '', /live in prod: 1 pod · peak true footprint 22 GiB/);
  assert.match(layer.hovers[0]?.markdown ?? '', /rc-demo-gpu-group-worker-z9t5r/);
  assert.doesNotMatch(layer.hovers[0]?.markdown ?? '', /rc-demo-workergroup-worker-q4m8d/);
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
