// A kustomize patch judged for what it sets. In a strategic-merge patch a field left out is the base's, so rules that
// judge what a container lacks (a memory limit, a toleration, Guaranteed QoS) cannot tell anything from the patch:
// their findings become a hint (info) where the patch gives the container a GPU, and go where it does not. Rules that
// judge a value the patch writes (CUDA_DISABLE_CONTROL=true, a hand-set CUDA_DEVICE_MEMORY_LIMIT, a bad quantity)
// keep their severity, on every container of the patch: the base may be what gives it its GPU.
import type { Finding, Span } from './findings.ts';
import type { KustomizePatchRole } from './manifest/kustomization.ts';

/** Rules whose finding rests on the value the patch itself writes. Every other pod rule judges something absent. */
const VALUE_RULES: ReadonlySet<string> = new Set([
  'cuda-disable-control',
  'cuda-disable-control-present',
  'hami-manual-memory-limit',
  'hami-privileged',
  'hami-readonly-rootfs',
  'hami-gvisor',
  'hami-musl-image',
  'gpu-docker-in-docker',
  'invalid-quantity',
  'manifest-shape',
]);

/** Whether a rule judges a value written (kept on a patch) rather than something left out (the base's). */
export function isValueRule(ruleId: string): boolean {
  return VALUE_RULES.has(ruleId);
}

/** Findings that are about the file or gpumem itself, not about the pod: a patch leaves them as they are. */
const FILE_RULES: ReadonlySet<string> = new Set(['internal-error', 'analysis-budget', 'manifest-skipped', 'yaml-syntax', 'helm-template']);

export type PatchShape = 'strategic-merge' | 'json6902';

/** Judges the findings of one patch file and remembers whether the reading changed anything (for the note). */
export class PatchJudge {
  readonly role: KustomizePatchRole;
  #changed = 0;
  #gpuPods = 0;

  constructor(role: KustomizePatchRole) {
    this.role = role;
  }

  notePod(gpuContainers: number): void {
    if (gpuContainers > 0) this.#gpuPods++;
  }

  /**
   * The finding as it stands for a patch, or undefined when it rests only on what the patch leaves out.
   * `gpuInPatch` tells, by container name, whether the patch itself gives that container a GPU.
   */
  judge(finding: Finding, gpuInPatch: ReadonlyMap<string, boolean>): Finding | undefined {
    if (FILE_RULES.has(finding.ruleId)) return finding;
    const gpu = finding.container !== undefined ? gpuInPatch.get(finding.container) === true : [...gpuInPatch.values()].includes(true);
    const what = this.role.operation
      ? `This is the value of a JSON patch operation${this.role.inline ? ' inline in the kustomization' : `, in a file listed by ${this.role.kustomization}`}`
      : this.role.inline
        ? 'This is an inline kustomize patch'
        : `This file is a kustomize patch, listed by ${this.role.kustomization}`;
    if (VALUE_RULES.has(finding.ruleId)) {
      if (gpu) return finding;
      this.#changed++;
      const where = this.role.operation ? 'the operation itself' : 'the patch itself';
      return {
        ...finding,
        message: `${finding.message} (${what}: the container gets no GPU in ${where}; the finding holds if its base gives it one.)`,
      };
    }
    // Judged only because every container of a patch is: as a whole workload it would not be reported either.
    if (!gpu) return undefined;
    this.#changed++;
    return {
      ...finding,
      severity: 'info',
      unseen: 'kustomize-base',
      message: `${finding.message} (${what}: what it leaves out comes from its base, so this is a hint to check, not a finding; gpumem lint --kustomize on the overlay's directory judges the rendered result.)`,
    };
  }

  /** The note, when reading the file as a patch changed or kept a finding, or the patch gives a pod a GPU. */
  note(span: Span): Finding | undefined {
    if (this.#changed === 0 && this.#gpuPods === 0) return undefined;
    return patchNote(this.role, 'strategic-merge', span);
  }
}

/** How many operations of a JSON patch were judged for the values they write, and how many were not. */
export interface OperationsCount {
  readonly judged: number;
  readonly unjudged: number;
}

export function patchNote(role: KustomizePatchRole, shape: PatchShape, span: Span, operations?: OperationsCount): Finding {
  const listed = role.inline
    ? `this inline patch of the kustomization (under \`${role.field}\`)`
    : `${role.kustomization} lists this file under \`${role.field}\``;
  const message =
    shape === 'json6902'
      ? `Read as a kustomize JSON patch: ${listed}${role.inline ? ' is' : ', and it is'} a list of RFC 6902 operations, not a Kubernetes object, so it is not linted as one. ${operationsJudged(operations)} Lint the rendered overlay to judge the result: gpumem lint --kustomize <the overlay's directory>.`
      : `Read as a kustomize patch: ${listed}${role.inline ? ' is' : ', so it is'} a partial object, judged only for what it sets (fields it leaves out are its base's). Lint the rendered overlay to judge the result: gpumem lint --kustomize <the overlay's directory>.`;
  return { ruleId: 'kustomize-patch', severity: 'info', span, message, fixes: [] };
}

function operationsJudged(operations: OperationsCount | undefined): string {
  const judged = operations?.judged ?? 0;
  const unjudged = operations?.unjudged ?? 0;
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const scope = '(rules about values written only: what the base holds is not seen)';
  const written =
    judged === 0
      ? 'No add or replace operation with a value was read, so no value it writes was judged.'
      : judged === 1
        ? `The value its add or replace operation writes was judged ${scope}.`
        : `The values its ${judged} add or replace operations write were judged ${scope}.`;
  return unjudged === 0
    ? written
    : `${written} ${plural(unjudged, 'other operation')} (remove, move, copy, test, or not readable as an add or replace) were not judged.`;
}
