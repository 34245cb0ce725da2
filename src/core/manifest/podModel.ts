// A typed, span-carrying view of one pod template: what the rules read. Built once per template;
// fields of the wrong YAML type are recorded as shape problems instead of throwing.
import { isMap, isScalar, isSeq } from 'yaml';
import type { Node, Pair, YAMLMap, YAMLSeq } from 'yaml';
import type { ObjectRef, Span } from '../findings.ts';
import { parseQuantity } from '../quantity.ts';
import type { Quantity } from '../quantity.ts';
import { classifyGpuResource } from '../gpuResources.ts';
import type { GpuResourceInfo } from '../gpuResources.ts';
import { POD_TEMPLATE } from './podShape.ts';
import type { ContainerSource, PodShape } from './podShape.ts';
import { parseSchedulerAnnotations } from './schedulerAnnotations.ts';
import type { AnnotatedGpu, SchedulerAnnotations } from './schedulerAnnotations.ts';
import { isTemplated, placeholderIn, TEMPLATE_SENTINEL } from './source.ts';
import { keySpan, spanOf } from './yamlTree.ts';
import type { YamlTree } from './yamlTree.ts';

export interface Located<T> {
  readonly value: T;
  readonly span: Span;
}

export interface ResourceEntry {
  readonly name: string;
  /** The quantity as written; undefined for null or non-scalar values. */
  readonly text: string | undefined;
  readonly quantity: Quantity | undefined;
  /** Why the value is not a valid quantity (unset when valid or templated). */
  readonly invalid: string | undefined;
  /** The value comes from an unrendered template action or is a placeholder (`${MEM}`), and cannot be judged. */
  readonly templated: boolean;
  readonly keySpan: Span;
  readonly valueSpan: Span;
  readonly pair: Pair;
}

export interface ResourceBlock {
  readonly map: YAMLMap | undefined;
  readonly pair: Pair | undefined;
  readonly entries: ReadonlyMap<string, ResourceEntry>;
}

export interface GpuUse {
  readonly name: string;
  readonly info: GpuResourceInfo;
  /** The limit entry when there is one (extended resources are set in limits), else the request. */
  readonly entry: ResourceEntry;
}

/** A container's `resources.claims[]` entry: a pod-level DRA claim it uses, optionally one request of it. */
export interface ContainerClaimRef {
  readonly name: string;
  /** `request`: only this request of the claim is made available to the container. */
  readonly request: string | undefined;
  readonly span: Span;
}

/**
 * A `spec.resourceClaims[]` entry. Kubernetes 1.31+ put the reference on the entry itself; 1.26–1.30 nested
 * it under `source` (both are read).
 */
export type PodClaimRef =
  | { readonly kind: 'template'; readonly name: string; readonly target: string; readonly span: Span }
  | { readonly kind: 'claim'; readonly name: string; readonly target: string; readonly span: Span }
  | { readonly kind: 'none'; readonly name: string; readonly span: Span };

export interface EnvVar {
  readonly name: string;
  /** The literal value; undefined when it comes from valueFrom or is absent. */
  readonly value: string | undefined;
  readonly fromValueFrom: boolean;
  readonly nameSpan: Span;
  readonly valueSpan: Span | undefined;
  /** The whole list item (`- name: … value: …`), for removal. */
  readonly item: Node;
}

export interface EnvFromSource {
  readonly configMapName: string | undefined;
  readonly secretName: string | undefined;
  readonly prefix: string;
  readonly span: Span;
}

export type ContainerRole = 'container' | 'init' | 'sidecar' | 'ephemeral';

export interface ContainerModel {
  readonly name: string;
  readonly index: number;
  readonly role: ContainerRole;
  readonly node: YAMLMap;
  /** The container's `name` value, or the start of its mapping when it has none. */
  readonly nameSpan: Span;
  readonly image: Located<string> | undefined;
  readonly resourcesPair: Pair | undefined;
  readonly limits: ResourceBlock;
  readonly requests: ResourceBlock;
  readonly gpu: readonly GpuUse[];
  /** Who sets a default memory limit on this container when it has none (KServe on its model container). */
  readonly operatorMemoryLimit: string | undefined;
  /** A GPU share that a scheduler gives this container through pod annotations (KAI Scheduler / Run:ai gpu-fraction). */
  readonly annotatedGpu: AnnotatedGpu | undefined;
  /** DRA claims the container uses (`resources.claims[]`); whether they are GPUs is decided in gpuSource.ts. */
  readonly claims: readonly ContainerClaimRef[];
  readonly env: readonly EnvVar[];
  readonly envFrom: readonly EnvFromSource[];
  readonly privileged: Located<boolean> | undefined;
  readonly readOnlyRootFilesystem: Located<boolean> | undefined;
  /** Words of `command` and `args`. */
  readonly commandWords: readonly Located<string>[];
  readonly volumeMounts: readonly { readonly name: string; readonly mountPath: string | undefined; readonly span: Span }[];
}

export interface VolumeModel {
  readonly name: string;
  readonly span: Span;
  readonly hostPath: Located<string> | undefined;
  readonly emptyDirMedium: Located<string> | undefined;
  readonly emptyDirSizeLimit: Located<string> | undefined;
}

export interface TolerationModel {
  readonly key: string | undefined;
  readonly operator: string | undefined;
  readonly value: string | undefined;
  readonly effect: string | undefined;
}

export interface ShapeProblem {
  readonly span: Span;
  readonly message: string;
}

export interface PodModel {
  readonly tree: YamlTree;
  readonly object: ObjectRef;
  readonly role: string | undefined;
  readonly template: YAMLMap;
  readonly spec: YAMLMap | undefined;
  /** Annotations of the workload and of its pod template (the template's win). */
  readonly annotations: ReadonlyMap<string, Located<string>>;
  /** The annotations the pod itself gets (its template's, not the workload's): what schedulers read. */
  readonly podAnnotations: ReadonlyMap<string, Located<string>>;
  /** GPU sharing requested through pod annotations, and what is wrong with those annotations. */
  readonly schedulerAnnotations: SchedulerAnnotations;
  /** Where new pod-template annotations go: the template's metadata mapping, if any. */
  readonly templateMetadata: YAMLMap | undefined;
  readonly containers: readonly ContainerModel[];
  readonly volumes: ReadonlyMap<string, VolumeModel>;
  readonly schedulerName: Located<string> | undefined;
  readonly runtimeClassName: Located<string> | undefined;
  readonly tolerations: readonly TolerationModel[];
  readonly tolerationsSpan: Span | undefined;
  /** `spec.resourceClaims[]` by name. */
  readonly resourceClaims: ReadonlyMap<string, PodClaimRef>;
  /** Pod-level resources (`spec.resources`, beta in Kubernetes 1.34): they bound all containers together. */
  readonly podLimits: ResourceBlock;
  readonly podRequests: ResourceBlock;
  readonly shapeProblems: readonly ShapeProblem[];
}

export function buildPodModel(tree: YamlTree, object: ObjectRef, objectRoot: Node, template: YAMLMap, role: string | undefined, shape: PodShape = POD_TEMPLATE): PodModel {
  const problems: ShapeProblem[] = [];
  // A whole value from a Helm action (`resources: {{ toYaml .Values.resources | nindent 12 }}`) is unknown, not misshapen.
  const expectMap = (node: Node | undefined, what: string): YAMLMap | undefined => {
    if (node === undefined || isNullScalar(node) || isTemplatedScalar(node)) return undefined;
    if (isMap(node)) return node;
    problems.push({ span: spanOf(node) ?? { start: 0, end: 0 }, message: `${what} should be a mapping, found ${describeNode(node)}; gpumem skipped what it holds` });
    return undefined;
  };
  const expectSeq = (node: Node | undefined, what: string): YAMLSeq | undefined => {
    if (node === undefined || isNullScalar(node) || isTemplatedScalar(node)) return undefined;
    if (isSeq(node)) return node;
    problems.push({ span: spanOf(node) ?? { start: 0, end: 0 }, message: `${what} should be a list, found ${describeNode(node)}; gpumem skipped what it holds` });
    return undefined;
  };

  const annotations = new Map<string, Located<string>>();
  const podAnnotations = new Map<string, Located<string>>();
  const templateMetadata = expectMap(tree.get(template, 'metadata'), 'metadata');
  const objectMetadata = objectRoot === template ? undefined : tree.map(tree.get(objectRoot, 'metadata'));
  const objectAnnotations = objectMetadata ? tree.get(objectMetadata, 'annotations') : undefined;
  const sources: Array<[Node | undefined, string, boolean]> = [[objectAnnotations, 'metadata.annotations', shape.objectAnnotationsReachPods === true]];
  for (const path of shape.annotationPaths) sources.push([tree.path(template, ...path), path.join('.'), true]);
  for (const [node, what, reachesPod] of sources) {
    const map = node ? expectMap(node, what) : undefined;
    for (const { key, pair } of tree.entries(map)) {
      const value = tree.text(pair.value) ?? '';
      const annotation = { value, span: spanOf(pair.value) ?? keySpan(pair) ?? { start: 0, end: 0 } };
      annotations.set(key, annotation);
      if (reachesPod) podAnnotations.set(key, annotation);
    }
  }

  const prefix = shape.layout === 'template' ? 'spec.' : '';
  const spec = shape.layout === 'template' ? expectMap(tree.get(template, 'spec'), 'spec') : template;
  const containers: ContainerModel[] = [];
  for (const source of shape.containers) {
    const where = `${prefix}${source.path.join('.')}`;
    const found = tree.path(spec, ...source.path);
    if (source.single) {
      const node = expectMap(found, where);
      if (node) containers.push(buildContainer(tree, node, 0, source, where, expectMap, expectSeq, source.operatorDefaults ? shape.operatorMemoryLimit : undefined));
      continue;
    }
    const seq = expectSeq(found, where);
    if (!seq) continue;
    seq.items.forEach((item, index) => {
      const node = expectMap(tree.resolve(item), `${where}[${index}]`);
      if (!node) return;
      const defaulted = source.operatorDefaults === 'each' || (source.operatorDefaults === 'first' && index === 0);
      containers.push(buildContainer(tree, node, index, source, `${where}[${index}]`, expectMap, expectSeq, defaulted ? shape.operatorMemoryLimit : undefined));
    });
  }

  const schedulerAnnotations = parseSchedulerAnnotations(podAnnotations, containers);
  const { targetIndex, gpu: annotatedGpu } = schedulerAnnotations;
  const annotated = targetIndex === undefined ? undefined : containers[targetIndex];
  if (targetIndex !== undefined && annotated && annotatedGpu) containers[targetIndex] = { ...annotated, annotatedGpu };

  const volumes = new Map<string, VolumeModel>();
  const volumeSeq = expectSeq(tree.get(spec, 'volumes'), 'spec.volumes');
  for (const item of volumeSeq ? tree.items(volumeSeq) : []) {
    const name = tree.text(tree.get(item, 'name'));
    if (name === undefined) continue;
    const hostPath = located(tree, tree.path(item, 'hostPath', 'path'));
    const emptyDir = tree.map(tree.get(item, 'emptyDir'));
    volumes.set(name, {
      name,
      span: spanOf(item) ?? { start: 0, end: 0 },
      hostPath,
      emptyDirMedium: emptyDir ? located(tree, tree.get(emptyDir, 'medium')) : undefined,
      emptyDirSizeLimit: emptyDir ? located(tree, tree.get(emptyDir, 'sizeLimit')) : undefined,
    });
  }

  const tolerationsNode = tree.get(spec, 'tolerations');
  const tolerationSeq = expectSeq(tolerationsNode, 'spec.tolerations');
  const tolerations: TolerationModel[] = (tolerationSeq ? tree.items(tolerationSeq) : []).map((item) => ({
    key: tree.text(tree.get(item, 'key')),
    operator: tree.text(tree.get(item, 'operator')),
    value: tree.text(tree.get(item, 'value')),
    effect: tree.text(tree.get(item, 'effect')),
  }));

  const resourceClaims = new Map<string, PodClaimRef>();
  let claimSeq = expectSeq(tree.get(spec, 'resourceClaims'), 'spec.resourceClaims');
  for (const path of claimSeq ? [] : (shape.inheritedResourceClaims ?? [])) {
    claimSeq = tree.seq(path.reduce<Node | undefined>((node, key) => tree.get(node, key), objectRoot));
    if (claimSeq) break;
  }
  for (const item of claimSeq ? tree.items(claimSeq) : []) {
    const name = tree.text(tree.get(item, 'name'));
    if (name === undefined || resourceClaims.has(name)) continue;
    const source = tree.map(tree.get(item, 'source')) ?? item;
    const templateNode = tree.get(item, 'resourceClaimTemplateName') ?? tree.get(source, 'resourceClaimTemplateName');
    const claimNode = tree.get(item, 'resourceClaimName') ?? tree.get(source, 'resourceClaimName');
    const template = tree.text(templateNode);
    const claim = tree.text(claimNode);
    const span = spanOf(templateNode ?? claimNode) ?? spanOf(tree.get(item, 'name')) ?? { start: 0, end: 0 };
    resourceClaims.set(name, template !== undefined ? { kind: 'template', name, target: template, span } : claim !== undefined ? { kind: 'claim', name, target: claim, span } : { kind: 'none', name, span });
  }
  const podResources = expectMap(tree.get(spec, 'resources'), 'spec.resources');

  return {
    tree,
    object,
    role,
    template,
    spec,
    annotations,
    podAnnotations,
    schedulerAnnotations,
    templateMetadata,
    containers,
    volumes,
    schedulerName: located(tree, tree.get(spec, 'schedulerName')),
    runtimeClassName: located(tree, tree.get(spec, 'runtimeClassName')),
    tolerations,
    tolerationsSpan: keySpan(tree.pair(spec, 'tolerations')),
    resourceClaims,
    podLimits: resourceBlock(tree, podResources, 'limits', 'spec.resources', expectMap),
    podRequests: resourceBlock(tree, podResources, 'requests', 'spec.resources', expectMap),
    shapeProblems: problems,
  };
}

const TEMPLATE_RUN = new RegExp(`${TEMPLATE_SENTINEL}+`, 'g');

type ExpectMap = (node: Node | undefined, what: string) => YAMLMap | undefined;
type ExpectSeq = (node: Node | undefined, what: string) => YAMLSeq | undefined;

function buildContainer(
  tree: YamlTree,
  node: YAMLMap,
  index: number,
  source: ContainerSource,
  where: string,
  expectMap: ExpectMap,
  expectSeq: ExpectSeq,
  operatorMemoryLimit: string | undefined,
): ContainerModel {
  const namePair = tree.pair(node, 'name');
  // A name from an unrendered Helm action (`- name: {{ .Chart.Name }}`) is masking sentinels: show the action instead.
  const name = tree.text(namePair?.value)?.replace(TEMPLATE_RUN, '{{…}}') ?? source.defaultName ?? `#${index}`;
  const nameSpan = spanOf(namePair?.value) ?? keySpan(namePair) ?? containerStartSpan(tree, node);
  const baseRole = source.role;
  const role: ContainerRole = baseRole === 'init' && tree.text(tree.get(node, 'restartPolicy')) === 'Always' ? 'sidecar' : baseRole;

  const resourcesKey = source.resourcesKeys?.find((key) => tree.pair(node, key) !== undefined) ?? source.resourcesKeys?.[0] ?? 'resources';
  const resourcesPair = tree.pair(node, resourcesKey);
  const resources = expectMap(tree.resolve(resourcesPair?.value), `${where}.${resourcesKey}`);
  const limits = resourceBlock(tree, resources, 'limits', `${where}.${resourcesKey}`, expectMap);
  const requests = resourceBlock(tree, resources, 'requests', `${where}.${resourcesKey}`, expectMap);
  const gpu: GpuUse[] = [];
  const seen = new Set<string>();
  for (const block of [limits, requests]) {
    for (const entry of block.entries.values()) {
      if (seen.has(entry.name)) continue;
      const info = classifyGpuResource(entry.name);
      if (!info) continue;
      seen.add(entry.name);
      gpu.push({ name: entry.name, info, entry });
    }
  }

  const claims: ContainerClaimRef[] = [];
  const claimSeq = expectSeq(tree.get(resources, 'claims'), `${where}.resources.claims`);
  for (const item of claimSeq ? tree.items(claimSeq) : []) {
    const nameNode = tree.get(item, 'name');
    const claimName = tree.text(nameNode);
    if (claimName === undefined) continue;
    claims.push({ name: claimName, request: tree.text(tree.get(item, 'request')), span: spanOf(nameNode) ?? { start: 0, end: 0 } });
  }

  const env: EnvVar[] = [];
  const envSeq = expectSeq(tree.get(node, 'env'), `${where}.env`);
  for (const item of envSeq?.items ?? []) {
    const entry = tree.map(item);
    if (!entry) continue;
    const namePairEnv = tree.pair(entry, 'name');
    const envName = tree.text(namePairEnv?.value);
    if (envName === undefined) continue;
    const valuePair = tree.pair(entry, 'value');
    env.push({
      name: envName,
      value: tree.text(valuePair?.value) ?? (valuePair && isScalar(tree.resolve(valuePair.value)) ? '' : undefined),
      fromValueFrom: tree.pair(entry, 'valueFrom') !== undefined,
      nameSpan: spanOf(namePairEnv?.value) ?? { start: 0, end: 0 },
      valueSpan: spanOf(valuePair?.value),
      item: item as Node,
    });
  }

  const envFrom: EnvFromSource[] = [];
  const envFromSeq = expectSeq(tree.get(node, 'envFrom'), `${where}.envFrom`);
  for (const item of envFromSeq ? tree.items(envFromSeq) : []) {
    const configMapName = tree.text(tree.path(item, 'configMapRef', 'name'));
    const secretName = tree.text(tree.path(item, 'secretRef', 'name'));
    envFrom.push({
      configMapName,
      secretName,
      prefix: tree.text(tree.get(item, 'prefix')) ?? '',
      span: spanOf(tree.path(item, 'configMapRef', 'name')) ?? spanOf(item) ?? { start: 0, end: 0 },
    });
  }

  const securityContext = expectMap(tree.get(node, 'securityContext'), `${where}.securityContext`);
  const commandWords: Located<string>[] = [];
  for (const field of ['command', 'args']) {
    const words = tree.get(node, field);
    const seq = expectSeq(words, `${where}.${field}`);
    for (const word of seq ? tree.items(seq) : []) {
      const loc = located(tree, word);
      if (loc) commandWords.push(loc);
    }
  }
  const mountSeq = expectSeq(tree.get(node, 'volumeMounts'), `${where}.volumeMounts`);
  const volumeMounts = (mountSeq ? tree.items(mountSeq) : []).flatMap((mount) => {
    const mountName = tree.text(tree.get(mount, 'name'));
    if (mountName === undefined) return [];
    return [{ name: mountName, mountPath: tree.text(tree.get(mount, 'mountPath')), span: spanOf(tree.get(mount, 'name')) ?? { start: 0, end: 0 } }];
  });

  return {
    name,
    index,
    role,
    node,
    nameSpan,
    image: located(tree, tree.get(node, 'image')),
    resourcesPair,
    limits,
    requests,
    gpu,
    operatorMemoryLimit,
    annotatedGpu: undefined,
    claims,
    env,
    envFrom,
    privileged: locatedBool(tree, tree.pair(securityContext, 'privileged')),
    readOnlyRootFilesystem: locatedBool(tree, tree.pair(securityContext, 'readOnlyRootFilesystem')),
    commandWords,
    volumeMounts,
  };
}

/**
 * Where to point at a container written without a `name` (Knative and KServe allow it; KServe `model:`, Argo
 * `container:` never have one): the first key of its mapping, one line, where an empty span would not show.
 */
function containerStartSpan(tree: YamlTree, node: YAMLMap): Span {
  const first = node.items[0];
  const span = first ? keySpan(first) : undefined;
  return span ?? { start: node.range?.[0] ?? 0, end: node.range?.[0] ?? 0 };
}

function resourceBlock(tree: YamlTree, resources: YAMLMap | undefined, field: 'limits' | 'requests', where: string, expectMap: ExpectMap): ResourceBlock {
  const pair = tree.pair(resources, field);
  const map = expectMap(tree.resolve(pair?.value), `${where}.${field}`);
  const entries = new Map<string, ResourceEntry>();
  for (const { key, pair: entryPair } of tree.entries(map)) {
    const scalar = tree.scalar(entryPair.value);
    const text = tree.text(entryPair.value);
    const templated = (text !== undefined && (isTemplated(text) || placeholderIn(text) !== undefined)) || isTemplated(key);
    let quantity: Quantity | undefined;
    let invalid: string | undefined;
    if (!templated) {
      if (text === undefined) {
        invalid = scalar ? 'the value is empty' : `the value is ${describeNode(tree.resolve(entryPair.value))}, not a quantity`;
      } else {
        const parsed = parseQuantity(text);
        if (parsed.ok) quantity = parsed.quantity;
        else if (scalar && typeof scalar.value === 'number' && Number.isFinite(scalar.value)) {
          // A YAML number such as 0x10 that the API server receives as a JSON number.
          const fallback = parseQuantity(String(scalar.value));
          if (fallback.ok) quantity = fallback.quantity;
          else invalid = parsed.reason;
        } else invalid = parsed.reason;
      }
    }
    const kSpan = keySpan(entryPair) ?? { start: 0, end: 0 };
    entries.set(key, { name: key, text, quantity, invalid, templated, keySpan: kSpan, valueSpan: spanOf(entryPair.value) ?? kSpan, pair: entryPair });
  }
  return { map, pair, entries };
}

function located(tree: YamlTree, node: Node | undefined): Located<string> | undefined {
  const text = tree.text(node);
  const span = spanOf(node);
  return text !== undefined && span ? { value: text, span } : undefined;
}

function locatedBool(tree: YamlTree, pair: Pair | undefined): Located<boolean> | undefined {
  if (!pair) return undefined;
  const scalar = tree.scalar(pair.value);
  const span = spanOf(pair.value) ?? keySpan(pair);
  if (!scalar || !span) return undefined;
  const value = scalar.value === true || (typeof scalar.value === 'string' && /^(true|True|TRUE)$/.test(scalar.value));
  return { value, span };
}

function isNullScalar(node: Node): boolean {
  return isScalar(node) && (node.value === null || node.value === undefined);
}

function isTemplatedScalar(node: Node): boolean {
  return isScalar(node) && typeof node.value === 'string' && isTemplated(node.value);
}

export function describeNode(node: Node | undefined): string {
  if (node === undefined) return 'nothing';
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) {
    if (node.value === null) return 'null';
    if (typeof node.value === 'number') return `the number ${String(node.value)}`;
    if (typeof node.value === 'boolean') return `the boolean ${String(node.value)}`;
    return `the string "${truncate(String(node.value), 40)}"`;
  }
  return 'an unsupported node';
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
