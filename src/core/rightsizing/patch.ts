// Strategic-merge patches, one per workload: containers merge by name (their patchMergeKey), so each patch sets
// only the memory request and limit of the named containers and the pod template's annotations. Each document is
// usable as a kustomize `patches:` entry as it is (it names its target by apiVersion, kind, name and namespace).
import { stringify } from 'yaml';
import { templatePathOf } from './changes.ts';
import type { WorkloadChange } from './changes.ts';
import { fixedTemplatePath } from './podTemplates.ts';

export type PatchResult = { readonly kind: 'patch'; readonly text: string } | { readonly kind: 'none'; readonly reason: string };

export function strategicMergePatch(change: WorkloadChange): PatchResult {
  const where =
    change.template === undefined
      ? templatePathOf(change.ref.kind, change.ref.apiVersion)
      : fixedTemplatePath(change.ref.kind, change.ref.apiVersion, change.template);
  if (where.kind === 'none') return where;
  if (change.containers.length === 0 && change.annotations.size === 0) return { kind: 'none', reason: 'nothing to change' };
  const template: Record<string, unknown> = {};
  if (change.annotations.size > 0) template['metadata'] = { annotations: Object.fromEntries(change.annotations) };
  if (change.containers.length > 0) {
    template['spec'] = {
      containers: change.containers.map((one) => ({
        name: one.container,
        resources: { requests: { memory: one.memory }, limits: { memory: one.memory } },
      })),
    };
  }
  let body: Record<string, unknown> = template;
  for (let i = where.path.length - 1; i >= 0; i--) body = { [where.path[i]!]: body };
  const metadata: Record<string, string> = { name: change.ref.name };
  if (change.ref.namespace) metadata['namespace'] = change.ref.namespace;
  const document = { apiVersion: change.ref.apiVersion, kind: change.ref.kind, metadata, ...body };
  return { kind: 'patch', text: stringify(document, { version: '1.1' }) };
}

/**
 * One workload's patch from its changes (one per pod template): a multi-template workload gets one document per
 * template, and a comment for each template that has none (a RayCluster's worker group).
 */
export function workloadPatch(changes: readonly WorkloadChange[]): PatchResult {
  const [only] = changes;
  if (changes.length === 1 && only) return strategicMergePatch(only);
  const parts = changes.map((change) => ({ change, patch: strategicMergePatch(change) }));
  if (!parts.some((one) => one.patch.kind === 'patch'))
    return {
      kind: 'none',
      reason: parts.map((one) => (one.patch.kind === 'none' ? one.patch.reason : '')).join('; ') || 'nothing to change',
    };
  const text = parts.map(({ change, patch }) =>
    patch.kind === 'patch' ? patch.text : `# ${oneLine(change.template ?? 'template')}: no patch (${oneLine(patch.reason)})\n`,
  );
  return { kind: 'patch', text: text.join('---\n') };
}

/** Every workload's patch as one multi-document stream, with a comment for each workload that has none. */
export function patchStream(changes: readonly WorkloadChange[]): string {
  const parts: string[] = [];
  for (const change of changes) {
    const patch = strategicMergePatch(change);
    const name = `${change.ref.kind} ${change.ref.namespace ? `${change.ref.namespace}/` : ''}${change.ref.name}${change.template ? ` ${change.template}` : ''}`;
    parts.push(patch.kind === 'patch' ? patch.text : `# ${oneLine(name)}: no patch (${oneLine(patch.reason)})\n`);
  }
  return parts.join('---\n');
}

/** A comment is one line whatever the names hold. */
function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}
