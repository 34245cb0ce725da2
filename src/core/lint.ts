// The linter's entry point: text in, findings and container summaries out. Pure and synchronous,
// so the editor, the CLI and the benchmarks all run exactly the same code.
import { isMap, isScalar, isSeq, parseAllDocuments, YAMLParseError } from 'yaml';
import type { Document, Node, Tags } from 'yaml';
import { memoryBudget } from './analysis/memoryBudget.ts';
import type { MemoryBudget } from './analysis/memoryBudget.ts';
import { summarizeContainer } from './analysis/containerSummary.ts';
import type { ContainerSummary } from './analysis/containerSummary.ts';
import { detectUnifiedMemory } from './analysis/unifiedMemory.ts';
import { DEFAULT_CONFIG } from './config.ts';
import type { LintConfig } from './config.ts';
import type { Finding, ObjectRef, Span } from './findings.ts';
import { isHamiFamily } from './gpuResources.ts';
import { internalErrorFinding } from './internalError.ts';
import { LineIndex } from './lineIndex.ts';
import { ClaimIndex, chainLookups, isClaimKind, readClaimObject } from './manifest/draClaims.ts';
import type { ClaimLookup } from './manifest/draClaims.ts';
import { containerGpu, gpuClassSet, hasGpu } from './manifest/gpuSource.ts';
import type { ContainerGpu, GpuSource } from './manifest/gpuSource.ts';
import { buildPodModel, truncate } from './manifest/podModel.ts';
import type { ContainerModel, Located, PodModel } from './manifest/podModel.ts';
import { decodeManifestBytes, maskHelmTemplates } from './manifest/source.ts';
import type { MaskedTemplate } from './manifest/source.ts';
import { relaxForGoYaml } from './manifest/lenientYaml.ts';
import { findPodTemplates, workloadEntry } from './manifest/workloads.ts';
import { tooManyEmptyFlowEntries, EMPTY_FLOW_ENTRY_LIMIT } from './manifest/flowScreen.ts';
import { AliasBudgetExceeded, spanOf, YamlTree } from './manifest/yamlTree.ts';
import { ruleMeta } from './rules/catalog.ts';
import { POD_RULES } from './rules/ruleOrder.ts';
import type { ConfigMapModel, FileContext, PodContext, Report } from './rules/types.ts';
import { CommentSuppressions, suppressedByAnnotation } from './suppression.ts';
import { BudgetExhausted, unitsFor, WorkBudget } from './workBudget.ts';

export interface LintResult {
  readonly findings: readonly Finding[];
  readonly containers: readonly ContainerSummary[];
}

/**
 * YAML 1.1, as Kubernetes reads manifests (so `yes` is a boolean and `<<` merges). The parser's own
 * duplicate-key check compares each key with every earlier key of its mapping, which is quadratic (a
 * 40,000-key mapping took 30 s), so `findDuplicateKeys` does it in linear time instead. `!!omap` is left
 * unresolved (a plain list) for the same reason: its duplicate check is quadratic too, and manifests never use it.
 */
export const PARSE_OPTIONS = {
  version: '1.1',
  prettyErrors: false,
  keepSourceTokens: false,
  uniqueKeys: false,
  customTags: (tags: Tags) => tags.filter((tag) => (typeof tag === 'string' ? tag !== 'omap' : tag.tag !== 'tag:yaml.org,2002:omap')),
} as const;

const HAMI_POD_ANNOTATIONS = /^(hami\.io\/|nvidia\.com\/(use-gputype|nouse-gputype|use-gpuuuid|nouse-gpuuuid|vgpu-mode|numa-bind))/;
const MAX_LIST_DEPTH = 4;

interface WorkloadDoc {
  readonly tree: YamlTree;
  readonly root: Node;
  readonly object: ObjectRef;
}

/** What a lint sees beyond its own file: the DRA claims of the other files linted with it (workspace, CLI). */
export interface LintScope {
  readonly claims?: ClaimLookup;
}

export function lintBytes(bytes: Uint8Array, config: LintConfig, maxBytes: number, scope: LintScope = {}): LintResult {
  const decoded = decodeManifestBytes(bytes, maxBytes);
  if (decoded.kind === 'skipped') return { findings: [skippedFinding(`Skipped: ${decoded.reason}.`)], containers: [] };
  return lintText(decoded.text, config, scope);
}

export function lintText(text: string, config: LintConfig = DEFAULT_CONFIG, scope: LintScope = {}): LintResult {
  const raw: Finding[] = [];
  const containers: PendingSummary[] = [];
  const masked = maskHelmTemplates(text);
  const source = masked?.text ?? text;
  // Not parsed at all: the parser's cost per empty entry is the slow part (bench/budget.mjs).
  const flooded = tooManyEmptyFlowEntries(source);
  if (flooded) raw.push(budgetFinding(`Analysis stopped at budget: the file has more than ${EMPTY_FLOW_ENTRY_LIMIT} empty flow-collection entries (\`[,,,…]\`), which YAML forbids; it was not parsed.`));

  let documents: Document.Parsed[];
  try {
    documents = flooded ? [] : parseLikeKubectl(source);
  } catch (error) {
    return { findings: [skippedFinding(`Skipped: the YAML parser failed (${(error as Error).message}).`)], containers: [] };
  }

  const workloads: WorkloadDoc[] = [];
  const configMaps: ConfigMapModel[] = [];
  const localClaims = new ClaimIndex();
  let unparsedTemplates = 0;
  for (const doc of documents) {
    if (doc.errors.length === 0) for (const error of findDuplicateKeys(doc)) doc.errors.push(error);
    if (doc.errors.length > 0) {
      if (masked) unparsedTemplates++;
      else raw.push(syntaxFinding(doc, text.length));
      continue;
    }
    const tree = new YamlTree(doc, Math.max(100_000, (doc.range[2] - doc.range[0]) * 10));
    try {
      const root = tree.root;
      if (root) collectObjects(tree, root, helmSourceOf(doc), { workloads, configMaps, claims: localClaims }, 0);
    } catch (error) {
      if (!(error instanceof AliasBudgetExceeded)) throw error;
      raw.push(skippedFinding('Skipped a document: its aliases and merge keys expand beyond the analysis budget (a YAML alias bomb?).', { start: doc.range[0], end: Math.min(doc.range[1], doc.range[0] + 1) }));
    }
  }
  if (masked) raw.push(templateNotice(masked, unparsedTemplates));

  const file: FileContext = { text, configMaps, claims: chainLookups(localClaims, scope.claims), ...(masked ? { templateLanguage: masked.language } : {}) };
  const messages = new WorkBudget(unitsFor(text.length, MESSAGE_BUDGET_FACTOR, MESSAGE_BUDGET_MIN, MESSAGE_BUDGET_MAX), 'finding text', () => new MessageBudgetExceeded());
  const work = new WorkBudget(unitsFor(text.length, LINT_UNITS_PER_CHAR, LINT_UNITS_MIN), 'lint');
  for (const workload of workloads) {
    const what = `${truncate(workload.object.kind, 80)} "${truncate(workload.object.name ?? '?', 80)}"`;
    const start = spanOf(workload.root)?.start ?? 0;
    try {
      lintWorkload(workload, file, config, raw, containers, messages, work);
    } catch (error) {
      if (error instanceof AliasBudgetExceeded) {
        raw.push(skippedFinding(`Skipped ${what}: its aliases and merge keys expand beyond the analysis budget (a YAML alias bomb?).`, { start, end: start + 1 }));
      } else if (error instanceof MessageBudgetExceeded) {
        raw.push(skippedFinding(`Skipped ${what}: its findings would be out of all proportion to the file's size (long values repeated through aliases or across many containers?).`, { start, end: start + 1 }));
      } else if (error instanceof BudgetExhausted) {
        // The whole file's budget is spent: the workloads after this one are not analysed either.
        raw.push(budgetFinding(`Analysis stopped at budget at ${what}: checking its containers would cost more than ${LINT_UNITS_PER_CHAR} steps per character of the file; it and the workloads after it were not analysed.`, { start, end: start + 1 }));
        break;
      } else raw.push(internalErrorFinding({ kind: 'workload', object: workload.object }, error, { start, end: start + 1 }));
    }
  }

  const lines = new LineIndex(text);
  const comments = new CommentSuppressions(text, lines);
  const findings = applySettings(raw, config).filter((finding) => !comments.suppresses(finding.ruleId, lines.lineOf(finding.span.start)));
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
  const summaries = containers.map(({ object, container, budget, unified, sources }) =>
    summarizeContainer(object, container, budget, unified, config.headroomPercent, byContainer.get(object)?.get(container.name) ?? [], sources),
  );
  return { findings, containers: summaries };
}

/**
 * Caps the total length of finding messages per file. A message quotes names and values from the
 * manifest, so one long value shared by thousands of containers (through an alias, a merge key or a
 * pod-level field) would otherwise multiply into gigabytes. `.length` is O(1) even on the concatenated
 * strings the rules build, so the check costs nothing until it trips.
 */
class MessageBudgetExceeded extends BudgetExhausted {
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
const LINT_UNITS_PER_CHAR = 8;
const LINT_UNITS_MIN = 1_000_000;

interface PendingSummary {
  readonly object: ObjectRef;
  readonly container: ContainerModel;
  readonly budget: MemoryBudget;
  readonly unified: boolean;
  readonly sources: readonly GpuSource[];
}

function lintWorkload(workload: WorkloadDoc, file: FileContext, config: LintConfig, out: Finding[], summaries: PendingSummary[], messages: WorkBudget, work: WorkBudget): void {
  const { tree, root, object } = workload;
  const gpuClasses = gpuClassSet(config.gpuDeviceClasses);
  const entry = workloadEntry(object.kind, object.apiVersion);
  if (!entry) return;
  for (const { template, role, shape } of findPodTemplates(tree, root, entry)) {
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
    const podIsHami = hasHamiSignals(pod);
    const budgets = new Map<ContainerModel, MemoryBudget>();
    const podFindings: Finding[] = [];
    const context: PodContext = {
      pod,
      file,
      config,
      unifiedMemory,
      gpuContainers,
      gpuOf,
      isHami: (container) => {
        if (config.hamiDetection === 'never') return false;
        const family = container.gpu.some((use) => isHamiFamily(use.name));
        // HAMi's DRA driver enforces its claims with HAMi-core too.
        const hamiClaim = gpuOf(container).sources.some((source) => source.kind === 'claim' && source.deviceClass !== undefined && source.deviceClass.startsWith('hami-core-gpu'));
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
        if (suppressedByAnnotation(pod.annotations, report.ruleId)) return;
        const finding = toFinding(report, pod);
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
        podFindings.push(internalErrorFinding({ kind: 'rule', ruleId: rule.meta.id, object: pod.object }, error, { start: templateStart, end: templateStart + 1 }));
      }
    }
    for (const finding of podFindings) out.push(finding); // not push(...): a spread of 100k+ findings overflows the stack
    for (const container of gpuContainers) summaries.push({ object: pod.object, container, budget: context.budget(container), unified, sources: gpuOf(container).sources });
  }
}

function hasHamiSignals(pod: PodModel): boolean {
  if (pod.schedulerName && /hami/i.test(pod.schedulerName.value)) return true;
  for (const key of pod.annotations.keys()) if (HAMI_POD_ANNOTATIONS.test(key)) return true;
  return false;
}

function toFinding(report: Report, pod: PodModel): Finding {
  const meta = ruleMeta(report.ruleId);
  const helm = pod.object.helmSource ? ` (rendered from ${pod.object.helmSource})` : '';
  const role = pod.role ? ` [${pod.role}]` : '';
  return {
    ruleId: report.ruleId,
    severity: report.severity ?? meta?.defaultSeverity ?? 'warning',
    message: `${report.message}${role}${helm}`,
    span: report.span,
    object: pod.object,
    ...(report.container ? { container: report.container.name } : {}),
    fixes: report.fixes ?? [],
  };
}

/** Applies the user's per-rule settings: drop rules that are off, override severities. */
function applySettings(findings: readonly Finding[], config: LintConfig): Finding[] {
  const out: Finding[] = [];
  const seen = new Set<string>();
  for (const finding of findings) {
    const setting = config.rules[finding.ruleId];
    if (setting === 'off') continue;
    const key = `${finding.ruleId}\u0000${finding.span.start}\u0000${finding.span.end}\u0000${finding.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(setting && setting !== finding.severity ? { ...finding, severity: setting } : finding);
  }
  return out;
}

interface Collected {
  readonly workloads: WorkloadDoc[];
  readonly configMaps: ConfigMapModel[];
  readonly claims: ClaimIndex;
}

function collectObjects(tree: YamlTree, root: Node, helmSource: string | undefined, into: Collected, depth: number): void {
  const kind = tree.text(tree.get(root, 'kind'));
  if (kind === undefined) return;
  const apiVersion = tree.text(tree.get(root, 'apiVersion'));
  const metadata = tree.get(root, 'metadata');
  const name = tree.text(tree.get(metadata, 'name'));
  const namespace = tree.text(tree.get(metadata, 'namespace'));
  if (kind.endsWith('List') && depth < MAX_LIST_DEPTH) {
    for (const item of tree.items(tree.get(root, 'items'))) collectObjects(tree, item, helmSource, into, depth + 1);
    return;
  }
  if (isClaimKind(kind, apiVersion)) {
    const claim = readClaimObject(tree, root, kind, apiVersion ?? '', name, namespace);
    if (claim) into.claims.add(claim);
    return;
  }
  if (kind === 'ConfigMap' && name !== undefined) {
    const data = new Map<string, Located<string>>();
    for (const { key, pair } of tree.entries(tree.get(root, 'data'))) {
      const value = tree.text(pair.value);
      const span = spanOf(pair.value);
      if (value !== undefined && span) data.set(key, { value, span });
    }
    into.configMaps.push({ name, namespace, data });
    return;
  }
  if (!workloadEntry(kind, apiVersion)) return;
  const object: ObjectRef = {
    kind,
    ...(apiVersion !== undefined ? { apiVersion } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(helmSource !== undefined ? { helmSource } : {}),
  };
  into.workloads.push({ tree, root, object });
}

/** Helm's `# Source: chart/templates/x.yaml` line, found line by line (a regex here backtracked on long comments). */
function helmSourceOf(doc: Document.Parsed): string | undefined {
  for (const comment of [doc.commentBefore, (doc.contents as { commentBefore?: string | null } | null)?.commentBefore]) {
    for (const line of comment ? comment.split('\n') : []) {
      const trimmed = line.trim();
      const source = trimmed.startsWith('Source:') ? trimmed.slice('Source:'.length).trim() : '';
      if (source !== '') return source;
    }
  }
  return undefined;
}

/**
 * The documents as kubectl reads them: documents the strict parser rejects only for indentation that go-yaml
 * does not check (inside flow collections and multi-line quoted scalars) are parsed again relaxed
 * (lenientYaml.ts); a document that still fails keeps its strict errors.
 */
function parseLikeKubectl(source: string): Document.Parsed[] {
  const parsed = parseAllDocuments(source, PARSE_OPTIONS);
  const strict = Array.isArray(parsed) ? parsed : [];
  if (strict.every((doc) => doc.errors.length === 0)) return strict;
  const relaxedText = relaxForGoYaml(source);
  if (relaxedText === undefined) return strict;
  const again = parseAllDocuments(relaxedText, PARSE_OPTIONS);
  const relaxed = new Map((Array.isArray(again) ? again : []).map((doc) => [doc.range[0], doc]));
  return strict.map((doc) => {
    if (doc.errors.length === 0) return doc;
    const retry = relaxed.get(doc.range[0]);
    return retry && retry.errors.length === 0 ? retry : doc;
  });
}

/** The parser's "Map keys must be unique" errors (same rule: scalar keys with the same value), in linear time. */
function findDuplicateKeys(doc: Document.Parsed): YAMLParseError[] {
  const found: YAMLParseError[] = [];
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        const key = pair.key;
        if (isScalar(key) && !Number.isNaN(key.value)) {
          if (seen.has(key.value)) {
            const at = key.range?.[0] ?? node.range?.[0] ?? 0;
            found.push(new YAMLParseError([at, at + 1], 'DUPLICATE_KEY', 'Map keys must be unique'));
          } else seen.add(key.value);
        }
        stack.push(pair.value, pair.key);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push(item);
    }
  }
  return found.sort((a, b) => a.pos[0] - b.pos[0]);
}

/**
 * The parser errors that kubectl refuses too (go-yaml, checked with `kubectl kustomize` in
 * test/unit/yamlKubectl.test.ts). Any other error (a nesting limit of this parser, a tag or directive go-yaml
 * reads differently) is only gpumem's: an info that does not claim kubectl refuses the document.
 */
const KUBECTL_REFUSES: ReadonlySet<string> = new Set([
  'BAD_DQ_ESCAPE',
  'BAD_INDENT',
  'BAD_SCALAR_START',
  'BLOCK_AS_IMPLICIT_KEY',
  'DUPLICATE_KEY',
  'KEY_OVER_1024_CHARS',
  'MISSING_CHAR',
  'MULTILINE_IMPLICIT_KEY',
  'TAB_AS_INDENT',
  'UNEXPECTED_TOKEN',
]);

function syntaxFinding(doc: Document.Parsed, textLength: number): Finding {
  const error = doc.errors[0];
  const [errorStart, errorEnd] = error?.pos ?? [doc.range[0], doc.range[0] + 1];
  // An error at the end of the input (an unclosed bracket or quote) points just past the text: keep the span inside it.
  const start = Math.max(0, Math.min(errorStart, textLength - 1));
  const end = Math.min(Math.max(errorEnd, start + 1), textLength);
  let message = (error?.message ?? 'syntax error').split('\n')[0] ?? 'syntax error';
  // The parser recurses per nesting level; a stack overflow there means absurdly deep nesting.
  if (error?.code === 'RESOURCE_EXHAUSTION') message = `it is nested too deeply to parse (${message})`;
  const more = doc.errors.length > 1 ? ` (and ${doc.errors.length - 1} more error${doc.errors.length > 2 ? 's' : ''})` : '';
  const refused = error !== undefined && KUBECTL_REFUSES.has(error.code);
  return {
    ruleId: 'yaml-syntax',
    severity: refused ? 'warning' : 'info',
    span: { start, end },
    message: refused
      ? `This YAML document was not analysed: ${message}${more}.`
      : `This YAML document was not analysed: ${message}${more}. This is a limit of gpumem's YAML parser; kubectl may still accept the document.`,
    fixes: [],
  };
}

const TEMPLATE_NOTICES = {
  helm: { title: 'Unrendered Helm template', actions: 'template action', remedy: 'Lint the rendered output (helm template …) for full checks.' },
  go: { title: 'Unrendered Go template (no Helm objects such as .Values or include)', actions: 'template action', remedy: 'Lint the output of the program that renders it for full checks.' },
  argo: { title: 'Argo Workflows expressions', actions: 'expression', remedy: 'Argo substitutes them when the workflow runs; lint a manifest with the parameters filled in for full checks.' },
  jinja: { title: 'Unrendered Jinja template', actions: 'template action', remedy: 'Lint the rendered output (ansible-playbook --check, jinja2) for full checks.' },
  placeholder: { title: 'Unrendered template placeholders', actions: 'placeholder', remedy: 'Lint the rendered output for full checks.' },
} as const;

/** The file-level notice: helm-template for Helm charts, unrendered-template naming any other template language. */
function templateNotice(masked: MaskedTemplate, unparsed: number): Finding {
  const notice = TEMPLATE_NOTICES[masked.language];
  const skippedNote = unparsed > 0 ? ` ${unparsed} document${unparsed === 1 ? '' : 's'} could not be parsed even then and ${unparsed === 1 ? 'was' : 'were'} skipped.` : '';
  const first = masked.language === 'helm' ? '' : ` (first: ${masked.firstActionText})`;
  return {
    ruleId: masked.language === 'helm' ? 'helm-template' : 'unrendered-template',
    severity: 'info',
    span: { start: masked.firstAction, end: masked.firstAction + 2 },
    message: `${notice.title}: gpumem masked ${masked.actions} ${notice.actions}${masked.actions === 1 ? '' : 's'}${first}, so values that come from templates are not checked.${skippedNote} ${notice.remedy}`,
    fixes: [],
  };
}

function skippedFinding(message: string, span: Span = { start: 0, end: 0 }): Finding {
  return { ruleId: 'manifest-skipped', severity: 'info', span, message, fixes: [] };
}

function budgetFinding(message: string, span: Span = { start: 0, end: 0 }): Finding {
  return { ruleId: 'analysis-budget', severity: 'info', span, message, fixes: [] };
}
