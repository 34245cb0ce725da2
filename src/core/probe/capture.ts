// The probe's output format and its parser. A capture is plain text: the probe script prints
// marker lines that carry a per-run nonce, so no file content can forge them.
//
//   @@gpumem-probe v=1 scope=node nonce=<hex> root=/host@@
//   @@gpumem:<nonce>:begin <section>@@
//   @@gpumem:<nonce>:file <path>@@        (zero or more: the following bytes are that file's content)
//   @@gpumem:<nonce>:file <dir>/.gpumem-heads-<max>@@  (several files of <dir> read by head -c <max> in batches)
//   …content…
//   @@gpumem:<nonce>:rc <status>@@        (commands only: their exit status)
//   @@gpumem:<nonce>:missing <what>@@     (a tool or path that is not there)
//   @@gpumem:<nonce>:end <section>@@
//   @@gpumem:<nonce>:done@@
//
// Parsing is tolerant: truncated, garbled or interleaved output gives partial sections and problems,
// never an exception.
import { CaptureParser, headsSplitterFor } from './captureParser.ts';
import type { Capture } from './captureModel.ts';
import type { FileSink } from './headsSplitter.ts';

export type { CaptureParserOptions, SectionFold } from './captureParser.ts';
export { CaptureParser, HEADS_RECORD } from './captureParser.ts';

export type { Capture, CaptureRecord, CaptureSection, ProbeScope } from './captureModel.ts';

/** Parses a whole capture (CaptureParser in one push). */
export function parseCapture(input: string): Capture {
  const parser = new CaptureParser();
  parser.push(input);
  return parser.end();
}

/** The body of the first record of a section, or of the record for `path`. */
export function sectionText(capture: Capture, name: string, path?: string): string | undefined {
  const section = capture.sections.get(name);
  if (!section) return undefined;
  const record = path === undefined ? section.records[0] : section.records.find((candidate) => candidate.path === path);
  return record?.body;
}

/**
 * Each file of a section in the order the probe printed it (a record of several files read by head in batches split
 * into them), a path seen twice given twice: what CaptureParser's `fold` hands over as the capture arrives.
 */
export function eachSectionFile(capture: Capture, name: string, sink: FileSink): void {
  for (const record of capture.sections.get(name)?.records ?? []) {
    if (record.path === undefined) continue;
    const splitter = headsSplitterFor(record.path, sink);
    if (!splitter) {
      sink(record.path, record.body);
      continue;
    }
    splitter.push(record.body);
    splitter.end();
  }
}

/** All file records of a section, keyed by path; a record of several files read by head in batches is split into them. */
export function sectionFiles(capture: Capture, name: string): Map<string, string> {
  const files = new Map<string, string>();
  eachSectionFile(capture, name, (path, body) => files.set(path, body));
  return files;
}
