// What a rule is and what it sees.
import type { LimitRangeDefault } from '../manifest/limitRange.ts';
import type { RuleMeta } from './ruleMeta.ts';
import type { LintConfig } from '../config.ts';
import type { QuickFix, Severity, Span, UnseenSource } from '../findings.ts';
import type { MemoryBudget } from '../analysis/memoryBudget.ts';
import type { UnifiedMemoryVerdict } from '../analysis/unifiedMemory.ts';
import type { ClaimLookup } from '../manifest/draClaims.ts';
import type { ContainerGpu } from '../manifest/gpuSource.ts';
import type { ContainerModel, Located, PodModel } from '../manifest/podModel.ts';
import type { TemplateLanguage } from '../manifest/source.ts';

/** A ConfigMap defined in the same file, for resolving envFrom and configMapKeyRef. */
export interface ConfigMapModel {
  readonly name: string;
  readonly namespace: string | undefined;
  readonly data: ReadonlyMap<string, Located<string>>;
}

export interface FileContext {
  readonly text: string;
  readonly configMaps: readonly ConfigMapModel[];
  /** DRA claims of this file, then of the other files linted with it. */
  readonly claims: ClaimLookup;
  /** The language of the file's masked `{{ … }}` actions, when it has any. */
  readonly templateLanguage?: TemplateLanguage;
  /** Offsets of the file's masked template actions, ascending (`{{ toYaml … }}` lines are blanked by the mask). */
  readonly templateActions?: readonly number[];
  /** Default container memory limits of the file's LimitRanges, by namespace. */
  readonly limitRanges?: readonly LimitRangeDefault[];
}

export interface Report {
  readonly ruleId: string;
  readonly message: string;
  readonly span: Span;
  readonly container?: ContainerModel;
  /** Overrides the rule's default severity for this finding (the user's setting still wins). */
  readonly severity?: Severity;
  readonly fixes?: readonly QuickFix[];
  /** What the finding is about may be set out of sight (Finding.unseen): a hint the user's setting does not raise. */
  readonly unseen?: UnseenSource;
}

export interface PodContext {
  readonly pod: PodModel;
  readonly file: FileContext;
  readonly config: LintConfig;
  readonly unifiedMemory: UnifiedMemoryVerdict;
  /** Whether HAMi's user-space enforcement governs this container (see `hamiDetection`). */
  isHami(container: ContainerModel): boolean;
  /** Containers that get a GPU by any known way (gpuSource.ts), init containers included. */
  readonly gpuContainers: readonly ContainerModel[];
  /** How a container gets its GPUs, and the claims whose GPU-ness is unknown. */
  gpuOf(container: ContainerModel): ContainerGpu;
  budget(container: ContainerModel): MemoryBudget;
  report(report: Report): void;
}

export interface Rule {
  readonly meta: RuleMeta;
  check(context: PodContext): void;
}
