// Draft labeller for the public-manifest corpus (test/fixtures/manifests/public/README.md). It selects files
// from fetched snapshots and writes test/fixtures/manifests/public/corpus.json with the expected GPU
// containers and GPU rules, computed from the labelling definitions in that README and the rule pages in
// docs/rules/. It deliberately shares no code with src/core: the labels must be able to disagree with gpumem.
// The output is a draft that was reviewed by hand; overrides.json holds the hand corrections, applied last.
//
//   node scripts/corpus/label.mjs            # rewrite corpus.json from /work/.mirror (or $GPUMEM_MIRROR)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { yamlBlocks } from './markdownBlocks.mjs';

process.removeAllListeners('warning'); // yaml warns about `{{ … }}` keys in templates, which are skipped anyway

const ROOT = new URL('../../', import.meta.url).pathname;
const OUT = join(ROOT, 'test/fixtures/manifests/public/corpus.json');
const OVERRIDES = join(ROOT, 'test/fixtures/manifests/public/overrides.json');
const MIRROR = process.env.GPUMEM_MIRROR ?? '/work/.mirror';

/** Per project: where its manifests live, and how many GPU / non-GPU files to take (sorted by path, spread evenly). */
const PROJECTS = [
  { repo: 'NVIDIA/k8s-dra-driver-gpu', dirs: ['demo/', 'tests/', 'deployments/'], gpu: 60, other: 20 },
  { repo: 'NVIDIA/KAI-Scheduler', dirs: ['docs/', 'examples/'], gpu: 40, other: 20, markdown: true },
  { repo: 'Project-HAMi/HAMi', dirs: ['examples/', 'docs/', 'charts/'], gpu: 80, other: 20, markdown: true },
  { repo: 'ray-project/kuberay', dirs: ['ray-operator/config/samples/', 'helm-chart/'], gpu: 20, other: 60 },
  { repo: 'kserve/kserve', dirs: ['docs/samples/', 'config/', 'hack/'], gpu: 30, other: 60 },
  { repo: 'kubernetes-sigs/kueue', dirs: ['site/static/examples/', 'config/samples/', 'charts/'], gpu: 30, other: 60 },
  { repo: 'volcano-sh/volcano', dirs: ['example/', 'docs/user-guide/', 'installer/'], gpu: 20, other: 40, markdown: true },
  { repo: 'kaito-project/kaito', dirs: ['examples/', 'presets/', 'charts/', 'docs/'], gpu: 20, other: 20 },
  { repo: 'NVIDIA/k8s-device-plugin', dirs: ['examples/', 'deployments/', 'tests/'], gpu: 20, other: 20 },
  { repo: 'kubeflow/trainer', dirs: ['examples/', 'manifests/', 'charts/', 'docs/'], gpu: 20, other: 30 },
  { repo: 'intel/intel-device-plugins-for-kubernetes', dirs: ['demo/', 'deployments/'], gpu: 20, other: 40 },
  {
    repo: 'ROCm/k8s-device-plugin',
    dirs: ['example/', 'k8s-ds-amdgpu-dp.yaml', 'k8s-ds-amdgpu-labeller.yaml', 'helm/'],
    gpu: 20,
    other: 10,
  },
  { repo: 'kubernetes-sigs/lws', dirs: ['docs/', 'config/samples/', 'site/', 'charts/'], gpu: 20, other: 30 },
  { repo: 'kubernetes-sigs/jobset', dirs: ['examples/', 'site/', 'config/samples/'], gpu: 20, other: 30 },
  { repo: 'NVIDIA/gpu-operator', dirs: ['tests/', 'assets/', 'deployments/'], gpu: 40, other: 40 },
  { repo: 'GoogleCloudPlatform/kubernetes-engine-samples', dirs: [''], gpu: 80, other: 60 },
  { repo: 'kubernetes/examples', dirs: [''], gpu: 10, other: 120 },
  { repo: 'prometheus-operator/prometheus-operator', dirs: ['example/'], gpu: 0, other: 80 },
  { repo: 'argoproj/argo-workflows', dirs: ['examples/'], gpu: 0, other: 100 },
  {
    repo: 'AliyunContainerService/gpushare-scheduler-extender',
    dirs: ['samples/', 'config/', 'docs/'],
    gpu: 20,
    other: 10,
    markdown: true,
  },
  { repo: 'volcano-sh/devices', dirs: [''], gpu: 20, other: 10, markdown: true },
  { repo: 'HabanaAI/Setup_and_Install', dirs: [''], gpu: 20, other: 10, markdown: true },
  { repo: 'actions/actions-runner-controller', dirs: ['config/samples/', 'docs/', 'charts/', 'acceptance/'], gpu: 0, other: 60 },
  { repo: 'kserve/website', dirs: ['docs/'], gpu: 60, other: 40, markdown: true },
  { repo: 'ehfd/nvidia-dind', dirs: [''], gpu: 5, other: 5 },
  { repo: 'coreweave/kubernetes-cloud', dirs: [''], gpu: 40, other: 40 },
  { repo: 'ehfd/docker-nvidia-glx-desktop', dirs: [''], gpu: 5, other: 5 },
];

const GPU_GREP =
  /nvidia\.com\/(gpu|mig|gpumem|gpucores)|amd\.com\/gpu|gpu\.intel\.com|habana\.ai|aliyun\.com\/gpu|volcano\.sh\/(gpu|vgpu)|gpu-fraction|gpu-memory|resourceClaim|deviceClassName|gpumem|neuron|\/gpu\b|hygon|cambricon|metax|enflame|mthreads|Ascend|iluvatar|kunlunxin/;
// TPUs and NPUs are accelerators without the GPU memory model the rules are about; gpu.example.com is the
// Kubernetes DRA example driver; unrendered templates need a person to read them.
// Argo's own `{{inputs.parameters.x}}` placeholders are not Helm and leave the YAML readable.
const AMBIGUOUS =
  /google\.com\/tpu|huawei\.com\/npu|npu\.intel\.com|gpu\.example\.com|\{\{-?\s*[.$]|\{\{-|\{\{\s*(include|if|range|toYaml|template|end|with|default)\b/;

// ---- GPU resources (docs/rules/README.md "GPU resources", issue 10 class 3) ----
const HAMI_VENDORS =
  /^(nvidia\.com|amd\.com|cambricon\.com|hygon\.com|metax-tech\.com|enflame\.com|kunlunxin\.com|mthreads\.com|huawei\.com|iluvatar\.ai|volcano\.sh)\//;
function gpuResourceKind(name) {
  if (/^nvidia\.com\/(gpu|gpu\.shared|mig-.+)$/.test(name)) return 'count';
  if (/^nvidia\.com\/(gpumem|gpumem-percentage|gpucores)$/.test(name)) return 'share';
  if (/^amd\.com\/gpu$/.test(name)) return 'count';
  if (/^amd\.com\/(gpumem|gpucores)$/.test(name)) return 'share';
  if (/^gpu\.intel\.com\//.test(name))
    return name === 'gpu.intel.com/memory.max' || name === 'gpu.intel.com/millicores' ? 'quota' : 'count';
  if (/^habana\.ai\/gaudi/.test(name)) return 'count';
  if (/^aliyun\.com\/gpu-(mem|count|core\.percentage)$/.test(name)) return name === 'aliyun.com/gpu-count' ? 'count' : 'quota';
  if (/^volcano\.sh\/(gpu-number|vgpu-number)$/.test(name)) return 'count';
  if (/^volcano\.sh\/(gpu-memory|vgpu-memory|vgpu-cores)$/.test(name)) return name.startsWith('volcano.sh/vgpu') ? 'share' : 'quota';
  if (/^hygon\.com\/dcunum$/.test(name)) return 'count';
  if (/^hygon\.com\/dcu(mem|cores)$/.test(name)) return 'share';
  if (
    /^(cambricon\.com\/.*mlu.*|metax-tech\.com\/.+|enflame\.com\/.+|kunlunxin\.com\/.*xpu.*|mthreads\.com\/.+|huawei\.com\/Ascend.+|iluvatar\.ai\/.+|vastaitech\.com\/va|birentech\.com\/gpu|aws\.amazon\.com\/neuron.*)$/.test(
      name,
    )
  )
    return /mem|core|percent/.test(name) ? 'share' : 'count';
  if (/^[a-z0-9.-]+\.[a-z]+\/gpu$/.test(name)) return 'count';
  return undefined;
}
const hamiOnly = (name) =>
  (gpuResourceKind(name) === 'share' && HAMI_VENDORS.test(name)) ||
  /^volcano\.sh\/vgpu-/.test(name) ||
  (/^(cambricon|metax-tech|enflame|kunlunxin|mthreads|huawei|iluvatar)\./.test(name) && /mem|core|percent/.test(name));
const GPU_DEVICE_CLASSES = new Set([
  'gpu.nvidia.com',
  'mig.nvidia.com',
  'vfio.gpu.nvidia.com',
  'gpu.amd.com',
  'gpu.intel.com',
  'gaudi.intel.com',
  'hami-core-gpu',
  'hami-core-gpu.project-hami.io',
]);
const GPU_DRIVERS = /gpu\.nvidia\.com|gpu\.amd\.com|gpu\.intel\.com|hami/;

// ---- tiny YAML helpers over plain JS values ----
const obj = (v) => (v && typeof v === 'object' && !Array.isArray(v) ? v : undefined);
const arr = (v) => (Array.isArray(v) ? v : []);
const str = (v) => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);
const isTrue = (v) => v === true || v === 'true' || v === 'True' || v === 'TRUE';

function git(gitDir, ...args) {
  return execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 256 << 20 });
}

/** Quantity → number (enough for resource counts; memory sizes only need presence). */
function quantity(text) {
  const m = /^([+-]?\d+(?:\.\d+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(String(text).trim());
  if (!m) return undefined;
  const scale = { m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 }[m[2]] ?? 1;
  return Number(m[1]) * scale;
}

// ---- pod templates: every mapping with a `containers` list of named maps, anywhere in an object ----
function* podSpecs(value, path) {
  const map = obj(value);
  if (map) {
    if (
      Array.isArray(map.containers) &&
      map.containers.some((c) => obj(c) && (typeof c.name === 'string' || typeof c.image === 'string' || obj(c.resources)))
    )
      yield { spec: map, path };
    for (const [key, child] of Object.entries(map))
      if (key !== 'containers' && key !== 'initContainers') yield* podSpecs(child, path ? `${path}.${key}` : key);
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* podSpecs(value[i], `${path}[${i}]`);
  }
}

function podAnnotations(root, specPath) {
  // The pod template's metadata sits beside its spec (…template.metadata); a Pod's is the object's own.
  const parts = specPath.split('.');
  if (parts.length === 1) return obj(obj(root.metadata)?.annotations) ?? {};
  let parent = root;
  for (const part of parts.slice(0, -1)) {
    const m = /^(.*?)(?:\[(\d+)\])?$/.exec(part);
    parent = obj(parent)?.[m[1]];
    if (m[2] !== undefined) parent = arr(parent)[Number(m[2])];
  }
  return obj(obj(obj(parent)?.metadata)?.annotations) ?? {};
}

function dindEvidence(container, volumes) {
  const evidence = [];
  const image = str(container.image) ?? '';
  const last = image.split('/').pop() ?? '';
  if (/dind/i.test(last)) evidence.push(`image ${image}`);
  const words = [...arr(container.command), ...arr(container.args)].map(String).join(' ');
  if (/(^|[\s/;&|])(dockerd|dockerd-entrypoint\.sh|containerd)(\s|$)/.test(words) || /podman\s+system\s+service/.test(words))
    evidence.push('daemon command');
  for (const env of arr(container.env)) {
    if (env?.name === 'DOCKER_HOST' && /^(tcp:\/\/(localhost|127\.0\.0\.1|\[::1\])|unix:\/\/)/.test(str(env.value) ?? ''))
      evidence.push('DOCKER_HOST local');
  }
  for (const mount of arr(container.volumeMounts)) {
    const mp = str(mount?.mountPath) ?? '';
    const vol = volumes.get(mount?.name);
    const hostPath = str(obj(vol?.hostPath)?.path) ?? '';
    if (
      /(^|\/)(docker|containerd|cri-dockerd|crio|podman)\.sock$/.test(hostPath) ||
      (/(docker|containerd|crio|podman)\.sock$/.test(mp) && hostPath)
    )
      evidence.push('runtime socket');
    else if (/^\/var\/lib\/(docker|containerd|containers)(\/|$)/.test(mp)) evidence.push(`storage ${mp}`);
  }
  return evidence;
}

/** Per request of a claim: whether it asks for a GPU (by device class, or a CEL selector naming a GPU driver). */
function claimIsGpu(devices) {
  const requests = new Map();
  for (const request of arr(obj(devices)?.requests).filter(obj)) {
    let verdict = { gpu: false };
    const alternatives = [request, obj(request.exactly), ...arr(request.firstAvailable)].filter(obj);
    for (const alt of alternatives) {
      if (GPU_DEVICE_CLASSES.has(str(alt.deviceClassName) ?? '')) verdict = { gpu: true, deviceClass: alt.deviceClassName };
      else if (arr(alt.selectors).some((sel) => GPU_DRIVERS.test(str(obj(sel?.cel)?.expression) ?? '')))
        verdict = { gpu: true, selector: true };
      if (verdict.gpu) break;
    }
    requests.set(request.name, verdict);
  }
  const gpu = [...requests.values()].find((v) => v.gpu);
  return { ...(gpu ?? { gpu: false }), requests };
}

/** Labels one parsed file: the GPU containers with how they get their GPU and the GPU rules expected on them. */
function labelFile(objects) {
  // Claims resolve in the pod's namespace; an object without a namespace may be applied to any (kubectl -n).
  const claims = new Map();
  const add = (key, namespace, verdict) => claims.set(key, [...(claims.get(key) ?? []), { namespace, verdict }]);
  for (const o of objects) {
    if (o.kind === 'ResourceClaimTemplate')
      add(`t/${o.metadata?.name}`, o.metadata?.namespace, claimIsGpu(obj(obj(o.spec)?.spec)?.devices));
    if (o.kind === 'ResourceClaim') add(`c/${o.metadata?.name}`, o.metadata?.namespace, claimIsGpu(obj(o.spec)?.devices));
  }
  const containers = [];
  const notes = [];
  for (const o of objects) {
    if (o.kind === 'CustomResourceDefinition') continue;
    if (/^argoproj\.io\//.test(o.apiVersion ?? '') && /^(Workflow|WorkflowTemplate|ClusterWorkflowTemplate|CronWorkflow)$/.test(o.kind)) {
      for (const { spec, path, annotations } of argoPods(o)) labelPod(o, spec, path, claims, containers, notes, annotations);
      continue;
    }
    for (const { spec, path } of podSpecs(o, '')) labelPod(o, withDefaultNames(o, spec), path, claims, containers, notes);
    labelContainerlessKinds(o, containers);
  }
  return { containers, notes };
}

/**
 * Argo: each template with a `container` or `script` runs a pod whose container is `main`, beside the
 * template's init containers and sidecars; `containerSet` names its own. Volumes: the workflow's and the template's.
 */
function* argoPods(o) {
  const spec = o.kind === 'CronWorkflow' ? obj(obj(o.spec)?.workflowSpec) : obj(o.spec);
  for (const template of arr(spec?.templates).filter(obj)) {
    const main = obj(template.container) ?? obj(template.script);
    const set = arr(obj(template.containerSet)?.containers).filter(obj);
    if (!main && set.length === 0) continue;
    const containers = [...(main ? [{ ...main, name: 'main' }] : set), ...arr(template.sidecars).filter(obj)];
    yield {
      spec: {
        containers,
        initContainers: arr(template.initContainers),
        volumes: [...arr(spec?.volumes), ...arr(template.volumes), ...arr(obj(template.containerSet)?.volumes)],
      },
      path: `spec.templates[${template.name}]`,
      annotations: obj(obj(template.metadata)?.annotations) ?? {},
    };
  }
}

/** Containers may omit `name` where the platform names them: Knative `user-container`, KServe `kserve-container`. */
function withDefaultNames(o, spec) {
  const fallback = /^serving\.knative\.dev\//.test(o.apiVersion ?? '')
    ? 'user-container'
    : o.kind === 'InferenceService'
      ? 'kserve-container'
      : undefined;
  if (!fallback || !arr(spec.containers).some((c) => obj(c) && c.name === undefined)) return spec;
  return {
    ...spec,
    containers: arr(spec.containers).map((c, i) =>
      obj(c) && c.name === undefined ? { ...c, name: i === 0 ? fallback : `${fallback}-${i}` } : c,
    ),
  };
}

function labelPod(o, spec, path, claims, out, notes, annotationsOverride) {
  const namespace = o.metadata?.namespace;
  const claimFor = (key) => claims.get(key)?.find((c) => !c.namespace || !namespace || c.namespace === namespace)?.verdict;
  const annotations = annotationsOverride ?? podAnnotations(o, path);
  const volumes = new Map(
    arr(spec.volumes)
      .filter(obj)
      .map((v) => [v.name, v]),
  );
  const podClaims = new Map(
    arr(spec.resourceClaims)
      .filter(obj)
      .map((c) => [
        c.name,
        c.resourceClaimTemplateName
          ? `t/${c.resourceClaimTemplateName}`
          : c.resourceClaimName
            ? `c/${c.resourceClaimName}`
            : c.source?.resourceClaimTemplateName
              ? `t/${c.source.resourceClaimTemplateName}`
              : c.source?.resourceClaimName
                ? `c/${c.source.resourceClaimName}`
                : undefined,
      ]),
  );
  const all = [...arr(spec.initContainers).map((c) => [c, 'init']), ...arr(spec.containers).map((c) => [c, 'app'])].filter(
    ([c]) => obj(c) && typeof c.name === 'string',
  );
  const podMemoryLimit = obj(obj(spec.resources)?.limits)?.memory !== undefined;
  const hamiPod =
    /hami/i.test(str(spec.schedulerName) ?? '') ||
    Object.keys(annotations).some((k) =>
      /^(hami\.io\/|nvidia\.com\/(use-gputype|nouse-gputype|use-gpuuuid|nouse-gpuuuid|vgpu-mode|numa-bind))/.test(k),
    );
  const fraction = annotations['gpu-fraction'] ?? annotations['gpu-memory'];
  const fractionTarget = fraction !== undefined ? (annotations['gpu-fraction-container-name'] ?? arr(spec.containers)[0]?.name) : undefined;
  const labelled = [];
  for (const [c] of all) {
    const via = [];
    let maybe;
    const limits = obj(obj(c.resources)?.limits) ?? {};
    const requests = obj(obj(c.resources)?.requests) ?? {};
    for (const name of new Set([...Object.keys(limits), ...Object.keys(requests)])) if (gpuResourceKind(name)) via.push({ resource: name });
    for (const ref of arr(obj(c.resources)?.claims)) {
      const key = podClaims.get(ref?.name);
      const whole = key ? claimFor(key) : undefined;
      // A container that names one request of the claim gets only that request's devices.
      const claim = whole && ref.request !== undefined ? (whole.requests.get(ref.request) ?? { gpu: false }) : whole;
      if (claim?.gpu) via.push({ claim: ref.name, ...(claim.deviceClass ? { deviceClass: claim.deviceClass } : { selector: 'cel' }) });
      else if (!whole && key)
        maybe = { claim: ref.name, [key.startsWith('t/') ? 'resourceClaimTemplateName' : 'resourceClaimName']: key.slice(2) };
    }
    if (fractionTarget !== undefined && c.name === fractionTarget)
      via.push({ annotation: annotations['gpu-fraction'] !== undefined ? 'gpu-fraction' : 'gpu-memory' });
    if (via.length === 0 && !maybe) continue;
    labelled.push({ c, via, maybe, limits, requests });
  }
  const definite = labelled.filter((l) => l.via.length > 0);
  const role = path;
  let gvisorReported = false;
  for (const { c, via, maybe, limits, requests } of labelled) {
    const base = { kind: o.kind, name: str(o.metadata?.name) ?? '', role, container: c.name };
    if (via.length === 0) {
      out.push({ ...base, maybe });
      continue;
    }
    if (maybe) base.maybe = maybe; // a GPU container that also names a claim gpumem cannot see: information expected too
    const rules = [];
    if (limits.memory === undefined && !podMemoryLimit) rules.push('gpu-no-memory-limit');
    for (const mount of arr(c.volumeMounts)) {
      const ed = obj(volumes.get(mount?.name)?.emptyDir);
      if (ed && ed.medium === 'Memory' && ed.sizeLimit === undefined) rules.push('gpu-shm-unbounded');
    }
    const names = via.map((v) => v.resource).filter(Boolean);
    for (const name of names) {
      const limit = limits[name] !== undefined ? quantity(limits[name]) : undefined;
      const request = requests[name] !== undefined ? quantity(requests[name]) : undefined;
      const bad = (q) => q !== undefined && (q < 0 || !Number.isInteger(q));
      if (
        bad(limit) ||
        bad(request) ||
        (requests[name] !== undefined && limits[name] === undefined) ||
        (limit !== undefined && request !== undefined && limit !== request)
      )
        rules.push('gpu-resource-invalid');
    }
    const family = names.some(
      (n) => HAMI_VENDORS.test(n) || /^(hygon|cambricon|metax-tech|enflame|kunlunxin|mthreads|huawei|iluvatar)/.test(n),
    );
    const hami = names.some(hamiOnly) || (family && hamiPod && names.some((n) => n === 'nvidia.com/gpu' || n === 'amd.com/gpu'));
    const env = arr(c.env).filter(obj);
    const disable = env.find((e) => e.name === 'CUDA_DISABLE_CONTROL');
    if (disable && disable.value !== undefined)
      rules.push(
        ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(str(disable.value)) ? 'cuda-disable-control' : 'cuda-disable-control-present',
      );
    if (hami || names.some((n) => n.startsWith('nvidia.com/')))
      if (env.some((e) => /^CUDA_DEVICE_MEMORY_LIMIT(_\d+)?$/.test(e.name))) rules.push('hami-manual-memory-limit');
    if (hami) {
      if (isTrue(obj(c.securityContext)?.privileged)) rules.push('hami-privileged');
      if (isTrue(obj(c.securityContext)?.readOnlyRootFilesystem)) rules.push('hami-readonly-rootfs');
      if (/(^|[/:@-])(alpine|musl|busybox)([:@.-]|$)|distroless\/static/.test(str(c.image) ?? '')) rules.push('hami-musl-image');
      const shares = names.filter((n) => gpuResourceKind(n) === 'share');
      const hasCount = (n) => names.some((m) => gpuResourceKind(m) === 'count' && m.split('/')[0] === n.split('/')[0]);
      const memoryOnlyVendor = (n) => /^(enflame\.com|metax-tech\.com|mthreads\.com|cambricon\.com)\//.test(n);
      const pct = (n) => quantity(limits[n] ?? requests[n]);
      if (
        shares.some((n) => !hasCount(n) && !memoryOnlyVendor(n)) ||
        (names.includes('nvidia.com/gpumem-percentage') &&
          (pct('nvidia.com/gpumem-percentage') < 1 || pct('nvidia.com/gpumem-percentage') > 100)) ||
        ['nvidia.com/gpucores', 'amd.com/gpucores'].some((n) => names.includes(n) && (pct(n) < 0 || pct(n) > 100)) ||
        (names.includes('nvidia.com/gpumem') && names.includes('nvidia.com/gpumem-percentage'))
      )
        rules.push('hami-resource-conflict');
      if (/gvisor|runsc/i.test(str(spec.runtimeClassName) ?? '') && !gvisorReported) {
        gvisorReported = true; // one finding per pod, attributed to its first HAMi-managed GPU container
        rules.push('hami-gvisor');
      }
    }
    out.push({ ...base, via, rules: [...new Set(rules)].sort() });
  }
  if (definite.length > 0) {
    // Docker-in-Docker: any container of a pod with a GPU container (the rule's own scope).
    for (const [c] of all) {
      const evidence = dindEvidence(c, volumes);
      if (evidence.length === 0) continue;
      const entry = out.find(
        (e) => e.kind === o.kind && e.name === (str(o.metadata?.name) ?? '') && e.role === role && e.container === c.name && e.rules,
      );
      if (entry) entry.rules = [...new Set([...entry.rules, 'gpu-docker-in-docker'])].sort();
      else out.push({ kind: o.kind, name: str(o.metadata?.name) ?? '', role, container: c.name, via: [], rules: ['gpu-docker-in-docker'] });
      notes.push(`dind ${c.name}: ${evidence.join(', ')}`);
    }
    const sel = obj(spec.nodeSelector) ?? {};
    if (Object.keys(sel).some((k) => /gpu\.(device-id|family|product-name)|gpumem\.io|gpu\.product/.test(k)))
      notes.push(`check unified-memory node selection in ${path}`);
  }
}

/** Kinds whose GPU container is not spelled as a container list: KServe `model`, Kubeflow TrainJob `trainer`. */
function labelContainerlessKinds(o, out) {
  const spec = obj(o.spec);
  if (!spec) return;
  const name = str(o.metadata?.name) ?? '';
  const add = (role, container, resources) => {
    const limits = obj(obj(resources)?.limits) ?? {};
    const requests = obj(obj(resources)?.requests) ?? {};
    const via = [...new Set([...Object.keys(limits), ...Object.keys(requests)])].filter(gpuResourceKind).map((resource) => ({ resource }));
    if (via.length === 0) return;
    const rules = limits.memory === undefined ? ['gpu-no-memory-limit'] : [];
    for (const { resource } of via) {
      const l = limits[resource],
        r = requests[resource];
      if ((r !== undefined && l === undefined) || (l !== undefined && r !== undefined && quantity(l) !== quantity(r)))
        rules.push('gpu-resource-invalid');
    }
    out.push({ kind: o.kind, name, role, container, via, rules: [...new Set(rules)].sort() });
  };
  if (o.kind === 'InferenceService') {
    // The model spec, and the older framework-specific specs, become the container `kserve-container`.
    for (const part of ['predictor', 'transformer', 'explainer']) {
      for (const framework of [
        'model',
        'tensorflow',
        'pytorch',
        'triton',
        'sklearn',
        'xgboost',
        'onnx',
        'huggingface',
        'lightgbm',
        'paddle',
        'pmml',
        'art',
        'alibi',
      ]) {
        const model = obj(obj(spec[part])?.[framework]);
        if (model) add(`spec.${part}.${framework}`, 'kserve-container', model.resources);
      }
    }
  }
  if (o.kind === 'TrainJob') add('spec.trainer', 'node', obj(spec.trainer)?.resourcesPerNode);
}

function parse(text) {
  const docs = parseAllDocuments(text, { version: '1.1', uniqueKeys: false });
  const list = Array.isArray(docs) ? docs : [];
  if (list.some((d) => d.errors.length > 0)) return undefined;
  const objects = [];
  for (const d of list) {
    const v = d.toJS({ maxAliasCount: 1000 });
    if (obj(v) && v.kind === 'List') objects.push(...arr(v.items).filter(obj));
    else if (obj(v)) objects.push(v);
  }
  return objects;
}

function spread(items, n) {
  if (items.length <= n) return items;
  const out = [];
  for (let i = 0; i < n; i++) out.push(items[Math.floor((i * items.length) / n)]);
  return out;
}

function main() {
  const overrides = existsSync(OVERRIDES) ? JSON.parse(readFileSync(OVERRIDES, 'utf8')) : {};
  const projects = [];
  for (const project of PROJECTS) {
    const gitDir = join(MIRROR, project.repo.replace('/', '+'), 'repo');
    const commit = git(gitDir, 'rev-parse', 'HEAD').trim();
    const tree = git(gitDir, 'ls-tree', '-r', commit)
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [meta, path] = line.split('\t');
        return { blob: meta.split(' ')[2], path };
      });
    const candidates = tree.filter(
      ({ path }) =>
        (/\.ya?ml$/.test(path) || (project.markdown && /\.md$/.test(path))) &&
        project.dirs.some((d) => path.startsWith(d)) &&
        !/(^|\/)(\.github|crds?|vendor|third_party|node_modules)\//.test(path) &&
        !/values[^/]*\.ya?ml$|Chart\.ya?ml$|kustomization\.ya?ml$|skaffold|cloudbuild|\.pre-commit|golangci|mkdocs|codecov/i.test(path),
    );
    const gpuFiles = [],
      otherFiles = [];
    for (const candidate of candidates) {
      const whole = git(gitDir, 'cat-file', 'blob', candidate.blob);
      const pieces = candidate.path.endsWith('.md')
        ? yamlBlocks(whole).map((text, block) => ({ file: { ...candidate, block }, text }))
        : [{ file: candidate, text: whole }];
      for (const { file, text } of pieces) {
        if (!/^\s*kind:/m.test(text) || !/^\s*apiVersion:/m.test(text) || text.length > 400_000) continue;
        if (/kind:\s*CustomResourceDefinition/.test(text)) continue;
        const override = overrides[`${project.repo}:${file.path}${file.block !== undefined ? `#${file.block}` : ''}`];
        if (override === 'exclude') continue;
        const ambiguous = AMBIGUOUS.test(text);
        const objects = ambiguous ? undefined : parse(text);
        const { containers, notes } = objects ? labelFile(objects) : { containers: [], notes: [] };
        if (containers.length > 0) gpuFiles.push({ ...file, gpu: true, containers, notes });
        else if (objects?.some((o) => /^(Workspace|RAGEngine|InferenceSet)$/.test(o.kind) && /kaito/.test(o.apiVersion ?? '')))
          continue; // KAITO presets: the GPU comes from an instance type, no container to label
        else if (objects)
          otherFiles.push({ ...file, gpu: false, ...(GPU_GREP.test(text) ? { mentionsGpu: true } : {}) }); // read, and no container gets a GPU
        else if (!GPU_GREP.test(text) && !/nvidia|gpu|accelerator|\btpu\b/i.test(text))
          otherFiles.push({ ...file, gpu: false, ...(text.includes('{{') ? { templated: true } : {}) });
      }
    }
    const files = [...spread(gpuFiles, project.gpu), ...spread(otherFiles, project.other)]
      .map((f) => {
        const override = overrides[`${project.repo}:${f.path}${f.block !== undefined ? `#${f.block}` : ''}`];
        return override && typeof override === 'object' ? { ...f, ...override, reviewed: 'hand' } : f;
      })
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : (a.block ?? 0) - (b.block ?? 0)));
    projects.push({ repo: project.repo, commit, files });
    console.error(
      `${project.repo}: ${gpuFiles.length} GPU candidates, ${otherFiles.length} other; took ${files.filter((f) => f.gpu).length} + ${files.filter((f) => !f.gpu).length}`,
    );
  }
  writeFileSync(OUT, serialise(projects));
}

/** One file per line, so a label change is a one-line diff. */
function serialise(projects) {
  const lines = ['{', '  "format": 1,', '  "projects": ['];
  projects.forEach((p, i) => {
    lines.push(`    { "repo": ${JSON.stringify(p.repo)}, "commit": ${JSON.stringify(p.commit)}, "files": [`);
    p.files.forEach((f, j) => {
      const { notes, ...rest } = f;
      void notes;
      lines.push(`      ${JSON.stringify(rest)}${j < p.files.length - 1 ? ',' : ''}`);
    });
    lines.push(`    ] }${i < projects.length - 1 ? ',' : ''}`);
  });
  lines.push('  ]', '}', '');
  return lines.join('\n');
}

main();
