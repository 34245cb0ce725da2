// Where a masked template action matters: only where it hides a value a rule judges. That is a GPU pod's
// template outside its non-GPU containers (the GPU containers' resources, env, securityContext, image; the pod's
// runtime class, annotations, claims, volumes, tolerations), and any container's `resources` whose keys or
// whole block come from a template (it may hide the GPU itself). A file whose actions all fall elsewhere (an
// Argo workflow of CPU steps, a chart's Service) gets no "not checked" notice: nothing judged was hidden.
import { isMap, isScalar } from 'yaml';
import type { Pair, YAMLMap } from 'yaml';
import type { Span } from '../findings.ts';
import type { ContainerModel, PodModel } from './podModel.ts';
import { isTemplated } from './source.ts';
import { keySpan, spanOf } from './yamlTree.ts';

export class TemplateRelevance {
  /** Regions of GPU pods, less `#excluded`. */
  readonly #gpuPods: Span[] = [];
  readonly #excluded: Span[] = [];
  /** Regions that count whatever else holds (a templated resources block). */
  readonly #always: Span[] = [];

  /** Records the regions of one pod template. */
  addPod(pod: PodModel, gpuContainers: readonly ContainerModel[]): void {
    const templateSpan = spanOf(pod.template);
    const end = templateSpan?.end ?? 0;
    const containers = [...pod.containers].sort((a, b) => (spanOf(a.node)?.start ?? 0) - (spanOf(b.node)?.start ?? 0));
    const gpu = new Set(gpuContainers);
    for (const [index, container] of containers.entries()) {
      const start = spanOf(container.node)?.start;
      if (start === undefined) continue;
      const next = spanOf(containers[index + 1]?.node)?.start;
      const regionEnd = next ?? Math.max(spanOf(container.node)?.end ?? start, end);
      if (gpuContainers.length > 0 && !gpu.has(container)) this.#excluded.push({ start, end: regionEnd });
      const hidden = hiddenResources(container, regionEnd);
      if (hidden) this.#always.push(hidden);
    }
    if (gpuContainers.length > 0 && templateSpan) this.#gpuPods.push(templateSpan);
  }

  /** The first of the offsets (ascending) that falls where a masked action hides a judged value. Linear after sorting. */
  firstCovered(offsets: readonly number[]): number | undefined {
    const always = union(this.#always);
    const pods = union(this.#gpuPods);
    const excluded = union(this.#excluded);
    let a = 0;
    let p = 0;
    let x = 0;
    for (const offset of offsets) {
      while (a < always.length && (always[a]?.end ?? 0) <= offset) a++;
      while (p < pods.length && (pods[p]?.end ?? 0) <= offset) p++;
      while (x < excluded.length && (excluded[x]?.end ?? 0) <= offset) x++;
      if (inside(always[a], offset)) return offset;
      if (inside(pods[p], offset) && !inside(excluded[x], offset)) return offset;
    }
    return undefined;
  }
}

/**
 * The part of a container a masked action can hide its GPU in: the whole `resources` block when its value is a
 * template (`resources: {{ toYaml .Values.resources }}`, or `resources:` with the action on the next lines), the
 * templated keys of its limits and requests otherwise.
 */
function hiddenResources(container: ContainerModel, regionEnd: number): Span | undefined {
  const pair = container.resourcesPair;
  const key = keySpan(pair);
  if (!pair || !key) return undefined;
  const value = pair.value;
  if (value === null || value === undefined || (isScalar(value) && (value.value === null || isTemplated(String(value.value)))))
    return { start: key.start, end: Math.max(nextKeyStart(container.node, pair) ?? regionEnd, key.end) };
  if (!isMap(value)) return undefined;
  const templatedKeys = [...container.limits.entries.values(), ...container.requests.entries.values()].filter((entry) =>
    isTemplated(entry.name),
  );
  if (templatedKeys.length === 0) return undefined;
  const span = spanOf(value);
  return span ? { start: key.start, end: span.end } : undefined;
}

function nextKeyStart(node: YAMLMap, pair: Pair): number | undefined {
  const index = node.items.indexOf(pair as (typeof node.items)[number]);
  return index >= 0 ? keySpan(node.items[index + 1])?.start : undefined;
}

function inside(span: Span | undefined, offset: number): boolean {
  return span !== undefined && span.start <= offset && offset < span.end;
}

/** Overlapping and nested spans merged into ascending disjoint ones. */
function union(spans: readonly Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  for (const span of sorted) {
    const last = out[out.length - 1];
    if (last && span.start <= last.end) out[out.length - 1] = { start: last.start, end: Math.max(last.end, span.end) };
    else out.push(span);
  }
  return out;
}
