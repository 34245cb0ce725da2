// Deterministic generator of Kubernetes manifests for the benchmarks: a seeded PRNG picks kinds, containers,
// GPU resources (plain NVIDIA, HAMi, AMD and NVIDIA unified-memory nodes), env, volumes and probes, so every run
// and every machine lints exactly the same bytes.

/** mulberry32: a small, fast, well-distributed 32-bit PRNG. */
export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (list) => list[Math.floor(next() * list.length)],
    weighted: (entries) => {
      const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
      let r = next() * total;
      for (const [value, weight] of entries) {
        r -= weight;
        if (r < 0) return value;
      }
      return entries[entries.length - 1][0];
    },
  };
}

const APPS = [
  'llm-server',
  'trainer',
  'embedder',
  'reranker',
  'api',
  'worker',
  'ingest',
  'notebook',
  'vision',
  'speech',
  'batch',
  'gateway',
  'cache',
  'feature-store',
];
const NAMESPACES = ['ml', 'inference', 'training', 'platform', 'default', 'research'];
const GPU_IMAGES = [
  'nvcr.io/nvidia/pytorch:24.05-py3',
  'vllm/vllm-openai:v0.6.3',
  'rocm/vllm:rocm6.2_mi300_ubuntu22.04_py3.10_vllm_0.6.4',
  'ghcr.io/ggml-org/llama.cpp:server-cuda',
  'rocm/pytorch:rocm6.3_ubuntu24.04_py3.12_pytorch_release_2.4.0',
  'nvcr.io/nvidia/tritonserver:24.08-py3',
];
const PLAIN_IMAGES = ['nginx:1.27', 'python:3.12-slim', 'redis:7.4-alpine', 'busybox:1.36', 'ghcr.io/example/api:2.3.1', 'postgres:16'];
const ENV_NAMES = [
  'LOG_LEVEL',
  'MODEL_ID',
  'HF_HOME',
  'OMP_NUM_THREADS',
  'NCCL_DEBUG',
  'PYTORCH_CUDA_ALLOC_CONF',
  'MAX_BATCH',
  'PORT',
  'WORKERS',
  'TZ',
];

function ind(n) {
  return ' '.repeat(n);
}

/** What runs the pod: which GPU flavour and which node. */
function gpuProfile(r) {
  return r.weighted([
    ['none', 45],
    ['nvidia', 15],
    ['hami', 15],
    ['amd-apu', 10],
    ['gb10', 5],
    ['uma-annotation', 5],
    ['intel', 5],
  ]);
}

function resourcesBlock(r, profile, n, lines) {
  const limits = [];
  const requests = [];
  const cpu = r.pick(['250m', '500m', '1', '2', '4', '8']);
  const memory = r.pick(['256Mi', '512Mi', '1Gi', '4Gi', '16Gi', '32Gi', '64Gi', '96Gi']);
  if (r.chance(0.8)) limits.push(`cpu: "${cpu}"`);
  if (r.chance(0.75)) limits.push(`memory: ${memory}`);
  if (r.chance(0.7)) requests.push(`cpu: ${cpu}`);
  if (r.chance(0.6)) requests.push(`memory: ${r.chance(0.5) ? memory : r.pick(['128Mi', '2Gi', '8Gi', '48Gi'])}`);
  switch (profile) {
    case 'nvidia':
      limits.push(`nvidia.com/gpu: ${r.int(1, 8)}`);
      break;
    case 'hami':
      limits.push(`nvidia.com/gpu: ${r.int(1, 2)}`);
      if (r.chance(0.8)) limits.push(`nvidia.com/gpumem: ${r.pick([4000, 8000, 12000, 20000, 40000])}`);
      else limits.push(`nvidia.com/gpumem-percentage: ${r.pick([10, 25, 50, 100])}`);
      if (r.chance(0.6)) limits.push(`nvidia.com/gpucores: ${r.pick([10, 30, 50, 100])}`);
      break;
    case 'amd-apu':
    case 'uma-annotation':
      limits.push('amd.com/gpu: 1');
      break;
    case 'gb10':
      limits.push('nvidia.com/gpu: 1');
      break;
    case 'intel':
      limits.push('gpu.intel.com/i915: 1');
      break;
  }
  if (limits.length === 0 && requests.length === 0) return;
  lines.push(`${ind(n)}resources:`);
  if (limits.length > 0) {
    lines.push(`${ind(n + 2)}limits:`);
    for (const entry of limits) lines.push(`${ind(n + 4)}${entry}`);
  }
  if (requests.length > 0) {
    lines.push(`${ind(n + 2)}requests:`);
    for (const entry of requests) lines.push(`${ind(n + 4)}${entry}`);
  }
}

function container(r, profile, n, lines, name, configMaps) {
  const gpu = profile !== 'none';
  lines.push(`${ind(n)}- name: ${name}`);
  lines.push(`${ind(n + 2)}image: ${gpu ? r.pick(GPU_IMAGES) : r.pick(PLAIN_IMAGES)}`);
  if (r.chance(0.5)) lines.push(`${ind(n + 2)}imagePullPolicy: IfNotPresent`);
  if (r.chance(0.4)) {
    lines.push(`${ind(n + 2)}command: ["python", "-m", "${r.pick(['server', 'train', 'worker'])}"]`);
    lines.push(`${ind(n + 2)}args:`);
    for (let i = r.int(1, 4); i > 0; i--)
      lines.push(`${ind(n + 4)}- --${r.pick(['port', 'model', 'tp', 'max-len', 'dtype'])}=${r.int(1, 9000)}`);
  }
  if (r.chance(0.7)) {
    lines.push(`${ind(n + 2)}ports:`);
    lines.push(`${ind(n + 4)}- name: http`);
    lines.push(`${ind(n + 6)}containerPort: ${r.pick([80, 8000, 8080, 9000])}`);
    lines.push(`${ind(n + 6)}protocol: TCP`);
  }
  const envCount = r.int(0, 7);
  if (envCount > 0 || (gpu && r.chance(0.05))) {
    lines.push(`${ind(n + 2)}env:`);
    for (let i = 0; i < envCount; i++) {
      lines.push(`${ind(n + 4)}- name: ${r.pick(ENV_NAMES)}`);
      if (r.chance(0.15)) {
        lines.push(`${ind(n + 6)}valueFrom:`);
        lines.push(`${ind(n + 8)}fieldRef:`);
        lines.push(`${ind(n + 10)}fieldPath: metadata.name`);
      } else lines.push(`${ind(n + 6)}value: "${r.pick(['info', '1', 'true', '/models', 'expandable_segments:True', '8'])}"`);
    }
    if (gpu && r.chance(0.05)) {
      lines.push(`${ind(n + 4)}- name: CUDA_DISABLE_CONTROL`);
      lines.push(`${ind(n + 6)}value: "${r.pick(['true', 'false', '1'])}"`);
    }
  }
  if (configMaps.length > 0 && r.chance(0.3)) {
    lines.push(`${ind(n + 2)}envFrom:`);
    lines.push(`${ind(n + 4)}- configMapRef:`);
    lines.push(`${ind(n + 8)}name: ${r.pick(configMaps)}`);
  }
  resourcesBlock(r, profile, n + 2, lines);
  if (r.chance(0.5)) {
    lines.push(`${ind(n + 2)}livenessProbe:`);
    lines.push(`${ind(n + 4)}httpGet:`);
    lines.push(`${ind(n + 6)}path: /healthz`);
    lines.push(`${ind(n + 6)}port: http`);
    lines.push(`${ind(n + 4)}initialDelaySeconds: ${r.int(5, 120)}`);
    lines.push(`${ind(n + 4)}periodSeconds: 10`);
  }
  if (r.chance(0.4)) {
    lines.push(`${ind(n + 2)}securityContext:`);
    lines.push(`${ind(n + 4)}allowPrivilegeEscalation: false`);
    if (r.chance(0.5)) lines.push(`${ind(n + 4)}readOnlyRootFilesystem: true`);
    if (r.chance(0.05)) lines.push(`${ind(n + 4)}privileged: true`);
    lines.push(`${ind(n + 4)}capabilities:`);
    lines.push(`${ind(n + 6)}drop: ["ALL"]`);
  }
  lines.push(`${ind(n + 2)}volumeMounts:`);
  lines.push(`${ind(n + 4)}- name: config`);
  lines.push(`${ind(n + 6)}mountPath: /etc/app`);
  if (gpu) {
    lines.push(`${ind(n + 4)}- name: dshm`);
    lines.push(`${ind(n + 6)}mountPath: /dev/shm`);
  }
}

/** The pod spec (and pod-template metadata) at indentation n. */
function podTemplate(r, n, lines, app, profile, configMaps, options = {}) {
  const annotations = [];
  if (profile === 'uma-annotation') annotations.push('gpumem.io/unified-memory: "true"');
  if ((profile === 'amd-apu' || profile === 'gb10' || profile === 'uma-annotation') && r.chance(0.6))
    annotations.push(`gpumem.io/gpu-memory: ${r.pick(['16Gi', '24Gi', '48Gi', '64Gi'])}`);
  if (profile === 'hami' && r.chance(0.4)) annotations.push('nvidia.com/use-gputype: "A100,H100"');
  if (!options.bare) {
    lines.push(`${ind(n)}metadata:`);
    lines.push(`${ind(n + 2)}labels:`);
    lines.push(`${ind(n + 4)}app.kubernetes.io/name: ${app}`);
    if (r.chance(0.5)) lines.push(`${ind(n + 4)}app.kubernetes.io/part-of: ${r.pick(['platform', 'ml'])}`);
    if (annotations.length > 0) {
      lines.push(`${ind(n + 2)}annotations:`);
      for (const a of annotations) lines.push(`${ind(n + 4)}${a}`);
    }
    lines.push(`${ind(n)}spec:`);
  }
  const s = n + 2;
  if (profile === 'hami' && r.chance(0.5)) lines.push(`${ind(s)}schedulerName: hami-scheduler`);
  if (options.restartPolicy) lines.push(`${ind(s)}restartPolicy: ${options.restartPolicy}`);
  if (r.chance(0.3)) lines.push(`${ind(s)}serviceAccountName: ${app}`);
  if (profile === 'amd-apu') {
    lines.push(`${ind(s)}nodeSelector:`);
    lines.push(`${ind(s + 2)}amd.com/gpu.device-id: "${r.pick(['1586', '150e', '1114'])}"`);
  } else if (profile === 'gb10') {
    lines.push(`${ind(s)}affinity:`);
    lines.push(`${ind(s + 2)}nodeAffinity:`);
    lines.push(`${ind(s + 4)}requiredDuringSchedulingIgnoredDuringExecution:`);
    lines.push(`${ind(s + 6)}nodeSelectorTerms:`);
    lines.push(`${ind(s + 8)}- matchExpressions:`);
    lines.push(`${ind(s + 12)}- key: nvidia.com/gpu.product`);
    lines.push(`${ind(s + 14)}operator: In`);
    lines.push(`${ind(s + 14)}values: ["NVIDIA-GB10"]`);
  } else if (r.chance(0.3)) {
    lines.push(`${ind(s)}nodeSelector:`);
    lines.push(`${ind(s + 2)}kubernetes.io/os: linux`);
  }
  if (profile !== 'none' && r.chance(0.5)) {
    lines.push(`${ind(s)}tolerations:`);
    lines.push(`${ind(s + 2)}- key: ${profile === 'amd-apu' ? 'amd.com/gpu' : 'nvidia.com/gpu'}`);
    lines.push(`${ind(s + 4)}operator: Exists`);
    lines.push(`${ind(s + 4)}effect: NoSchedule`);
  }
  if (r.chance(0.15)) {
    lines.push(`${ind(s)}initContainers:`);
    lines.push(`${ind(s + 2)}- name: fetch-model`);
    lines.push(`${ind(s + 4)}image: busybox:1.36`);
    lines.push(`${ind(s + 4)}command: ["sh", "-c", "echo fetching"]`);
  }
  lines.push(`${ind(s)}containers:`);
  container(r, profile, s + 2, lines, app, configMaps);
  if (r.chance(0.25)) container(r, 'none', s + 2, lines, 'sidecar', configMaps);
  lines.push(`${ind(s)}volumes:`);
  lines.push(`${ind(s + 2)}- name: config`);
  lines.push(`${ind(s + 4)}configMap:`);
  lines.push(`${ind(s + 6)}name: ${configMaps[0] ?? `${app}-config`}`);
  if (profile !== 'none') {
    lines.push(`${ind(s + 2)}- name: dshm`);
    lines.push(`${ind(s + 4)}emptyDir:`);
    lines.push(`${ind(s + 6)}medium: Memory`);
    if (r.chance(0.6)) lines.push(`${ind(s + 6)}sizeLimit: ${r.pick(['1Gi', '8Gi', '16Gi'])}`);
  }
}

function metadata(r, lines, name, namespace) {
  lines.push('metadata:');
  lines.push(`  name: ${name}`);
  lines.push(`  namespace: ${namespace}`);
  lines.push('  labels:');
  lines.push(`    app.kubernetes.io/name: ${name}`);
  if (r.chance(0.4)) lines.push(`    app.kubernetes.io/version: "${r.int(1, 9)}.${r.int(0, 20)}.${r.int(0, 9)}"`);
}

const GENERATORS = {
  Deployment(r, name, namespace, configMaps) {
    const lines = ['apiVersion: apps/v1', 'kind: Deployment'];
    metadata(r, lines, name, namespace);
    lines.push(
      'spec:',
      `  replicas: ${r.int(1, 6)}`,
      '  selector:',
      '    matchLabels:',
      `      app.kubernetes.io/name: ${name}`,
      '  template:',
    );
    podTemplate(r, 4, lines, name, gpuProfile(r), configMaps);
    return lines;
  },
  StatefulSet(r, name, namespace, configMaps) {
    const lines = ['apiVersion: apps/v1', 'kind: StatefulSet'];
    metadata(r, lines, name, namespace);
    lines.push(
      'spec:',
      `  serviceName: ${name}`,
      `  replicas: ${r.int(1, 3)}`,
      '  selector:',
      '    matchLabels:',
      `      app.kubernetes.io/name: ${name}`,
      '  template:',
    );
    podTemplate(r, 4, lines, name, gpuProfile(r), configMaps);
    lines.push(
      '  volumeClaimTemplates:',
      '    - metadata:',
      '        name: data',
      '      spec:',
      '        accessModes: ["ReadWriteOnce"]',
      '        resources:',
      '          requests:',
      `            storage: ${r.pick(['10Gi', '100Gi', '1Ti'])}`,
    );
    return lines;
  },
  Job(r, name, namespace, configMaps) {
    const lines = ['apiVersion: batch/v1', 'kind: Job'];
    metadata(r, lines, name, namespace);
    lines.push('spec:', `  backoffLimit: ${r.int(0, 6)}`, '  template:');
    podTemplate(r, 4, lines, name, gpuProfile(r), configMaps, { restartPolicy: 'Never' });
    return lines;
  },
  Pod(r, name, namespace, configMaps) {
    const lines = ['apiVersion: v1', 'kind: Pod'];
    metadata(r, lines, name, namespace);
    lines.push('spec:');
    podTemplate(r, 0, lines, name, gpuProfile(r), configMaps, { bare: true });
    return lines;
  },
  ConfigMap(r, name, namespace) {
    const lines = ['apiVersion: v1', 'kind: ConfigMap'];
    metadata(r, lines, name, namespace);
    lines.push('data:');
    for (let i = r.int(1, 8); i > 0; i--) lines.push(`  ${r.pick(ENV_NAMES)}_${i}: "${r.pick(['info', '1', '/models/llama', 'true'])}"`);
    if (r.chance(0.3))
      lines.push(
        '  config.yaml: |',
        '    server:',
        `      port: ${r.int(1000, 9000)}`,
        '      workers: 4',
        '    model:',
        '      name: llama-3-8b',
      );
    if (r.chance(0.03)) lines.push('  CUDA_DISABLE_CONTROL: "true"');
    return lines;
  },
  Service(r, name, namespace) {
    const lines = ['apiVersion: v1', 'kind: Service'];
    metadata(r, lines, name, namespace);
    lines.push(
      'spec:',
      `  type: ${r.pick(['ClusterIP', 'ClusterIP', 'NodePort'])}`,
      '  selector:',
      `    app.kubernetes.io/name: ${name}`,
      '  ports:',
      '    - name: http',
      `      port: ${r.pick([80, 8000, 8080])}`,
      '      targetPort: http',
      '      protocol: TCP',
    );
    return lines;
  },
  RayCluster(r, name, namespace, configMaps) {
    const lines = ['apiVersion: ray.io/v1', 'kind: RayCluster'];
    metadata(r, lines, name, namespace);
    lines.push(
      'spec:',
      '  rayVersion: "2.40.0"',
      '  headGroupSpec:',
      '    rayStartParams:',
      '      dashboard-host: "0.0.0.0"',
      '    template:',
    );
    podTemplate(r, 6, lines, `${name}-head`, 'none', configMaps);
    lines.push('  workerGroupSpecs:');
    for (let g = r.int(1, 2); g > 0; g--) {
      lines.push(
        `    - groupName: gpu-${g}`,
        `      replicas: ${r.int(1, 4)}`,
        `      minReplicas: 0`,
        `      maxReplicas: ${r.int(4, 16)}`,
        '      rayStartParams: {}',
        '      template:',
      );
      podTemplate(r, 8, lines, `${name}-worker`, r.pick(['nvidia', 'hami', 'amd-apu', 'gb10']), configMaps);
    }
    return lines;
  },
};

// DRA (resource.k8s.io v1): templates in the drivers' shapes, and pods that claim them by name. A pod's template
// may be in another file, as in real repositories, so single-file lints see unresolved claims too.
const DRA_TEMPLATES = ['single-gpu', 'double-gpu', 'mig-small', 'apu-gpu', 'vgpu-10g', 'intel-gpu'];
const DRA_CLASSES = ['gpu.nvidia.com', 'mig.nvidia.com', 'gpu.amd.com', 'hami-core-gpu.project-hami.io', 'gpu.intel.com'];

/** A v1 ResourceClaimTemplate: `exactly` with a count, a CEL memory bound or a consumable memory request. */
export function draTemplate(r, name, namespace) {
  const deviceClass = r.pick(DRA_CLASSES);
  const lines = [
    'apiVersion: resource.k8s.io/v1',
    'kind: ResourceClaimTemplate',
    'metadata:',
    `  name: ${name}`,
    `  namespace: ${namespace}`,
    'spec:',
    '  spec:',
    '    devices:',
    '      requests:',
    '      - name: gpu',
    '        exactly:',
    `          deviceClassName: ${deviceClass}`,
  ];
  if (r.chance(0.4)) lines.push(`          count: ${r.int(1, 4)}`);
  if (deviceClass.startsWith('hami'))
    lines.push('          capacity:', '            requests:', `              memory: ${r.pick(['4Gi', '10Gi', '20Gi'])}`);
  else if (r.chance(0.5))
    lines.push(
      '          selectors:',
      '          - cel:',
      `              expression: "device.capacity['${deviceClass}'].memory.compareTo(quantity('${r.pick(['16Gi', '40Gi', '80Gi'])}')) >= 0"`,
    );
  return lines;
}

/** A Deployment whose containers get their GPU through a claim of `template`. */
export function draDeployment(r, name, namespace, template) {
  const lines = ['apiVersion: apps/v1', 'kind: Deployment'];
  metadata(r, lines, name, namespace);
  lines.push(
    'spec:',
    '  selector:',
    '    matchLabels:',
    `      app.kubernetes.io/name: ${name}`,
    '  template:',
    '    metadata:',
    '      labels:',
    `        app.kubernetes.io/name: ${name}`,
  );
  if (r.chance(0.3)) lines.push('      annotations:', '        gpumem.io/unified-memory: "true"');
  lines.push('    spec:', '      containers:', `      - name: ${name}`, `        image: ${r.pick(GPU_IMAGES)}`, '        resources:');
  if (r.chance(0.6)) lines.push('          limits:', `            memory: ${r.pick(['16Gi', '32Gi', '64Gi'])}`);
  lines.push(
    '          claims:',
    '          - name: gpu',
    '      resourceClaims:',
    '      - name: gpu',
    `        resourceClaimTemplateName: ${template}`,
  );
  return lines;
}

GENERATORS.ResourceClaimTemplate = (r, _name, namespace) => draTemplate(r, r.pick(DRA_TEMPLATES), namespace);
GENERATORS.DraDeployment = (r, name, namespace) => draDeployment(r, name, namespace, r.pick(DRA_TEMPLATES));

const KIND_WEIGHTS = [
  ['Deployment', 25],
  ['StatefulSet', 8],
  ['Job', 10],
  ['Pod', 10],
  ['ConfigMap', 20],
  ['Service', 20],
  ['RayCluster', 7],
  ['ResourceClaimTemplate', 3],
  ['DraDeployment', 5],
];

/** One multi-document file of `count` documents; `kinds` tallies what was generated. */
export function generateFile(r, count, kinds) {
  const docs = [];
  const configMaps = [];
  const namespace = r.pick(NAMESPACES);
  const helm = r.chance(0.2) ? r.pick(['gpu-stack', 'inference', 'ray']) : undefined;
  for (let i = 0; i < count; i++) {
    const kind = r.weighted(KIND_WEIGHTS);
    const name = `${r.pick(APPS)}-${r.int(1, 999)}`;
    const lines = GENERATORS[kind](r, name, namespace, configMaps);
    if (kind === 'ConfigMap') configMaps.push(name);
    if (helm) lines.unshift(`# Source: ${helm}/templates/${kind.toLowerCase()}.yaml`);
    kinds[kind] = (kinds[kind] ?? 0) + 1;
    docs.push(lines.join('\n'));
  }
  return `${docs.join('\n---\n')}\n`;
}

/** Files of 1–20 documents each until there are at least `minDocuments`. */
export function generateCorpus(seed, minDocuments) {
  const r = prng(seed);
  const files = [];
  const kinds = {};
  let documents = 0;
  while (documents < minDocuments) {
    const count = r.int(1, 20);
    files.push(generateFile(r, count, kinds));
    documents += count;
  }
  return { files, documents, kinds };
}

/** A file of exactly `lineCount` lines: GPU workloads, a Service, and a ConfigMap that fills the remaining lines. */
export function generateManifest(seed, lineCount) {
  const r = prng(seed);
  const configMaps = ['llm-config'];
  const docs = [];
  let lines = 0;
  const add = (docLines) => {
    docs.push(docLines.join('\n'));
    lines += docLines.length + (docs.length > 1 ? 1 : 0);
  };
  // Workloads until about 60 lines are left, then a Service and a ConfigMap sized to land exactly on lineCount.
  const kinds = ['Deployment', 'RayCluster', 'StatefulSet', 'Job'];
  for (let attempt = 0; attempt < 200 && lines < lineCount - 60; attempt++) {
    const kind = kinds[attempt % kinds.length];
    const candidate = GENERATORS[kind](r, `llm-${attempt}`, 'inference', configMaps);
    if (lines + candidate.length + 1 > lineCount - 25) continue;
    add(candidate);
  }
  add(GENERATORS.Service(r, 'llm', 'inference'));
  const header = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: llm-config', '  namespace: inference', 'data:'];
  const fill = lineCount - lines - 1 - header.length;
  if (fill < 1) throw new Error(`manifest generator overshot: ${lines} lines before the ConfigMap`);
  for (let i = 0; i < fill; i++) header.push(`  KEY_${i}: "${r.pick(['info', '1', '/models', 'true'])}"`);
  add(header);
  const text = `${docs.join('\n---\n')}\n`;
  const actual = text.split('\n').length - 1;
  if (actual !== lineCount) throw new Error(`manifest generator made ${actual} lines, not ${lineCount}`);
  return text;
}
