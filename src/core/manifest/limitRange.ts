// LimitRanges of a linted file: the defaults the LimitRanger admission plugin writes into containers created without
// limits (plugin/pkg/admission/limitranger in kubernetes/kubernetes), which gpu-no-memory-limit honours.

/**
 * A LimitRange's default memory limit for containers (`spec.limits[]` of `type: Container` with `default.memory`):
 * the LimitRanger admission plugin writes it into every container of the namespace created without one.
 */
export interface LimitRangeDefault {
  readonly name: string | undefined;
  readonly namespace: string | undefined;
  /** The quantity as written, e.g. `8Gi`. */
  readonly defaultMemory: string;
}
