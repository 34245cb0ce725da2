// What live mode adds to a linted manifest, as the editor shows it: the offer before any cluster was chosen, the live
// CodeLens on each matched container's resources: line, the hover on that block with one row per pod (each figure
// with a numbered source, a link that only runs the inspect-pod command, hostile names escaped), the stale mark, and
// the quick fix with or without its source comment. The snapshot and its pod lines are written by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixesOf } from '../../src/core/findings.ts';
import { lintText } from '../../src/core/lint.ts';
import { liveLayerModel } from '../../src/core/live/liveLayerModel.ts';
import type { LiveLayerInput } from '../../src/core/live/liveLayerModel.ts';
import { offerLenses } from '../../src/core/live/livePresentation.ts';
import type { LivePod } from '../../src/core/live/livePods.ts';
import type { LiveSnapshot, LiveWorkload } from '../../src/core/live/liveSnapshot.ts';
import { liveKey } from '../../src/core/live/liveSnapshot.ts';
import { NO_KILLS } from '../../src/core/rightsizing/kills.ts';
import type { RecommendationRow } from '../../src/core/rightsizing/rows.ts';

const GiB = 1024 ** 3;
const NOW = Date.UTC(2026, 11, 7, 12, 0, 0);
const PROM = 'Prometheus monitoring/prometheus-k8s (9 queries)';

const MANIFEST = `# Source: llm/templates/statefulset.yaml
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: llama
  namespace: default
spec:
  template:
    spec:
      containers:
        - name: llama
          image: llama.cpp
          resources:
            requests:
              memory: 8Gi
            limits:
              memory: 16Gi
              amd.com/gpu: 1
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: not-in-the-cluster
spec:
  template:
    spec:
      containers:
        - name: web
          image: nginx
          resources:
            limits:
              memory: 1Gi
              nvidia.com/gpu: 1
`;

const ref = { apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: 'default', name: 'llama', uid: 'sts-uid' };

const row: RecommendationRow = {
  workload: ref,
  container: 'llama',
  current: { name: 'llama', request: { text: '8Gi', bytes: 8 * GiB }, limit: { text: '16Gi', bytes: 16 * GiB }, usesGpu: true },
  observed: {
    cgroupPeak: { bytes: 6 * GiB, at: undefined, pod: 'llama-0' },
    gpuInRamPeak: { bytes: 30 * GiB, at: undefined, pod: 'llama-0' },
    vramPeak: undefined,
    trueFootprintPeak: { bytes: 36 * GiB, at: undefined, pod: 'llama-0' },
    samples: 1000,
    hours: 168,
    dropped: 0,
  },
  kernelPeak: undefined,
  kills: { ...NO_KILLS, globalGpu: 1 },
  recommendation: {
    kind: 'sized',
    case: 'global-gpu-kills',
    targetBytes: 36 * GiB * 1.3,
    memory: { text: '47Gi', bytes: 47 * GiB },
    gpuMemory: { key: 'gpumem.io/gpu-memory', value: { text: '30Gi', bytes: 30 * GiB } },
    lowerSaves: undefined,
    reason: '1 global OOM kill(s) with the GPU signature',
    notes: [],
  },
  notes: [],
};

const AGENT = `gpumem_pod_true_footprint_bytes of the agent, ${PROM}`;
const pod = (name: string): LivePod => ({
  name,
  node: 'strix-node-1',
  oldTemplate: false,
  trueFootprintPeak: { value: 36 * GiB, source: AGENT },
  gttPeak: { value: 30 * GiB, source: `gpumem_pod_unaccounted_bytes of the agent, ${PROM}` },
  vramPeak: undefined,
  kills: { value: { ...NO_KILLS, globalGpu: 1 }, source: `gpumem_oom_kills_total of the agent, ${PROM}` },
  lastKill: {
    container: 'llama',
    at: '2026-12-05T03:12:09Z',
    cause: { value: { kind: 'global-gpu' }, source: `gpumem_oom_kills_total of the agent, ${PROM}` },
    source: "the API's container status (OOMKilled)",
  },
  hami: undefined,
});

function snapshot(podLines: readonly LivePod[], fetchedAtMs = NOW - 2 * 60_000): LiveSnapshot {
  const object = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'llama', namespace: 'default', uid: 'sts-uid' },
    spec: {
      template: {
        spec: {
          containers: [{ name: 'llama', resources: { requests: { memory: '8Gi' }, limits: { memory: '16Gi', 'amd.com/gpu': '1' } } }],
        },
      },
    },
  };
  const workload: LiveWorkload = { ref, object, pods: { total: podLines.length, oldTemplate: 0 }, rows: [row], podLines };
  return {
    context: 'gpumem-demo',
    defaultNamespace: 'default',
    source: PROM,
    window: '7d',
    windowSeconds: 7 * 86_400,
    fetchedAtMs,
    workloads: new Map([[liveKey('StatefulSet', 'default', 'llama'), workload]]),
  };
}

function live(snap: LiveSnapshot, commentOnFix = true, rules: LiveLayerInput['rules'] = {}): LiveLayerInput {
  return {
    snapshot: snap,
    headroomPercent: 30,
    rules,
    staleAfterMs: 15 * 60_000,
    commentOnFix,
    inspectPodCommand: 'gpumem.inspectPod',
  };
}

const model = (text: string, input: LiveLayerInput) => liveLayerModel(text, lintText(text).containers, input, NOW);

test('before a cluster was chosen: one "Compare with a cluster…" offer above each workload, running the pick', () => {
  const offer = offerLenses(lintText(MANIFEST).containers, 'gpumem.live.chooseContext');
  assert.deepEqual(
    offer.map((lens) => [
      MANIFEST.slice(MANIFEST.lastIndexOf('\n', lens.offset) + 1)
        .split('\n')[0]
        ?.trim(),
      lens.title,
      lens.command?.id,
    ]),
    [
      ['- name: llama', '$(plug) Compare with a cluster…', 'gpumem.live.chooseContext'],
      ['- name: web', '$(plug) Compare with a cluster…', 'gpumem.live.chooseContext'],
    ],
  );
  assert.deepEqual(liveLayerModel('', [], live(snapshot([])), NOW), { findings: [], lenses: [], hovers: [] });
});

test("the live lens of the matched container sits on its resources: line; the other document's workload gets none", () => {
  const result = model(MANIFEST, live(snapshot([pod('llama-0')])));
  assert.equal(result.lenses.length, 1);
  const [lens] = result.lenses;
  assert.equal(MANIFEST.slice(lens?.offset).split('\n')[0], 'resources:');
  assert.match(
    lens?.title ?? '',
    /^\$\(pulse\) live in gpumem-demo: 1 pod · peak true footprint 36 GiB \(cgroup 6 GiB \+ GPU memory in RAM 30 GiB\) vs limit 16Gi · 1 OOM kill in 7d/,
  );
  assert.equal(
    lens?.tooltip,
    `llama-0 on strix-node-1, true footprint 36 GiB, GTT 30 GiB, last OOM kill 2026-12-05T03:12:09Z: global, GPU signature\n${PROM}, 7d, read 2 min ago. Hover the resources block for the sources of each figure.`,
  );
  assert.deepEqual(result.findings.map((finding) => finding.ruleId).sort(), ['observed-footprint-over-limit', 'observed-oom-kills']);
});

test('the hover covers the resources block: a row per pod with a link that runs only the inspect-pod command, and numbered sources', () => {
  const result = model(MANIFEST, live(snapshot([pod('llama-0')])));
  const [hover] = result.hovers;
  assert.ok(hover);
  assert.ok(MANIFEST.slice(hover.span.start, hover.span.end).startsWith('resources:\n'));
  assert.ok(MANIFEST.slice(hover.span.start, hover.span.end).endsWith('amd.com/gpu: 1'));
  assert.deepEqual(hover.enabledCommands, ['gpumem.inspectPod']);
  const lines = hover.markdown.split('\n');
  assert.equal(lines[0], '**Live in gpumem-demo**: StatefulSet default/llama, container llama (read 2 min ago)');
  const args = encodeURIComponent(JSON.stringify([{ livePod: { context: 'gpumem-demo', namespace: 'default', name: 'llama-0' } }]));
  const podLine = lines.find((line) => line.startsWith('| [llama-0]'));
  assert.equal(
    podLine,
    `| [llama-0](command:gpumem.inspectPod?${args} "Inspect this pod") | strix-node-1 | 36 GiB [3] | 30 GiB [4] | — | 2026-12-05T03:12:09Z, llama: global, GPU signature [5][6] | — |`,
  );
  const sources = lines.slice(lines.findIndex((line) => line.startsWith('Sources (7d window')) + 2);
  assert.deepEqual(
    sources,
    [
      `- [1] ${PROM}`,
      "- [2] the live StatefulSet's pod template (the Kubernetes API)",
      `- [3] ${AGENT}`,
      `- [4] gpumem\\_pod\\_unaccounted\\_bytes of the agent, ${PROM}`,
      "- [5] the API's container status (OOMKilled)",
      `- [6] gpumem\\_oom\\_kills\\_total of the agent, ${PROM}`,
    ].map((line) => line.replace('gpumem_pod_true_footprint_bytes', 'gpumem\\_pod\\_true\\_footprint\\_bytes')),
  );
});

test('a hostile pod name is text, never a second link; a stale snapshot says so in the hover', () => {
  const hostile = 'x](command:workbench.action.terminal.new) [y';
  const result = model(MANIFEST, live(snapshot([pod(hostile)], NOW - 40 * 60_000)));
  const markdown = result.hovers[0]?.markdown ?? '';
  assert.equal(markdown.match(/(?<!\\)\]\(command:/g)?.length, 1, 'the one link is the pod link');
  assert.ok(
    markdown.includes('[x\\](command:workbench.action.terminal.new) \\[y](command:gpumem.inspectPod?'),
    'the name cannot close the link text',
  );
  assert.match(markdown.split('\n')[0] ?? '', /\(read 40 min ago, \*\*stale\*\*\)$/);
});

test('the quick fix writes its source comment above its first changed line when asked, and not otherwise', () => {
  const fixOf = (commentOnFix: boolean) => {
    const found = model(MANIFEST, live(snapshot([pod('llama-0')]), commentOnFix)).findings.find(
      (one) => one.ruleId === 'observed-footprint-over-limit',
    );
    const edit = found ? fixesOf(found, MANIFEST)[0]?.edits[0] : undefined;
    assert.ok(edit);
    return MANIFEST.slice(0, edit.start) + edit.newText + MANIFEST.slice(edit.end);
  };
  const commented = fixOf(true);
  const comment =
    '# gpumem: resources set from what the pods used in gpumem-demo (Prometheus monitoring/prometheus-k8s (9 queries), 7d to 2026-12-07 11:58 UTC)';
  const lines = commented.split('\n');
  const at = lines.findIndex((line) => line.trim() === comment);
  assert.ok(at > 0, commented);
  assert.equal(lines[at]?.indexOf('#'), lines[at + 1]?.search(/\S/), 'at the indent of the line it stands above');
  assert.match(commented, /limits:\n {14}memory: 47Gi\n/);
  const plain = fixOf(false);
  assert.ok(!plain.includes('# gpumem: resources set'));
  assert.equal(commented.replace(`${lines[at]}\n`, ''), plain, 'the comment is the only difference');
});

test("a live pod manifest (the Clusters view's Open Manifest) is judged as the workload that owns the pod", () => {
  const podManifest = `apiVersion: v1
kind: Pod
metadata:
  name: llama-0
  namespace: default
spec:
  containers:
  - name: llama
    resources:
      requests:
        memory: 8Gi
      limits:
        memory: 16Gi
        amd.com/gpu: "1"
`;
  const result = model(podManifest, live(snapshot([pod('llama-0')])));
  assert.equal(result.lenses.length, 1);
  assert.match(result.lenses[0]?.title ?? '', /^\$\(pulse\) live in gpumem-demo: 1 pod · peak true footprint 36 GiB/);
  assert.match(result.hovers[0]?.markdown ?? '', /StatefulSet default\/llama, container llama/);
  assert.deepEqual(
    result.findings.map((finding) => finding.ruleId).sort(),
    ['observed-footprint-over-limit', 'observed-oom-kills'],
    'no drift: the pod runs its template',
  );
  assert.equal(model(podManifest.replace('llama-0', 'other-0'), live(snapshot([pod('llama-0')]))).lenses.length, 0, 'a pod of no workload');
});
