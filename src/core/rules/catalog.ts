// Every rule id gpumem can report, with its default severity, summary and remedy. The ids are stable:
// they appear in suppressions, settings, SARIF and the docs at docs/rules/<id>.md.
import type { RuleMeta } from './ruleMeta.ts';

export const RULES: readonly RuleMeta[] = [
  {
    id: 'gpu-no-memory-limit',
    title: 'GPU container without a memory limit',
    defaultSeverity: 'warning',
    summary:
      'A container that requests a GPU has no memory limit; on unified-memory nodes (an error there) its GPU buffers are system RAM the node cannot spare.',
    remedy:
      "Set resources.limits.memory to the container's host memory plus, on unified-memory nodes, its GPU memory, with headroom (30 % by default).",
  },
  {
    id: 'uma-headroom',
    title: 'Not enough memory headroom on a unified-memory node',
    defaultSeverity: 'warning',
    summary:
      "On unified-memory nodes GTT memory is not charged to the pod's cgroup, so the memory limit and request must cover the declared GPU and host memory plus headroom.",
    remedy: 'Raise resources.limits.memory and resources.requests.memory to at least the nominal need × (1 + headroom).',
  },
  {
    id: 'uma-gpu-memory-undeclared',
    title: 'Unified-memory GPU pod declares no GPU memory',
    defaultSeverity: 'info',
    summary:
      'The pod targets a unified-memory node but declares neither a HAMi gpumem resource nor the gpumem.io/gpu-memory annotation, so its headroom cannot be checked.',
    remedy:
      'Add the pod-template annotation gpumem.io/gpu-memory (or gpumem.io/gpu-memory.<container>) with the expected GTT footprint, e.g. "24Gi".',
  },
  {
    id: 'cuda-disable-control',
    title: 'CUDA_DISABLE_CONTROL turns off HAMi enforcement',
    defaultSeverity: 'warning',
    summary:
      "With CUDA_DISABLE_CONTROL true, HAMi's device plugin skips the /etc/ld.so.preload mount: the memory quota is not enforced while the scheduler still counts it and shares the card (HAMi#1678).",
    remedy: 'Remove CUDA_DISABLE_CONTROL from the container (and from any ConfigMap it imports) outside debugging.',
  },
  {
    id: 'cuda-disable-control-present',
    title: 'CUDA_DISABLE_CONTROL is set (to a false value)',
    defaultSeverity: 'info',
    summary: 'HAMi releases before v2.4.0 disabled enforcement when CUDA_DISABLE_CONTROL was merely present, whatever its value.',
    remedy: 'Remove the variable; it has no use when enforcement should stay on.',
  },
  {
    id: 'hami-readonly-rootfs',
    title: 'Verify HAMi enforcement with a read-only root filesystem',
    defaultSeverity: 'info',
    summary:
      'readOnlyRootFilesystem usually works with HAMi because /etc/ld.so.preload is bind-mounted over the path, but some runtimes and admission policies break the mount.',
    remedy:
      'Keep the read-only root. Verify in the running pod that /etc/ld.so.preload names libvgpu.so and that workload processes map it (Run HAMi Checklist on Pod).',
  },
  {
    id: 'gpu-docker-in-docker',
    title: 'Docker-in-Docker in a GPU pod',
    defaultSeverity: 'warning',
    summary:
      "Containers started by an inner Docker or containerd do not get HAMi's preload mount or limit variables, so their GPU memory is not limited (HAMi#1777).",
    remedy: 'Run GPU work as Kubernetes pods instead of nested containers; remove the dind sidecar or the runtime socket mount.',
  },
  {
    id: 'hami-privileged',
    title: 'Privileged container requests HAMi resources',
    defaultSeverity: 'error',
    summary:
      'HAMi before v2.10 skipped privileged containers, which then ran with no memory limit; v2.10 and later reject the pod at admission.',
    remedy: 'Drop privileged: true, or move the privileged work to a container that requests no HAMi resources.',
  },
  {
    id: 'hami-manual-memory-limit',
    title: 'CUDA_DEVICE_MEMORY_LIMIT set by hand',
    defaultSeverity: 'warning',
    summary:
      "HAMi's device plugin injects CUDA_DEVICE_MEMORY_LIMIT_<n>; a hand-set value conflicts with it, and 0 or 0m means no limit at all.",
    remedy: 'Remove the variable and request nvidia.com/gpumem instead.',
  },
  {
    id: 'uma-not-guaranteed',
    title: 'Unified-memory GPU pod is not Guaranteed QoS',
    defaultSeverity: 'info',
    summary: 'When GTT memory exhausts a unified-memory node the global OOM killer runs, and it picks Burstable and BestEffort pods first.',
    remedy: 'Give every container cpu and memory limits with requests equal to them (Guaranteed QoS).',
  },
  {
    id: 'hami-resource-conflict',
    title: 'Conflicting or incomplete HAMi resources',
    defaultSeverity: 'warning',
    summary:
      'gpumem with gpumem-percentage, a memory or core share without its GPU count, or a percentage out of range, gives a quota other than the one intended.',
    remedy: 'Request the GPU count (e.g. nvidia.com/gpu) with either gpumem or gpumem-percentage, and keep percentages between 1 and 100.',
  },
  {
    id: 'uma-missing-toleration',
    title: 'Unified-memory GPU pod does not tolerate the dedicated-node taint',
    defaultSeverity: 'warning',
    summary:
      'The pod targets unified-memory GPU nodes that you reserve with a taint, but has no toleration for it, so it cannot schedule there.',
    remedy: 'Add a toleration for the configured taint key.',
    offByDefault: true,
  },
  {
    id: 'gpu-resource-invalid',
    title: 'Invalid GPU resource quantity',
    defaultSeverity: 'error',
    summary:
      'The API server rejects extended resources that are not whole numbers, that are requested without a limit, or whose request differs from the limit.',
    remedy: 'Set GPU resources in limits as whole numbers; omit the request or make it equal to the limit.',
  },
  {
    id: 'gpu-share-annotation-invalid',
    title: 'Invalid GPU-sharing annotation (KAI Scheduler / Run:ai)',
    defaultSeverity: 'error',
    summary:
      'The gpu-fraction, gpu-memory, gpu-fraction-num-devices or gpu-fraction-container-name pod annotation has a value KAI Scheduler refuses, names a container the pod does not have, or conflicts with another GPU request, so the pod never binds.',
    remedy:
      'Use gpu-fraction as a number above 0 and below 1, or gpu-memory as whole MiB (no unit), not both and not with nvidia.com/gpu; name an existing (init) container in gpu-fraction-container-name.',
  },
  {
    id: 'gpu-claim-unresolved',
    title: 'DRA claim that gpumem cannot resolve',
    defaultSeverity: 'info',
    summary:
      'A container uses a DRA claim whose ResourceClaim or ResourceClaimTemplate is not in the linted files, so gpumem cannot tell whether it gets a GPU (a warning when the claim reference itself is broken).',
    remedy:
      'Lint the pod together with the file that defines the claim (Lint Workspace, or gpumem lint with both files); fix references that spec.resourceClaims does not declare.',
  },
  {
    id: 'hami-gvisor',
    title: 'gVisor runtime with HAMi',
    defaultSeverity: 'warning',
    summary:
      'gVisor (runsc) does not honour /etc/ld.so.preload, so HAMi-core never loads and the memory quota is not enforced (HAMi#2581).',
    remedy: 'Run HAMi GPU pods with the NVIDIA container runtime, not gVisor.',
  },
  {
    id: 'hami-musl-image',
    title: 'Verify HAMi enforcement in a musl or static image',
    defaultSeverity: 'info',
    summary: "Only glibc's loader reads /etc/ld.so.preload: musl (Alpine) and statically linked programs never load libvgpu.so.",
    remedy: 'Use a glibc-based image for CUDA work, and verify that the workload process maps libvgpu.so.',
  },
  {
    id: 'gpu-shm-unbounded',
    title: 'Memory-backed volume without a size limit',
    defaultSeverity: 'info',
    summary:
      'An emptyDir with medium: Memory (often /dev/shm for data loaders and NCCL) is RAM charged to the pod; without sizeLimit it can grow until the pod is OOM-killed.',
    remedy: 'Set emptyDir.sizeLimit and count it in the memory limit.',
  },
  {
    id: 'invalid-quantity',
    title: 'Invalid quantity',
    defaultSeverity: 'error',
    summary: 'A resource or memory annotation value is not a Kubernetes quantity, or is negative.',
    remedy: 'Use the Kubernetes quantity syntax: a number with an optional suffix such as 512Mi, 32Gi, 1.5G, 500m or 1e9.',
  },
  {
    id: 'manifest-shape',
    title: 'Unexpected field type',
    defaultSeverity: 'warning',
    summary:
      'A field that gpumem reads has the wrong YAML type (for example env as a mapping), so the API server would reject it and gpumem skipped what it holds.',
    remedy: "Fix the field's type as the Kubernetes API defines it.",
  },
  {
    id: 'yaml-syntax',
    title: 'YAML document not analysed',
    defaultSeverity: 'warning',
    summary: 'A YAML document has a syntax error, so gpumem could not analyse it.',
    remedy: 'Fix the syntax error; the other documents of the file are still analysed.',
  },
  {
    id: 'helm-template',
    title: 'Unrendered Helm template',
    defaultSeverity: 'info',
    summary: 'The file holds Helm template actions ({{ … }}); gpumem masked them, so values that come from templates are not checked.',
    remedy: 'Lint the rendered output too: helm template … | gpumem lint -',
  },
  {
    id: 'unrendered-template',
    title: 'Unrendered template or unresolved placeholder',
    defaultSeverity: 'info',
    summary:
      "The file holds template actions that are not Helm's (Argo Workflows expressions, other Go templates, Jinja), or a quantity is a placeholder such as ${MEM} or {{inputs.parameters.gpus}}; gpumem does not check values that are not resolved yet.",
    remedy: 'Lint the manifest as it is applied, with templates rendered and placeholders substituted (envsubst < file | gpumem lint -).',
  },
  {
    id: 'manifest-skipped',
    title: 'File or document skipped',
    defaultSeverity: 'info',
    summary: 'gpumem skipped a file or document it cannot analyse safely: binary, not UTF-8, too large, or an alias bomb.',
    remedy: 'Lint real manifests; raise the size limit for genuinely large files.',
  },
  {
    id: 'internal-error',
    title: 'A rule or a file could not be analysed',
    defaultSeverity: 'warning',
    summary:
      'One rule failed on one pod template, or the analysis of one file failed; gpumem reports it here and still runs every other rule and file, so nothing else is lost.',
    remedy: 'Report the failure with the manifest (the message names the rule and the object or file); the rest of the results stand.',
    noExample: 'no manifest is known to trigger it: each failure found so far was fixed at its cause',
  },
  {
    id: 'read-by-shape',
    title: 'Pods found by their shape',
    defaultSeverity: 'info',
    summary:
      'An object of a kind (or an API version) gpumem has no table entry for holds GPU pod specs, found by their shape (a containers list whose items have a name and an image) and checked as pods; each finding names the path.',
    remedy: 'Check that the paths named are the pods the operator runs; a kind gpumem should know can be added to its table.',
  },
  {
    id: 'kustomize-patch',
    title: 'Read as a kustomize patch',
    defaultSeverity: 'info',
    summary:
      "A kustomization in the linted files lists this file as a patch: a strategic-merge patch is judged only for what it sets (what it leaves out is its base's), a JSON 6902 patch is a list of operations and is not linted as an object.",
    remedy: "Lint the rendered overlay too, with gpumem lint --kustomize <the overlay's directory> (it runs kubectl kustomize).",
  },
  {
    id: 'analysis-budget',
    title: 'Analysis stopped at budget',
    defaultSeverity: 'info',
    summary:
      'gpumem stopped analysing a file whose work would be out of proportion to its size (for example a flow line of thousands of empty entries), instead of running on.',
    remedy:
      'Fix or regenerate the file (empty flow entries such as `[,,]` are not valid YAML); split generated files with very many containers per pod template.',
  },
];

const BY_ID = new Map(RULES.map((rule) => [rule.id, rule]));

export function ruleMeta(id: string): RuleMeta | undefined {
  return BY_ID.get(id);
}
