// The capture parsed as it arrives (src/core/probe/captureParser.ts, headsSplitter.ts) and the agent's streaming
// analysis (StreamingAnalysis): whatever the pieces, the same capture and the same inspection as the whole text.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Capture } from '../../src/core/probe/capture.ts';
import { CaptureParser, parseCapture, sectionFiles } from '../../src/core/probe/capture.ts';
import { HeadsSplitter, MAX_HEADER_LINE } from '../../src/core/probe/headsSplitter.ts';
import type { Inspection } from '../../src/core/inspectionRun/analyze.ts';
import { analyzeCaptureText, StreamingAnalysis } from '../../src/core/inspectionRun/analyze.ts';
import { captureText, NONCE } from './helpers/captureText.ts';
import { manyPodsNode, nodeCapture } from './helpers/nodeCapture.ts';
import { NODE_CAPTURES } from '../fuzz/corpus.ts';

/** `text` cut at `cuts` (positions, any order, repeats allowed). */
function piecesAt(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const at of points) {
    pieces.push(text.slice(from, at));
    from = at;
  }
  pieces.push(text.slice(from));
  return pieces;
}

function parsePieces(pieces: readonly string[]): Capture {
  const parser = new CaptureParser();
  for (const piece of pieces) parser.push(piece);
  return parser.end();
}

function streamPieces(pieces: readonly string[]): Inspection {
  const analysis = new StreamingAnalysis();
  for (const piece of pieces) analysis.push(piece);
  return analysis.finish({ target: 't' });
}

/** What the agent reads of an inspection: everything but the capture itself (whose fdinfo records were folded). */
function readable(inspection: Inspection): unknown {
  const { capture: _capture, ...rest } = inspection;
  return rest;
}

const mark = (text: string) => `\n@@gpumem:${NONCE}:${text}@@\n`;

const HEADS = [
  '==> 77/cgroup <==',
  '0::/kubepods.slice/kubepods-pod1.slice/cri-containerd-ab.scope',
  '',
  '==> 77/fdinfo/5 <==',
  'drm-driver:\tamdgpu\ndrm-client-id:\t3\ndrm-memory-gtt: \t20xxxxxxxxxxxxxxxxxxxxxxxxx',
  '==> ../1/comm <==',
  'ignored',
  '',
  '==> /dev/null <==',
  '==> 78/comm <==',
  'sleep',
  '',
  '==> /dev/null <==',
  '==> 79/comm <==',
  'no end',
].join('\n');

const SMALL = captureText('node', {
  meta: 'hostname=n1\nkernel=7.1.0\n',
  proc: { files: [['/proc/meminfo', 'MemTotal: 1024 kB\n']] },
  fdinfo: { files: [['/host/proc/.gpumem-heads-64', HEADS]], rc: 0 },
  'kernel-log': { missing: ['kernel-log'] },
});

describe('CaptureParser: the capture in pieces', () => {
  test('cut in two at every position, the capture is the one parseCapture reads from the whole text', () => {
    const whole = parseCapture(SMALL);
    assert.equal(whole.sections.size, 4);
    for (let at = 0; at <= SMALL.length; at++)
      assert.deepEqual(
        parsePieces([SMALL.slice(0, at), SMALL.slice(at)]),
        whole,
        `cut at ${at}: ${JSON.stringify(SMALL.slice(at - 10, at + 10))}`,
      );
  });

  test('a CRLF capture (through a terminal) cut anywhere, a CR and its LF in different pieces, reads as LF', () => {
    const crlf = SMALL.replace(/\n/g, '\r\n');
    const whole = parseCapture(SMALL);
    assert.deepEqual(parseCapture(crlf), whole);
    for (let at = 0; at <= crlf.length; at += 1) assert.deepEqual(parsePieces([crlf.slice(0, at), crlf.slice(at)]), whole, `cut at ${at}`);
  });

  test('one character at a time, and random cuts of every corpus capture, read the same', () => {
    assert.deepEqual(parsePieces([...SMALL]), parseCapture(SMALL));
    fc.assert(
      fc.property(fc.constantFrom(...NODE_CAPTURES), fc.array(fc.nat(), { maxLength: 40 }), (text, cuts) => {
        assert.deepEqual(parsePieces(piecesAt(text, cuts)), parseCapture(text));
      }),
      { seed: 20261205, numRuns: 200 },
    );
  });

  test('a marker line longer than any real one is content, whole or in pieces', () => {
    const long = `file /${'a'.repeat(20_000)}`;
    const text = captureText('node', { proc: { body: `${mark(long).slice(1)}kept\n` } });
    const whole = parseCapture(text);
    assert.match(whole.sections.get('proc')?.records[0]?.body ?? '', /^@@gpumem:.*aaaa@@\nkept\n$/);
    assert.deepEqual(parsePieces(piecesAt(text, [100, 5000, 12_000, 19_000])), whole);
  });

  test('content before the header and a header cut in the middle: the header is still found', () => {
    const text = `stray line\nmore @@gpumem-probe v=1\n${SMALL}`;
    const whole = parseCapture(text);
    assert.equal(whole.scope, 'node');
    assert.deepEqual(whole, parseCapture(SMALL));
    for (const at of [3, 15, 20, 40, 60, 80]) assert.deepEqual(parsePieces([text.slice(0, at), text.slice(at)]), whole);
  });

  test('no header: the same clear problem as for the whole text', () => {
    assert.deepEqual(parsePieces(['not a ', 'capture\n', '@@gpumem-probe v=1 sc']).problems, [
      'not a gpumem probe capture (no header line)',
    ]);
  });

  test('a folded section hands each file over as it ends, a heads record split as it arrives, and keeps none', () => {
    const files: Array<[string, string]> = [];
    let begun = 0;
    const parser = new CaptureParser({
      fold: new Map([['fdinfo', { begin: () => void begun++, file: (path: string, body: string) => void files.push([path, body]) }]]),
    });
    for (const piece of piecesAt(SMALL, [150, 300, 310, 420])) parser.push(piece);
    const capture = parser.end();
    assert.equal(begun, 1);
    assert.deepEqual(files, [...sectionFiles(parseCapture(SMALL), 'fdinfo')]);
    assert.deepEqual(files, [
      ['/host/proc/77/cgroup', '0::/kubepods.slice/kubepods-pod1.slice/cri-containerd-ab.scope\n'],
      ['/host/proc/77/fdinfo/5', 'drm-driver:\tamdgpu\ndrm-client-id:\t3\n'],
      ['/host/proc/78/comm', 'sleep\n'],
    ]);
    // The section is there (rc, complete) without its records; the others are as ever.
    assert.deepEqual(capture.sections.get('fdinfo'), { name: 'fdinfo', records: [], rc: 0, missing: [], complete: true });
    assert.equal(capture.sections.get('proc')?.records[0]?.body, 'MemTotal: 1024 kB\n');
  });
});

describe('HeadsSplitter', () => {
  const split = (pieces: readonly string[], max = 64) => {
    const files: Array<[string, string]> = [];
    const splitter = new HeadsSplitter('/host/proc', max, (path, body) => files.push([path, body]));
    for (const piece of pieces) splitter.push(piece);
    splitter.end();
    return files;
  };

  test('cut in two or three anywhere, the same files', () => {
    const whole = split([HEADS]);
    assert.equal(whole.length, 3);
    for (let at = 0; at <= HEADS.length; at++) {
      assert.deepEqual(split([HEADS.slice(0, at), HEADS.slice(at)]), whole, `cut at ${at}`);
      const second = Math.min(HEADS.length, at + 7);
      assert.deepEqual(split([HEADS.slice(0, at), HEADS.slice(at, second), HEADS.slice(second)]), whole, `cuts at ${at}, ${second}`);
    }
  });

  test('a header line longer than any real one is content of the file before it, in any pieces', () => {
    const long = `==> ${'x'.repeat(MAX_HEADER_LINE)} <==`;
    const text = `==> 5/comm <==\nsh\n\n${long}\nafter\n\n==> /dev/null <==\n`;
    const whole = split([text], 999_999);
    assert.deepEqual(whole, [['/host/proc/5/comm', `sh\n\n${long}\nafter\n`]]);
    assert.deepEqual(split(piecesAt(text, [30, 2000, 8000, 8190])), whole);
  });
});

describe('StreamingAnalysis: the agent folds the fdinfo sweep in as it arrives', () => {
  test('every corpus node capture, in random pieces, analyses as the whole text does', () => {
    for (const text of NODE_CAPTURES) assert.deepEqual(readable(streamPieces([text])), readable(analyzeCaptureText(text, { target: 't' })));
    fc.assert(
      fc.property(fc.constantFrom(...NODE_CAPTURES), fc.array(fc.nat(), { maxLength: 30 }), (text, cuts) => {
        assert.deepEqual(readable(streamPieces(piecesAt(text, cuts))), readable(analyzeCaptureText(text, { target: 't' })));
      }),
      { seed: 20261205, numRuns: 100 },
    );
  });

  test('a capture that repeats the fdinfo section (spliced) is read by its last one, as the whole text is', () => {
    const first = nodeCapture({ ...manyPodsNode(3), fdinfoBatched: true });
    const second = nodeCapture(manyPodsNode(5));
    const spliced = first.replace(`${mark('done')}`, second.slice(second.indexOf(mark('begin fdinfo'))));
    const whole = analyzeCaptureText(spliced, { target: 't' });
    assert.equal(whole.node?.model.gpuProcesses.length, 5);
    assert.deepEqual(readable(streamPieces(piecesAt(spliced, [999, 5000]))), readable(whole));
  });

  test('a batched sweep of 40 pods in 64 KiB-like pieces: the same processes, and no fdinfo text kept in the capture', () => {
    const text = nodeCapture({ ...manyPodsNode(40), fdinfoBatched: true });
    const pieces = piecesAt(
      text,
      Array.from({ length: Math.ceil(text.length / 997) }, (_, i) => i * 997),
    );
    const streamed = streamPieces(pieces);
    const whole = analyzeCaptureText(text, { target: 't' });
    assert.equal(streamed.node?.model.gpuProcesses.length, 40);
    assert.deepEqual(readable(streamed), readable(whole));
    assert.deepEqual(streamed.capture.sections.get('fdinfo')?.records, []);
    assert.equal(whole.capture.sections.get('fdinfo')?.records.length, 1);
  });
});
