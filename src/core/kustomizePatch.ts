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
    const what = this.role.inline
      ? 'This is an inline kustomize patch'
      : `This file is a kustomize patch, listed by ${this.role.kustomization}`;
    if (VALUE_RULES.has(finding.ruleId)) {
      if (gpu) return finding;
      this.#changed++;
      return {
        ...finding,
        message: `${finding.message} (${what}: the container gets no GPU in the patch itself; the finding holds if its base gives it one.)`,
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

export function patchNote(role: KustomizePatchRole, shape: PatchShape, span: Span): Finding {
  const listed = role.inline
    ? `this inline patch of the kustomization (under \`${role.field}\`)`
    : `${role.kustomization} lists this file under \`${role.field}\``;
  const message =
    shape === 'json6902'
      ? `Read as a kustomize JSON patch: ${listed}${role.inline ? ' is' : ', and it is'} a list of RFC 6902 operations, not a Kubernetes object, so it is not linted as one. Lint the rendered overlay to judge what it changes: gpumem lint --kustomize <the overlay's directory>.`
      : `Read as a kustomize patch: ${listed}${role.inline ? ' is' : ', so it is'} a partial object, judged only for what it sets (fields it leaves out are its base's). Lint the rendered overlay to judge the result: gpumem lint --kustomize <the overlay's directory>.`;
  return { ruleId: 'kustomize-patch', severity: 'info', span, message, fixes: [] };
}
