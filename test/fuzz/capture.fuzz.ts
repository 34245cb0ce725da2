// Probe captures: the capture format (src/core/probe/capture.ts), the analysis (src/core/inspectionRun/analyze.ts),
// the inspection reports (src/core/report/inspectionReport.ts: text reaches a terminal), the inspector's view
// model (src/core/inspectorPanel/viewModel.ts), its pod Markdown, the live sample and the capture's re-serialisation.
import { isDeepStrictEqual } from 'node:util';
import { analyzeCaptureText, StreamingAnalysis } from '../../src/core/inspectionRun/analyze.ts';
import type { Inspection } from '../../src/core/inspectionRun/analyze.ts';
import { serializeCapture } from '../../src/core/probe/captureWriter.ts';
import { sampleFromCapture } from '../../src/core/inspectorPanel/sample.ts';
import { podToMarkdown } from '../../src/core/inspectorPanel/podMarkdown.ts';
import { buildInspectorViewModel } from '../../src/core/inspectorPanel/viewModel.ts';
import { parseCapture } from '../../src/core/probe/capture.ts';
import { inspectionToJson, inspectionToMarkdown, inspectionToText } from '../../src/core/report/inspectionReport.ts';
import { captureText } from '../unit/helpers/captureText.ts';
import { CAPTURES, NODE_CAPTURES } from './corpus.ts';
import { fuzzTarget, renderViolations, terminalViolations } from './harness.ts';
import type { Growth, Violation } from './harness.ts';

const podNames = new Map([['1b4e28ba-2fa1-11d2-883f-0016d3cca427', 'ml/trainer-0']]);

function inspectionReports(inspection: Inspection): Violation[] {
  const text = inspectionToText(inspection);
  const model = buildInspectorViewModel(inspection);
  const podMarkdown = model.pods.map((pod) => podToMarkdown(model, pod.podUid) ?? '').join('\n');
  return [
    ...terminalViolations('inspection text report', text),
    ...renderViolations('inspection text report', text),
    ...renderViolations('inspection Markdown report', inspectionToMarkdown(inspection)),
    ...renderViolations('inspection JSON report', JSON.stringify(inspectionToJson(inspection))),
    ...renderViolations('inspector view model', JSON.stringify(model)),
    ...renderViolations('pod Markdown', podMarkdown),
  ];
}

const line = (n: number, text: string) => text.repeat(Math.ceil(n / text.length));

const CAPTURE_GROWTH: readonly Growth[] = [
  {
    label: 'many fdinfo records',
    make: (n) =>
      captureText('node', {
        fdinfo: {
          files: Array.from({ length: Math.ceil(n / 120) }, (_, i): [string, string] => [
            `/proc/${i}/fdinfo/3`,
            'drm-driver:\tamdgpu\ndrm-client-id:\t1\ndrm-memory-gtt: \t1024 KiB\n',
          ]),
        },
      }),
  },
  {
    label: 'many files in one head record',
    make: (n) =>
      captureText('node', {
        fdinfo: {
          files: [['/proc/.gpumem-heads-8192', line(n, '==> 7/fdinfo/3 <==\ndrm-driver:\tamdgpu\ndrm-memory-gtt: \t1024 KiB\n\n')]],
        },
      }),
  },
  {
    label: 'a long cut line in a head record',
    make: (n) =>
      captureText('node', {
        fdinfo: { files: [['/proc/.gpumem-heads-999999999', `==> 7/comm <==\n${'é'.repeat(n)}\n==> /dev/null <==\n`]] },
      }),
  },
  {
    label: 'a long meminfo line',
    make: (n) => captureText('node', { proc: { files: [['/proc/meminfo', `MemTotal: ${' '.repeat(n)}1 kB\n`]] } }),
  },
  {
    label: 'long nvidia-smi whitespace',
    make: (n) => captureText('container', { 'nvidia-smi.gpu': { body: `0, ${' '.repeat(n)}, NVIDIA A10, 4096, 1024, 3072\n`, rc: 0 } }),
  },
  {
    label: 'many ld.so.preload lines',
    make: (n) => captureText('container', { preload: { files: [['/etc/ld.so.preload', line(n, 'a\n')]] } }),
  },
  {
    label: 'many mountinfo lines',
    make: (n) => captureText('container', { mounts: line(n, '1090 1071 253:1 /a /b ro - ext4 /dev/vda1 rw\n') }),
  },
  {
    label: 'many kernel log lines',
    make: (n) =>
      captureText('node', {
        'kernel-log': `source=dmesg\n${line(n, '[  1.000000] amdgpu: VM memory stats for proc x(1) task y(2) is non-zero when fini\n')}`,
      }),
  },
];

fuzzTarget({
  name: 'inspection.analyzeCaptureText',
  corpus: CAPTURES,
  run: (input) => analyzeCaptureText(input, { target: 'fuzz', podNames }),
  check: (inspection) => inspectionReports(inspection),
  growth: CAPTURE_GROWTH,
});

/** Pieces of 1 to 4,096 characters, cut where the input says (the same cuts for the same input). */
function piecesOf(input: string): string[] {
  const sizes = [1, 7, 64, 997, 4096, 13];
  const pieces: string[] = [];
  for (let at = 0, i = input.length; at < input.length; i++) {
    const size = sizes[i % sizes.length] ?? 1;
    pieces.push(input.slice(at, at + size));
    at += size;
  }
  return pieces;
}

// The agent's analysis: the capture in pieces, its fdinfo sweep folded in as it arrives; it must read what the whole
// text's analysis reads (the inspection's capture aside, which has no fdinfo files).
fuzzTarget({
  name: 'inspection.StreamingAnalysis(pieces)',
  corpus: CAPTURES,
  run: (input) => {
    const analysis = new StreamingAnalysis();
    for (const piece of piecesOf(input)) analysis.push(piece);
    const { capture: _streamedCapture, ...streamed } = analysis.finish({ target: 'fuzz', podNames });
    const { capture: _wholeCapture, ...whole } = analyzeCaptureText(input, { target: 'fuzz', podNames });
    return { streamed, whole };
  },
  check: ({ streamed, whole }) =>
    isDeepStrictEqual(streamed, whole)
      ? []
      : [{ property: 'differs', message: 'the streaming analysis reads something else than the whole text' }],
  growth: CAPTURE_GROWTH,
});

// A container capture completed by a node capture, as Inspect Pod does.
fuzzTarget({
  name: 'inspection.analyzeCaptureText(container+node)',
  corpus: CAPTURES,
  run: (input) => analyzeCaptureText(CAPTURES[CAPTURES.length - 1] ?? '', { target: 'fuzz', nodeCapture: parseCapture(input) }),
  check: (inspection) => inspectionReports(inspection),
});

fuzzTarget({
  name: 'capture.parseCapture+serializeCapture',
  corpus: CAPTURES,
  run: (input) => {
    const capture = parseCapture(input);
    const again = parseCapture(serializeCapture(capture, 'feedfacefeedface0002'));
    return { capture, sections: again.sections.size };
  },
});

fuzzTarget({ name: 'inspector.sampleFromCapture', corpus: NODE_CAPTURES, run: (input) => sampleFromCapture(input, 1767225600) });
