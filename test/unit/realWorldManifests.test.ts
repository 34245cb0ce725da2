// Manifests from public material that the linter misread (fixtures under test/fixtures/manifests/, provenance at
// the top of each file).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, lint } from './helpers/lint.ts';

test('imroc\'s ollama StatefulSet: `nvidia.com/gpu: "0"` is no GPU, so no GPU container and no GPU finding', () => {
  const result = lint(fixture('zero-gpu/ollama-statefulset.yaml'));
  assert.deepEqual(result.containers, []);
  assert.deepEqual(
    result.findings.map((finding) => finding.ruleId),
    [],
  );
  // The same container asking for one GPU is a GPU container.
  const one = lint(fixture('zero-gpu/ollama-statefulset.yaml').replaceAll('nvidia.com/gpu: "0"', 'nvidia.com/gpu: "1"'));
  assert.deepEqual(
    one.containers.map((summary) => summary.container),
    ['ollama'],
  );
});
