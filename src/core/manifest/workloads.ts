// Where each workload kind keeps its pod templates. A new kind is one entry in KINDS.
import { isMap } from 'yaml';
import type { Node, YAMLMap } from 'yaml';
import { INLINE_POD_SPEC, POD_TEMPLATE } from './podShape.ts';
import type { ContainerSource, PodShape } from './podShape.ts';
import type { YamlTree } from './yamlTree.ts';

/**
 * A path from the object root to a pod template (a mapping with `metadata` and `spec`).
 * `[]` steps into every item of a sequence, `{}` into every value of a mapping; `.` means the object itself.
 */
export type TemplatePath = readonly string[];

interface KindEntry {
  readonly kind: string;
  /** API groups (the part of apiVersion before `/`; '' for the core group). */
  readonly groups: readonly string[];
  readonly templates: readonly TemplatePath[];
  /** How the pods sit in each template; a pod template (`metadata` + `spec`) unless said otherwise. */
  readonly shape?: PodShape;
}

const APPS = ['apps', 'extensions', 'apps.openshift.io'];
/** KServe's LLMInferenceService spec: decode `template` and `worker`, and the same under `prefill`. */
const LLM_INFERENCE_TEMPLATES: readonly TemplatePath[] = [
  ['spec', 'template'],
  ['spec', 'worker'],
  ['spec', 'prefill', 'template'],
  ['spec', 'prefill', 'worker'],
];
const BATCH = ['batch'];

// KServe InferenceService components (serving.kserve.io/v1beta1, kserve/kserve pkg/apis/serving/v1beta1:
// predictor.go, transformer.go, explainer.go): each *is* a pod spec (PodSpec inlined) plus `annotations`, and the
// predictor adds one container under a framework key or `model:`, which KServe names kserve-container. KServe's
// defaulter (setResourceRequirementDefaults) gives that container the inferenceservice-config resources when it
// sets none: 2Gi of memory in the kserve Helm chart (values kserve.inferenceservice.resources).
const KSERVE_MODEL_KEYS = [
  'model',
  'sklearn',
  'xgboost',
  'tensorflow',
  'pytorch',
  'triton',
  'onnx',
  'huggingface',
  'pmml',
  'lightgbm',
  'paddle',
];
const KSERVE_COMPONENT: PodShape = {
  layout: 'inline',
  containers: [
    { path: ['initContainers'], role: 'init' },
    { path: ['containers'], role: 'container', operatorDefaults: 'first' },
    ...KSERVE_MODEL_KEYS.map((key): ContainerSource => ({
      path: [key],
      role: 'container',
      single: true,
      defaultName: 'kserve-container',
      operatorDefaults: 'each',
    })),
  ],
  annotationPaths: [['annotations']],
  objectAnnotationsReachPods: true,
  operatorMemoryLimit: 'KServe (the inferenceservice-config default, 2Gi unless the cluster changed it)',
};

// Argo Workflows templates (argoproj.io/v1alpha1 Template, argo-workflows docs/fields.md): each template runs one
// pod with its `container` or `script` (named main), a `containerSet`, init containers and sidecars, and its own
// metadata, nodeSelector, affinity, tolerations and volumes. DRA claims declared on the workflow
// (`spec.resourceClaims`) reach every template that declares none of its own (argo-workflows
// examples/resource-claims-template-override.yaml).
const ARGO_TEMPLATE: PodShape = {
  layout: 'inline',
  containers: [
    { path: ['initContainers'], role: 'init' },
    { path: ['container'], role: 'container', single: true, defaultName: 'main' },
    { path: ['script'], role: 'container', single: true, defaultName: 'main' },
    { path: ['containerSet', 'containers'], role: 'container' },
    { path: ['sidecars'], role: 'container' },
  ],
  annotationPaths: [['metadata', 'annotations']],
  inheritedResourceClaims: [
    ['spec', 'resourceClaims'],
    ['spec', 'workflowSpec', 'resourceClaims'],
  ],
};

// Tekton Task steps and sidecars (tekton.dev v1 Task / Pipeline taskSpec, tektoncd/pipeline docs/tasks.md):
// containers whose resources are `computeResources` in v1 and `resources` in v1beta1.
const TEKTON_RESOURCES = ['computeResources', 'resources'];
const TEKTON_TASK: PodShape = {
  layout: 'inline',
  containers: [
    { path: ['steps'], role: 'container', resourcesKeys: TEKTON_RESOURCES },
    { path: ['sidecars'], role: 'container', resourcesKeys: TEKTON_RESOURCES },
  ],
  annotationPaths: [['metadata', 'annotations']],
};

// Kubeflow Trainer v2 TrainJob (trainer.kubeflow.org/v1alpha1, kubeflow/trainer pkg/apis/trainer/v1alpha1
// trainjob_types.go): `trainer` overrides the runtime's node container (named node) with its image, command and
// `resourcesPerNode`.
const TRAINJOB: PodShape = {
  layout: 'inline',
  containers: [{ path: ['trainer'], role: 'container', single: true, defaultName: 'node', resourcesKeys: ['resourcesPerNode'] }],
  annotationPaths: [],
};

const JOBSET_TEMPLATE = ['replicatedJobs', '[]', 'template', 'spec', 'template'];

export const KINDS: readonly KindEntry[] = [
  { kind: 'Pod', groups: [''], templates: [['.']] },
  { kind: 'PodTemplate', groups: [''], templates: [['template']] },
  { kind: 'ReplicationController', groups: [''], templates: [['spec', 'template']] },
  { kind: 'Deployment', groups: APPS, templates: [['spec', 'template']] },
  { kind: 'ReplicaSet', groups: APPS, templates: [['spec', 'template']] },
  { kind: 'StatefulSet', groups: APPS, templates: [['spec', 'template']] },
  { kind: 'DaemonSet', groups: APPS, templates: [['spec', 'template']] },
  { kind: 'DeploymentConfig', groups: ['apps.openshift.io'], templates: [['spec', 'template']] },
  { kind: 'Job', groups: BATCH, templates: [['spec', 'template']] },
  { kind: 'CronJob', groups: BATCH, templates: [['spec', 'jobTemplate', 'spec', 'template']] },
  { kind: 'Rollout', groups: ['argoproj.io'], templates: [['spec', 'template']] },
  {
    kind: 'RayCluster',
    groups: ['ray.io'],
    templates: [
      ['spec', 'headGroupSpec', 'template'],
      ['spec', 'workerGroupSpecs', '[]', 'template'],
    ],
  },
  {
    kind: 'RayJob',
    groups: ['ray.io'],
    templates: [
      ['spec', 'rayClusterSpec', 'headGroupSpec', 'template'],
      ['spec', 'rayClusterSpec', 'workerGroupSpecs', '[]', 'template'],
      ['spec', 'submitterPodTemplate'],
    ],
  },
  {
    kind: 'RayService',
    groups: ['ray.io'],
    templates: [
      ['spec', 'rayClusterConfig', 'headGroupSpec', 'template'],
      ['spec', 'rayClusterConfig', 'workerGroupSpecs', '[]', 'template'],
    ],
  },
  { kind: 'PyTorchJob', groups: ['kubeflow.org'], templates: [['spec', 'pytorchReplicaSpecs', '{}', 'template']] },
  { kind: 'TFJob', groups: ['kubeflow.org'], templates: [['spec', 'tfReplicaSpecs', '{}', 'template']] },
  { kind: 'MPIJob', groups: ['kubeflow.org'], templates: [['spec', 'mpiReplicaSpecs', '{}', 'template']] },
  { kind: 'XGBoostJob', groups: ['kubeflow.org'], templates: [['spec', 'xgbReplicaSpecs', '{}', 'template']] },
  { kind: 'PaddleJob', groups: ['kubeflow.org'], templates: [['spec', 'paddleReplicaSpecs', '{}', 'template']] },
  { kind: 'JobSet', groups: ['jobset.x-k8s.io'], templates: [['spec', 'replicatedJobs', '[]', 'template', 'spec', 'template']] },
  {
    kind: 'LeaderWorkerSet',
    groups: ['leaderworkerset.x-k8s.io'],
    templates: [
      ['spec', 'leaderWorkerTemplate', 'leaderTemplate'],
      ['spec', 'leaderWorkerTemplate', 'workerTemplate'],
    ],
  },
  { kind: 'Job', groups: ['batch.volcano.sh'], templates: [['spec', 'tasks', '[]', 'template']] },
  {
    kind: 'InferenceService',
    // serving.kubeflow.org is KServe's name before it left Kubeflow (KFServing); its v1beta1 has the same shape.
    groups: ['serving.kserve.io', 'serving.kubeflow.org'],
    templates: [
      ['spec', 'predictor'],
      ['spec', 'transformer'],
      ['spec', 'explainer'],
    ],
    shape: KSERVE_COMPONENT,
  },
  // KServe LLMInferenceService (serving.kserve.io/v1alpha1, kserve pkg/apis/serving/v1alpha1
  // llm_inference_service_types.go): `template` and `worker` are pod specs, for decode and for `prefill`; a
  // LLMInferenceServiceConfig holds the same spec, for services to start from.
  { kind: 'LLMInferenceService', groups: ['serving.kserve.io'], templates: LLM_INFERENCE_TEMPLATES, shape: INLINE_POD_SPEC },
  { kind: 'LLMInferenceServiceConfig', groups: ['serving.kserve.io'], templates: LLM_INFERENCE_TEMPLATES, shape: INLINE_POD_SPEC },
  { kind: 'TrainJob', groups: ['trainer.kubeflow.org'], templates: [['spec']], shape: TRAINJOB },
  // TrainingRuntime / ClusterTrainingRuntime: spec.template is a JobSet template.
  { kind: 'TrainingRuntime', groups: ['trainer.kubeflow.org'], templates: [['spec', 'template', 'spec', ...JOBSET_TEMPLATE]] },
  { kind: 'ClusterTrainingRuntime', groups: ['trainer.kubeflow.org'], templates: [['spec', 'template', 'spec', ...JOBSET_TEMPLATE]] },
  // KAITO Workspace (kaito.sh, kaito-project/kaito api/v1beta1 workspace_types.go): `inference.template` is a pod
  // template for custom models; preset models have no pod spec in the manifest.
  { kind: 'Workspace', groups: ['kaito.sh'], templates: [['inference', 'template']] },
  // Knative Serving Service (serving.knative.dev/v1): spec.template is a revision template (metadata + spec).
  { kind: 'Service', groups: ['serving.knative.dev'], templates: [['spec', 'template']] },
  { kind: 'Workflow', groups: ['argoproj.io'], templates: [['spec', 'templates', '[]']], shape: ARGO_TEMPLATE },
  { kind: 'WorkflowTemplate', groups: ['argoproj.io'], templates: [['spec', 'templates', '[]']], shape: ARGO_TEMPLATE },
  { kind: 'ClusterWorkflowTemplate', groups: ['argoproj.io'], templates: [['spec', 'templates', '[]']], shape: ARGO_TEMPLATE },
  { kind: 'CronWorkflow', groups: ['argoproj.io'], templates: [['spec', 'workflowSpec', 'templates', '[]']], shape: ARGO_TEMPLATE },
  { kind: 'Task', groups: ['tekton.dev'], templates: [['spec']], shape: TEKTON_TASK },
  {
    kind: 'Pipeline',
    groups: ['tekton.dev'],
    templates: [
      ['spec', 'tasks', '[]', 'taskSpec'],
      ['spec', 'finally', '[]', 'taskSpec'],
    ],
    shape: TEKTON_TASK,
  },
];

const BY_KIND = new Map<string, KindEntry[]>();
for (const entry of KINDS) BY_KIND.set(entry.kind, [...(BY_KIND.get(entry.kind) ?? []), entry]);

export function apiGroupOf(apiVersion: string | undefined): string {
  if (!apiVersion) return '';
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

export function workloadEntry(kind: string | undefined, apiVersion: string | undefined): KindEntry | undefined {
  if (!kind) return undefined;
  const entries = BY_KIND.get(kind);
  if (!entries) return undefined;
  const group = apiGroupOf(apiVersion);
  // Without an apiVersion, take the kind at its word.
  return apiVersion ? entries.find((entry) => entry.groups.includes(group)) : entries[0];
}

/**
 * A workload kind as an identity: the kind alone, or `Kind.group` for a kind whose name an earlier entry of another
 * API group also uses (Volcano's `Job` beside batch/v1's), so a live Volcano Job never stands for a batch Job of the
 * same name, nor the other way round. Without an apiVersion the kind is taken at its word, as workloadEntry does.
 */
export function kindKey(kind: string, apiVersion: string | undefined): string {
  const entry = workloadEntry(kind, apiVersion);
  return entry && entry !== BY_KIND.get(kind)?.[0] ? `${kind}.${apiGroupOf(apiVersion)}` : kind;
}

export interface PodTemplateRef {
  /** The mapping holding the pod's `metadata` and `spec`. */
  readonly template: YAMLMap;
  /** Which template of a multi-template kind this is, e.g. `workerGroupSpecs[gpu-workers]`; undefined for single-template kinds. */
  readonly role: string | undefined;
  readonly shape: PodShape;
}

export function findPodTemplates(tree: YamlTree, root: Node, entry: KindEntry): PodTemplateRef[] {
  const found: PodTemplateRef[] = [];
  const multiple = entry.templates.length > 1 || entry.templates.some((path) => path.includes('[]') || path.includes('{}'));
  for (const path of entry.templates) {
    walk(tree, root, path, 0, [], (template, labels) => {
      found.push({ template, role: multiple ? roleName(path, labels) : undefined, shape: entry.shape ?? POD_TEMPLATE });
    });
  }
  return found;
}

function walk(
  tree: YamlTree,
  node: Node | undefined,
  path: TemplatePath,
  step: number,
  labels: string[],
  visit: (template: YAMLMap, labels: string[]) => void,
): void {
  if (!node) return;
  if (step === path.length) {
    if (isMap(node)) visit(node, labels);
    return;
  }
  const segment = path[step];
  if (segment === '.') {
    walk(tree, node, path, step + 1, labels, visit);
  } else if (segment === '[]') {
    tree.items(node).forEach((item, index) => {
      const name = tree.text(tree.get(item, 'groupName')) ?? tree.text(tree.get(item, 'name')) ?? String(index);
      walk(tree, item, path, step + 1, [...labels, name], visit);
    });
  } else if (segment === '{}') {
    for (const { key, pair } of tree.entries(node)) walk(tree, tree.resolve(pair.value), path, step + 1, [...labels, key], visit);
  } else if (segment !== undefined) {
    walk(tree, tree.get(node, segment), path, step + 1, labels, visit);
  }
}

/** The name of one template of a multi-template kind (`workerGroupSpecs[gpu-group]`, `leaderTemplate`): findings, the
 * live rows and the edits address templates by it. */
export function roleName(path: TemplatePath, labels: readonly string[]): string {
  const parts: string[] = [];
  let label = 0;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i];
    if (segment === '[]') parts[parts.length - 1] += `[${labels[label++] ?? '?'}]`;
    else if (segment === '{}') parts[parts.length - 1] += `[${labels[label++] ?? '?'}]`;
    else if (segment && segment !== 'spec' && segment !== 'template' && segment !== '.') parts.push(segment);
  }
  return parts.length > 0 ? parts[parts.length - 1]! : 'template';
}
