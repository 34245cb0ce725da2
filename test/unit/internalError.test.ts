// Defect class 1 of issue 17: a failure inside one rule or one file becomes one `internal-error` finding and the
// run goes on; and the value that used to cause such failures (`1e309`, `1e308`) is reported as out of range.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lintCommand } from '../../src/cli/lintCommand.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { lintText } from '../../src/core/lint.ts';
import { POD_RULES } from '../../src/core/rules/ruleOrder.ts';
import type { Rule } from '../../src/core/rules/types.ts';
import { ruleMeta } from '../../src/core/rules/catalog.ts';
import { yaml } from './helpers/lint.ts';

const unifiedPod = (annotation: string) => yaml`
apiVersion: v1
kind: Pod
metadata:
  name: apu
  annotations:
    gpumem.io/gpu-memory: "${annotation}"
spec:
  nodeSelector:
    amd.com/gpu.device-id: "1586"
  containers:
    - name: c
      image: x
      resources:
        limits:
          amd.com/gpu: 1
`;

const goodPod = yaml`
apiVersion: v1
kind: Pod
metadata:
  name: ok
spec:
  containers:
    - name: c
      image: x
      resources:
        limits:
          nvidia.com/gpu: 1
`;

/** Runs `body` with one extra rule in the pipeline, the way a buggy rule would sit among the real ones. */
function withRule<T>(rule: Rule, body: () => T): T {
  const rules = POD_RULES as Rule[];
  rules.splice(3, 0, rule);
  try {
    return body();
  } finally {
    rules.splice(rules.indexOf(rule), 1);
  }
}

const meta = ruleMeta('internal-error');
assert.ok(meta);

/** A rule that throws on the pod named "boom", as a real rule threw on 1e309. */
const throwingRule: Rule = {
  meta,
  check(context) {
    if (context.pod.object.name === 'boom') throw new RangeError('simulated rule bug');
  },
};

describe('class 1: one failure is one finding, the run goes on', () => {
  test('1e309 in gpumem.io/gpu-memory on a unified-memory pod: no RangeError, an out-of-range invalid-quantity', () => {
    const result = lintText(unifiedPod('1e309'));
    const ids = result.findings.map((finding) => finding.ruleId);
    assert.ok(ids.includes('invalid-quantity'), ids.join(', '));
    assert.ok(!ids.includes('internal-error'), 'the cause is fixed, not only caught');
    assert.match(result.findings.find((finding) => finding.ruleId === 'invalid-quantity')?.message ?? '', /out of range/);
    assert.ok(ids.includes('gpu-no-memory-limit'), 'the other rules still report');
    for (const text of [...result.findings.map((finding) => finding.message), ...result.containers.map((container) => container.title)]) {
      assert.doesNotMatch(text, /Infinity|NaN/);
    }
  });

  test('nvidia.com/gpumem "1e308" never shows "Infinity B" in the container summary (the CodeLens)', () => {
    const text = goodPod.replace('nvidia.com/gpu: 1', 'nvidia.com/gpu: 1\n          nvidia.com/gpumem: "1e308"');
    const result = lintText(text);
    assert.equal(result.containers.length, 1);
    assert.doesNotMatch(result.containers[0]?.title ?? '', /Infinity/);
    assert.ok(result.findings.some((finding) => finding.ruleId === 'invalid-quantity' && /out of range/.test(finding.message)));
  });

  test('a rule that throws on one pod template gives one internal-error naming the rule; other rules and pods still report', () => {
    const text = `${goodPod.replace('name: ok', 'name: boom')}---\n${goodPod}`;
    const result = withRule(throwingRule, () => lintText(text));
    const internal = result.findings.filter((finding) => finding.ruleId === 'internal-error');
    assert.equal(internal.length, 1);
    assert.match(internal[0]?.message ?? '', /rule internal-error failed on Pod "boom" \(RangeError: simulated rule bug\)/);
    assert.equal(internal[0]?.object?.name, 'boom');
    // The same rules that report on "ok" still report on "boom".
    const byPod = (name: string) =>
      result.findings
        .filter((finding) => finding.object?.name === name && finding.ruleId !== 'internal-error')
        .map((finding) => finding.ruleId);
    assert.deepEqual(byPod('boom'), byPod('ok'));
    assert.ok(byPod('ok').includes('gpu-no-memory-limit'));
  });

  describe('gpumem lint dir/: a failing file is one finding, the other files keep theirs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpumem-internal-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'a-good.yaml'), goodPod);
    writeFileSync(join(dir, 'b-boom.yaml'), goodPod.replace('name: ok', 'name: boom'));
    writeFileSync(join(dir, 'c-good.yaml'), goodPod.replace('name: ok', 'name: ok2'));

    const run = async (rule: Rule) => {
      let stdout = '';
      let stderr = '';
      const io: CliIo = {
        stdout: (t) => void (stdout += t),
        stderr: (t) => void (stderr += t),
        readStdin: async () => ({ kind: 'read', bytes: new Uint8Array() }),
        cwd: dir,
        version: '0',
        docsDirectory: dir,
      };
      const rules = POD_RULES as Rule[];
      rules.splice(0, 0, rule);
      try {
        const code = await lintCommand([dir, '--format', 'json'], io);
        return { code, stdout, stderr };
      } finally {
        rules.splice(rules.indexOf(rule), 1);
      }
    };

    test('a whole-file failure (outside any rule)', async () => {
      // A rule whose report breaks the file-level sorting: the failure happens after all rules ran.
      const poison: Rule = {
        meta,
        check(context) {
          if (context.pod.object.name !== 'boom') return;
          const span = {
            get start(): number {
              throw new TypeError('simulated file-level bug');
            },
            end: 0,
          };
          context.report({ ruleId: 'internal-error', span, message: 'x' });
        },
      };
      const { code, stdout, stderr } = await run(poison);
      // A file that could not be analysed is named on stderr, and the run exits 3: never a pass on unread input.
      assert.match(stderr, /^gpumem lint: not analysed: .*b-boom\.yaml:1: gpumem could not analyse/);
      assert.equal(code, 3, 'part of the input not analysed, not a usage or I/O error');
      const findings = JSON.parse(stdout) as Array<{ file: string; ruleId: string; message: string }>;
      const files = (ruleId: string) =>
        findings
          .filter((finding) => finding.ruleId === ruleId)
          .map((finding) => finding.file.replace(/.*\//, ''))
          .sort();
      assert.deepEqual(files('gpu-no-memory-limit'), ['a-good.yaml', 'c-good.yaml']);
      assert.deepEqual(files('internal-error'), ['b-boom.yaml']);
      assert.match(
        findings.find((finding) => finding.ruleId === 'internal-error')?.message ?? '',
        /could not analyse .*b-boom\.yaml \(TypeError: simulated file-level bug\); the other files were still checked/,
      );
    });

    test('a rule failure in one file', async () => {
      const { code, stdout } = await run(throwingRule);
      assert.equal(code, 3, 'one rule was not run on one pod template');
      const findings = JSON.parse(stdout) as Array<{ file: string; ruleId: string }>;
      assert.equal(findings.filter((finding) => finding.ruleId === 'gpu-no-memory-limit').length, 3);
      assert.equal(findings.filter((finding) => finding.ruleId === 'internal-error').length, 1);
    });
  });
});
