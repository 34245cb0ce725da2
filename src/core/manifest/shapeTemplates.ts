// Pod specs found by their shape, in objects of kinds (or API versions) whose pod templates the kind table
// (workloads.ts) does not place: KServe ServingRuntime, Kubeflow Notebook, OpenKruise CloneSet, NIMService, Spark
// applications, an operator's older API version that keeps its templates elsewhere. A pod spec is a mapping whose
// `containers` is a list of mappings that each have a `name` and an `image`; a pod template is a mapping whose `spec`
// is one. Each mapping and list is visited once and only a few levels deep, so the cost stays linear in the object.
import { isMap, isSeq } from 'yaml';
import type { Node, YAMLMap } from 'yaml';
import { INLINE_POD_SPEC, POD_TEMPLATE } from './podShape.ts';
import type { PodTemplateRef } from './workloads.ts';
import type { YamlTree } from './yamlTree.ts';

/** Deep enough for `spec.replicaSpecs[0].template.spec` and the like; a pod spec deeper than this is not looked for. */
const MAX_DEPTH = 10;
/** Keys that never hold the object's pods: what the API server writes back, and the object's own metadata. */
const SKIPPED_KEYS = new Set(['status', 'metadata']);
/** A pod spec's own container lists: read with the pod, never searched again for pods. */
const POD_SPEC_CONTAINER_KEYS = new Set(['containers', 'initContainers', 'ephemeralContainers']);

/** A list of containers: at least one item, and every mapping item has a `name` and an `image`. */
function isContainerList(tree: YamlTree, node: Node | undefined): boolean {
  const items = tree.items(node);
  if (items.length === 0) return false;
  for (const item of items) {
    if (!isMap(tree.resolve(item))) return false;
    if (tree.text(tree.get(item, 'name')) === undefined || tree.get(item, 'image') === undefined) return false;
  }
  return true;
}

function isPodSpec(tree: YamlTree, node: Node | undefined): boolean {
  return isMap(tree.resolve(node)) && isContainerList(tree, tree.get(node, 'containers'));
}

/**
 * The pod templates and inline pod specs of an object, each with its path from the object (`spec.workerSpec`,
 * `spec.replicaSpecs[0].template`) as its role, outermost first; none when the object holds no pod spec.
 */
export function findPodTemplatesByShape(tree: YamlTree, root: Node): PodTemplateRef[] {
  const found: PodTemplateRef[] = [];
  // Each node once, however many aliases name it: walking an anchor again per alias would be quadratic.
  const seen = new Set<Node>();
  const visit = (node: Node | undefined, path: string, depth: number, isRoot: boolean): void => {
    const resolved = tree.resolve(node);
    if (!resolved || depth > MAX_DEPTH || seen.has(resolved)) return;
    seen.add(resolved);
    if (isMap(resolved)) {
      // The object's own `spec` is a pod spec (ServingRuntime): inline. Below the root, a mapping whose `spec` is a
      // pod spec is a pod template (metadata + spec); a mapping that is a pod spec itself is inline.
      if (!isRoot && isPodSpec(tree, tree.get(resolved, 'spec'))) {
        found.push({ template: resolved as YAMLMap, role: path, shape: POD_TEMPLATE });
        return;
      }
      // An inline pod spec can hold another beside its containers (ServingRuntime's `workerSpec` under its `spec`).
      const inline = !isRoot && isPodSpec(tree, resolved);
      if (inline) found.push({ template: resolved as YAMLMap, role: path, shape: INLINE_POD_SPEC });
      for (const { key, pair } of tree.entries(resolved)) {
        if (isRoot ? SKIPPED_KEYS.has(key) : key === 'status') continue;
        if (inline && POD_SPEC_CONTAINER_KEYS.has(key)) continue;
        visit(tree.resolve(pair.value), path === '' ? key : `${path}.${key}`, depth + 1, false);
      }
    } else if (isSeq(resolved)) {
      tree.items(resolved).forEach((item, index) => visit(item, `${path}[${index}]`, depth + 1, false));
    }
  };
  visit(root, '', 0, true);
  return found;
}
