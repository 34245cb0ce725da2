// The Kubernetes objects of one parsed document that the lint reads: workloads (to lint), ConfigMaps (for
// envFrom) and DRA claims and DeviceClasses (into the file's claim index); `kind: …List` items are followed a few levels deep.
import type { LimitRangeDefault } from './limitRange.ts';
import type { Document, Node } from 'yaml';
import type { ObjectRef } from '../findings.ts';
import type { ConfigMapModel } from '../rules/types.ts';
import { computeDomainClaimTemplate, isClaimKind, isDeviceClassKind, readClaimObject, readDeviceClass } from './draClaims.ts';
import type { ClaimIndex } from './draClaims.ts';
import type { Located } from './nodeValues.ts';
import { findPodTemplatesByShape } from './shapeTemplates.ts';
import { workloadEntry } from './workloads.ts';
import { spanOf } from './yamlTree.ts';
import type { YamlTree } from './yamlTree.ts';

const MAX_LIST_DEPTH = 4;

export interface WorkloadDoc {
  readonly tree: YamlTree;
  readonly root: Node;
  readonly object: ObjectRef;
}

export interface Collected {
  readonly workloads: WorkloadDoc[];
  readonly configMaps: ConfigMapModel[];
  readonly claims: ClaimIndex;
  readonly limitRanges: LimitRangeDefault[];
}

export function collectObjects(tree: YamlTree, root: Node, helmSource: string | undefined, into: Collected, depth: number): void {
  const kind = tree.text(tree.get(root, 'kind'));
  if (kind === undefined) return;
  const apiVersion = tree.text(tree.get(root, 'apiVersion'));
  const metadata = tree.get(root, 'metadata');
  const name = tree.text(tree.get(metadata, 'name'));
  const namespace = tree.text(tree.get(metadata, 'namespace'));
  if (kind.endsWith('List') && depth < MAX_LIST_DEPTH) {
    for (const item of tree.items(tree.get(root, 'items'))) collectObjects(tree, item, helmSource, into, depth + 1);
    return;
  }
  const channelTemplate = computeDomainClaimTemplate(tree, root, kind, apiVersion, namespace);
  if (channelTemplate) {
    into.claims.add(channelTemplate);
    return;
  }
  if (isClaimKind(kind, apiVersion)) {
    const claim = readClaimObject(tree, root, kind, apiVersion ?? '', name, namespace);
    if (claim) into.claims.add(claim);
    return;
  }
  if (isDeviceClassKind(kind, apiVersion)) {
    const deviceClass = readDeviceClass(tree, root, undefined);
    if (deviceClass) into.claims.addDeviceClass(deviceClass);
    return;
  }
  if (kind === 'ConfigMap' && name !== undefined) {
    const data = new Map<string, Located<string>>();
    for (const { key, pair } of tree.entries(tree.get(root, 'data'))) {
      const value = tree.text(pair.value);
      const span = spanOf(pair.value);
      if (value !== undefined && span) data.set(key, { value, span });
    }
    into.configMaps.push({ name, namespace, data });
    return;
  }
  if (kind === 'LimitRange') {
    for (const limit of tree.items(tree.get(tree.get(root, 'spec'), 'limits'))) {
      const type = tree.text(tree.get(limit, 'type'));
      const memory = tree.text(tree.get(tree.get(limit, 'default'), 'memory'));
      if ((type === undefined || type === 'Container') && memory !== undefined && memory.trim() !== '')
        into.limitRanges.push({ name, namespace, defaultMemory: memory.trim() });
    }
    return;
  }
  // A kind the table does not know is read when it holds a pod spec by shape (shapeTemplates.ts).
  if (!workloadEntry(kind, apiVersion) && findPodTemplatesByShape(tree, root).length === 0) return;
  const object: ObjectRef = {
    kind,
    ...(apiVersion !== undefined ? { apiVersion } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(helmSource !== undefined ? { helmSource } : {}),
  };
  into.workloads.push({ tree, root, object });
}

/** Helm's `# Source: chart/templates/x.yaml` line, found line by line (a regex here backtracked on long comments). */
export function helmSourceOf(doc: Document.Parsed): string | undefined {
  for (const comment of [doc.commentBefore, (doc.contents as { commentBefore?: string | null } | null)?.commentBefore]) {
    for (const line of comment ? comment.split('\n') : []) {
      const trimmed = line.trim();
      const source = trimmed.startsWith('Source:') ? trimmed.slice('Source:'.length).trim() : '';
      if (source !== '') return source;
    }
  }
  return undefined;
}
