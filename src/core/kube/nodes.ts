// From a Node object (JSON as the API returns it, or a client-node V1Node) to what the Clusters view shows
// about its GPUs: vendors, GPU resources with capacity and allocatable, unified memory, the HAMi device
// registration in both of its formats, the handshake, memory pressure, taints and the kubelet version.
//
// HAMi's node annotations are parsed in hamiNodeAnnotations.ts.
import type { NodeLabelRule } from '../config.ts';
import { DEFAULT_UNIFIED_MEMORY_LABELS } from '../config.ts';
import { matchingRule } from '../analysis/unifiedMemory.ts';
import type { GpuResourceRole } from '../gpuResources.ts';
import { classifyGpuResource } from '../gpuResources.ts';
import { parseQuantity } from '../quantity.ts';
import { hamiNodeInfo } from './hamiNodeAnnotations.ts';
import type { HamiNodeInfo } from './hamiNodeAnnotations.ts';
import { asArray, asBoolean, asRecord, asString, asTime, identity, path, stringMap } from './json.ts';

export interface GpuResourceAmount {
  readonly name: string;
  readonly vendor: string;
  readonly role: GpuResourceRole;
  readonly hamiOnly: boolean;
  /** As the node reports it, e.g. "8"; undefined when the node does not list it. */
  readonly capacity: string | undefined;
  readonly allocatable: string | undefined;
  /** Parsed values (devices, MiB, percent…); undefined when absent or unparsable. */
  readonly capacityValue: number | undefined;
  readonly allocatableValue: number | undefined;
}

export interface NodeConditionSummary {
  /** "True", "False" or "Unknown". */
  readonly status: string;
  readonly reason: string | undefined;
  readonly message: string | undefined;
  readonly lastTransitionTime: string | undefined;
}

export interface NodeTaint {
  readonly key: string;
  readonly value: string | undefined;
  /** NoSchedule, PreferNoSchedule or NoExecute. */
  readonly effect: string;
  readonly timeAdded: string | undefined;
}

export interface UnifiedMemoryFinding {
  readonly unified: boolean;
  /** Which label said so, e.g. `amd.com/gpu.device-id=1586 (AMD GPU operator node labeller: Strix Halo…)`. */
  readonly evidence: string | undefined;
}

export interface GpuNodeSummary {
  readonly name: string;
  readonly uid: string | undefined;
  readonly labels: ReadonlyMap<string, string>;
  /** GPU vendors seen in resources, HAMi registrations and vendor labels, sorted. */
  readonly vendors: readonly string[];
  /** The GPU product label (GPU feature discovery or the AMD labeller), when present. */
  readonly product: string | undefined;
  readonly gpuResources: readonly GpuResourceAmount[];
  /** Any GPU resource, HAMi registration, GPU vendor label or unified-memory label. */
  readonly isGpuNode: boolean;
  readonly unifiedMemory: UnifiedMemoryFinding;
  /** undefined when the node carries no HAMi annotation. */
  readonly hami: HamiNodeInfo | undefined;
  readonly ready: NodeConditionSummary | undefined;
  readonly memoryPressure: NodeConditionSummary | undefined;
  readonly taints: readonly NodeTaint[];
  readonly unschedulable: boolean;
  readonly memoryCapacityBytes: number | undefined;
  readonly memoryAllocatableBytes: number | undefined;
  readonly kubeletVersion: string | undefined;
  readonly kernelVersion: string | undefined;
  readonly osImage: string | undefined;
  readonly containerRuntimeVersion: string | undefined;
  readonly architecture: string | undefined;
  readonly addresses: readonly { readonly type: string; readonly address: string }[];
}

export interface NodeSummaryOptions {
  /** The unified-memory label rules (the lint setting); default DEFAULT_UNIFIED_MEMORY_LABELS. */
  readonly unifiedMemoryLabels?: readonly NodeLabelRule[];
}

export function summarizeNode(node: unknown, options: NodeSummaryOptions = {}): GpuNodeSummary {
  const meta = identity(node);
  const status = asRecord(path(node, 'status'));
  const capacity = stringMap(status?.['capacity']);
  const allocatable = stringMap(status?.['allocatable']);
  const gpuResources = gpuResourcesOf(capacity, allocatable);
  const hami = hamiNodeInfo(meta.annotations);
  const unifiedMemory = detectUnifiedNode(meta.labels, options.unifiedMemoryLabels ?? DEFAULT_UNIFIED_MEMORY_LABELS);

  const vendors = new Set<string>();
  for (const resource of gpuResources) vendors.add(resource.vendor);
  for (const registration of hami?.registrations ?? []) if (registration.format !== 'empty') vendors.add(registration.vendor);
  for (const vendor of vendorsFromLabels(meta.labels)) vendors.add(vendor);

  const conditions = asArray(status?.['conditions']);
  const nodeInfo = asRecord(status?.['nodeInfo']);
  const isGpuNode =
    gpuResources.length > 0 ||
    (hami?.registrations.some((r) => r.devices.length > 0) ?? false) ||
    vendors.size > 0 ||
    unifiedMemory.unified;
  return {
    name: meta.name,
    uid: meta.uid,
    labels: meta.labels,
    vendors: [...vendors].sort(),
    product:
      meta.labels.get('nvidia.com/gpu.product') ??
      meta.labels.get('amd.com/gpu.product-name') ??
      meta.labels.get('beta.amd.com/gpu.product-name'),
    gpuResources,
    isGpuNode,
    unifiedMemory,
    hami,
    ready: conditionOf(conditions, 'Ready'),
    memoryPressure: conditionOf(conditions, 'MemoryPressure'),
    taints: taintsOf(path(node, 'spec', 'taints')),
    unschedulable: asBoolean(path(node, 'spec', 'unschedulable')) ?? false,
    memoryCapacityBytes: quantityValue(capacity.get('memory')),
    memoryAllocatableBytes: quantityValue(allocatable.get('memory')),
    kubeletVersion: asString(nodeInfo?.['kubeletVersion']),
    kernelVersion: asString(nodeInfo?.['kernelVersion']),
    osImage: asString(nodeInfo?.['osImage']),
    containerRuntimeVersion: asString(nodeInfo?.['containerRuntimeVersion']),
    architecture: asString(nodeInfo?.['architecture']),
    addresses: asArray(status?.['addresses']).flatMap((entry) => {
      const type = asString(path(entry, 'type'));
      const address = asString(path(entry, 'address'));
      return type !== undefined && address !== undefined ? [{ type, address }] : [];
    }),
  };
}

/** GPU nodes first (a real GPU resource before label-only evidence), then by name with numbers in order. */
export function compareNodesGpuFirst(a: GpuNodeSummary, b: GpuNodeSummary): number {
  const rank = (node: GpuNodeSummary): number => (node.gpuResources.length > 0 || node.hami ? 0 : node.isGpuNode ? 1 : 2);
  return rank(a) - rank(b) || a.name.localeCompare(b.name, 'en', { numeric: true });
}

function quantityValue(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const parsed = parseQuantity(text);
  return parsed.ok ? parsed.quantity.value : undefined;
}

function gpuResourcesOf(capacity: ReadonlyMap<string, string>, allocatable: ReadonlyMap<string, string>): GpuResourceAmount[] {
  const names = new Set([...capacity.keys(), ...allocatable.keys()]);
  const out: GpuResourceAmount[] = [];
  for (const name of names) {
    const info = classifyGpuResource(name);
    if (!info) continue;
    const cap = capacity.get(name);
    const alloc = allocatable.get(name);
    out.push({
      name,
      vendor: info.vendor,
      role: info.role,
      hamiOnly: info.hamiOnly,
      capacity: cap,
      allocatable: alloc,
      capacityValue: quantityValue(cap),
      allocatableValue: quantityValue(alloc),
    });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

// NFD PCI labels are `feature.node.kubernetes.io/pci-<class>_<vendor>.present` (default deviceLabelFields
// class,vendor) or `pci-<vendor>.present`. Intel's vendor id also covers non-GPU devices: only display classes.
const NFD_PCI = /^feature\.node\.kubernetes\.io\/pci-(?:([0-9a-f]{4})_)?([0-9a-f]{4})\.present$/;

function vendorsFromLabels(labels: ReadonlyMap<string, string>): string[] {
  const out = new Set<string>();
  for (const [key, value] of labels) {
    if (key === 'nvidia.com/gpu.present' ? value === 'true' : key === 'nvidia.com/gpu.product' || key === 'nvidia.com/gpu.count')
      out.add('NVIDIA');
    else if (/^(beta\.)?amd\.com\/gpu\./.test(key)) out.add('AMD');
    else if (key.startsWith('gpu.intel.com/')) out.add('Intel');
    else {
      const pci = NFD_PCI.exec(key);
      if (pci && value === 'true') {
        const [, cls, vendor] = pci;
        if (vendor === '10de' && (cls === undefined || cls.startsWith('03'))) out.add('NVIDIA');
        else if (vendor === '1002' && (cls === undefined || cls.startsWith('03'))) out.add('AMD');
        else if (vendor === '8086' && cls !== undefined && cls.startsWith('03')) out.add('Intel');
      }
    }
  }
  return [...out];
}

/** The unified-memory node-label rules of the lint, applied to a node's own labels. */
export function detectUnifiedNode(labels: ReadonlyMap<string, string>, rules: readonly NodeLabelRule[]): UnifiedMemoryFinding {
  for (const [key, value] of labels) {
    const rule = matchingRule(rules, key, [value]);
    if (rule) return { unified: true, evidence: `label ${key}=${value}${rule.description ? ` (${rule.description})` : ''}` };
  }
  return { unified: false, evidence: undefined };
}

function conditionOf(conditions: readonly unknown[], type: string): NodeConditionSummary | undefined {
  const condition = conditions.find((entry) => asString(path(entry, 'type')) === type);
  if (condition === undefined) return undefined;
  return {
    status: asString(path(condition, 'status')) ?? 'Unknown',
    reason: asString(path(condition, 'reason')),
    message: asString(path(condition, 'message')),
    lastTransitionTime: asTime(path(condition, 'lastTransitionTime')),
  };
}

function taintsOf(value: unknown): NodeTaint[] {
  return asArray(value).flatMap((entry) => {
    const key = asString(path(entry, 'key'));
    const effect = asString(path(entry, 'effect'));
    if (key === undefined || effect === undefined) return [];
    return [{ key, value: asString(path(entry, 'value')), effect, timeAdded: asTime(path(entry, 'timeAdded')) }];
  });
}
