// A typed, span-carrying view of one pod template: what the rules read. Built once per template;
// fields of the wrong YAML type are recorded as shape problems instead of throwing.
import { isMap, isSeq } from 'yaml';
import type { Node, YAMLMap, YAMLSeq } from 'yaml';
import type { ObjectRef, Span } from '../findings.ts';
import { buildContainer, resourceBlock } from './containerModel.ts';
import type { ContainerModel, ResourceBlock } from './containerModel.ts';
import { describeNode, isNullScalar, isTemplatedScalar, located } from './nodeValues.ts';
import type { Located } from './nodeValues.ts';
import { POD_TEMPLATE } from './podShape.ts';
import type { PodShape } from './podShape.ts';
import { parseSchedulerAnnotations } from './schedulerAnnotations.ts';
import type { SchedulerAnnotations } from './schedulerAnnotations.ts';
import { keySpan, spanOf } from './yamlTree.ts';
import type { YamlTree } from './yamlTree.ts';

// The container and value types live beside the code that builds them; the rules import them from here.
export type {
  ContainerClaimRef,
  ContainerModel,
  ContainerRole,
  EnvFromSource,
  EnvVar,
  GpuUse,
  ResourceBlock,
  ResourceEntry,
} from './containerModel.ts';
export type { Located } from './nodeValues.ts';
export { describeNode, truncate } from './nodeValues.ts';

/**
 * A `spec.resourceClaims[]` entry. Kubernetes 1.31+ put the reference on the entry itself; 1.26–1.30 nested
 * it under `source` (both are read).
 */
export type PodClaimRef =
  | { readonly kind: 'template'; readonly name: string; readonly target: string; readonly span: Span }
  | { readonly kind: 'claim'; readonly name: string; readonly target: string; readonly span: Span }
  | { readonly kind: 'none'; readonly name: string; readonly span: Span };

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

export function buildPodModel(
  tree: YamlTree,
  object: ObjectRef,
  objectRoot: Node,
  template: YAMLMap,
  role: string | undefined,
  shape: PodShape = POD_TEMPLATE,
): PodModel {
  const problems: ShapeProblem[] = [];
  // A whole value from a Helm action (`resources: {{ toYaml .Values.resources | nindent 12 }}`) is unknown, not misshapen.
  const expectMap = (node: Node | undefined, what: string): YAMLMap | undefined => {
    if (node === undefined || isNullScalar(node) || isTemplatedScalar(node)) return undefined;
    if (isMap(node)) return node;
    problems.push({
      span: spanOf(node) ?? { start: 0, end: 0 },
      message: `${what} should be a mapping, found ${describeNode(node)}; gpumem skipped what it holds`,
    });
    return undefined;
  };
  const expectSeq = (node: Node | undefined, what: string): YAMLSeq | undefined => {
    if (node === undefined || isNullScalar(node) || isTemplatedScalar(node)) return undefined;
    if (isSeq(node)) return node;
    problems.push({
      span: spanOf(node) ?? { start: 0, end: 0 },
      message: `${what} should be a list, found ${describeNode(node)}; gpumem skipped what it holds`,
    });
    return undefined;
  };

  const annotations = new Map<string, Located<string>>();
  const podAnnotations = new Map<string, Located<string>>();
  const templateMetadata = expectMap(tree.get(template, 'metadata'), 'metadata');
  const objectMetadata = objectRoot === template ? undefined : tree.map(tree.get(objectRoot, 'metadata'));
  const objectAnnotations = objectMetadata ? tree.get(objectMetadata, 'annotations') : undefined;
  const sources: Array<[Node | undefined, string, boolean]> = [
    [objectAnnotations, 'metadata.annotations', shape.objectAnnotationsReachPods === true],
  ];
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
      if (node)
        containers.push(
          buildContainer(
            tree,
            node,
            0,
            source,
            where,
            expectMap,
            expectSeq,
            source.operatorDefaults ? shape.operatorMemoryLimit : undefined,
          ),
        );
      continue;
    }
    const seq = expectSeq(found, where);
    if (!seq) continue;
    seq.items.forEach((item, index) => {
      const node = expectMap(tree.resolve(item), `${where}[${index}]`);
      if (!node) return;
      const defaulted = source.operatorDefaults === 'each' || (source.operatorDefaults === 'first' && index === 0);
      containers.push(
        buildContainer(
          tree,
          node,
          index,
          source,
          `${where}[${index}]`,
          expectMap,
          expectSeq,
          defaulted ? shape.operatorMemoryLimit : undefined,
        ),
      );
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
    resourceClaims.set(
      name,
      template !== undefined
        ? { kind: 'template', name, target: template, span }
        : claim !== undefined
          ? { kind: 'claim', name, target: claim, span }
          : { kind: 'none', name, span },
    );
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
