// From a probe capture to an inspection: the typed model plus every verdict, worst first.
import type { Severity } from '../findings.ts';
import { severityRank } from '../findings.ts';
import type { Capture, ProbeScope } from '../probe/capture.ts';
import { parseCapture } from '../probe/capture.ts';
import type { NodeModel } from '../probe/nodeModel.ts';
import { buildNodeModel } from '../probe/nodeModel.ts';
import { kernelAlignmentChecks } from '../verdicts/kernelAlignment.ts';
import type { NodeAccounting, PodAccounting } from '../verdicts/unaccountedMemory.ts';
import { nodeAccounting, podAccounting, unaccountedMemoryVerdicts } from '../verdicts/unaccountedMemory.ts';
import type { Check, Verdict } from '../verdicts/verdict.ts';

export interface NodeInspection {
  readonly model: NodeModel;
  readonly accounting: NodeAccounting;
  readonly pods: readonly PodAccounting[];
  readonly kernelChecks: readonly Check[];
}

export interface Inspection {
  readonly target: string;
  readonly scope: ProbeScope | undefined;
  readonly capture: Capture;
  readonly node: NodeInspection | undefined;
  /** Every verdict, worst first. */
  readonly verdicts: readonly Verdict[];
  readonly problems: readonly string[];
}

export interface AnalyzeOptions {
  readonly target: string;
  /** Pod UID → "namespace/name", when the Kubernetes layer knows it. */
  readonly podNames?: ReadonlyMap<string, string>;
}

export function analyzeCaptureText(text: string, options: AnalyzeOptions): Inspection {
  return analyzeCapture(parseCapture(text), options);
}

export function analyzeCapture(capture: Capture, options: AnalyzeOptions): Inspection {
  const verdicts: Verdict[] = [];
  let node: NodeInspection | undefined;
  if (capture.scope === 'node') {
    const model = buildNodeModel(capture);
    const kernelChecks = kernelAlignmentChecks(model);
    node = { model, accounting: nodeAccounting(model), pods: podAccounting(model), kernelChecks };
    verdicts.push(...unaccountedMemoryVerdicts(model, options.podNames));
    verdicts.push(...kernelChecks.filter((check) => check.status === 'fail' || check.status === 'warn').map(checkToVerdict));
  }
  return { target: options.target, scope: capture.scope, capture, node, verdicts: sortVerdicts(verdicts), problems: node?.model.problems ?? capture.problems };
}

export function sortVerdicts(verdicts: readonly Verdict[]): Verdict[] {
  return [...verdicts].sort((a, b) => severityRank[b.severity] - severityRank[a.severity]);
}

function checkToVerdict(check: Check): Verdict {
  const severity: Severity = check.status === 'fail' ? 'warning' : 'info';
  return { id: check.id, severity, title: `${check.title}: ${check.detail}`, explanation: check.detail, evidence: check.evidence, remedy: check.remedy };
}
