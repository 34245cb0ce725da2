// Each finding reads once: a title and the detail printed after it do not both say the clause they begin with
// ("… predates 7.1: GPU pages are not counted node-wide: … predates 7.1: system RAM used by …"), in the terminal,
// Markdown and the inspector alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { inspectionToMarkdown, inspectionToText } from '../../src/core/report/inspectionReport.ts';
import { buildInspectorViewModel } from '../../src/core/inspectorPanel/viewModel.ts';
import { detailAfterTitle } from '../../src/core/text/readsOnce.ts';
import { GiB, nodeCapture, STRIX_HALO } from './helpers/nodeCapture.ts';

const CLAUSE = '6.18.44-fc-v595 predates 7.1';
const count = (text: string, part: string) => text.split(part).length - 1;

test('a 6.x node: the GPUActive finding says "predates 7.1" once per line, and once per Markdown finding', () => {
  const inspection = analyzeCaptureText(nodeCapture({ kernel: '6.18.44-fc-v595', memTotal: 128 * GiB, gpus: [STRIX_HALO] }), {
    target: 'node-a',
  });
  const text = inspectionToText(inspection);
  assert.ok(text.includes(CLAUSE), text);
  for (const line of text.split('\n')) assert.ok(count(line, CLAUSE) <= 1, line);
  assert.ok(text.includes(`${CLAUSE}: GPU pages are not counted node-wide: system RAM used by GPU buffers`), text);

  const markdown = inspectionToMarkdown(inspection);
  // The verdict's heading and the kernel checks' line: each once, and no paragraph repeating the heading.
  assert.equal(count(markdown, 'system RAM used by GPU buffers is visible only per process'), 2, markdown);

  const view = buildInspectorViewModel(inspection);
  const verdict = view.verdicts.find((row) => row.id === 'kernel.gpu-active-counters');
  assert.ok(verdict);
  assert.equal(verdict.explanation, '');
  assert.equal(count(JSON.stringify(view), CLAUSE), 2);
});

test('detailAfterTitle: the shared lead clause or the whole title goes; other details stay', () => {
  assert.equal(detailAfterTitle('6.6 predates 7.1: no counters', '6.6 predates 7.1: RAM per process.'), 'RAM per process.');
  assert.equal(
    detailAfterTitle('libvgpu.so is not preloaded', 'libvgpu.so is not preloaded: /etc/ld.so.preload is empty'),
    '/etc/ld.so.preload is empty',
  );
  assert.equal(detailAfterTitle('GTT is not charged to memcg', 'No kernel charges GTT.'), 'No kernel charges GTT.');
  assert.equal(detailAfterTitle('a: b', 'a: '), 'a: ');
});
