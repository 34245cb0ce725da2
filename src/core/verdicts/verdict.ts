// What every verdict says: one sentence, the evidence it rests on (verbatim lines), and a remedy.
import type { Severity } from '../findings.ts';

export type CheckStatus = 'pass' | 'fail' | 'warn' | 'unknown' | 'info';

export interface Verdict {
  /** Stable id, e.g. `oom.global-gtt`, `memory.unaccounted-node`, `kernel.dmem-enabled`. */
  readonly id: string;
  readonly severity: Severity;
  readonly title: string;
  readonly explanation: string;
  readonly evidence: readonly string[];
  readonly remedy: string;
}

export interface KernelCheck {
  readonly id: string;
  readonly title: string;
  readonly status: CheckStatus;
  readonly detail: string;
  readonly evidence: readonly string[];
  readonly remedy: string;
}
