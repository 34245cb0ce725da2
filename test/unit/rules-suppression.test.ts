// Suppression: `# gpumem-ignore` comments (line before, same line, whole file), kube-linter-style
// `ignore-check.gpumem.io/<rule-id>` annotations, `gpumem.io/ignore-all`, and per-rule settings.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/core/config.ts';
import { assertNone, config, expectAll, expectOne, lint, ruleIds, yaml } from './helpers/lint.ts';

/** Two GPU containers on a unified-memory node with no memory limit: each gets gpu-no-memory-limit (error) on its name. */
function pod(before: string, a = '    - name: a', b = '    - name: b'): string {
  return yaml`
apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations:
    gpumem.io/unified-memory: "true"
    gpumem.io/gpu-memory: 8Gi
spec:
  containers:
${before}
${a}
      resources:
        limits: {amd.com/gpu: 1, cpu: 1}
${b}
      resources:
        limits: {amd.com/gpu: 1, cpu: 1}
`;
}

describe('comment suppression', () => {
  test('baseline: both containers are reported', () => {
    const text = pod('    # a comment');
    expectAll(text, lint(text), 'gpu-no-memory-limit', [
      { severity: 'error', container: 'a', token: 'a', line: 11 },
      { severity: 'error', container: 'b', token: 'b', line: 14 },
    ]);
  });

  test('# gpumem-ignore <rule-id> on the line before suppresses that rule on the next line only', () => {
    const text = pod('    # gpumem-ignore gpu-no-memory-limit');
    const result = lint(text);
    expectAll(text, result, 'gpu-no-memory-limit', [{ severity: 'error', container: 'b', token: 'b', line: 14 }]);
    // The other rule on the same line still shows.
    expectOne(text, result, { ruleId: 'uma-not-guaranteed', severity: 'info', container: 'a', token: 'a', line: 11 });
  });

  test('# gpumem-ignore <rule-id> at the end of the same line', () => {
    const text = pod('    # nothing here', '    - name: a # gpumem-ignore gpu-no-memory-limit');
    expectAll(text, lint(text), 'gpu-no-memory-limit', [{ severity: 'error', container: 'b', token: 'b', line: 14 }]);
  });

  test('several ids, and a reason after --', () => {
    const text = pod('    # gpumem-ignore gpu-no-memory-limit, uma-not-guaranteed -- sized by the batch scheduler');
    const result = lint(text);
    expectAll(text, result, 'gpu-no-memory-limit', [{ severity: 'error', container: 'b', token: 'b', line: 14 }]);
    assertNone(result, 'uma-not-guaranteed');
  });

  test('# gpumem-ignore with no ids suppresses every rule on the next line', () => {
    const text = pod('    # gpumem-ignore');
    const result = lint(text);
    assert.deepEqual(
      result.findings.map((f) => `${f.ruleId}@${f.container}`),
      ['gpu-no-memory-limit@b'],
    );
  });

  test('a comment for another rule, or two lines above, does not suppress', () => {
    const other = pod('    # gpumem-ignore uma-headroom');
    assert.equal(ruleIds(lint(other)).filter((id) => id === 'gpu-no-memory-limit').length, 2);
    const far = pod('    # gpumem-ignore gpu-no-memory-limit\n    # (the next line is not the container)');
    assert.equal(ruleIds(lint(far)).filter((id) => id === 'gpu-no-memory-limit').length, 2);
    const prefix = pod('    # gpumem-ignore gpu-no-memory');
    assert.equal(ruleIds(lint(prefix)).filter((id) => id === 'gpu-no-memory-limit').length, 2);
  });

  test('# gpumem-ignore-file <rule-id> anywhere suppresses that rule in the whole file', () => {
    const text = `${pod('    # a comment')}# gpumem-ignore-file gpu-no-memory-limit\n`;
    const result = lint(text);
    assertNone(result, 'gpu-no-memory-limit');
    expectOne(text, result, { ruleId: 'uma-not-guaranteed', severity: 'info', container: 'a', token: 'a', line: 11 });
    const everything = `# gpumem-ignore-file\n${pod('    # a comment')}`;
    assert.deepEqual(lint(everything).findings, []);
  });
});

describe('annotation suppression', () => {
  const deployment = (workloadAnnotations: string, templateAnnotations: string) => yaml`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
  annotations:
${workloadAnnotations}
spec:
  template:
    metadata:
      annotations:
${templateAnnotations}
    spec:
      containers:
        - name: trainer
          securityContext: {privileged: true}
          resources:
            limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 4000}
`;

  test('baseline: two findings', () => {
    const text = deployment('    team: ml', '        team: ml');
    assert.deepEqual(ruleIds(lint(text)), ['gpu-no-memory-limit', 'hami-privileged']);
    expectOne(text, lint(text), { ruleId: 'hami-privileged', severity: 'error', container: 'trainer', token: 'true', line: 15 });
  });

  test('ignore-check.gpumem.io/<rule-id> on the workload metadata', () => {
    const text = deployment('    ignore-check.gpumem.io/hami-privileged: "HAMi 2.9 cluster, debug image"', '        team: ml');
    assert.deepEqual(ruleIds(lint(text)), ['gpu-no-memory-limit']);
  });

  test('ignore-check.gpumem.io/<rule-id> on the pod template metadata', () => {
    const text = deployment('    team: ml', '        ignore-check.gpumem.io/gpu-no-memory-limit: "limit set by a LimitRange"');
    assert.deepEqual(ruleIds(lint(text)), ['hami-privileged']);
  });

  test('an annotation for another rule suppresses nothing here', () => {
    const text = deployment(
      '    ignore-check.gpumem.io/uma-headroom: "n/a"',
      '        ignore-check.gpumem.io/gpu-no-memory-limits: "typo"',
    );
    assert.deepEqual(ruleIds(lint(text)), ['gpu-no-memory-limit', 'hami-privileged']);
  });

  test('gpumem.io/ignore-all suppresses everything of that workload; "false" does not', () => {
    assert.deepEqual(lint(deployment('    gpumem.io/ignore-all: "true"', '        team: ml')).findings, []);
    assert.deepEqual(lint(deployment('    team: ml', '        gpumem.io/ignore-all: "legacy job"')).findings, []);
    assert.deepEqual(ruleIds(lint(deployment('    gpumem.io/ignore-all: "false"', '        team: ml'))), [
      'gpu-no-memory-limit',
      'hami-privileged',
    ]);
  });

  test('annotations apply to their own workload only', () => {
    const text = `${deployment('    gpumem.io/ignore-all: "true"', '        team: ml')}---\n${deployment('    team: ml', '        team: ml')}`;
    const result = lint(text);
    assert.deepEqual(ruleIds(result), ['gpu-no-memory-limit', 'hami-privileged']);
    expectOne(text, result, { ruleId: 'hami-privileged', severity: 'error', container: 'trainer', token: 'true', line: 33 });
  });
});

describe('rule settings', () => {
  const text = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: trainer
      securityContext: {privileged: true}
      resources:
        limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 4000}
`;

  test('a rule set to off is not reported; the others are', () => {
    assert.deepEqual(ruleIds(lint(text)), ['gpu-no-memory-limit', 'hami-privileged']);
    assert.deepEqual(ruleIds(lint(text, config({ rules: { 'hami-privileged': 'off' } }))), ['gpu-no-memory-limit']);
  });

  test("a severity override replaces the rule's severity, even the unified-memory error", () => {
    const result = lint(text, config({ rules: { 'gpu-no-memory-limit': 'error', 'hami-privileged': 'info' } }));
    expectOne(text, result, { ruleId: 'gpu-no-memory-limit', severity: 'error', container: 'trainer', token: 'trainer', line: 7 });
    expectOne(text, result, { ruleId: 'hami-privileged', severity: 'info', container: 'trainer', token: 'true', line: 8 });
    const uma = text.replace('  name: p\n', '  name: p\n  annotations:\n    gpumem.io/unified-memory: "true"\n');
    expectOne(uma, lint(uma, config({ rules: { 'gpu-no-memory-limit': 'warning' } })), {
      ruleId: 'gpu-no-memory-limit',
      severity: 'warning',
      container: 'trainer',
      token: 'trainer',
      line: 9,
    });
  });

  test('a bad setting is reported by resolveConfig and ignored', () => {
    const { config: resolved, problems } = resolveConfig({ rules: { 'hami-privileged': 'silent' }, headroomPercent: -5 });
    assert.deepEqual(
      problems.map((p) => p.path),
      ['headroomPercent', 'rules.hami-privileged'],
    );
    assert.equal(resolved.headroomPercent, 30);
    assert.deepEqual(ruleIds(lint(text, resolved)), ['gpu-no-memory-limit', 'hami-privileged']);
  });
});
