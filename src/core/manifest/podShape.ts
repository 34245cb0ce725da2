// Where a pod's parts sit in the mapping a workload kind gives for it. Most kinds hold a pod template
// (`metadata` + `spec`); some inline the pod spec and add containers under their own keys: KServe's predictor
// *is* a pod spec with a `model:` or framework container, an Argo template has `container:` / `script:` /
// `containerSet:`, Kubeflow Trainer's TrainJob puts the node's image and `resourcesPerNode` in `trainer:`.
/** Where a container runs in the pod: an init container with restartPolicy Always is a sidecar (KEP-753). */
export type ContainerRole = 'container' | 'init' | 'sidecar' | 'ephemeral';

export interface ContainerSource {
  /** Path from the pod mapping (the template's `spec`, or the inline pod spec) to a container list or one container. */
  readonly path: readonly string[];
  readonly role: ContainerRole;
  /** The path leads to one container mapping rather than a list. */
  readonly single?: boolean;
  /** The name the operator gives a container written without one (KServe `kserve-container`, Argo `main`). */
  readonly defaultName?: string;
  /** Keys holding the container's resource requirements, first found wins (Tekton v1 `computeResources`). */
  readonly resourcesKeys?: readonly string[];
  /** Which containers of this source get the shape's operator memory limit: every one, or only the first. */
  readonly operatorDefaults?: 'each' | 'first';
}

export interface PodShape {
  /** 'template': a pod template whose pod spec is its `spec`; 'inline': the mapping is the pod spec itself. */
  readonly layout: 'template' | 'inline';
  readonly containers: readonly ContainerSource[];
  /** Paths from the mapping to the annotations its pods get. */
  readonly annotationPaths: readonly (readonly string[])[];
  /** The workload's own annotations are copied onto its pods (KServe does this for an InferenceService). */
  readonly objectAnnotationsReachPods?: boolean;
  /** Who sets a default memory limit on containers that have none (as the finding should say it), when someone does. */
  readonly operatorMemoryLimit?: string;
  /**
   * Paths from the object root to a workload-level `resourceClaims` list that pods without their own list get
   * (an Argo Workflow's `spec.resourceClaims`; a template's own list replaces it outright).
   */
  readonly inheritedResourceClaims?: readonly (readonly string[])[];
}

export const POD_CONTAINERS: readonly ContainerSource[] = [
  { path: ['initContainers'], role: 'init' },
  { path: ['containers'], role: 'container' },
  { path: ['ephemeralContainers'], role: 'ephemeral' },
];

export const POD_TEMPLATE: PodShape = { layout: 'template', containers: POD_CONTAINERS, annotationPaths: [['metadata', 'annotations']] };

/** A bare pod spec (KServe LLMInferenceService `template` / `worker`): the same containers, no metadata of its own. */
export const INLINE_POD_SPEC: PodShape = { layout: 'inline', containers: POD_CONTAINERS, annotationPaths: [] };
