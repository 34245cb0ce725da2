// Scores what the linter found on the public-manifest corpus against the hand-checked labels in
// test/fixtures/manifests/public/corpus.json: precision and recall of GPU-container detection and of the GPU
// rules, recall per detection class, and every miss and false finding by name. Pure: no I/O, no lint calls.

/** How a labelled container gets its GPU (one entry per resource, claim or annotation). */
export type GpuSource =
  | { readonly resource: string }
  | { readonly claim: string; readonly deviceClass?: string; readonly selector?: string }
  | { readonly annotation: string };

export interface ExpectedContainer {
  readonly kind: string;
  readonly name: string;
  /** Where the pod template sits in the object (`spec.template.spec`); for people, not matched. */
  readonly role?: string;
  readonly container: string;
  /** Absent when the container's only GPU source is a claim defined elsewhere (`maybe` alone). */
  readonly via?: readonly GpuSource[];
  readonly rules?: readonly string[];
  /** The container names a DRA claim that is not in its file: information is expected (it may get a GPU through it). */
  readonly maybe?: { readonly claim: string };
}

export interface ExpectedFile {
  readonly id: string;
  readonly gpu: boolean;
  readonly containers?: readonly ExpectedContainer[];
}

export interface ActualFinding {
  readonly ruleId: string;
  readonly severity: 'error' | 'warning' | 'info';
  readonly kind?: string;
  readonly name?: string;
  readonly container?: string;
  readonly message: string;
}

export interface ActualFile {
  readonly gpuContainers: readonly { readonly kind: string; readonly name?: string; readonly container: string }[];
  readonly findings: readonly ActualFinding[];
}

export interface Ratio {
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
}

export interface CorpusScore {
  readonly detection: Ratio;
  readonly rules: Ratio;
  /** Expected GPU containers per class (`dra-claim`, `resource nvidia.com/gpu`, `kind LLMInferenceService`…), and how many were found. */
  readonly classes: Map<string, { expected: number; found: number }>;
  readonly missedContainers: string[];
  readonly falseContainers: string[];
  readonly missedRules: string[];
  readonly falseRules: string[];
  /** Findings on non-GPU files other than the allowed syntax/template information. */
  readonly nonGpuFindings: string[];
}

export interface ScoreOptions {
  /** Rules that only fire on GPU containers: the ones scored. */
  readonly isGpuRule: (ruleId: string) => boolean;
  /** Rule ids a non-GPU file may report (syntax and template information). */
  readonly allowedOnNonGpu: ReadonlySet<string>;
}

/** The GPU rules of docs/rules/ and issue 10, by prefix so the rules other branches add are scored too. */
export const isGpuRule = (ruleId: string): boolean => /^(gpu-|uma-|hami-|cuda-disable-control)/.test(ruleId);

/** `unrendered-template` is issue 10's name for non-Helm templates (Argo, Go, envsubst), information like `helm-template`. */
export const ALLOWED_ON_NON_GPU: ReadonlySet<string> = new Set([
  'yaml-syntax',
  'helm-template',
  'unrendered-template',
  'manifest-skipped',
  'analysis-budget',
]);

export function precision(ratio: Ratio): number {
  const found = ratio.truePositives + ratio.falsePositives;
  return found === 0 ? 1 : ratio.truePositives / found;
}

export function recall(ratio: Ratio): number {
  const expected = ratio.truePositives + ratio.falseNegatives;
  return expected === 0 ? 1 : ratio.truePositives / expected;
}

const containerKey = (kind: string, name: string | undefined, container: string | undefined) => `${kind}/${name ?? ''}/${container ?? ''}`;

export function classesOf(container: ExpectedContainer): string[] {
  const classes = [`kind ${container.kind}`];
  for (const source of container.via ?? []) {
    if ('resource' in source) classes.push('extended-resource', `resource ${source.resource}`);
    else if ('claim' in source) classes.push('dra-claim', `claim class ${source.deviceClass ?? 'by selector'}`);
    else classes.push('scheduler-annotation', `annotation ${source.annotation}`);
  }
  return [...new Set(classes)];
}

/** Scores every labelled file; a file with no actual result (not assembled, unreadable) counts as found nothing. */
export function scoreCorpus(
  expected: readonly ExpectedFile[],
  actual: ReadonlyMap<string, ActualFile>,
  options: ScoreOptions,
): CorpusScore {
  const score: CorpusScore = {
    detection: { truePositives: 0, falsePositives: 0, falseNegatives: 0 },
    rules: { truePositives: 0, falsePositives: 0, falseNegatives: 0 },
    classes: new Map(),
    missedContainers: [],
    falseContainers: [],
    missedRules: [],
    falseRules: [],
    nonGpuFindings: [],
  };
  for (const file of expected) scoreFile(file, actual.get(file.id) ?? { gpuContainers: [], findings: [] }, options, score);
  return score;
}

function scoreFile(file: ExpectedFile, actual: ActualFile, options: ScoreOptions, score: CorpusScore): void {
  const labels = file.gpu ? (file.containers ?? []) : [];
  const definite = labels.filter((label) => label.via && label.via.length > 0);
  const maybe = new Set(labels.filter((label) => label.maybe).map((label) => containerKey(label.kind, label.name, label.container)));

  // GPU-container detection: a multiset per kind/name/container (worker groups may repeat a container name).
  const found = new Map<string, number>();
  for (const container of actual.gpuContainers) {
    const key = containerKey(container.kind, container.name, container.container);
    found.set(key, (found.get(key) ?? 0) + 1);
  }
  for (const label of definite) {
    const key = containerKey(label.kind, label.name, label.container);
    const left = found.get(key) ?? 0;
    const hit = left > 0;
    if (hit) found.set(key, left - 1);
    for (const cls of classesOf(label)) {
      const entry = score.classes.get(cls) ?? { expected: 0, found: 0 };
      entry.expected++;
      if (hit) entry.found++;
      score.classes.set(cls, entry);
    }
    if (hit) score.detection.truePositives++;
    else {
      score.detection.falseNegatives++;
      score.missedContainers.push(`${file.id} ${key} via ${describeSources(label.via ?? [])}`);
    }
  }
  for (const [key, left] of found) {
    if (left === 0 || maybe.has(key)) continue; // a maybe-GPU container shown as GPU is neither right nor wrong
    score.detection.falsePositives += left;
    score.falseContainers.push(`${file.id} ${key}${left > 1 ? ` ×${left}` : ''}`);
  }

  // GPU rules: a set of rule × container per file; a maybe container expects information, whatever its id.
  const expectedRules = new Set<string>();
  for (const label of definite)
    for (const rule of label.rules ?? []) expectedRules.add(`${rule} ${containerKey(label.kind, label.name, label.container)}`);
  const actualRules = new Map<string, ActualFinding>();
  const maybeInformed = new Set<string>();
  for (const finding of actual.findings) {
    const key = containerKey(finding.kind ?? '', finding.name, finding.container);
    if (!file.gpu && !options.allowedOnNonGpu.has(finding.ruleId))
      score.nonGpuFindings.push(`${file.id} ${finding.ruleId} ${key}: ${finding.message}`);
    if (!options.isGpuRule(finding.ruleId)) continue;
    if (maybe.has(key) && !expectedRules.has(`${finding.ruleId} ${key}`)) {
      if (finding.severity === 'info') maybeInformed.add(key);
      else actualRules.set(`${finding.ruleId} ${key}`, finding); // more than information on a claim it cannot see
      continue;
    }
    actualRules.set(`${finding.ruleId} ${key}`, finding);
  }
  for (const key of expectedRules) {
    if (actualRules.has(key)) score.rules.truePositives++;
    else {
      score.rules.falseNegatives++;
      score.missedRules.push(`${file.id} ${key}`);
    }
  }
  for (const [key, finding] of actualRules) {
    if (expectedRules.has(key)) continue;
    score.rules.falsePositives++;
    score.falseRules.push(`${file.id} ${key} (${finding.severity}): ${finding.message}`);
  }
  for (const label of labels) {
    if (!label.maybe) continue;
    const key = containerKey(label.kind, label.name, label.container);
    if (maybeInformed.has(key)) score.rules.truePositives++;
    else {
      score.rules.falseNegatives++;
      score.missedRules.push(`${file.id} (information: may get a GPU through claim ${label.maybe.claim}) ${key}`);
    }
  }
}

function describeSources(sources: readonly GpuSource[]): string {
  return sources
    .map((source) =>
      'resource' in source
        ? source.resource
        : 'claim' in source
          ? `claim ${source.claim} → ${source.deviceClass ?? 'selector'}`
          : `annotation ${source.annotation}`,
    )
    .join(', ');
}

/** The figures as the test prints them. */
export function formatScore(score: CorpusScore): string {
  const pct = (n: number) => `${(n * 100).toFixed(1)} %`;
  const ratio = (r: Ratio) =>
    `precision ${pct(precision(r))}, recall ${pct(recall(r))} (tp ${r.truePositives}, fp ${r.falsePositives}, fn ${r.falseNegatives})`;
  const lines = [`GPU-container detection: ${ratio(score.detection)}`, `GPU rules: ${ratio(score.rules)}`, 'Recall per class:'];
  for (const [cls, { expected, found }] of [...score.classes].sort(([a], [b]) => (a < b ? -1 : 1)))
    lines.push(`  ${cls}: ${found}/${expected} (${pct(found / expected)})`);
  const section = (title: string, items: readonly string[]) => {
    lines.push(`${title}: ${items.length}`);
    for (const item of items) lines.push(`  ${item}`);
  };
  section('Missed GPU containers', score.missedContainers);
  section('False GPU containers', score.falseContainers);
  section('Missed GPU-rule findings', score.missedRules);
  section('False GPU-rule findings', score.falseRules);
  section('Findings on non-GPU files', score.nonGpuFindings);
  return lines.join('\n');
}
