// The report formats of the probe commands, and their exit codes: 0 when no verdict is a warning or an
// error, 1 when one is, 3 when the capture is cut short (whatever its verdicts: a gate must not pass on a node it
// did not read whole); 2, for usage, I/O and connection errors, is the commands' own.
import type { Inspection } from '../core/inspectionRun/analyze.ts';
import { inspectionToJson, inspectionToMarkdown, inspectionToText } from '../core/report/inspectionReport.ts';
import { UsageError } from './args.ts';

const REPORT_FORMATS = ['text', 'json', 'markdown'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export function formatOf(value: string | true | undefined): ReportFormat {
  const format = value ?? 'text';
  if (typeof format === 'string' && (REPORT_FORMATS as readonly string[]).includes(format)) return format as ReportFormat;
  throw new UsageError(`--format must be one of ${REPORT_FORMATS.join(', ')}`);
}

export function renderInspection(inspection: Inspection, format: ReportFormat): string {
  if (format === 'json')
    return `${JSON.stringify(inspectionToJson(inspection), (_key, value: unknown) => (value === undefined ? null : value), 2)}\n`;
  if (format === 'markdown') return inspectionToMarkdown(inspection);
  return inspectionToText(inspection);
}

export function exitCodeOf(inspection: Inspection): number {
  if (inspection.sight.kind === 'cut-short') return 3;
  return inspection.verdicts.some((verdict) => verdict.severity !== 'info') ? 1 : 0;
}
