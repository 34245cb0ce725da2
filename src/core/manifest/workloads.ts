// Where each workload kind keeps its pod templates. A new kind is one entry in KINDS.
import { isMap } from 'yaml';
import type { Node, YAMLMap } from 'yaml';
import type { YamlTree } from './yamlTree.ts';

/**
 * A path from the object root to a pod template (a mapping with `metadata` and `spec`).
 * `[]` steps into every item of a sequence, `{}` into every value of a mapping; `.` means the object itself.
 */
type TemplatePath = readonly string[];

interface KindEntry {
  readonly kind: string;
  /** API groups (the part of apiVersion before `/`; '' for the core group). */
  readonly groups: readonly string[];
  readonly templates: readonly TemplatePath[];
}

const APPS = ['apps', 'extensions', 'apps.openshift.io'];
const BATCH = ['batch'];

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
    templates: [['spec', 'headGroupSpec', 'template'], ['spec', 'workerGroupSpecs', '[]', 'template']],
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
    templates: [['spec', 'rayClusterConfig', 'headGroupSpec', 'template'], ['spec', 'rayClusterConfig', 'workerGroupSpecs', '[]', 'template']],
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
    templates: [['spec', 'leaderWorkerTemplate', 'leaderTemplate'], ['spec', 'leaderWorkerTemplate', 'workerTemplate']],
  },
  { kind: 'Job', groups: ['batch.volcano.sh'], templates: [['spec', 'tasks', '[]', 'template']] },
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

export interface PodTemplateRef {
  /** The mapping holding the pod's `metadata` and `spec`. */
  readonly template: YAMLMap;
  /** Which template of a multi-template kind this is, e.g. `workerGroupSpecs[gpu-workers]`; undefined for single-template kinds. */
  readonly role: string | undefined;
}

export function findPodTemplates(tree: YamlTree, root: Node, entry: KindEntry): PodTemplateRef[] {
  const found: PodTemplateRef[] = [];
  const multiple = entry.templates.length > 1 || entry.templates.some((path) => path.includes('[]') || path.includes('{}'));
  for (const path of entry.templates) {
    walk(tree, root, path, 0, [], (template, labels) => {
      found.push({ template, role: multiple ? roleName(path, labels) : undefined });
    });
  }
  return found;
}

function walk(tree: YamlTree, node: Node | undefined, path: TemplatePath, step: number, labels: string[], visit: (template: YAMLMap, labels: string[]) => void): void {
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

function roleName(path: TemplatePath, labels: string[]): string {
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
