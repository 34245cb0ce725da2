// What a parsed capture is (the format and its parser: capture.ts, captureParser.ts).

export type ProbeScope = 'node' | 'container';

export interface CaptureRecord {
  /** The file path for `file` records; undefined for a command's output. */
  readonly path: string | undefined;
  readonly body: string;
}

export interface CaptureSection {
  readonly name: string;
  readonly records: readonly CaptureRecord[];
  /** Exit status of the section's command, when it reported one. */
  readonly rc: number | undefined;
  /** Tools or paths the probe reported missing. */
  readonly missing: readonly string[];
  /** False when the capture ended before the section's end marker. */
  readonly complete: boolean;
}

export interface Capture {
  readonly version: number;
  readonly scope: ProbeScope | undefined;
  readonly root: string;
  readonly sections: ReadonlyMap<string, CaptureSection>;
  /** The probe printed its final marker. */
  readonly complete: boolean;
  /** What is wrong with the capture itself (truncation, unknown version, stray text). */
  readonly problems: readonly string[];
}
