// The top of the inspector: the header (target, facts), the banner (the worst finding first, in one
// sentence, with its remedy and its documentation anchor) and the list of verdicts.
import type { Severity } from '../findings.ts';
import type { Inspection } from '../inspectionRun/analyze.ts';
import type { Verdict } from '../verdicts/verdict.ts';
import { oneLine } from '../textScan.ts';
import type { Tone, Banner, VerdictRow, Header, Fact } from './viewModelTypes.ts';
import { MAX_EVIDENCE } from './viewModelTypes.ts';
import { bytesCell } from './cells.ts';
import { explanationBeyondTitle } from '../text/readsOnce.ts';
import type { Sight } from '../inspectionRun/sight.ts';
import { noVerdictLine, unknownVerdictsText, unreadOf } from '../inspectionRun/sight.ts';

const SEVERITY_TONE: Record<Severity, Tone> = { error: 'error', warning: 'warning', info: 'info' };

const HEADLINES: readonly (readonly [RegExp, string])[] = [
  [/^memory\.pod-over-limit-in-reality$/, 'A pod is over its memory limit in reality'],
  [/^memory\.pod-headroom-low$/, 'A pod is close to its memory limit once GTT is counted'],
  [/^memory\.pod-gtt$/, 'A pod holds GPU memory its cgroup does not count'],
  [/^memory\.unaccounted-node$/, 'GPU memory that no cgroup counts'],
  [/^memory\.kernel-allocations$/, 'The kernel holds RAM that no pod shows'],
  [/^memory\.overcommit$/, 'Memory overcommit'],
  [/^oom\.global-gtt$/, 'A pod was killed by a global OOM (GTT signature)'],
  [/^oom\.global$/, 'A global OOM kill'],
  [/^oom\.memcg$/, 'A memory-cgroup OOM kill'],
  [/^oom\.unclassified$/, 'An OOM kill'],
  [/^hami\.bypassed$/, 'HAMi does not enforce the GPU memory quota'],
  [/^hami\.unknown$/, 'HAMi enforcement could not be confirmed'],
  [/^hami\.quota-exceeded$/, 'A HAMi pod holds more GPU memory than its quota'],
  [/^hami\.quota-held$/, 'HAMi quotas hold on this node'],
  [/^hami\.quota-unknown$/, 'HAMi quotas could not be checked from the node'],
  [/^hami\./, 'A HAMi enforcement check failed'],
  [/^kernel\./, 'Kernel and driver'],
];

/** The docs page and anchor of a verdict id (with or without its `:<line>` suffix); undefined when unknown. */
export function verdictDocs(id: string): { readonly file: string; readonly anchor: string } | undefined {
  const base = docsIdOf(id);
  if (/^(memory|kernel|oom)\.[a-z0-9.-]+$/.test(base)) return { file: 'docs/probes.md', anchor: 'node-verdicts' };
  if (/^hami\.quota-[a-z]+$/.test(base)) return { file: 'docs/probes.md', anchor: 'node-verdicts-hami-quotas' };
  if (/^hami\.[a-z0-9.-]+$/.test(base)) return { file: 'docs/probes.md', anchor: 'container-verdicts-hami' };
  return undefined;
}

/** `oom.global-gtt:12` → `oom.global-gtt`. */
export function docsIdOf(id: string): string {
  const colon = id.indexOf(':');
  return colon < 0 ? id : id.slice(0, colon);
}

/**
 * The worst finding, after what the probe could not read: "No problems found" only when it read what the verdicts need;
 * a capture cut short is an error whatever its verdicts.
 */
export function buildBanner(verdicts: readonly Verdict[], sight: Sight = { kind: 'whole' }): Banner {
  const counts = { error: 0, warning: 0, info: 0 };
  for (const verdict of verdicts) counts[verdict.severity]++;
  const unread = unreadOf(sight).map((input) => ({
    input: input.input,
    why: input.why,
    unknown: unknownVerdictsText(input),
    remedy: input.remedy,
  }));
  const worst = verdicts[0];
  const seen = { counts, more: Math.max(0, verdicts.length - 1), unread };
  if (sight.kind === 'cut-short') {
    return {
      tone: 'error',
      headline: 'The capture is cut short',
      sentence: noVerdictLine(sight),
      remedy: unread[0]?.remedy ?? '',
      docsId: null,
      ...seen,
    };
  }
  if (!worst || (worst.severity === 'info' && sight.kind !== 'whole')) {
    const blind = sight.kind === 'partial';
    return {
      tone: blind ? 'warning' : 'ok',
      headline: blind ? 'Not everything could be read' : sight.kind === 'nothing-to-judge' ? 'No GPU and no pods' : 'No problems found',
      sentence:
        sight.kind === 'whole' ? 'Nothing in this capture calls for action: every check passed or is informational.' : noVerdictLine(sight),
      remedy: blind ? (unread[0]?.remedy ?? '') : '',
      docsId: null,
      ...seen,
    };
  }
  const docsId = docsIdOf(worst.id);
  const headline =
    HEADLINES.find(([pattern]) => pattern.test(docsId))?.[1] ??
    (worst.severity === 'error' ? 'Error' : worst.severity === 'warning' ? 'Warning' : 'Note');
  return {
    tone: SEVERITY_TONE[worst.severity],
    headline,
    sentence: oneSentence(worst.title),
    remedy: worst.remedy,
    docsId,
    counts,
    more: verdicts.length - 1,
    unread,
  };
}

/** Titles are one sentence already; make sure of the final stop and of one line. */
function oneSentence(text: string): string {
  const flat = oneLine(text);
  return /[.!?]$/.test(flat) ? flat : `${flat}.`;
}

export function verdictRows(verdicts: readonly Verdict[]): VerdictRow[] {
  return verdicts.map((verdict) => ({
    id: verdict.id,
    docsId: docsIdOf(verdict.id),
    severity: verdict.severity,
    title: verdict.title,
    explanation: explanationBeyondTitle(verdict.title, verdict.explanation),
    remedy: verdict.remedy,
    evidence: verdict.evidence.slice(0, MAX_EVIDENCE),
  }));
}

/** Whether the target already names the host as a whole word ("node/strix-node-1", "root@gpu-node-1:22"). */
function namesHost(target: string, host: string): boolean {
  const boundary = (c: string | undefined): boolean => c === undefined || !/[A-Za-z0-9.-]/.test(c);
  for (let at = target.indexOf(host); at >= 0; at = target.indexOf(host, at + 1)) {
    if (boundary(target[at - 1]) && boundary(target[at + host.length])) return true;
  }
  return false;
}

export function buildHeader(inspection: Inspection): Header {
  const facts: Fact[] = [];
  const model = inspection.node?.model;
  if (model) {
    facts.push(
      { label: 'Host', value: model.hostname ?? '?' },
      { label: 'Kernel', value: model.kernel ?? '?' },
      { label: 'OS', value: model.os ?? '?' },
      { label: 'cgroup', value: model.cgroupMode },
    );
    facts.push({ label: 'GPUs', value: inspection.node?.accounting.gpuSummary ?? '?' });
  }
  const container = inspection.container;
  if (container) {
    if (container.meta.hostname !== undefined) facts.push({ label: 'Host', value: container.meta.hostname });
    if (container.kernel !== undefined) facts.push({ label: 'Kernel', value: container.kernel });
    const cgroup = container.cgroup;
    if (cgroup)
      facts.push({
        label: 'cgroup memory',
        value: `${bytesCell(cgroup.currentBytes).text} of ${cgroup.max?.kind === 'max' ? 'no limit' : bytesCell(cgroup.max?.kind === 'bytes' ? cgroup.max.bytes : undefined).text} (${cgroup.version})`,
      });
    if (container.processes !== undefined) facts.push({ label: 'Processes', value: String(container.processes.length) });
  }
  const scope = inspection.scope ?? 'unknown';
  const host = model?.hostname;
  return {
    title: `gpumem inspection: ${inspection.target}${host && !namesHost(inspection.target, host) ? ` (${host})` : ''}`,
    target: inspection.target,
    scope,
    facts,
    complete: inspection.capture.complete,
    problems: inspection.problems,
  };
}
