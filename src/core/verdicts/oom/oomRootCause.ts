// Explain a kernel log on its own (pasted text, a file, the probe's `kernel-log` section): its OOM kill reports,
// one verdict each (oomVerdicts.ts), and a summary for a report header.
import type { KernelLog } from '../../probe/parsers/kernelLog.ts';
import type { KernelLogFormat } from '../../probe/parsers/logLine.ts';
import { parseKernelLog } from '../../probe/parsers/kernelLog.ts';
import { gttSizeMiB } from './gttSignature.ts';
import type { GttStrength, OomContext, OomVerdict } from './oomVerdictTypes.ts';
import { explainWithinBudget } from './oomVerdicts.ts';
import { groupRepeatedKills } from './oomRepeats.ts';
import { unitsFor, WorkBudget } from '../../workBudget.ts';

/**
 * Explaining one OOM report costs a step plus one per line of evidence (the victim's pod is looked up in an index
 * built once, whatever the pod count). A report line is dozens of characters, so a real log spends well under one
 * unit per character; four per character (at least 100,000) is a guard against a future step that grows with
 * something other than the log, and says so ("Analysis stopped at budget") instead of running on.
 */
const OOM_UNITS_PER_CHAR = 4;
const OOM_UNITS_MIN = 100_000;

export interface OomVictimSummary {
  readonly kind: OomVerdict['kind'];
  readonly comm?: string;
  readonly pid?: number;
  readonly podUid?: string;
  readonly podName?: string;
  readonly containerId?: string;
  readonly timestamp?: string;
  readonly gtt?: GttStrength;
}

export interface OomLogSummary {
  readonly kills: number;
  readonly global: number;
  readonly memcg: number;
  readonly unknown: number;
  /** Global kills of pods (the GTT signature, at any strength). */
  readonly globalPodKills: number;
  readonly victims: readonly OomVictimSummary[];
  readonly format: KernelLogFormat;
  readonly source?: string;
  readonly lineCount: number;
  /** GTT size from the amdgpu boot lines, MiB. */
  readonly gttMiB?: number;
  readonly problems: readonly string[];
  /** One line for a report header. */
  readonly text: string;
}

export type ExplanationOutcome = { readonly kind: 'complete' } | { readonly kind: 'stopped-at-budget'; readonly problem: string };

export interface KernelLogExplanation {
  /** One verdict per kill, repeated kills alike folded into one (oomRepeats.ts): what reports show. */
  readonly verdicts: readonly OomVerdict[];
  /** One verdict per kill, none folded: what counts kills (the agent's ledger, the fleet scan). */
  readonly kills: readonly OomVerdict[];
  /** Whether every OOM report was explained, or the work budget stopped the explanation (the problem says where). */
  readonly outcome: ExplanationOutcome;
  readonly summary: OomLogSummary;
  readonly log: KernelLog;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** Explain a kernel log on its own (pasted text, a file, the probe's `kernel-log` section). */
export function explainKernelLogText(text: string, context?: OomContext): KernelLogExplanation {
  const input = typeof text === 'string' ? text : '';
  const log = parseKernelLog(input);
  const amdgpu = context?.amdgpu ?? log.amdgpu;
  const amdgpuVmFini = context?.amdgpuVmFini ?? log.amdgpuVmFini;
  const budget = new WorkBudget(unitsFor(input.length, OOM_UNITS_PER_CHAR, OOM_UNITS_MIN), 'OOM explanation');
  const { verdicts: each, outcome } = explainWithinBudget(log.events, { ...context, amdgpu, amdgpuVmFini }, budget);
  const verdicts = groupRepeatedKills(each);
  const explanationOutcome: ExplanationOutcome =
    outcome === 'complete'
      ? { kind: 'complete' }
      : {
          kind: 'stopped-at-budget',
          problem: `Analysis stopped at budget: ${each.length} of ${log.events.length} OOM kill reports explained; the rest would cost more than ${OOM_UNITS_PER_CHAR} steps per character of the log.`,
        };
  const problems = explanationOutcome.kind === 'complete' ? log.problems : [...log.problems, explanationOutcome.problem];
  let global = 0;
  let memcg = 0;
  let unknown = 0;
  let globalPodKills = 0;
  const victims: OomVictimSummary[] = [];
  for (const verdict of each) {
    if (verdict.kind === 'global') {
      global++;
      if (verdict.gtt) globalPodKills++;
    } else if (verdict.kind === 'memcg') memcg++;
    else unknown++;
    const v = verdict.victim;
    victims.push({
      kind: verdict.kind,
      ...(v.comm !== undefined ? { comm: v.comm } : {}),
      ...(v.pid !== undefined ? { pid: v.pid } : {}),
      ...(v.podUid !== undefined ? { podUid: v.podUid } : {}),
      ...(v.podName !== undefined ? { podName: v.podName } : {}),
      ...(v.containerId !== undefined ? { containerId: v.containerId } : {}),
      ...(verdict.timestamp !== undefined ? { timestamp: verdict.timestamp } : {}),
      ...(verdict.kind === 'global' && verdict.gtt ? { gtt: verdict.gtt.strength } : {}),
    });
  }
  const gttMiB = gttSizeMiB(amdgpu);
  const kills = each.length;
  const named = victims.filter((victim) => victim.comm !== undefined || victim.pid !== undefined);
  const victimText = named
    .slice(0, 5)
    .map((victim) => `${victim.comm ?? '?'}${victim.pid !== undefined ? ` (pid ${victim.pid})` : ''}`)
    .join(', ');
  const summaryText =
    kills === 0
      ? `No OOM kill reports in ${plural(log.lineCount, 'line', 'lines')} of kernel log.`
      : `${plural(kills, 'OOM kill report', 'OOM kill reports')}: ${global} global (${globalPodKills} of a pod), ${memcg} memory-cgroup, ${unknown} unclassified` +
        (named.length > 0 ? `; victims: ${victimText}${named.length > 5 ? `, and ${named.length - 5} more` : ''}.` : '.');
  return {
    verdicts,
    kills: each,
    outcome: explanationOutcome,
    log,
    summary: {
      kills,
      global,
      memcg,
      unknown,
      globalPodKills,
      victims,
      format: log.format,
      ...(log.source !== undefined ? { source: log.source } : {}),
      lineCount: log.lineCount,
      ...(gttMiB !== undefined ? { gttMiB } : {}),
      problems,
      text: summaryText,
    },
  };
}
