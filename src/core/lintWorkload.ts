// Linting one workload: every pod template it holds gets a pod model, and every pod rule runs on it under the
// file's work and finding-text budgets.
import { memoryBudget } from './analysis/memoryBudget.ts';
import type { MemoryBudget } from './analysis/memoryBudget.ts';
import { detectUnifiedMemory } from './analysis/unifiedMemory.ts';
import type { LintConfig } from './config.ts';
import type { Finding, ObjectRef } from './findings.ts';
import { isHamiFamily } from './gpuResources.ts';
import { internalErrorFinding } from './internalError.ts';
import type { PatchJudge } from './kustomizePatch.ts';
import { containerGpu, deviceClassSuffix, gpuClassSet, hasGpu } from './manifest/gpuSource.ts';
import type { ContainerGpu, GpuSource } from './manifest/gpuSource.ts';
import type { WorkloadDoc } from './manifest/manifestObjects.ts';
import { buildPodModel } from './manifest/podModel.ts';
import type { ContainerModel, PodModel } from './manifest/podModel.ts';
import type { TemplateRelevance } from './manifest/templateRelevance.ts';
import { findPodTemplatesByShape } from './manifest/shapeTemplates.ts';
import { findPodTemplates, workloadEntry } from './manifest/workloads.ts';
import { AliasBudgetExceeded, spanOf } from './manifest/yamlTree.ts';
import { ruleMeta } from './rules/catalog.ts';
import { POD_RULES } from './rules/ruleOrder.ts';
import type { FileContext, PodContext, Report } from './rules/types.ts';
import { annotationSuppression, suppressesRule } from './suppression.ts';
import type { AnnotationSuppression } from './suppression.ts';
import { BudgetExhausted, unitsFor, WorkBudget } from './workBudget.ts';

const HAMI_POD_ANNOTATIONS = /^(hami\.io\/|nvidia\.com\/(use-gputype|nouse-gputype|use-gpuuuid|nouse-gpuuuid|vgpu-mode|numa-bind))/;

/**
 * Caps the total length of finding messages per file. A message quotes names and values from the
 * manifest, so one long value shared by thousands of containers (through an alias, a merge key or a
 * pod-level field) would otherwise multiply into gigabytes. `.length` is O(1) even on the concatenated
 * strings the rules build, so the check costs nothing until it trips.
 */
export class MessageBudgetExceeded extends BudgetExhausted {
  constructor() {
    super('finding text');
  }
}

const MESSAGE_BUDGET_FACTOR = 32;
const MESSAGE_BUDGET_MIN = 4_000_000;
const MESSAGE_BUDGET_MAX = 64_000_000;

/**
 * The lint's work budget: one unit per rule per container of each pod template. A container takes at least
 * ~10 characters of YAML (`- name: a`) and there are ~25 pod rules, so real files spend under 3 units per
 * character; 8 leaves room, and only containers multiplied without text (anchors reused across many pod
 * templates, within the alias budget) reach it. The floor keeps tiny files clear of it.
 */
export const LINT_UNITS_PER_CHAR = 8;
/** Room for a few thousand containers whatever the workload's text: a workload written through aliases is short. */
const LINT_UNITS_MIN = 100_000;

/** A file's budget of finding text, sized from its length. */
export function lintBudgets(textLength: number): { readonly messages: WorkBudget } {
  return {
    messages: new WorkBudget(
      unitsFor(textLength, MESSAGE_BUDGET_FACTOR, MESSAGE_BUDGET_MIN, MESSAGE_BUDGET_MAX),
      'finding text',
      () => new MessageBudgetExceeded(),
    ),
  };
}

/** One workload's work budget (units per rule per container), sized from the length of its own YAML. */
export function workBudgetFor(workloadChars: number): WorkBudget {
  return new WorkBudget(unitsFor(workloadChars, LINT_UNITS_PER_CHAR, LINT_UNITS_MIN), 'lint');
}

export interface PendingSummary {
  readonly object: ObjectRef;
  readonly container: ContainerModel;
  readonly budget: MemoryBudget;
  readonly unified: boolean;
  readonly sources: readonly GpuSource[];
  readonly suppression: AnnotationSuppression;
  /** Which template of a multi-template kind (workloads.ts roleName); undefined for a kind with one. */
  readonly role: string | undefined;
}

/** How a workload's pods were found: by the kind table, or by their shape (and whether any of those runs a GPU). */
export type WorkloadRead =
  | { readonly kind: 'table' }
  | { readonly kind: 'shape'; readonly roles: readonly string[]; readonly gpuPods: number }
  | { readonly kind: 'none' };

export function lintWorkload(
  workload: WorkloadDoc,
  file: FileContext,
  config: LintConfig,
  out: Finding[],
  summaries: PendingSummary[],
  messages: WorkBudget,
  work: WorkBudget,
  templates?: TemplateRelevance,
  patch?: PatchJudge,
): WorkloadRead {
  const { tree, root, object } = workload;
  const gpuClasses = gpuClassSet(config.gpuDeviceClasses);
  const entry = workloadEntry(object.kind, object.apiVersion);
  // The kind table's paths first; where they find nothing (a kind it does not know, an older API version that keeps
  // its templates elsewhere), the pod specs the object holds by their shape.
  const tabled = entry ? findPodTemplates(tree, root, entry) : [];
  const byShape = tabled.length === 0;
  const found = byShape ? findPodTemplatesByShape(tree, root) : tabled;
  let gpuPods = 0;
  for (const { template, role, shape } of found) {
    // Each pod template gets its own object identity, so summaries of same-named containers in different
    // templates (KubeRay worker groups) count only their own findings.
    const pod = buildPodModel(tree, { ...object }, root, template, role, shape);
    work.spend(pod.containers.length * POD_RULES.length);
    const unifiedMemory = detectUnifiedMemory(pod, config.unifiedMemoryNodeLabels);
    const unified = unifiedMemory.kind === 'unified';
    const gpuByContainer = new Map<ContainerModel, ContainerGpu>();
    for (const container of pod.containers) gpuByContainer.set(container, containerGpu(pod, container, file.claims, gpuClasses));
    const gpuOf = (container: ContainerModel): ContainerGpu => gpuByContainer.get(container) ?? { sources: [], unresolved: [] };
    const gpuContainers = pod.containers.filter((container) => hasGpu(gpuOf(container)) && container.role !== 'ephemeral');
    if (gpuContainers.length > 0) gpuPods++;
    patch?.notePod(gpuContainers.length);
    // A patch's container may get its GPU from the base: every container is judged, then the patch judge keeps what
    // rests on the values the patch writes (kustomizePatch.ts).
    const judged = patch ? pod.containers.filter((container) => container.role !== 'ephemeral') : gpuContainers;
    templates?.addPod(pod, gpuContainers);
    const podIsHami = hasHamiSignals(pod);
    const suppression = annotationSuppression(pod.annotations);
    const budgets = new Map<ContainerModel, MemoryBudget>();
    const podFindings: Finding[] = [];
    const context: PodContext = {
      pod,
      file,
      config,
      unifiedMemory,
      gpuContainers: judged,
      gpuOf,
      isHami: (container) => {
        if (config.hamiDetection === 'never') return false;
        const family = container.gpu.some((use) => isHamiFamily(use.name));
        // HAMi's DRA driver enforces its claims with HAMi-core too.
        const hamiClaim = gpuOf(container).sources.some(
          (source) => source.kind === 'claim' && source.deviceClass !== undefined && source.deviceClass.startsWith('hami-core-gpu'),
        );
        if (config.hamiDetection === 'always') return family || hamiClaim;
        return container.gpu.some((use) => use.info.hamiOnly) || hamiClaim || (family && podIsHami);
      },
      budget: (container) => {
        let budget = budgets.get(container);
        if (!budget) {
          budget = memoryBudget(pod, container, unified, config.headroomPercent, gpuOf(container).sources);
          budgets.set(container, budget);
        }
        return budget;
      },
      report: (report) => {
        if (suppressesRule(suppression, report.ruleId)) return;
        const finding = toFinding(report, pod, report.container ? deviceClassSuffix(gpuOf(report.container)) : '');
        messages.spend(finding.message.length);
        podFindings.push(finding);
      },
    };
    const templateStart = spanOf(template)?.start ?? spanOf(root)?.start ?? 0;
    for (const rule of POD_RULES) {
      try {
        rule.check(context);
      } catch (error) {
        // Budgets stop the whole workload on purpose; anything else is one rule's failure on this template.
        if (error instanceof AliasBudgetExceeded || error instanceof MessageBudgetExceeded) throw error;
        podFindings.push(
          internalErrorFinding({ kind: 'rule', ruleId: rule.meta.id, object: pod.object }, error, {
            start: templateStart,
            end: templateStart + 1,
          }),
        );
      }
    }
    const gpuInPatch = patch ? new Map(judged.map((container) => [container.name, gpuContainers.includes(container)])) : undefined;
    // Not push(...): a spread of 100k+ findings overflows the stack.
    for (const finding of podFindings) {
      const kept = patch && gpuInPatch ? patch.judge(finding, gpuInPatch) : finding;
      if (kept) out.push(kept);
    }
    for (const container of gpuContainers)
      summaries.push({
        object: pod.object,
        container,
        budget: context.budget(container),
        unified,
        sources: gpuOf(container).sources,
        suppression,
        role: pod.role,
      });
  }
  if (found.length === 0) return { kind: 'none' };
  return byShape ? { kind: 'shape', roles: found.map((one) => one.role ?? 'spec'), gpuPods } : { kind: 'table' };
}

function hasHamiSignals(pod: PodModel): boolean {
  if (pod.schedulerName && /hami/i.test(pod.schedulerName.value)) return true;
  for (const key of pod.annotations.keys()) if (HAMI_POD_ANNOTATIONS.test(key)) return true;
  return false;
}

function toFinding(report: Report, pod: PodModel, evidence: string): Finding {
  const meta = ruleMeta(report.ruleId);
  const helm = pod.object.helmSource ? ` (rendered from ${pod.object.helmSource})` : '';
  const role = pod.role ? ` [${pod.role}]` : '';
  return {
    ruleId: report.ruleId,
    severity: report.severity ?? meta?.defaultSeverity ?? 'warning',
    message: `${report.message}${evidence}${role}${helm}`,
    span: report.span,
    object: pod.object,
    ...(report.container ? { container: report.container.name } : {}),
    fixes: report.fixes ?? [],
    ...(report.unseen ? { unseen: report.unseen } : {}),
  };
}
