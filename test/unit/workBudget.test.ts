// Class 5 of issue 17 (unbounded work): every analysis runs under a budget proportional to its input and
// says "analysis stopped at budget" instead of running on. The inputs are run here at full size; how their cost grows
// (n vs 8n) is measured by bench/growth.mjs, never against a clock in a test.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { lintText } from '../../src/core/lint.ts';
import { documentSlices, screenDocuments } from '../../src/core/manifest/documentScreen.ts';
import { EMPTY_FLOW_ENTRY_LIMIT, tooManyEmptyFlowEntries } from '../../src/core/manifest/flowScreen.ts';
import { parseLikeKubectl, parseSlicesLikeKubectl } from '../../src/core/manifest/kubectlYaml.ts';
import { parseKernelLog } from '../../src/core/probe/parsers/kernelLog.ts';
import { explainKernelLogText } from '../../src/core/verdicts/oom/oomRootCause.ts';
import { explainWithinBudget } from '../../src/core/verdicts/oom/oomVerdicts.ts';
import type { PodCgroupData } from '../../src/core/verdicts/oom/oomPodCgroups.ts';
import { BudgetExhausted, unitsFor, WorkBudget } from '../../src/core/workBudget.ts';
import { runsOnLargeInput } from '../helpers/growth.ts';
import type { PodSpec } from './helpers/nodeCapture.ts';
import { GiB, nodeCapture } from './helpers/nodeCapture.ts';

const commaLine = (n: number): string => `a: [${','.repeat(n)}]\n`;
const flowMapOfEmpties = (n: number): string => `{a: [1${',,'.repeat(n)}]}\n`;

function pod(containers: number): string {
  const parts = ['apiVersion: v1\nkind: Pod\nmetadata:\n  name: many\nspec:\n  containers:\n'];
  for (let i = 0; i < containers; i++)
    parts.push(`  - name: c${i}\n    image: busybox\n    resources:\n      limits:\n        amd.com/gpu: 1\n        memory: 1Gi\n`);
  return parts.join('');
}

describe('WorkBudget', () => {
  test('spends down and throws a typed BudgetExhausted naming what ran out', () => {
    const budget = new WorkBudget(3, 'lint');
    budget.spend(2);
    assert.equal(budget.remaining, 1);
    assert.throws(
      () => budget.spend(2),
      (error: unknown) => error instanceof BudgetExhausted && error.what === 'lint',
    );
  });
  test('units are proportional to the input, between floor and ceiling', () => {
    assert.equal(unitsFor(10, 8, 1000), 1000);
    assert.equal(unitsFor(1_000_000, 8, 1000), 8_000_000);
    assert.equal(unitsFor(1_000_000, 8, 1000, 5_000_000), 5_000_000);
  });
});

describe('empty flow entries are screened before parsing', () => {
  test('a 1 MB line of commas ends with analysis-budget, not parsed', () => {
    const result = lintText(commaLine(1_000_000));
    assert.deepEqual(
      result.findings.map((finding) => finding.ruleId),
      ['analysis-budget'],
    );
    assert.match(result.findings[0]?.message ?? '', /^Analysis stopped at budget/);
  });
  test('{a: [1,,,…]} is caught too', () => {
    assert.deepEqual(
      lintText(flowMapOfEmpties(100_000)).findings.map((finding) => finding.ruleId),
      ['analysis-budget'],
    );
  });
  test("a few empty entries (a typo) still get the parser's own yaml-syntax finding", () => {
    assert.deepEqual(
      lintText(`apiVersion: v1\nkind: ConfigMap\n${commaLine(3)}`).findings.map((finding) => finding.ruleId),
      ['yaml-syntax'],
    );
  });
  test('commas in quoted and block scalars are not flow entries', () => {
    const csv = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: csv\ndata:\n  quoted: "${',,'.repeat(2 * EMPTY_FLOW_ENTRY_LIMIT)}"\n  block: |\n    [${',,'.repeat(2 * EMPTY_FLOW_ENTRY_LIMIT)}]\n`;
    assert.equal(tooManyEmptyFlowEntries(csv), false);
    assert.deepEqual(lintText(csv).findings, []);
  });
  test('the screen and the lint of a comma line of 800,000 commas: refused by the screen, not parsed', () => {
    const result = runsOnLargeInput(
      'lint of a comma line',
      commaLine,
      (text) => lintText(`apiVersion: v1\nkind: ConfigMap\n${text}`),
      100_000,
    );
    assert.deepEqual(
      result.findings.map((finding) => finding.ruleId),
      ['analysis-budget'],
    );
  });
  test('a flow line of real entries is parsed (valid JSON manifests stay analysed)', () => {
    const values = Array.from({ length: 5_000 }, (_, i) => `"k${i}": "v"`).join(', ');
    const json = `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"}, "data": {${values}}}\n`;
    assert.deepEqual(lintText(json).findings, []);
  });
});

describe('many containers', () => {
  test('a pod of thousands of GPU containers stays inside the budget', () => {
    const result = runsOnLargeInput('lint of a many-container pod', pod, (text) => lintText(text), 200);
    assert.ok(!result.findings.some((finding) => finding.ruleId === 'analysis-budget'));
    assert.equal(result.containers.length, 1_600);
  });
  test('containers multiplied through anchors stop at the shared budget instead of running on', () => {
    // One 200-container list reused by 2,000 pods: little text, much work. The alias budget (the same WorkBudget
    // mechanism) trips first here; the lint's own per-container budget is the backstop behind it.
    const list = pod(200).split('  containers:\n')[1] ?? '';
    const head = `apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p0}\n  spec:\n    containers: &cs\n${list.replace(/^/gm, '    ').trimEnd()}\n`;
    const copies = Array.from(
      { length: 2_000 },
      (_, i) => `- apiVersion: v1\n  kind: Pod\n  metadata: {name: p${i + 1}}\n  spec: {containers: *cs}\n`,
    ).join('');
    const result = lintText(head + copies);
    const stopped = result.findings.filter((finding) => finding.ruleId === 'analysis-budget' || finding.ruleId === 'manifest-skipped');
    assert.ok(
      stopped.length > 0,
      result.findings
        .map((finding) => finding.ruleId)
        .slice(0, 5)
        .join(', '),
    );
    assert.ok(result.containers.length < 2_001 * 200, 'some pods were not analysed');
  });
});

describe('the size limit on what is parsed (manifest/documentScreen.ts)', () => {
  const small = (name: string): string =>
    `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  containers:\n  - name: a\n    image: x\n    resources:\n      limits:\n        nvidia.com/gpu: 1\n`;
  const ranges = (docs: ReturnType<typeof parseLikeKubectl>): string =>
    JSON.stringify(
      docs.map((doc) => [
        doc.range,
        doc.errors.map((error) => error.pos),
        JSON.stringify(doc.contents, (key, value: unknown) =>
          key === 'range' || typeof value !== 'object' || value === null || Array.isArray(value) || 'items' in value || 'value' in value
            ? value
            : undefined,
        ),
      ]),
    );

  test('documents are split at `---` lines only (not `----` or `--- ` inside a line)', () => {
    const text = 'a: 1\n---\nb: "x\n  ---- y"\n--- # c\nc: 2\n---';
    assert.deepEqual(
      documentSlices(text).map(({ start, end }) => text.slice(start, end)),
      ['a: 1\n', '---\nb: "x\n  ---- y"\n', '--- # c\nc: 2\n', '---'],
    );
  });
  test('text under the size limit is parsed whole, without a scan', () => {
    assert.deepEqual(screenDocuments(small('a').repeat(3)), { kind: 'whole' });
  });
  test('slices parsed apart carry the same offsets as the whole stream parsed at once', () => {
    const text = [small('a'), small('b'), 'x: [1, 2\n', small('c')].join('---\n');
    const slices = documentSlices(text);
    assert.equal(ranges(parseSlicesLikeKubectl(text, slices)), ranges(parseLikeKubectl(text)));
  });
  test('past the size limit the remaining documents are not parsed, and the finding says what was analysed', () => {
    const text = ['a', 'b', 'c', 'd'].map(small).join('---\n');
    const screen = screenDocuments(text, 2.5 * small('a').length);
    assert.equal(screen.kind, 'partial');
    if (screen.kind !== 'partial') return;
    assert.deepEqual(screen.parse, { start: 0, end: 2 * small('a').length + 4 });
    assert.deepEqual(screen.skipped, {
      start: 2 * small('a').length + 4,
      documents: 2,
      parsedDocuments: 2,
      parsedChars: 2 * small('a').length + 4,
      limit: 2.5 * small('a').length,
    });
    const result = lintText(text, undefined, { maxChars: 2.5 * small('a').length });
    assert.deepEqual(
      result.containers.map((container) => container.object.name),
      ['a', 'b'],
    );
    assert.deepEqual(
      result.unanalysed.map((finding) => finding.ruleId),
      ['manifest-skipped'],
    );
    assert.match(
      result.unanalysed[0]?.message ?? '',
      /^Not analysed from line 24 on: the file is over the size limit .* the 2 documents before it .* were analysed, and the 2 documents from this line on were not\./,
    );
  });
  test('a first document past the size limit leaves nothing parsed, and says so', () => {
    const screen = screenDocuments(small('a') + '---\n' + small('b'), 10);
    assert.deepEqual(screen.kind === 'partial' ? [screen.parse, screen.skipped.documents] : screen, [undefined, 2]);
  });
});

describe('the kernel-log explanation', () => {
  // One real OOM report (test/fixtures/kernel-logs/k3s-blog-syslog-global-pod.log, provenance beside it), repeated.
  const report = readFileSync(new URL('../fixtures/kernel-logs/k3s-blog-syslog-global-pod.log', import.meta.url), 'utf8');
  const pods = (count: number): PodCgroupData[] =>
    Array.from({ length: count }, (_, i) => ({ podUid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}` }));

  test('a real log with a real number of pods is explained in full', () => {
    const result = explainKernelLogText(report.repeat(50), { pods: pods(200) });
    // Fifty kills alike are one verdict that counts them (oomRepeats.ts).
    assert.equal(result.summary.kills, 50);
    assert.equal(result.verdicts[0]?.repeats?.count, 50);
    assert.ok(!result.summary.problems.some((problem) => problem.startsWith('Analysis stopped at budget')));
  });
  test('thousands of reports against thousands of pods are explained in full: the pod lookup is indexed', () => {
    // Before the index, each report walked every pod: 200 reports × 10,000 pods hit the budget.
    const result = explainKernelLogText(report.repeat(200), { pods: pods(10_000) });
    assert.equal(result.summary.kills, 200);
    assert.equal(result.verdicts[0]?.repeats?.count, 200);
    assert.equal(result.outcome.kind, 'complete');
  });
  test('a budget smaller than the log stops the explanation, keeping the verdicts before it', () => {
    const events = parseKernelLog(report.repeat(20)).events;
    const perReport = 1 + (events[0]?.evidence.length ?? 0);
    const result = explainWithinBudget(events, { pods: pods(10) }, new WorkBudget(perReport * 5 + 1, 'OOM explanation'));
    assert.equal(result.outcome, 'stopped-at-budget');
    assert.equal(result.verdicts.length, 5);
  });
  test('reports × pods at 8n of both (320 reports, 6,400 pods): explained in full', () => {
    const result = runsOnLargeInput(
      'OOM explanation, reports × pods',
      (n) => report.repeat(n),
      (text) => explainKernelLogText(text, { pods: pods((text.length / report.length) * 20) }),
      40,
    );
    assert.equal(result.kills.length, 320);
    assert.equal(result.outcome.kind, 'complete');
  });
});

describe('the capture analysis', () => {
  test('a node capture with a hundred OOM reports and 6,000 pods is explained in full, within the budget', () => {
    const report = readFileSync(new URL('../fixtures/kernel-logs/k3s-blog-syslog-global-pod.log', import.meta.url), 'utf8');
    const pods: PodSpec[] = Array.from({ length: 6_000 }, (_, i) => ({
      uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
      current: 1 * GiB,
      max: 'max',
    }));
    const inspection = analyzeCaptureText(nodeCapture({ kernel: '6.14.0', memTotal: 128 * GiB, pods, kernelLog: report.repeat(100) }), {
      target: 'ssh root@gpu-node-1:22',
    });
    assert.equal(inspection.node?.oom?.outcome.kind, 'complete');
    assert.equal(inspection.node?.oom?.summary.kills, 100);
    assert.equal(inspection.node?.oom?.verdicts[0]?.repeats?.count, 100);
    assert.ok(!inspection.problems.some((problem) => problem.includes('stopped at budget')), inspection.problems.slice(0, 5).join('\n'));
  });
});
