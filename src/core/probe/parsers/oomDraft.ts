// One OOM report while its lines arrive (kernelLog.ts feeds them), and the event it becomes: finishDraft
// classifies the kill (memory cgroup or global) from the strongest evidence the report kept, and names what is
// missing from it.
import type { LogLine } from './logLine.ts';
import type { EvidenceLine, KilledProcess, KillCandidate, OomEvent, OomInvoker, OomKillSummary, OomScope } from './oomReportLines.ts';

const GLOBAL_CONSTRAINTS = new Set(['CONSTRAINT_NONE', 'CONSTRAINT_CPUSET', 'CONSTRAINT_MEMORY_POLICY']);
const DAY_TIME = /(?:^|[\s-])(\d{1,2})[T ](\d\d):(\d\d):(\d\d)/;
const MAX_EVIDENCE = 64;

export interface Clock {
  readonly kind: 'boot' | 'wall';
  readonly seconds: number;
}

/** What the report has shown so far; every field is filled by the line that carries it. */
export interface Draft {
  clock?: Clock;
  timestamp?: string;
  monotonic?: string;
  invoker?: OomInvoker;
  summary?: OomKillSummary;
  legacyTaskIn?: { task: string; limitOf: string };
  cpuset?: string;
  memsAllowed?: string;
  memcgUsage?: { usageKb: number; limitKb: number; failcnt: number };
  memcgStatsFor?: string;
  oomGroup?: string;
  gpuActiveKb?: number;
  gpuReclaimKb?: number;
  traceMemcg?: boolean;
  candidate?: KillCandidate;
  killed?: KilledProcess;
  groupKills: KilledProcess[];
  evidence: EvidenceLine[];
  evidenceDropped: number;
}

/** The line's time in seconds, for telling reports apart: seconds since boot, or day-of-month and time of day. */
export function clockOf(line: LogLine): Clock | undefined {
  if (line.monotonic !== undefined) {
    const seconds = Number(line.monotonic);
    return Number.isFinite(seconds) ? { kind: 'boot', seconds } : undefined;
  }
  if (line.timestamp === undefined) return undefined;
  const match = DAY_TIME.exec(line.timestamp);
  if (!match) return undefined;
  const seconds = Number(match[1]) * 86400 + Number(match[2]) * 3600 + Number(match[3]) * 60 + Number(match[4]);
  return { kind: 'wall', seconds };
}

export function emptyDraft(line: LogLine): Draft {
  return { clock: clockOf(line), timestamp: line.timestamp, monotonic: line.monotonic, groupKills: [], evidence: [], evidenceDropped: 0 };
}

export function addEvidence(draft: Draft, line: number, text: string): void {
  if (draft.evidence.length < MAX_EVIDENCE) draft.evidence.push({ line, text: text.length > 4096 ? text.slice(0, 4096) : text });
  else draft.evidenceDropped++;
}

export function finishDraft(draft: Draft): OomEvent {
  const summary = draft.summary;
  let scope: OomScope | undefined;
  let scopeSource: OomEvent['scopeSource'];
  const reason = draft.killed?.reason ?? draft.candidate?.reason;
  const constraint = summary?.constraint;
  if (summary?.oomMemcg !== undefined) {
    scope = 'memcg';
    scopeSource = 'summary';
  } else if (summary?.globalOom) {
    scope = 'global';
    scopeSource = 'summary';
  } else if (constraint === 'CONSTRAINT_MEMCG') {
    scope = 'memcg';
    scopeSource = 'constraint';
  } else if (constraint !== undefined && GLOBAL_CONSTRAINTS.has(constraint)) {
    scope = 'global';
    scopeSource = 'constraint';
  } else if (reason !== undefined) {
    // Unknown constraints (CONSTRAINT_BPF, …) fall through to the other evidence.
    scope = reason.startsWith('Memory cgroup') ? 'memcg' : 'global';
    scopeSource = 'reason';
  } else if (draft.legacyTaskIn) {
    scope = 'memcg';
    scopeSource = 'legacy-task-in';
  } else if (draft.memcgUsage) {
    scope = 'memcg';
    scopeSource = 'memcg-usage';
  } else if (draft.traceMemcg !== undefined) {
    scope = draft.traceMemcg ? 'memcg' : 'global';
    scopeSource = 'call-trace';
  }
  const missing: string[] = [];
  if (!draft.invoker) missing.push('the "invoked oom-killer" line (the report starts before the log does, or was rate-limited)');
  if (!summary && !draft.legacyTaskIn) missing.push('the "oom-kill:" summary line');
  if (!draft.killed) missing.push('the "Killed process" line');
  if (draft.evidenceDropped > 0) missing.push(`${draft.evidenceDropped} further evidence lines (not kept)`);
  const taskMemcg = summary?.taskMemcg ?? draft.legacyTaskIn?.task;
  // `limit of <y>` names an ancestor of (or the same cgroup as) the task's; when it is a prefix that
  // stops mid-name, the line was wrapped or cut and the stats line names the cgroup better.
  const limitOf = draft.legacyTaskIn?.limitOf;
  const tornLimit =
    limitOf !== undefined &&
    taskMemcg !== undefined &&
    taskMemcg.length > limitOf.length &&
    taskMemcg.startsWith(limitOf) &&
    taskMemcg[limitOf.length] !== '/';
  const oomMemcg =
    summary?.oomMemcg ??
    (limitOf !== undefined && limitOf !== '' && !tornLimit ? limitOf : undefined) ??
    (scope === 'memcg' ? draft.memcgStatsFor : undefined);
  return {
    timestamp: draft.timestamp,
    monotonic: draft.monotonic,
    invoker: draft.invoker,
    summary,
    constraint: summary?.constraint,
    oomMemcg,
    globalOom: summary?.globalOom ?? false,
    taskMemcg,
    legacyTaskIn: draft.legacyTaskIn,
    cpuset: summary?.cpuset ?? draft.cpuset,
    memsAllowed: summary?.memsAllowed ?? draft.memsAllowed,
    memcgUsage: draft.memcgUsage,
    memcgStatsFor: draft.memcgStatsFor,
    oomGroup: draft.oomGroup,
    gpuActiveKb: draft.gpuActiveKb,
    gpuReclaimKb: draft.gpuReclaimKb,
    traceMemcg: draft.traceMemcg,
    candidate: draft.candidate,
    killed: draft.killed,
    groupKills: draft.groupKills,
    scope,
    scopeSource,
    missing,
    evidence: draft.evidence,
  };
}
