// Today's memory request and limit of each container of a live workload, and whether it uses a GPU, read from each
// of the object's pod templates as the API returns it (podTemplates.ts: one for most kinds, several for a RayCluster
// or a LeaderWorkerSet).
import { classifyGpuResource } from '../gpuResources.ts';
import { asArray, asString, path, stringMap } from '../kube/json.ts';
import { parseQuantity } from '../quantity.ts';
import { atPath, isMultiTemplateLiveKind, templateSlots } from './podTemplates.ts';

export interface LiveContainer {
  readonly name: string;
  readonly request: { readonly text: string; readonly bytes: number } | undefined;
  readonly limit: { readonly text: string; readonly bytes: number } | undefined;
  readonly usesGpu: boolean;
}

export interface LivePodTemplate {
  /** The template's role (podTemplates.ts); undefined for a kind with one template. */
  readonly role: string | undefined;
  readonly containers: readonly LiveContainer[];
  readonly multipleGpuContainers: boolean;
}

export type LiveTemplates =
  { readonly kind: 'templates'; readonly templates: readonly LivePodTemplate[] } | { readonly kind: 'none'; readonly reason: string };

function memoryOf(resources: ReadonlyMap<string, string>): LiveContainer['request'] {
  const text = resources.get('memory');
  if (text === undefined) return undefined;
  const parsed = parseQuantity(text);
  return parsed.ok && !parsed.quantity.negative ? { text, bytes: parsed.quantity.value } : undefined;
}

export function liveTemplates(object: unknown): LiveTemplates {
  const kind = asString(path(object, 'kind')) ?? '';
  const apiVersion = asString(path(object, 'apiVersion')) ?? '';
  const slots = templateSlots(kind, apiVersion, object);
  if (slots.kind === 'none') return slots;
  const multiple = slots.slots.some((slot) => slot.role !== undefined);
  // Without a way to tell which pods run which template, no template's figures can be told apart.
  if (multiple && !isMultiTemplateLiveKind(kind, apiVersion))
    return { kind: 'none', reason: `${kind} has several pod templates and gpumem cannot tell which of its pods runs which` };
  const templates = slots.slots.map((slot): LivePodTemplate => {
    const containers = asArray(path(atPath(object, slot.path), 'spec', 'containers')).map((container): LiveContainer => {
      const requests = stringMap(path(container, 'resources', 'requests'));
      const limits = stringMap(path(container, 'resources', 'limits'));
      const usesGpu = [...requests.keys(), ...limits.keys()].some((name) => classifyGpuResource(name) !== undefined);
      return { name: asString(path(container, 'name')) ?? '', request: memoryOf(requests), limit: memoryOf(limits), usesGpu };
    });
    return { role: slot.role, containers, multipleGpuContainers: containers.filter((one) => one.usesGpu).length > 1 };
  });
  return { kind: 'templates', templates };
}
