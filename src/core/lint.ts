// The linter's entry point: text in, findings and container summaries out. Pure and synchronous,
// so the editor, the CLI and the benchmarks all run exactly the same code.
import { isSeq } from 'yaml';
import type { Document, Node } from 'yaml';
import type { ContainerSummary } from './analysis/containerSummary.ts';
import { summarizeContainer } from './analysis/containerSummary.ts';
import { DEFAULT_CONFIG } from './config.ts';
import type { LintConfig } from './config.ts';
import type { Finding, ObjectRef } from './findings.ts';
import { internalErrorFinding } from './internalError.ts';
import { judgeOperations } from './kustomizeJsonPatch.ts';
import { PatchJudge, patchNote } from './kustomizePatch.ts';
import { LineIndex } from './lineIndex.ts';
import { budgetFinding, documentCapFinding, isUnanalysedNotice, ShapeReadKinds, skippedFinding, templateNotice } from './lintNotices.ts';
import { lintBudgets, LINT_UNITS_PER_CHAR, lintWorkload, MessageBudgetExceeded, workBudgetFor } from './lintWorkload.ts';
import type { PendingSummary } from './lintWorkload.ts';
import { ClaimIndex, chainLookups } from './manifest/draClaims.ts';
import type { ClaimLookup } from './manifest/draClaims.ts';
import { tooManyEmptyFlowEntries, EMPTY_FLOW_ENTRY_LIMIT } from './manifest/flowScreen.ts';
import { screenDocuments } from './manifest/documentScreen.ts';
import { findDuplicateKeys, parseLikeKubectl, parseSlicesLikeKubectl, syntaxFinding } from './manifest/kubectlYaml.ts';
import { looksLikeKubernetes } from './manifest/kubernetesShape.ts';
import type { KustomizePatchRole } from './manifest/kustomization.ts';
import { inlinePatches, isKustomizationKind } from './manifest/kustomizeInline.ts';
import { collectObjects, helmSourceOf } from './manifest/manifestObjects.ts';
import type { WorkloadDoc } from './manifest/manifestObjects.ts';
import type { LimitRangeDefault } from './manifest/limitRange.ts';
import { truncate } from './manifest/podModel.ts';
import { decodeManifestBytes, maskHelmTemplates } from './manifest/source.ts';
import { TemplateRelevance } from './manifest/templateRelevance.ts';
import { AliasBudgetExceeded, spanOf, YamlTree } from './manifest/yamlTree.ts';
import type { ConfigMapModel, FileContext } from './rules/types.ts';
import { settleFindings } from './findingSettings.ts';
import { BudgetExhausted } from './workBudget.ts';

export interface LintResult {
  readonly findings: readonly Finding[];
  readonly containers: readonly ContainerSummary[];
  /**
   * What was not analysed (skipped files and documents, budgets, internal errors), whatever the settings and
   * suppressions do to the findings: a run that did not read all its input must not pass as clean.
   */
  readonly unanalysed: readonly Finding[];
}

/** What a lint sees beyond its own file: the DRA claims of the other files linted with it (workspace, CLI). */
export interface LintScope {
  readonly claims?: ClaimLookup;
  /** The size limit: documents past it are not parsed (default: the CLI's default `--max-file-size`). */
  readonly maxChars?: number;
  /** Set when a kustomization lists this file as a patch: it is judged only for what it sets (kustomizePatch.ts). */
  readonly kustomizePatch?: KustomizePatchRole;
}

export function lintBytes(bytes: Uint8Array, config: LintConfig, maxBytes: number, scope: LintScope = {}): LintResult {
  const decoded = decodeManifestBytes(bytes, maxBytes);
  if (decoded.kind === 'skipped') {
    const skipped = skippedFinding(`Skipped: ${decoded.reason}.`);
    return { findings: [skipped], containers: [], unanalysed: [skipped] };
  }
  return lintText(decoded.text, config, { maxChars: maxBytes, ...scope });
}

export function lintText(text: string, config: LintConfig = DEFAULT_CONFIG, scope: LintScope = {}): LintResult {
  const raw: Finding[] = [];
  const containers: PendingSummary[] = [];
  const masked = maskHelmTemplates(text);
  const source = masked?.text ?? text;
  // Not parsed at all: the parser's cost per empty entry is the slow part (bench/budget.mjs).
  const flooded = tooManyEmptyFlowEntries(source);
  if (flooded)
    raw.push(
      budgetFinding(
        `Analysis stopped at budget: the file has more than ${EMPTY_FLOW_ENTRY_LIMIT} empty flow-collection entries (\`[,,,…]\`), which YAML forbids; it was not parsed.`,
      ),
    );

  const lines = new LineIndex(text);
  const screen = flooded ? ({ kind: 'whole' } as const) : screenDocuments(source, scope.maxChars);
  if (screen.kind === 'partial') raw.push(documentCapFinding(screen.skipped, lines));

  let documents: Document.Parsed[];
  try {
    if (flooded) documents = [];
    else if (screen.kind === 'whole') documents = parseLikeKubectl(source);
    else documents = screen.parse ? parseSlicesLikeKubectl(source, [screen.parse]) : [];
  } catch (error) {
    const skipped = skippedFinding(`Skipped: the YAML parser failed (${(error as Error).message}).`);
    return { findings: [skipped], containers: [], unanalysed: [skipped] };
  }

  const patchRole = scope.kustomizePatch;
  if (patchRole && isJsonPatch(patchRole, documents)) {
    // Operations, not an object: no YAML or Kubernetes finding applies to it as if it were one; the values its
    // operations write are judged (kustomizeJsonPatch.ts).
    const operations = judgeOperations(documents, source, patchRole, config, lintText);
    const note = patchNote(patchRole, 'json6902', { start: 0, end: Math.min(1, text.length) }, operations);
    const findings = settleFindings([note, ...operations.findings], config.rules, text, lines);
    findings.sort((a, b) => a.span.start - b.span.start || a.span.end - b.span.end || a.ruleId.localeCompare(b.ruleId));
    return { findings, containers: [], unanalysed: [] };
  }
  const patch = patchRole ? new PatchJudge(patchRole) : undefined;

  const workloads: WorkloadDoc[] = [];
  const configMaps: ConfigMapModel[] = [];
  const localClaims = new ClaimIndex();
  const limitRanges: LimitRangeDefault[] = [];
  let unparsedTemplates = 0;
  for (const doc of documents) {
    if (doc.errors.length === 0) for (const error of findDuplicateKeys(doc)) doc.errors.push(error);
    if (doc.errors.length > 0) {
      if (masked) unparsedTemplates++;
      else if (looksLikeKubernetes(source, doc.range[0], Math.max(doc.range[2], doc.range[1]))) raw.push(syntaxFinding(doc, text.length));
      continue;
    }
    const tree = new YamlTree(doc, Math.max(100_000, (doc.range[2] - doc.range[0]) * 10));
    try {
      const root = tree.root;
      if (root) collectObjects(tree, root, helmSourceOf(doc), { workloads, configMaps, claims: localClaims, limitRanges }, 0);
      if (root && !scope.kustomizePatch) for (const finding of lintInlinePatches(tree, root, source, config, scope)) raw.push(finding);
    } catch (error) {
      if (!(error instanceof AliasBudgetExceeded)) throw error;
      raw.push(
        skippedFinding('Skipped a document: its aliases and merge keys expand beyond the analysis budget (a YAML alias bomb?).', {
          start: doc.range[0],
          end: Math.min(doc.range[1], doc.range[0] + 1),
        }),
      );
    }
  }

  const file: FileContext = {
    text,
    configMaps,
    claims: chainLookups(localClaims, scope.claims),
    limitRanges,
    ...(masked ? { templateLanguage: masked.language, templateActions: masked.actionOffsets } : {}),
  };
  const { messages } = lintBudgets(text.length);
  const templates = masked ? new TemplateRelevance() : undefined;
  const shapeRead = new ShapeReadKinds();
  for (const workload of workloads) {
    const what = `${truncate(workload.object.kind, 80)} "${truncate(workload.object.name ?? '?', 80)}"`;
    const span = spanOf(workload.root);
    const start = span?.start ?? 0;
    try {
      // Each workload (each item of a List, each document) has its own work budget, sized from its own text,
      // so one pathological workload is skipped alone and never starves the ones after it.
      const read = lintWorkload(
        workload,
        file,
        config,
        raw,
        containers,
        messages,
        workBudgetFor(span ? span.end - span.start : 0),
        templates,
        patch,
      );
      if (read.kind === 'shape' && read.gpuPods > 0) shapeRead.note(workload.object, read.roles, start);
    } catch (error) {
      if (error instanceof AliasBudgetExceeded) {
        raw.push(
          skippedFinding(`Skipped ${what}: its aliases and merge keys expand beyond the analysis budget (a YAML alias bomb?).`, {
            start,
            end: start + 1,
          }),
        );
      } else if (error instanceof MessageBudgetExceeded) {
        raw.push(
          skippedFinding(
            `Skipped ${what}: its findings would be out of all proportion to the file's size (long values repeated through aliases or across many containers?).`,
            { start, end: start + 1 },
          ),
        );
      } else if (error instanceof BudgetExhausted) {
        raw.push(
          budgetFinding(
            `Analysis stopped at budget at ${what}: checking its containers would cost more than ${LINT_UNITS_PER_CHAR} steps per character of its YAML (containers multiplied through anchors?); it was not analysed, the other workloads were.`,
            { start, end: start + 1 },
          ),
        );
      } else raw.push(internalErrorFinding({ kind: 'workload', object: workload.object }, error, { start, end: start + 1 }));
    }
  }

  for (const finding of shapeRead.findings()) raw.push(finding);
  const firstStart = workloads[0] ? (spanOf(workloads[0].root)?.start ?? 0) : 0;
  const note = patch?.note({ start: firstStart, end: firstStart + 1 });
  if (note) raw.push(note);
  // The notice only where masking hid something a rule judges, or a document could not be read even masked.
  // It sits on the first action that hides something, not on the file's first action (often a chart's `{{- if }}`).
  const hiding = masked ? templates?.firstCovered(masked.actionOffsets) : undefined;
  if (masked && (unparsedTemplates > 0 || hiding !== undefined)) raw.push(templateNotice(masked, unparsedTemplates, text, hiding));

  const findings = settleFindings(raw, config.rules, text, lines);
  findings.sort((a, b) => a.span.start - b.span.start || a.span.end - b.span.end || a.ruleId.localeCompare(b.ruleId));
  // Grouped once: filtering every finding per container is quadratic on pods with thousands of containers.
  const byContainer = new Map<ObjectRef, Map<string, Finding[]>>();
  for (const finding of findings) {
    if (!finding.object || finding.container === undefined) continue;
    let perObject = byContainer.get(finding.object);
    if (!perObject) byContainer.set(finding.object, (perObject = new Map()));
    const list = perObject.get(finding.container);
    if (list) list.push(finding);
    else perObject.set(finding.container, [finding]);
  }
  const summaries = containers.map(({ object, container, budget, unified, sources, suppression, role }) => {
    const summary = summarizeContainer(
      object,
      container,
      budget,
      unified,
      config.headroomPercent,
      byContainer.get(object)?.get(container.name) ?? [],
      sources,
      suppression,
    );
    return role === undefined ? summary : { ...summary, role };
  });
  return { findings, containers: summaries, unanalysed: raw.filter(isUnanalysedNotice) };
}

/**
 * The inline patches of a kustomization, each linted as a patch (judged for what it sets) and its findings placed in
 * the kustomization's text. Their quick fixes are dropped: their edits are offsets in the patch's own text.
 */
function lintInlinePatches(tree: YamlTree, root: Node, source: string, config: LintConfig, scope: LintScope): Finding[] {
  const kind = tree.text(tree.get(root, 'kind'));
  if (kind === undefined || !isKustomizationKind(kind, tree.text(tree.get(root, 'apiVersion')))) return [];
  const out: Finding[] = [];
  for (const patch of inlinePatches(tree, root, source)) {
    const role: KustomizePatchRole = {
      kustomization: 'this kustomization',
      field: patch.field,
      inline: true,
      ...(patch.target ? { target: patch.target } : {}),
    };
    const inner = lintText(patch.text, config, { ...scope, kustomizePatch: role });
    for (const finding of inner.findings)
      out.push({ ...finding, span: { start: patch.toFile(finding.span.start), end: patch.toFile(finding.span.end) }, fixes: [] });
  }
  return out;
}

/** A file a kustomization lists under patchesJson6902, or under `patches` when it holds a list (of operations). */
function isJsonPatch(role: KustomizePatchRole, documents: readonly Document.Parsed[]): boolean {
  if (role.operation) return false;
  if (role.field === 'patchesJson6902') return true;
  if (role.field === 'patchesStrategicMerge') return false;
  const first = documents.find((doc) => doc.contents !== null);
  return first !== undefined && isSeq(first.contents);
}
