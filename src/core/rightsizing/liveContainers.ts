// Today's memory request and limit of each container of a live workload, and whether it uses a GPU, read from the
// object's pod template as the API returns it.
import { classifyGpuResource } from '../gpuResources.ts';
import { asArray, asString, path, stringMap } from '../kube/json.ts';
import { parseQuantity } from '../quantity.ts';
import { templatePathOf } from './changes.ts';

export interface LiveContainer {
  readonly name: string;
  readonly request: { readonly text: string; readonly bytes: number } | undefined;
  readonly limit: { readonly text: string; readonly bytes: number } | undefined;
  readonly usesGpu: boolean;
}

export type LiveTemplate =
  | { readonly kind: 'template'; readonly containers: readonly LiveContainer[]; readonly multipleGpuContainers: boolean }
  | { readonly kind: 'none'; readonly reason: string };

function memoryOf(resources: ReadonlyMap<string, string>): LiveContainer['request'] {
  const text = resources.get('memory');
  if (text === undefined) return undefined;
  const parsed = parseQuantity(text);
  return parsed.ok && !parsed.quantity.negative ? { text, bytes: parsed.quantity.value } : undefined;
}

export function liveContainers(object: unknown): LiveTemplate {
  const kind = asString(path(object, 'kind')) ?? '';
  const where = templatePathOf(kind, asString(path(object, 'apiVersion')) ?? '');
  if (where.kind === 'none') return where;
  const containers = asArray(path(object, ...where.path, 'spec', 'containers')).map((container): LiveContainer => {
    const requests = stringMap(path(container, 'resources', 'requests'));
    const limits = stringMap(path(container, 'resources', 'limits'));
    const usesGpu = [...requests.keys(), ...limits.keys()].some((name) => classifyGpuResource(name) !== undefined);
    return { name: asString(path(container, 'name')) ?? '', request: memoryOf(requests), limit: memoryOf(limits), usesGpu };
  });
  return { kind: 'template', containers, multipleGpuContainers: containers.filter((one) => one.usesGpu).length > 1 };
}
