// A manifest judged against what its workloads really did in a cluster (a LiveSnapshot): a live CodeLens per
// container and three findings beside the static ones. The static lint judges what a manifest declares; these say
// whether that is enough for what the pods used, why they were killed, and where the file and the cluster differ.
// Every figure says its source and age. Pure.
import type { ContainerSummary } from '../analysis/containerSummary.ts';
import type { RuleSetting } from '../config.ts';
import { settleFindings } from '../findingSettings.ts';
import type { Finding, FixOnRequest, QuickFix, Span, TextEdit } from '../findings.ts';
import { classifyGpuResource } from '../gpuResources.ts';
import { asArray, asString, path, stringMap } from '../kube/json.ts';
import { isHamiEnvName } from '../manifest/hamiEnv.ts';
import { parseQuantity } from '../quantity.ts';
import type { WorkloadChange } from '../rightsizing/changes.ts';
import { describeKills, totalKills } from '../rightsizing/kills.ts';
import { editManifest } from '../rightsizing/manifestEdit.ts';
import { atPath, templateSlot } from '../rightsizing/podTemplates.ts';
import { changesOf } from '../rightsizing/rows.ts';
import type { RecommendationRow } from '../rightsizing/rows.ts';
import { formatBytes, withHeadroom } from '../sizing.ts';
import { suppressesRule } from '../suppression.ts';
import type { LiveSnapshot, LiveWorkload } from './liveSnapshot.ts';
import { ageText, liveKey } from './liveSnapshot.ts';
import { LIVE_RULES } from './liveRuleIds.ts';

/** A snapshot older than this is stale: its lens and messages say so (the figures are kept, not dropped). */
export const DEFAULT_STALE_AFTER_MS = 15 * 60 * 1000;

export interface LiveOptions {
  readonly headroomPercent: number;
  /** The user's per-rule settings (--config's or gpumem.lint.rules), applied as they are to the static findings. */
  readonly rules: Readonly<Record<string, RuleSetting>>;
  readonly nowMs: number;
  /** The manifest's text as linted: its `# gpumem-ignore` comments apply to the live findings. */
  readonly text: string;
  readonly staleAfterMs?: number;
  /** A comment the quick fix writes above its first changed line (where the numbers came from); none when undefined. */
  readonly fixComment?: string;
}

export interface LiveLens {
  readonly span: Span;
  readonly container: string;
  readonly title: string;
}

export interface LiveJudgement {
  readonly findings: readonly Finding[];
  readonly lenses: readonly LiveLens[];
  /** Containers of the file whose workload the snapshot holds, and those it does not. */
  readonly matched: number;
  readonly unmatched: number;
}

/**
 * The live lens and findings of each container the snapshot holds. The findings go through the user's settings as the
 * static ones do: the pod template's `ignore-check.gpumem.io/<id>` and `gpumem.io/ignore-all` annotations, the
 * per-rule settings and the file's `# gpumem-ignore` comments (findingSettings.ts).
 */
export function judgeLive(summaries: readonly ContainerSummary[], snapshot: LiveSnapshot, options: LiveOptions): LiveJudgement {
  const raw: Finding[] = [];
  const add = (one: Finding | undefined): void => {
    if (one) raw.push(one);
  };
  const lenses: LiveLens[] = [];
  const fixes = new Map<string, FixOnRequest | undefined>();
  let matched = 0;
  let unmatched = 0;
  const age = options.nowMs - snapshot.fetchedAtMs;
  const stale = age > (options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS);
  const provenance = `${snapshot.source}, ${snapshot.window}, read ${ageText(age)} ago${stale ? ', stale' : ''}`;
  for (const summary of summaries) {
    const { object } = summary;
    if (!object.name) continue;
    const key = liveKey(object.kind, object.namespace ?? snapshot.defaultNamespace, object.name, object.apiVersion);
    const workload = snapshot.workloads.get(key);
    if (!workload) {
      unmatched++;
      continue;
    }
    matched++;
    // A multi-template workload (a RayCluster's groups) is judged per template: the row, the pods and the fix of the
    // template the container is in.
    const row = workload.rows.find((candidate) => candidate.container === summary.container && candidate.template === summary.role);
    const where = { span: summary.span, object, container: summary.container, suppression: summary.suppression };
    const fixKey = `${key}\u0000${summary.role ?? ''}`;
    if (!fixes.has(fixKey)) fixes.set(fixKey, onRequest(liveFixOf(workload, summary.role, options.fixComment)));
    const fix = fixes.get(fixKey);
    if (!row) {
      lenses.push({
        ...where,
        title: `live in ${snapshot.context}: no container ${summary.container}${roleText(summary.role)} in the live ${object.kind} (${provenance})`,
      });
      add(
        finding(
          where,
          LIVE_RULES.drift,
          'info',
          `The live ${object.kind} in ${snapshot.context} has no container ${summary.container}${roleText(summary.role)}: the file and the cluster differ. (${snapshot.context}, read ${ageText(age)} ago)`,
        ),
      );
      continue;
    }
    lenses.push({ ...where, title: lensTitle(snapshot, workload, row, summary, provenance) });
    const over = overLimit(row, summary, options.headroomPercent);
    if (over)
      add(
        finding(
          where,
          LIVE_RULES.footprintOverLimit,
          'warning',
          `In ${snapshot.context} its pods peaked at ${formatBytes(over.footprint)} true footprint (${footprintParts(row)}, at one sample); with ${options.headroomPercent} % headroom that is ${formatBytes(over.target)}, above this ${over.what} of ${over.text}. ${reasonOf(row)} (${provenance})`,
          fix,
        ),
      );
    const kills = totalKills(row.kills);
    if (kills > 0) {
      const gpu = row.kills.globalGpu > 0;
      add(
        finding(
          where,
          LIVE_RULES.oomKills,
          row.kills.memcg > 0 ? 'warning' : 'info',
          `${kills} OOM kill${kills === 1 ? '' : 's'} in ${snapshot.window} in ${snapshot.context}: ${describeKills(row.kills)}.${gpu ? ' Raising the memory limit would not have prevented the global ones: the node ran out of RAM while GPU memory no cgroup counts held it.' : ''} ${reasonOf(row)} (${provenance})`,
          fix,
        ),
      );
    }
    for (const difference of drift(workload, row, summary))
      add(finding(where, LIVE_RULES.drift, 'info', `${difference} (${snapshot.context}, read ${ageText(age)} ago)`));
  }
  return { findings: settleFindings(raw, options.rules, options.text), lenses, matched, unmatched };
}

/** The finding, unless the container's pod template annotations suppress its id. */
function finding(
  where: Pick<ContainerSummary, 'span' | 'object' | 'container' | 'suppression'>,
  ruleId: string,
  severity: Finding['severity'],
  message: string,
  fix?: FixOnRequest,
): Finding | undefined {
  if (suppressesRule(where.suppression, ruleId)) return undefined;
  return {
    ruleId,
    severity,
    message,
    span: where.span,
    object: where.object,
    container: where.container,
    fixes: [],
    ...(fix ? { fixOnRequest: fix } : {}),
  };
}

function bytesOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const parsed = parseQuantity(text);
  return parsed.ok && !parsed.quantity.negative ? parsed.quantity.value : undefined;
}

/** The peak true footprint with headroom against the limit (the request on a unified-memory node, where the scheduler
 *  must reserve it), when it is above. */
function overLimit(
  row: RecommendationRow,
  summary: ContainerSummary,
  headroomPercent: number,
): { footprint: number; target: number; what: string; text: string } | undefined {
  const footprint = row.observed.trueFootprintPeak?.bytes;
  if (footprint === undefined) return undefined;
  const target = withHeadroom(footprint, headroomPercent);
  const unified = summary.unifiedMemory || (row.observed.gpuInRamPeak?.bytes ?? 0) > 0;
  const request = bytesOf(summary.memoryRequest);
  const limit = bytesOf(summary.limit);
  const [what, text, bytes] =
    unified && request !== undefined
      ? (['memory request', summary.memoryRequest, request] as const)
      : (['memory limit', summary.limit, limit] as const);
  if (bytes === undefined || text === undefined || target <= bytes) return undefined;
  return { footprint, target, what, text };
}

function footprintParts(row: RecommendationRow): string {
  const cgroup = row.observed.cgroupPeak?.bytes;
  const gpu = row.observed.gpuInRamPeak?.bytes;
  return `cgroup ${cgroup === undefined ? '?' : formatBytes(cgroup)} + GPU memory in RAM ${gpu === undefined ? '0' : formatBytes(gpu)}`;
}

function reasonOf(row: RecommendationRow): string {
  const recommendation = row.recommendation;
  if (recommendation.kind === 'sized')
    return `Recommended: memory ${recommendation.memory.text} (request = limit): ${recommendation.reason}.`;
  return `No recommendation: ${recommendation.reason}.`;
}

function lensTitle(
  snapshot: LiveSnapshot,
  workload: LiveWorkload,
  row: RecommendationRow,
  summary: ContainerSummary,
  provenance: string,
): string {
  const pods = row.template === undefined ? workload.pods.total : workload.podLines.filter((pod) => pod.template === row.template).length;
  const parts = [`live in ${snapshot.context}: ${pods} pod${pods === 1 ? '' : 's'}`];
  const footprint = row.observed.trueFootprintPeak?.bytes;
  if (footprint !== undefined)
    parts.push(`peak true footprint ${formatBytes(footprint)} (${footprintParts(row)}) vs limit ${summary.limit ?? 'none'}`);
  else parts.push('no usage figures');
  const kills = totalKills(row.kills);
  if (kills > 0) {
    const why =
      row.kills.globalGpu > 0
        ? ' — raising the limit would not have prevented the global ones'
        : row.kills.memcg > 0
          ? ' — the limit was hit'
          : '';
    parts.push(`${kills} OOM kill${kills === 1 ? '' : 's'} in ${snapshot.window}: ${describeKills(row.kills)}${why}`);
  }
  return `${parts.join(' · ')} (${provenance})`;
}

/** Where the file and the live object differ for one container: memory request and limit, GPU resources, HAMi variables. */
function drift(workload: LiveWorkload, row: RecommendationRow, summary: ContainerSummary): string[] {
  const out: string[] = [];
  const compare = (what: string, live: { text: string; bytes: number } | undefined, fileText: string | undefined) => {
    const fileBytes = bytesOf(fileText);
    if (fileText === '{{…}}') return; // a template's value: the rendered file would say
    if (live?.bytes === fileBytes) return;
    out.push(`The cluster runs ${what} ${live?.text ?? '(none)'}, this file says ${fileText ?? '(none)'}.`);
  };
  compare('memory request', row.current.request, summary.memoryRequest);
  if (summary.limitScope === 'container') compare('memory limit', row.current.limit, summary.limit);
  const live = liveGpuResources(workload.object, row.template, summary.container);
  const declared = new Map(summary.gpuResources.filter((one) => !one.name.startsWith('annotation ')).map((one) => [one.name, one.value]));
  for (const name of new Set([...live.keys(), ...declared.keys()]).values()) {
    const liveValue = live.get(name);
    const fileValue = declared.get(name);
    if (fileValue === '{{…}}' || liveValue === fileValue) continue;
    out.push(`The cluster runs ${name} ${liveValue ?? '(none)'}, this file says ${fileValue ?? '(none)'}.`);
  }
  const liveEnv = liveHamiEnv(workload.object, row.template, summary.container);
  for (const name of [...new Set([...liveEnv.keys(), ...summary.hamiEnv.keys()])].sort()) {
    const liveValue = liveEnv.get(name);
    const fileValue = summary.hamiEnv.get(name);
    if (fileValue === '{{…}}' || liveValue === fileValue) continue;
    out.push(
      liveValue === undefined
        ? `The cluster runs without ${name}, this file sets ${name}=${fileValue ?? ''}.`
        : fileValue === undefined
          ? `The cluster runs ${name}=${liveValue}, this file does not set it.`
          : `The cluster runs ${name}=${liveValue}, this file says ${name}=${fileValue}.`,
    );
  }
  return out;
}

/** The live container's HAMi variables (isHamiEnvName) as its template sets them; `(valueFrom)` for a reference. */
function liveHamiEnv(object: unknown, template: string | undefined, container: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of asArray(path(liveContainer(object, template, container), 'env'))) {
    const name = asString(path(entry, 'name'));
    if (name === undefined || !isHamiEnvName(name)) continue;
    out.set(name, path(entry, 'valueFrom') !== undefined ? '(valueFrom)' : (asString(path(entry, 'value')) ?? ''));
  }
  return out;
}

function liveContainer(object: unknown, template: string | undefined, container: string): unknown {
  const slot = templateSlot(object, template);
  if (!slot) return undefined;
  return asArray(path(atPath(object, slot.path), 'spec', 'containers')).find((one) => asString(path(one, 'name')) === container);
}

/** The live container's GPU resources (limits, else requests), as the API returned them. */
function liveGpuResources(object: unknown, template: string | undefined, container: string): Map<string, string> {
  const out = new Map<string, string>();
  const spec = liveContainer(object, template, container);
  for (const block of ['requests', 'limits'])
    for (const [name, value] of stringMap(path(spec, 'resources', block))) if (classifyGpuResource(name)) out.set(name, value);
  return out;
}

/**
 * Whether a workload's live findings offer "Set resources from what the pods used", as data: the recommendation's
 * change and the comment to write with it. Judging only decides this; the edit is built when a code action or a report
 * asks (buildLiveFix), because it parses the file.
 */
type LiveFix =
  { readonly kind: 'none' } | { readonly kind: 'set-resources'; readonly change: WorkloadChange; readonly comment: string | undefined };

const SET_RESOURCES_TITLE = 'Set resources from what the pods used';

function liveFixOf(workload: LiveWorkload, template: string | undefined, comment: string | undefined): LiveFix {
  // The change of the template the container is in (a RayCluster's worker group), never another template's.
  const change = changesOf(workload.rows).find((one) => one.template === template);
  return change ? { kind: 'set-resources', change, comment } : { kind: 'none' };
}

/** The fix's one text edit on `text`; undefined when there is none to offer or the text already says it. */
function buildLiveFix(text: string, fix: LiveFix): QuickFix | undefined {
  if (fix.kind === 'none') return undefined;
  const outcome = editManifest(text, fix.change);
  if (!outcome.found || outcome.applied.length === 0) return undefined;
  const after = fix.comment === undefined ? outcome.text : withCommentAboveFirstChange(text, outcome.text, fix.comment);
  return { title: SET_RESOURCES_TITLE, edits: [minimalEdit(text, after)] };
}

/** The fix offered on request, shared by the workload's findings: built once per text. */
function onRequest(fix: LiveFix): FixOnRequest | undefined {
  if (fix.kind === 'none') return undefined;
  let last: { readonly text: string; readonly fix: QuickFix | undefined } | undefined;
  return {
    title: SET_RESOURCES_TITLE,
    build: (text) => {
      if (last?.text !== text) last = { text, fix: buildLiveFix(text, fix) };
      return last.fix;
    },
  };
}

function roleText(role: string | undefined): string {
  return role === undefined ? '' : ` [${role}]`;
}

/** `after` with `# comment` on its own line above the first line where it differs from `before`, at that line's indent. */
function withCommentAboveFirstChange(before: string, after: string, comment: string): string {
  const { start } = minimalEdit(before, after);
  const lineStart = after.lastIndexOf('\n', start - 1) + 1;
  let indentEnd = lineStart;
  while (after[indentEnd] === ' ' || after[indentEnd] === '\t') indentEnd++;
  const eol = before.includes('\r\n') ? '\r\n' : '\n';
  return `${after.slice(0, lineStart)}${after.slice(lineStart, indentEnd)}# ${comment}${eol}${after.slice(lineStart)}`;
}

/** The one edit that turns `before` into `after`: their common prefix and suffix kept. */
export function minimalEdit(before: string, after: string): TextEdit {
  let start = 0;
  const shorter = Math.min(before.length, after.length);
  while (start < shorter && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let end = 0;
  while (end < shorter - start && before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)) end++;
  return { start, end: before.length - end, newText: after.slice(start, after.length - end) };
}
