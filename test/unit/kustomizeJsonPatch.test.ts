// JSON 6902 patches judged for the values their operations write (src/core/kustomizeJsonPatch.ts), on the overlay
// written for these tests beside the real TGIS base (test/fixtures/manifests/kustomize/README.md) and on small
// operation lists. Before, a JSON patch got only the `kustomize-patch` note, whatever its operations wrote.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { kindByShape, pointerSegments, writtenObject } from '../../src/core/kustomizeJsonPatch.ts';
import { lintText } from '../../src/core/lint.ts';
import { KustomizePatchIndex } from '../../src/core/manifest/kustomization.ts';
import type { KustomizePatchRole } from '../../src/core/manifest/kustomization.ts';

const ROOT = fileURLToPath(new URL('../fixtures/manifests/kustomize/tgis/', import.meta.url));
const read = (path: string) => readFileSync(`${ROOT}${path}`, 'utf8');
const PATCHES: KustomizePatchRole = { kustomization: 'k/kustomization.yaml', field: 'patches' };
const lint = (text: string, role: KustomizePatchRole = PATCHES) => lintText(text, undefined, { kustomizePatch: role }).findings;
const ids = (text: string, role?: KustomizePatchRole) => lint(text, role).map((finding) => `${finding.severity} ${finding.ruleId}`);

describe('the json-env overlay: an env operation by container index, and a replicas operation', () => {
  const text = read('overlays/json-env/debug-ops.yaml');
  const index = new KustomizePatchIndex();
  index.add(`${ROOT}overlays/json-env/kustomization.yaml`, read('overlays/json-env/kustomization.yaml'), 'json-env/kustomization.yaml');
  const role = index.roleOf(`${ROOT}overlays/json-env/debug-ops.yaml`);

  test('the kustomization lists it under patchesJson6902 with its target', () => {
    assert.deepEqual(role, {
      kustomization: 'json-env/kustomization.yaml',
      field: 'patchesJson6902',
      target: { kind: 'Deployment', name: 'inference-server', apiVersion: 'apps/v1' },
    });
  });

  test('CUDA_DISABLE_CONTROL=true is a warning on the operation’s value, the container named by its index', () => {
    const findings = lint(text, role);
    assert.deepEqual(
      findings.map((finding) => `${finding.severity} ${finding.ruleId}`),
      ['info kustomize-patch', 'warning cuda-disable-control'],
    );
    const warning = findings[1]!;
    // The value node of the second operation: from its first key to the end of its last scalar.
    const start = text.indexOf('name: CUDA_DISABLE_CONTROL');
    assert.deepEqual(warning.span, { start, end: text.indexOf('"true"') + '"true"'.length });
    assert.equal(warning.container, 'containers[0]');
    assert.match(warning.message, /^Container containers\[0\]: CUDA_DISABLE_CONTROL=true/);
    assert.doesNotMatch(warning.message, /"containers\[0\]"/);
    assert.match(warning.message, /gets no GPU in the operation itself; the finding holds if its base gives it one/);
    assert.deepEqual(warning.fixes, []);
    assert.equal(warning.object?.kind, 'Deployment');
    assert.match(findings[0]!.message, /The values its 2 add or replace operations write were judged/);
  });
});

describe('what an operation writes', () => {
  test('RFC 6901 pointers: ~1 is /, ~0 is ~, in that order; anything else is no pointer', () => {
    assert.deepEqual(pointerSegments('/metadata/annotations/nvidia.com~1gpumem'), ['metadata', 'annotations', 'nvidia.com/gpumem']);
    assert.deepEqual(pointerSegments('/a~01/~0~1'), ['a~1', '~/']);
    assert.deepEqual(pointerSegments(''), []);
    assert.deepEqual(pointerSegments('/'), ['']);
    for (const bad of ['spec', '/a~2', '/a~', `/${'a/'.repeat(100)}`]) assert.equal(pointerSegments(bad), undefined, bad);
  });

  test('list positions become one-item lists; a container known by its index is named by it, a named one keeps its name', () => {
    assert.deepEqual(writtenObject(['spec', 'containers', '3', 'image'], 'x'), {
      spec: { containers: [{ name: 'containers[3]', image: 'x' }] },
    });
    assert.deepEqual(writtenObject(['spec', 'initContainers', '-'], { name: 'setup' }), { spec: { initContainers: [{ name: 'setup' }] } });
    assert.deepEqual(writtenObject(['env', '-'], { value: 'v' }), { env: [{ value: 'v' }] });
    assert.deepEqual(writtenObject(['spec', '01'], 1), { spec: { '01': 1 } });
  });

  test('the kind a path implies, without a target', () => {
    assert.equal(kindByShape(['spec', 'template', 'spec', 'containers']), 'Deployment');
    assert.equal(kindByShape(['spec', 'jobTemplate', 'spec', 'template', 'spec']), 'CronJob');
    assert.equal(kindByShape(['spec', 'containers', '0']), 'Pod');
    assert.equal(kindByShape(['spec', 'replicas']), undefined);
  });
});

describe('operations judged, and what is not', () => {
  test('a bad quantity written under an escaped key keeps its severity, without a target (the path gives the kind)', () => {
    const text = '- op: add\n  path: /spec/template/spec/containers/0/resources/limits/memory\n  value: 12 Gi\n';
    const findings = lint(text);
    assert.deepEqual(
      findings.map((finding) => `${finding.severity} ${finding.ruleId}`),
      ['info kustomize-patch', 'error invalid-quantity'],
    );
    assert.equal(text.slice(findings[1]!.span.start, findings[1]!.span.end), '12 Gi');
    // No target kind: the kind read from the path is not the target's, so the finding names no object.
    assert.equal(findings[1]!.object, undefined);
  });

  test('a whole container written with its own name and a GPU: the finding as a workload has it, no patch remark', () => {
    const text =
      '- op: replace\n  path: /spec/containers/1\n  value: {name: worker, env: [{name: CUDA_DEVICE_MEMORY_LIMIT, value: 4g}], resources: {limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 4000}}}\n';
    const findings = lint(text);
    assert.deepEqual(
      findings.map((finding) => `${finding.severity} ${finding.ruleId} ${finding.container}`),
      ['info kustomize-patch undefined', 'warning hami-manual-memory-limit worker'],
    );
    assert.doesNotMatch(findings[1]!.message, /JSON patch operation/);
  });

  test('rules about something absent say nothing: a GPU count written alone gets no memory-limit finding', () => {
    const text = '- op: add\n  path: /spec/template/spec/containers/0/resources/limits/nvidia.com~1gpu\n  value: 4\n';
    assert.deepEqual(ids(text), ['info kustomize-patch']);
  });

  test('remove, move, copy and test are not judged, and the note counts them', () => {
    const text = [
      '- op: remove',
      '  path: /spec/template/spec/containers/0/resources/limits',
      '- {op: copy, from: /spec/template/spec/containers/1/env/0, path: /spec/template/spec/containers/0/env/-}',
      '- {op: test, path: /spec/template/spec/containers/0/env/0, value: {name: CUDA_DISABLE_CONTROL, value: "true"}}',
      '- {op: add, path: no-slash, value: {name: CUDA_DISABLE_CONTROL, value: "true"}}',
      '',
    ].join('\n');
    const findings = lint(text);
    assert.deepEqual(
      findings.map((finding) => finding.ruleId),
      ['kustomize-patch'],
    );
    assert.match(findings[0]!.message, /No add or replace operation with a value was read.*4 other operations \(remove, move, copy, test/);
  });

  test('an inline JSON patch: the finding at the value’s line in the kustomization', () => {
    const text = [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'patches:',
      '  - target: {kind: StatefulSet, name: llm}',
      '    patch: |-',
      '      - op: add',
      '        path: /spec/template/spec/containers/0/env/-',
      '        value: {name: CUDA_DISABLE_CONTROL, value: "true"}',
      '',
    ].join('\n');
    const findings = lintText(text).findings;
    const warning = findings.find((finding) => finding.ruleId === 'cuda-disable-control');
    assert.ok(warning, JSON.stringify(findings));
    assert.equal(text.slice(warning.span.start, warning.span.end), '{name: CUDA_DISABLE_CONTROL, value: "true"}');
    assert.equal(warning.object?.kind, 'StatefulSet');
  });

  test('hostile input: many operations, deep and bad pointers, aliases; every span inside the file', () => {
    const many = '- {op: add, path: /spec/template/spec/containers/0/env/-, value: {name: CUDA_DISABLE_CONTROL, value: "1"}}\n'.repeat(
      1200,
    );
    const findings = lint(many);
    assert.equal(findings.filter((finding) => finding.ruleId === 'cuda-disable-control').length, 1000);
    assert.match(findings[0]!.message, /200 other operations/);
    const deep = `- {op: add, path: "${'/a'.repeat(5000)}", value: 1}\n- {op: replace, path: /~9, value: 1}\n- op: add\n  path: /spec\n  value: &a [*a]\n`;
    const aliasBomb = `- op: add\n  path: /spec/template/metadata/labels\n  value:\n    a: &a [x, x, x, x, x, x, x, x, x]\n    b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n    c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n    d: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n`;
    for (const text of [deep, aliasBomb, '- op: add\n', '[]', '- 1\n- [op, add]\n', '- {op: add, path: "", value: [1]}\n']) {
      for (const finding of lint(text, { kustomization: 'k', field: 'patchesJson6902' })) {
        assert.ok(finding.span.start >= 0 && finding.span.end <= text.length, `${finding.ruleId} in ${JSON.stringify(text.slice(0, 60))}`);
      }
    }
  });
});
