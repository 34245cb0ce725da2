// What an inspection could not see, stated first in every report: a real capture taken as `nobody` on this machine
// (test/fixtures/captures/this-machine-as-nobody.source.md), the same capture cut short, and the same capture with its
// kernel-log section as a root run records it (the only section a root run of this machine reads differently).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { inspectionToJson, inspectionToMarkdown, inspectionToText } from '../../src/core/report/inspectionReport.ts';
import { exitCodeOf } from '../../src/cli/report.ts';
import { buildInspectorViewModel } from '../../src/core/inspectorPanel/viewModel.ts';

const NOBODY = readFileSync(new URL('../fixtures/captures/this-machine-as-nobody.txt', import.meta.url), 'utf8');

test('as nobody with dmesg_restrict=1: the unread kernel log comes first in every report, never "No problems found"', () => {
  const inspection = analyzeCaptureText(NOBODY, { target: 'nobody' });
  assert.equal(inspection.sight.kind, 'partial');
  const text = inspectionToText(inspection);
  const markdown = inspectionToMarkdown(inspection);
  const json = inspectionToJson(inspection) as { sight: { kind: string; unread: { input: string; unknownVerdicts: string[] }[] } };
  for (const [name, report] of [
    ['text', text],
    ['markdown', markdown],
  ] as const) {
    assert.equal(report.includes('No problems found'), false, name);
    const notRead = report.indexOf('the kernel log (OOM kills)');
    assert.ok(notRead > 0, `${name} names the kernel log`);
    assert.ok(notRead < report.indexOf('No GPU '), `${name}: stated before where the verdicts go`);
    assert.match(report, /dmesg\\?_restrict=1/);
    assert.match(report, /uid 65534/);
    assert.match(report, /oom\.memcg/);
    assert.match(report, /No GPU .* and no Kubernetes pod/);
  }
  assert.ok(markdown.indexOf('## ❔ Not read') < markdown.indexOf('## Verdicts'));
  assert.equal(json.sight.kind, 'partial');
  assert.equal(json.sight.unread[0]?.input, 'the kernel log (OOM kills)');
  assert.ok(json.sight.unread[0]?.unknownVerdicts.includes('oom.global'));
  assert.deepEqual(Object.keys(json).slice(0, 3), ['target', 'scope', 'sight']);
  assert.equal(exitCodeOf(inspection), 0, 'a probe that finished is not an error');
});

test('no GPU and no pods, everything read: the report says so instead of "No problems found"', () => {
  // The kernel-log section as the probe prints it when dmesg is readable (nodeScript.ts: "source=dmesg" then the log).
  const nonce = /nonce=([0-9a-f]+)/.exec(NOBODY)?.[1] ?? '';
  const refused = `@@gpumem:${nonce}:missing dmesg (not permitted or not available)@@\n@@gpumem:${nonce}:missing kernel-log@@\n`;
  assert.ok(NOBODY.includes(refused));
  const asRoot = NOBODY.replace(refused, 'source=dmesg\n[    0.000000] Linux version 6.18.44\n').replace('uid=65534', 'uid=0');
  const inspection = analyzeCaptureText(asRoot, { target: 'root' });
  assert.equal(inspection.sight.kind, 'nothing-to-judge');
  const text = inspectionToText(inspection);
  assert.equal(text.includes('No problems found'), false);
  assert.equal(text.includes('NOT READ'), false);
  assert.match(text, /No GPU .* and no Kubernetes pod .* nothing for the GPU memory verdicts to judge/);
  assert.match(inspectionToMarkdown(inspection), /nothing for the GPU memory verdicts to judge/);
});

test('a capture cut short is an error stated first in every report, exit 3', () => {
  const middle = NOBODY.indexOf(':begin drm@@') + 20;
  let truncatedAtLeastOnce = 0;
  for (const cut of [middle, Math.floor(NOBODY.length / 2), NOBODY.length - 40]) {
    const inspection = analyzeCaptureText(NOBODY.slice(0, cut), { target: `cut at ${cut}` });
    assert.equal(inspection.sight.kind, 'cut-short', `cut at ${cut}`);
    assert.equal(exitCodeOf(inspection), 3, `cut at ${cut}`);
    const text = inspectionToText(inspection);
    const lines = text.split('\n');
    assert.match(lines[3] ?? '', /^ERROR: the capture is cut short/, `cut at ${cut}: the first thing after the header`);
    assert.equal(text.includes('No problems found'), false);
    const markdown = inspectionToMarkdown(inspection);
    assert.ok(
      markdown.indexOf('## ⛔ Capture cut short') > 0 && markdown.indexOf('## ⛔ Capture cut short') < markdown.indexOf('## Verdicts'),
    );
    const json = inspectionToJson(inspection) as { sight: { kind: string; unread: { unknownVerdicts: unknown }[] } };
    assert.equal(json.sight.kind, 'cut-short');
    assert.equal(json.sight.unread[0]?.unknownVerdicts, 'any');
    truncatedAtLeastOnce++;
  }
  assert.equal(truncatedAtLeastOnce, 3);
  assert.equal(analyzeCaptureText(NOBODY, { target: 'whole' }).sight.kind, 'partial', 'the whole capture is not cut short');
});

test('the inspector banner: the unread inputs first, "No problems found" only when all was read, a cut capture an error', () => {
  const partial = buildInspectorViewModel(analyzeCaptureText(NOBODY, { target: 'nobody' })).banner;
  assert.equal(partial.tone, 'warning');
  assert.equal(partial.headline, 'Not everything could be read');
  assert.deepEqual(
    partial.unread.map((row) => row.input),
    ['the kernel log (OOM kills)'],
  );
  assert.match(partial.unread[0]?.unknown ?? '', /oom\.global/);
  const cut = buildInspectorViewModel(analyzeCaptureText(NOBODY.slice(0, NOBODY.length / 2), { target: 'cut' })).banner;
  assert.equal(cut.tone, 'error');
  assert.equal(cut.headline, 'The capture is cut short');
  assert.equal(cut.unread[0]?.unknown, 'any verdict');
});
