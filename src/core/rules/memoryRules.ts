// Rules about host memory for GPU containers, above all on unified-memory nodes where GPU memory is RAM
// the pod's cgroup never sees.
import { ANNOTATIONS } from '../config.ts';
import { addEntryToMap, addEntryToPairValue, addNestedEntry, replaceScalar } from '../edits.ts';
import { keySpan } from '../manifest/yamlTree.ts';
import type { LimitRangeDefault } from '../manifest/limitRange.ts';
import type { QuickFix, TextEdit } from '../findings.ts';
import { describeNominal } from '../analysis/memoryBudget.ts';
import type { MemoryBudget } from '../analysis/memoryBudget.ts';
import type { ContainerModel, ResourceBlock, ResourceEntry } from '../manifest/podModel.ts';
import { formatBytes, suggestedMemoryQuantity } from '../sizing.ts';
import { computeQos } from '../kube/qos.ts';
import type { QosClass, QosQuantity, QosResource, QosResources } from '../kube/qos.ts';
import type { PodContext, Rule } from './types.ts';
import { ruleMetaOf } from './ruleMetaOf.ts';

const PLACEHOLDER = 'SET-ME';

function isUnified(context: PodContext): boolean {
  return context.unifiedMemory.kind === 'unified';
}

/** Edits that set resources.<block>.memory, creating the mappings that are missing. */
function setMemoryEdit(
  context: PodContext,
  container: ContainerModel,
  block: 'limits' | 'requests',
  value: string,
  comment?: string,
): TextEdit | undefined {
  const { text } = context.file;
  const target = block === 'limits' ? container.limits : container.requests;
  if (target.pair) return addEntryToPairValue(text, target.pair, 'memory', value, comment);
  const resources = context.pod.tree.map(container.resourcesPair?.value);
  if (resources && resources.items.length > 0) return addNestedEntry(text, resources, block, 'memory', value);
  if (container.resourcesPair) return addEntryToPairValue(text, container.resourcesPair, block, `{memory: ${value}}`);
  return addNestedEntry(text, container.node, 'resources', block, `{memory: ${value}}`);
}

function memoryLimitFixes(context: PodContext, container: ContainerModel, budget: MemoryBudget): QuickFix[] {
  const fixes: QuickFix[] = [];
  const value = budget.required !== undefined ? suggestedMemoryQuantity(budget.required) : undefined;
  if (budget.required !== undefined && value === undefined) return fixes;
  if (value !== undefined) {
    const limit = setMemoryEdit(context, container, 'limits', value);
    if (limit)
      fixes.push({
        title: `Set memory limit to ${value} (${describeNominal(budget, isUnified(context))} + ${context.config.headroomPercent} % headroom)`,
        edits: [limit],
        preferred: true,
      });
    if (limit && !budget.request && isUnified(context)) {
      const request = setMemoryEdit(context, container, 'requests', value);
      // Both may insert at the same place (limits is the last key of resources): then one edit carries both.
      const edits =
        request && request.start === limit.start && request.end === limit.end
          ? [{ start: limit.start, end: limit.end, newText: limit.newText + request.newText }]
          : request
            ? [limit, request]
            : [];
      if (edits.length > 0) fixes.push({ title: `Set memory limit and request to ${value} (Guaranteed memory)`, edits });
    }
  } else {
    const what = isUnified(context) ? 'host memory + GPU memory' : `host memory (${hostBuffers(container, 'buffers')})`;
    const limit = setMemoryEdit(
      context,
      container,
      'limits',
      PLACEHOLDER,
      `gpumem: set to ${what} + ${context.config.headroomPercent} % headroom`,
    );
    if (limit) fixes.push({ title: `Insert a ${PLACEHOLDER} memory limit placeholder to fill in`, edits: [limit], preferred: true });
  }
  return fixes;
}

export const gpuNoMemoryLimit: Rule = {
  meta: ruleMetaOf('gpu-no-memory-limit'),
  check(context) {
    // A pod-level limit (spec.resources, Kubernetes 1.34 beta) bounds every container; uma-headroom checks its size.
    if (context.pod.podLimits.entries.has('memory')) return;
    for (const container of context.gpuContainers) {
      if (container.limits.entries.has('memory')) continue;
      const unified = isUnified(context);
      const budget = context.budget(container);
      const need =
        budget.required !== undefined
          ? ` It needs about ${formatBytes(budget.required)} (${describeNominal(budget, unified)} + ${context.config.headroomPercent} %).`
          : '';
      const templated = templatedLimitsAction(context, container);
      if (templated !== undefined) {
        // `{{ toYaml .Values.x | nindent }}` inside limits: the memory limit may come from the values, unknown until rendered.
        context.report({
          ruleId: 'gpu-no-memory-limit',
          container,
          span: container.nameSpan,
          severity: 'info',
          unseen: 'template-values',
          message: `GPU container "${container.name}" may get its memory limit from a template action inside resources.limits (${templated}): unknown until the chart is rendered; lint the rendered output (helm template …) to check it.${need}`,
        });
        continue;
      }
      const limitRange = limitRangeDefaultFor(context);
      if (limitRange) {
        // The LimitRanger admission plugin gives the container this limit: a limit, not chosen for this workload.
        context.report({
          ruleId: 'gpu-no-memory-limit',
          container,
          span: container.nameSpan,
          severity: 'info',
          message: `GPU container "${container.name}" sets no memory limit, so the LimitRange "${limitRange.name ?? '?'}" in ${limitRange.namespace !== undefined ? `namespace ${limitRange.namespace}` : 'the same namespace'} (in this file) gives it its default, ${limitRange.defaultMemory}; make sure that covers the model's host memory${unified ? ' and, on this unified-memory node, its GPU memory' : ''}, or set resources.limits.memory.${need}`,
          fixes: memoryLimitFixes(context, container, budget),
        });
        continue;
      }
      if (container.operatorMemoryLimit) {
        // The operator's default is a limit, just not one chosen for this model: information, with the reason.
        context.report({
          ruleId: 'gpu-no-memory-limit',
          container,
          span: container.nameSpan,
          severity: 'info',
          message: `GPU container "${container.name}" sets no memory limit, so ${container.operatorMemoryLimit} applies its default limit; make sure that default covers the model's host memory${unified ? ' and, on this unified-memory node, its GPU memory' : ''}, or set resources.limits.memory.${need}`,
          fixes: memoryLimitFixes(context, container, budget),
        });
        continue;
      }
      context.report({
        ruleId: 'gpu-no-memory-limit',
        container,
        span: container.nameSpan,
        severity: unified ? 'error' : 'warning',
        message: unified
          ? `GPU container "${container.name}" has no memory limit on a unified-memory node: its GPU buffers are system RAM that no cgroup limit accounts for, so the node's global OOM killer decides instead.${need}`
          : `GPU container "${container.name}" has no memory limit: host-side buffers (${hostBuffers(container, 'memory')}) can grow until the node runs out of memory.${need}`,
        fixes: memoryLimitFixes(context, container, budget),
      });
    }
  },
};

/**
 * The template action (as written, cut short) on a line inside the container's `limits:` block, if any: the lines after
 * the `limits:` key indented deeper than it, read in the original text (the mask blanked action-only lines).
 */
function templatedLimitsAction(context: PodContext, container: ContainerModel): string | undefined {
  const actions = context.file.templateActions;
  const key = keySpan(container.limits.pair);
  if (actions === undefined || actions.length === 0 || !key) return undefined;
  const text = context.file.text;
  const lineStart = text.lastIndexOf('\n', key.start - 1) + 1;
  const indent = key.start - lineStart;
  let end = text.indexOf('\n', key.end);
  // Lines deeper than the key (or blank) belong to its block; the first line at its depth or shallower ends it.
  while (end >= 0 && end + 1 < text.length) {
    let at = end + 1;
    while (at < text.length && text[at] === ' ') at++;
    const blank = at >= text.length || text[at] === '\n' || text[at] === '\r';
    if (!blank && at - (end + 1) <= indent) break;
    end = text.indexOf('\n', at);
  }
  const blockEnd = end < 0 ? text.length : end;
  const action = actions.find((offset) => offset > key.end && offset < blockEnd);
  if (action === undefined) return undefined;
  const close = text.indexOf('}}', action);
  return text.slice(action, close < 0 ? Math.min(text.length, action + 60) : Math.min(close + 2, action + 60));
}

/**
 * What takes host memory beside the model, in the words of the container's accelerator: a CUDA context is NVIDIA's
 * (and the CUDA-compatible shares'), AMD and Hygon DCUs run HIP/ROCm, AWS Neuron its Neuron runtime, Gaudi SynapseAI.
 */
function hostBuffers(container: ContainerModel, pinned: 'memory' | 'buffers'): string {
  const vendor = container.gpu[0]?.info.vendor ?? '';
  const runtime =
    vendor === 'NVIDIA' ||
    vendor.includes('vCUDA') ||
    vendor.startsWith('Volcano') ||
    vendor.startsWith('Alibaba') ||
    vendor === 'AWS virtual GPU'
      ? 'CUDA context'
      : vendor === 'AMD' || vendor === 'Hygon'
        ? 'HIP/ROCm runtime'
        : vendor === 'AWS Neuron'
          ? 'Neuron runtime, host-side tensors'
          : vendor === 'Intel Gaudi'
            ? 'SynapseAI (Habana) runtime'
            : vendor === 'Intel'
              ? 'Level Zero / oneAPI runtime'
              : "the accelerator's runtime";
  return `${runtime}, pinned ${pinned}, data loaders`;
}

/** A LimitRange of the same file and namespace (both unset counts as the same) that defaults containers' memory limit. */
function limitRangeDefaultFor(context: PodContext): LimitRangeDefault | undefined {
  const namespace = context.pod.object.namespace;
  return context.file.limitRanges?.find((range) => range.namespace === namespace);
}

function raiseFix(context: PodContext, entry: ResourceEntry, what: string, value: string): QuickFix[] {
  const node = context.pod.tree.scalar(entry.pair.value);
  const edit = node ? replaceScalar(context.file.text, node, value) : undefined;
  return edit ? [{ title: `Raise memory ${what} to ${value}`, edits: [edit], preferred: true }] : [];
}

export const umaHeadroom: Rule = {
  meta: ruleMetaOf('uma-headroom'),
  check(context) {
    if (!isUnified(context)) return;
    const headroom = context.config.headroomPercent;
    for (const container of context.gpuContainers) {
      const budget = context.budget(container);
      if (budget.required === undefined || budget.nominal === undefined) continue;
      const required = budget.required;
      const target = suggestedMemoryQuantity(required);
      const nominal = describeNominal(budget, true);
      // Pod-level values bound all containers together: checked once below against the sum of their needs.
      const checks: Array<[ResourceEntry | undefined, number | undefined, string]> = [
        [budget.limitScope === 'container' ? budget.limit : undefined, budget.limitBytes, 'limit'],
        [
          budget.request && budget.requestScope === 'container' ? budget.request : undefined,
          budget.request ? budget.requestBytes : undefined,
          'request',
        ],
      ];
      for (const [entry, bytes, what] of checks) {
        if (!entry || bytes === undefined || bytes >= required) continue;
        const over = (bytes / budget.nominal - 1) * 100;
        const standing =
          over >= 0
            ? `leaves ${over.toFixed(0)} % over its nominal ${formatBytes(budget.nominal)}`
            : `is below its nominal ${formatBytes(budget.nominal)}`;
        context.report({
          ruleId: 'uma-headroom',
          container,
          span: entry.valueSpan,
          message: `Container "${container.name}": memory ${what} ${entry.text} ${standing} (${nominal}); unified-memory nodes need at least ${headroom} % (${formatBytes(required)}), because GTT memory is not charged to the pod's cgroup${what === 'request' ? ' and the request is what reserves that RAM on the node' : ''}.`,
          fixes: target !== undefined ? raiseFix(context, entry, what, target) : [],
        });
      }
    }
    checkPodLevel(context);
  },
};

/** The pod-level memory limit and request must hold the needs of all its GPU containers at once. */
function checkPodLevel(context: PodContext): void {
  const needs: { container: ContainerModel; required: number }[] = [];
  let total = 0;
  for (const container of context.gpuContainers) {
    const required = context.budget(container).required;
    if (required === undefined) continue;
    needs.push({ container, required });
    total += required;
  }
  const first = needs[0];
  if (!first) return;
  const listed = needs
    .slice(0, 4)
    .map(({ container, required }) => `"${container.name}" ${formatBytes(required)}`)
    .join(' + ');
  const breakdown = needs.length > 4 ? `${listed} + ${needs.length - 4} more` : listed;
  const target = suggestedMemoryQuantity(total);
  for (const [entry, what] of [
    [context.pod.podLimits.entries.get('memory'), 'limit'],
    [context.pod.podRequests.entries.get('memory'), 'request'],
  ] as const) {
    const bytes = entry?.quantity && !entry.quantity.negative ? entry.quantity.value : undefined;
    if (!entry || bytes === undefined || bytes >= total) continue;
    context.report({
      ruleId: 'uma-headroom',
      container: first.container,
      span: entry.valueSpan,
      message: `Pod-level memory ${what} ${entry.text} (spec.resources) is below what its GPU containers need together on a unified-memory node: ${breakdown}${needs.length > 1 ? ` = ${formatBytes(total)}` : ''} (declared memory + ${context.config.headroomPercent} % headroom), because GTT memory is not charged to the pod's cgroup. GPU container "${first.container.name}" is bounded by it.`,
      fixes: target !== undefined ? raiseFix(context, entry, what, target) : [],
    });
  }
}

export const umaGpuMemoryUndeclared: Rule = {
  meta: ruleMetaOf('uma-gpu-memory-undeclared'),
  check(context) {
    const verdict = context.unifiedMemory;
    if (verdict.kind !== 'unified') return;
    for (const container of context.gpuContainers) {
      const budget = context.budget(container);
      if (budget.gpuMemory.kind !== 'none') continue;
      const fixes: QuickFix[] = [];
      const metadata = context.pod.templateMetadata;
      const annotations = context.pod.tree.pair(metadata, 'annotations');
      const key = context.gpuContainers.length > 1 ? `${ANNOTATIONS.gpuMemory}.${container.name}` : ANNOTATIONS.gpuMemory;
      const edit = annotations
        ? addEntryToPairValue(context.file.text, annotations, key, `"${PLACEHOLDER}"`)
        : metadata && metadata.items.length > 0
          ? addNestedEntry(context.file.text, metadata, 'annotations', key, `"${PLACEHOLDER}"`)
          : undefined;
      if (edit) fixes.push({ title: `Declare the GPU memory with the ${key} annotation`, edits: [edit], preferred: true });
      context.report({
        ruleId: 'uma-gpu-memory-undeclared',
        container,
        span: container.nameSpan,
        message: `Container "${container.name}" targets a unified-memory node (${verdict.evidence}) but declares no GPU memory, so its headroom cannot be checked: add the pod-template annotation ${key}: "24Gi" (its expected GTT footprint) or request a HAMi gpumem resource.`,
        fixes,
      });
    }
  },
};

/** Kubernetes' QoS class of a manifest's pod (core/kube/qos.ts), with the container and words of the first reason it is not Guaranteed. */
export function qosClass(
  containers: readonly ContainerModel[],
  podLevel?: { limits: ResourceBlock; requests: ResourceBlock },
): { qos: QosClass; reason?: { container: ContainerModel; text: string } } {
  const counted = containers.filter((container) => container.role !== 'ephemeral');
  const pod = podLevel ? qosResources(podLevel) : undefined;
  const outcome = computeQos({
    ...(pod && setsCpuOrMemory(pod) ? { pod } : {}),
    containers: counted.map((container) => ({ name: container.name, ...qosResources(container) })),
  });
  if (outcome.qos === 'Guaranteed') return outcome;
  const { reason } = outcome;
  if (reason.kind === 'nothing-set') {
    const first = counted[0];
    return first
      ? { qos: outcome.qos, reason: { container: first, text: `neither container "${first.name}" nor any other sets cpu or memory` } }
      : { qos: outcome.qos };
  }
  const container = reason.source.scope === 'container' ? counted[reason.source.index] : counted[0];
  if (!container) return { qos: outcome.qos };
  const where = reason.source.scope === 'pod' ? undefined : `container "${container.name}"`;
  const text =
    reason.kind === 'no-limit'
      ? where
        ? `${where} has no ${reason.resource} limit`
        : `the pod-level resources (spec.resources) set no ${reason.resource} limit`
      : where
        ? `${where} requests ${reason.request.text} ${reason.resource} but is limited to ${reason.limit.text}`
        : `the pod requests ${reason.request.text} ${reason.resource} in spec.resources but is limited to ${reason.limit.text}`;
  return { qos: outcome.qos, reason: { container, text } };
}

function qosResources(resources: { limits: ResourceBlock; requests: ResourceBlock }): QosResources {
  const pick = (block: ResourceBlock) => {
    const picked: Partial<Record<QosResource, QosQuantity>> = {};
    for (const resource of ['cpu', 'memory'] as const) {
      const entry = block.entries.get(resource);
      // A null or templated value is set but unknown: it may be anything once rendered.
      if (entry) picked[resource] = { value: entry.quantity?.value, text: entry.text ?? '' };
    }
    return picked;
  };
  return { requests: pick(resources.requests), limits: pick(resources.limits) };
}

function setsCpuOrMemory(resources: QosResources): boolean {
  return Object.keys(resources.requests).length > 0 || Object.keys(resources.limits).length > 0;
}

export const umaNotGuaranteed: Rule = {
  meta: ruleMetaOf('uma-not-guaranteed'),
  check(context) {
    if (!isUnified(context) || context.gpuContainers.length === 0) return;
    const { qos, reason } = qosClass(context.pod.containers, { limits: context.pod.podLimits, requests: context.pod.podRequests });
    if (qos === 'Guaranteed' || !reason) return;
    context.report({
      ruleId: 'uma-not-guaranteed',
      container: reason.container,
      span: reason.container.nameSpan,
      message: `This unified-memory GPU pod is ${qos} QoS (${reason.text}); when GTT memory exhausts the node, the global OOM killer picks ${qos} pods first.`,
    });
  },
};

export const umaMissingToleration: Rule = {
  meta: ruleMetaOf('uma-missing-toleration'),
  check(context) {
    const key = context.config.dedicatedNodeTaintKey;
    const verdict = context.unifiedMemory;
    if (!key || verdict.kind !== 'unified' || context.gpuContainers.length === 0) return;
    const tolerated = context.pod.tolerations.some(
      (toleration) => toleration.key === key || (toleration.key === undefined && toleration.operator === 'Exists'),
    );
    if (tolerated) return;
    const { spec, tree } = context.pod;
    const fixes: QuickFix[] = [];
    const entry = `{key: ${key}, operator: Exists}`;
    const tolerations = tree.pair(spec, 'tolerations');
    const edit = tolerations
      ? undefined
      : spec && spec.items.length > 0
        ? addEntryToMap(context.file.text, spec, 'tolerations', `[${entry}]`)
        : undefined;
    if (edit) fixes.push({ title: `Tolerate the ${key} taint`, edits: [edit], preferred: true });
    const container = context.gpuContainers[0];
    context.report({
      ruleId: 'uma-missing-toleration',
      ...(container ? { container } : {}),
      span: context.pod.tolerationsSpan ?? verdict.span,
      message: `This pod targets unified-memory GPU nodes (${verdict.evidence}) but does not tolerate their dedicated-node taint "${key}"${container ? `, so GPU container "${container.name}" cannot schedule there` : ''}.`,
      fixes,
    });
  },
};

export const gpuShmUnbounded: Rule = {
  meta: ruleMetaOf('gpu-shm-unbounded'),
  check(context) {
    for (const container of context.gpuContainers) {
      for (const mount of container.volumeMounts) {
        const volume = context.pod.volumes.get(mount.name);
        if (!volume?.emptyDirMedium || volume.emptyDirMedium.value !== 'Memory' || volume.emptyDirSizeLimit) continue;
        context.report({
          ruleId: 'gpu-shm-unbounded',
          container,
          span: volume.emptyDirMedium.span,
          message: `Volume "${volume.name}" (mounted by GPU container "${container.name}" at ${mount.mountPath ?? '?'}) is memory-backed with no sizeLimit: what is written there is RAM charged to the pod, and can grow until it is OOM-killed.`,
        });
      }
    }
  },
};
