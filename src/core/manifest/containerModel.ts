// A typed, span-carrying view of one container of a pod template, and of a `resources` block (containers
// and pod-level `spec.resources` share it). Built once per container by buildPodModel (podModel.ts).
import { isScalar } from 'yaml';
import type { Node, Pair, YAMLMap } from 'yaml';
import type { Span } from '../findings.ts';
import { parseQuantity } from '../quantity.ts';
import type { Quantity } from '../quantity.ts';
import { classifyGpuResource } from '../gpuResources.ts';
import type { GpuResourceInfo } from '../gpuResources.ts';
import { describeNode, located, locatedBool } from './nodeValues.ts';
import type { ExpectMap, ExpectSeq, Located } from './nodeValues.ts';
import type { ContainerRole, ContainerSource } from './podShape.ts';
export type { ContainerRole } from './podShape.ts';
import type { AnnotatedGpu } from './schedulerAnnotations.ts';
import { isTemplated, placeholderIn, TEMPLATE_SENTINEL } from './source.ts';
import { keySpan, spanOf } from './yamlTree.ts';
import type { YamlTree } from './yamlTree.ts';

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

const TEMPLATE_RUN = new RegExp(`${TEMPLATE_SENTINEL}+`, 'g');

export function buildContainer(
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
      // `nvidia.com/gpu: 0` asks for no device: a CPU-only variant of a GPU manifest, not a GPU container.
      if (info.role === 'count' && entry.quantity !== undefined && entry.quantity.value === 0) continue;
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
    return [
      {
        name: mountName,
        mountPath: tree.text(tree.get(mount, 'mountPath')),
        span: spanOf(tree.get(mount, 'name')) ?? { start: 0, end: 0 },
      },
    ];
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

export function resourceBlock(
  tree: YamlTree,
  resources: YAMLMap | undefined,
  field: 'limits' | 'requests',
  where: string,
  expectMap: ExpectMap,
): ResourceBlock {
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
    entries.set(key, {
      name: key,
      text,
      quantity,
      invalid,
      templated,
      keySpan: kSpan,
      valueSpan: spanOf(entryPair.value) ?? kSpan,
      pair: entryPair,
    });
  }
  return { map, pair, entries };
}
