// Defect class 4 of issue 17: arrays spread into call arguments (`Math.max(...xs)`, `push(...xs)`) throw a
// RangeError past ~125k elements. A 256 KiB /etc/ld.so.preload of short lines, or an env value of 128k
// backtick runs rendered as Markdown, crashed the analysis or "Copy report as Markdown". The ESLint rule
// no-restricted-syntax (eslint.config.mjs) keeps such spreads out of src/ and webview/.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { longestRun, maxOf, minOf, pushAll } from '../../src/core/arrays.ts';
import { analyzeCaptureText } from '../../src/core/inspectionRun/analyze.ts';
import { podToMarkdown } from '../../src/core/inspectorPanel/podMarkdown.ts';
import { buildInspectorViewModel } from '../../src/core/inspectorPanel/viewModel.ts';
import { markdownCodeBlock } from '../../src/core/text/escape.ts';
import { inspectionToJson, inspectionToMarkdown, inspectionToText } from '../../src/core/report/inspectionReport.ts';
import { captureText, procRecord } from './helpers/captureText.ts';

const MANY = 200_000;

describe('array helpers', () => {
  test('pushAll, maxOf, minOf and longestRun take 200k elements', () => {
    const big = Array.from({ length: MANY }, (_, i) => i);
    assert.throws(() => Math.max(...big), RangeError, 'the defect this guards against is real on this V8');
    assert.equal(pushAll([-1], big).length, MANY + 1);
    assert.equal(maxOf(big, 0), MANY - 1);
    assert.equal(minOf(big, 0), 0);
    assert.equal(maxOf([], -7), -7);
    assert.equal(maxOf([NaN, 3], 0), 3);
    assert.equal(longestRun('a``b````c`', '`'), 4);
    assert.equal(longestRun('`x'.repeat(MANY), '`'), 1);
  });

  test('codeBlock fences a text of 128k backtick runs', () => {
    const text = '`a'.repeat(128 * 1024) + '````';
    const block = markdownCodeBlock(text);
    assert.ok(block.startsWith('`````\n'));
    assert.ok(block.endsWith('\n`````'));
  });
});

describe('hostile container captures through analysis and every report', () => {
  // 256 KiB of two-byte lines: 131,072 preload entries.
  const preload = 'a\n'.repeat(128 * 1024);
  const backticks = '`x'.repeat(128 * 1024);
  const text = captureText('container', {
    meta: 'kernel=6.8.0\nhostname=tenant\n',
    env: `source=proc\nCUDA_DEVICE_MEMORY_LIMIT_0=4096m\nNOTES=${backticks}\n`,
    preload: {
      files: [
        ['ls', `-rw-r--r-- 1 0 0 ${preload.length} Aug 21 10:00 /etc/ld.so.preload\n`],
        ['/etc/ld.so.preload', preload],
      ],
    },
    procs: {
      files: [
        procRecord({
          pid: 42,
          comm: 'python3',
          maps: 'libvgpu=1 libcuda=1 ld-musl=0 ld-linux=1 lines=5',
          env: ['CUDA_DEVICE_MEMORY_LIMIT_0=4096m', `NOTES=${backticks}`],
        }),
      ],
    },
  });

  test('analysis, text, Markdown, JSON and the view model all complete', { timeout: 60_000 }, () => {
    const inspection = analyzeCaptureText(text, { target: 'tenant/pod' });
    assert.equal(inspection.container?.preload?.entries.length, 128 * 1024);
    const markdown = inspectionToMarkdown(inspection);
    assert.match(markdown, /# gpumem inspection/);
    assert.ok(inspectionToText(inspection).length > 0);
    assert.ok(JSON.stringify(inspectionToJson(inspection)).length > 0);
    const view = buildInspectorViewModel(inspection);
    assert.ok(view);
    for (const pod of view.pods ?? []) podToMarkdown(view, pod.podUid);
  });
});
