// Kustomize patches judged for what they set (src/core/kustomizePatch.ts, src/core/manifest/kustomization.ts), on the
// real kustomizations and patches of IBM/text-generation-inference and the overlays written for gpumem beside them
// (test/fixtures/manifests/kustomize/README.md). The same files linted as whole workloads are the control: each case
// shows what reading the file as a patch changes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CONFIG } from '../../src/core/config.ts';
import { lintText } from '../../src/core/lint.ts';
import { KustomizePatchIndex, listedPatches, resolveListedPath } from '../../src/core/manifest/kustomization.ts';
import type { KustomizePatchRole } from '../../src/core/manifest/kustomization.ts';

const ROOT = fileURLToPath(new URL('../fixtures/manifests/kustomize/tgis/', import.meta.url));
const read = (path: string) => readFileSync(`${ROOT}${path}`, 'utf8');
const ids = (text: string, role?: KustomizePatchRole) =>
  lintText(text, undefined, role ? { kustomizePatch: role } : {}).findings.map((finding) => `${finding.severity} ${finding.ruleId}`);

describe('kustomization files', () => {
  test('the patch files of the real and written kustomizations, with the field that lists them', () => {
    assert.deepEqual(listedPatches(read('models/flan-ul2-tp/kustomization.yaml')), [
      { path: '../../base/patches/gpus/2-gpu.yaml', field: 'patchesStrategicMerge' },
      { path: '../../base/patches/gpus/a100-80g.yaml', field: 'patchesStrategicMerge' },
      { path: '../../base/patches/limits/t5-xxl.yaml', field: 'patchesStrategicMerge' },
      { path: '../../base/patches/shm.yaml', field: 'patchesStrategicMerge' },
      // The fifth entry is an inline patch (a block scalar), not a file.
    ]);
    assert.deepEqual(listedPatches(read('base/kustomization.yaml')), [{ path: 'patches/pvcs/pvc.yaml', field: 'patchesStrategicMerge' }]);
    assert.deepEqual(listedPatches(read('overlays/four-gpus/kustomization.yaml')), [
      { path: 'gpus-4.yaml', field: 'patches' },
      { path: 'replicas.yaml', field: 'patches', target: { kind: 'Deployment', name: 'inference-server' } },
    ]);
    assert.deepEqual(
      listedPatches(
        'patchesJson6902:\n- target: {kind: Deployment, name: x}\n  path: ops.json\npatches:\n- patch: |-\n    - op: remove\n      path: /spec/x\n',
      ),
      [{ path: 'ops.json', field: 'patchesJson6902', target: { kind: 'Deployment', name: 'x' } }],
    );
  });

  test('what is not a kustomization, or not YAML, lists nothing', () => {
    for (const text of ['', 'patches: 3', '- a\n- b', 'patchesStrategicMerge: [unclosed', 'patches:\n- path: {a: 1}', '\u0000'])
      assert.deepEqual(listedPatches(text), [], JSON.stringify(text));
  });

  test('listed paths resolve against the kustomization directory; URLs are not files', () => {
    assert.equal(
      resolveListedPath('/repo/deployment/models/flan-ul2-tp', '../../base/patches/shm.yaml'),
      '/repo/deployment/base/patches/shm.yaml',
    );
    assert.equal(resolveListedPath('/repo/o', './p.yaml'), '/repo/o/p.yaml');
    assert.equal(resolveListedPath('/', '../../p.yaml'), '/p.yaml');
    assert.equal(resolveListedPath('/repo/o', 'https://example.com/p.yaml'), undefined);
    const index = new KustomizePatchIndex();
    index.add(
      '/repo/deployment/models/flan-ul2-tp/kustomization.yaml',
      read('models/flan-ul2-tp/kustomization.yaml'),
      'models/flan-ul2-tp/kustomization.yaml',
    );
    assert.deepEqual(index.roleOf('/repo/deployment/base/patches/gpus/2-gpu.yaml'), {
      kustomization: 'models/flan-ul2-tp/kustomization.yaml',
      field: 'patchesStrategicMerge',
    });
    assert.equal(index.roleOf('/repo/deployment/base/deployment.yaml'), undefined);
  });
});

describe('a strategic-merge patch is judged for what it sets', () => {
  const patches: KustomizePatchRole = { kustomization: 'overlays/four-gpus/kustomization.yaml', field: 'patches' };
  const merge: KustomizePatchRole = { kustomization: 'overlays/hami-debug/kustomization.yaml', field: 'patchesStrategicMerge' };

  test('a patch raising the GPU count without a memory limit: a hint (info), not a warning, and the note', () => {
    const text = read('overlays/four-gpus/gpus-4.yaml');
    assert.deepEqual(ids(text), ['warning gpu-no-memory-limit'], 'as a whole workload, the control');
    const result = lintText(text, undefined, { kustomizePatch: patches });
    assert.deepEqual(
      result.findings.map((finding) => `${finding.severity} ${finding.ruleId}`),
      ['info kustomize-patch', 'info gpu-no-memory-limit'],
    );
    const hint = result.findings.find((finding) => finding.ruleId === 'gpu-no-memory-limit');
    assert.match(
      hint?.message ?? '',
      /kustomize patch, listed by overlays\/four-gpus\/kustomization\.yaml: what it leaves out comes from its base/,
    );
    assert.match(
      result.findings[0]?.message ?? '',
      /lists this file under `patches`, so it is a partial object, judged only for what it sets/,
    );
    assert.equal(result.unanalysed.length, 0);
  });

  test('a severity setting does not raise the hint (the base may set what the patch leaves out); off drops it', () => {
    const text = read('overlays/four-gpus/gpus-4.yaml');
    const severities = (setting: 'error' | 'off', role?: KustomizePatchRole) =>
      lintText(text, { ...DEFAULT_CONFIG, rules: { 'gpu-no-memory-limit': setting } }, role ? { kustomizePatch: role } : {})
        .findings.filter((finding) => finding.ruleId === 'gpu-no-memory-limit')
        .map((finding) => finding.severity);
    assert.deepEqual(severities('error'), ['error'], 'as a whole workload the setting applies, the control');
    assert.deepEqual(severities('error', patches), ['info']);
    assert.deepEqual(severities('off', patches), []);
  });

  test('a patch that sets CUDA_DISABLE_CONTROL=true keeps its warning, though the GPU comes from the base', () => {
    const text = read('overlays/hami-debug/debug-env.yaml');
    assert.deepEqual(ids(text), [], 'as a whole workload the container has no GPU: nothing, the control');
    const result = lintText(text, undefined, { kustomizePatch: merge });
    assert.deepEqual(
      result.findings.map((finding) => `${finding.severity} ${finding.ruleId}`),
      ['info kustomize-patch', 'warning cuda-disable-control'],
    );
    const finding = result.findings[1];
    assert.equal(text.slice(finding?.span.start, finding?.span.end), '"true"');
    assert.match(finding?.message ?? '', /gets no GPU in the patch itself; the finding holds if its base gives it one/);
  });

  test('a patch that does not touch resources gets no memory-limit finding, and no note when nothing changed', () => {
    for (const path of ['base/patches/limits/t5-xxl.yaml', 'base/patches/pvcs/pvc.yaml', 'base/patches/gpus/a100-80g.yaml'])
      assert.deepEqual(ids(read(path), { kustomization: 'k', field: 'patchesStrategicMerge' }), [], path);
  });

  test('a real patch that sets GPUs with a memory limit: only the note', () => {
    assert.deepEqual(ids(read('base/patches/gpus/2-gpu.yaml'), { kustomization: 'k', field: 'patchesStrategicMerge' }), [
      'info kustomize-patch',
    ]);
  });

  test('a GPU patch without a memory limit, whose container also sets a bad value: the value keeps its severity', () => {
    const text = [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: x}',
      'spec:',
      '  template:',
      '    spec:',
      '      containers:',
      '        - name: c',
      '          env: [{name: CUDA_DISABLE_CONTROL, value: "1"}]',
      '          resources: {limits: {nvidia.com/gpu: 2}}',
      '',
    ].join('\n');
    assert.deepEqual(ids(text, merge), ['info kustomize-patch', 'info gpu-no-memory-limit', 'warning cuda-disable-control']);
  });
});

describe('a JSON 6902 patch is not a Kubernetes object', () => {
  test('a list of operations under patches: only the note, no YAML or Kubernetes finding', () => {
    const result = lintText(read('overlays/four-gpus/replicas.yaml'), undefined, {
      kustomizePatch: { kustomization: 'k', field: 'patches' },
    });
    assert.deepEqual(
      result.findings.map((finding) => finding.ruleId),
      ['kustomize-patch'],
    );
    assert.match(result.findings[0]?.message ?? '', /list of RFC 6902 operations, not a Kubernetes object/);
    assert.match(result.findings[0]?.message ?? '', /The value its add or replace operation writes was judged/);
  });

  test('under patchesJson6902, even a file that would look like Kubernetes gets no yaml-syntax finding', () => {
    const ops = '- op: add\n  path: /spec/template/metadata/annotations\n  value:\n    kind: x\n    apiVersion: v1\n    a: [unclosed\n';
    assert.ok(ids(ops).includes('warning yaml-syntax'), 'the control');
    assert.deepEqual(ids(ops, { kustomization: 'k', field: 'patchesJson6902' }), ['info kustomize-patch']);
  });
});

describe('inline patches of a kustomization', () => {
  const kustomization = [
    'apiVersion: kustomize.config.k8s.io/v1beta1',
    'kind: Kustomization',
    'resources: [../base]',
    'patches:',
    '  - target: {kind: Deployment, name: inference-server}',
    '    patch: |-',
    '      - op: replace',
    '        path: /spec/replicas',
    '        value: 2',
    '  - patch: |-',
    '      apiVersion: apps/v1',
    '      kind: Deployment',
    '      metadata:',
    '        name: inference-server',
    '      spec:',
    '        template:',
    '          spec:',
    '            containers:',
    '              - name: server',
    '                env:',
    '                  - name: CUDA_DISABLE_CONTROL',
    '                    value: "true"',
    '                resources: {limits: {nvidia.com/gpu: "4"}}',
    '',
  ].join('\n');

  test('each is judged as a patch, its findings placed in the kustomization, without quick fixes', () => {
    const result = lintText(kustomization);
    assert.deepEqual(
      result.findings.map(
        (finding) => `${finding.severity} ${finding.ruleId} ${kustomization.slice(finding.span.start, finding.span.end)}`,
      ),
      ['info kustomize-patch -', 'info kustomize-patch a', 'info gpu-no-memory-limit server', 'warning cuda-disable-control "true"'],
    );
    const disable = result.findings.find((finding) => finding.ruleId === 'cuda-disable-control');
    assert.deepEqual(disable?.fixes, []);
    assert.match(
      result.findings[0]?.message ?? '',
      /this inline patch of the kustomization \(under `patches`\) is a list of RFC 6902 operations/,
    );
  });

  test('the real kustomization of flan-ul2-tp: its inline patch sets env on a container without a GPU, nothing to say', () => {
    assert.deepEqual(ids(read('models/flan-ul2-tp/kustomization.yaml')), []);
  });

  test('a file read as a patch does not read inline patches of its own', () => {
    assert.deepEqual(ids(kustomization, { kustomization: 'k', field: 'patchesStrategicMerge' }), []);
  });
});
