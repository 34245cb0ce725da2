// From a Node object (JSON as the API returns it, or a client-node V1Node) to what the Clusters view shows
// about its GPUs: vendors, GPU resources with capacity and allocatable, unified memory, the HAMi device
// registration in both of its formats, the handshake, memory pressure, taints and the kubelet version.
//
// Sources (Project-HAMi/HAMi docs/develop/protocol.md; pkg/device/devices.go):
// - `hami.io/node-nvidia-register` up to HAMi v2.7.x: colon-terminated CSV, one device per entry,
//   `<UUID>,<splitCount>,<devmemMiB>,<devcore>,<Type>,<numa>,<health>[,<index>,<mode>]:`. DecodeNodeDevices
//   skips entries without a comma, accepts 7 or 9 fields, ignores number parse errors (0) and defaults the
//   7-field form to index 0 and mode hami-core.
// - from v2.8.0: a JSON array of DeviceInfo written by MarshalNodeDevices with `omitempty` on every field, so
//   a zero index or numa and a false health are ABSENT: a device without "health" is unhealthy.
// - `hami.io/node-amd-register`: the same JSON DeviceInfo array (Project-HAMi/amd-device-plugin).
// - handshakes: `hami.io/node-handshake` (NVIDIA) and `hami.io/node-handshake-<type>`; the scheduler writes
//   `Requesting_<time>`, device plugins answer `Reported_<time>` (older ones `Reported <time>`), and
//   `Deleted_<time>` marks a plugin that went away.
import type { NodeLabelRule } from '../config.ts';
import { DEFAULT_UNIFIED_MEMORY_LABELS } from '../config.ts';
import { matchingRule } from '../analysis/unifiedMemory.ts';
import type { GpuResourceRole } from '../gpuResources.ts';
import { classifyGpuResource } from '../gpuResources.ts';
import { parseQuantity } from '../quantity.ts';
import { asArray, asBoolean, asNumber, asRecord, asString, asTime, identity, path, stringMap } from './json.ts';

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

export interface HamiDevice {
  readonly id: string;
  readonly index: number;
  /** How many vGPUs the device is split into (deviceSplitCount). */
  readonly count: number;
  readonly devmemMiB: number;
  readonly devcore: number;
  readonly type: string;
  readonly numa: number;
  readonly health: boolean;
  /** hami-core, mig or mps; undefined when a JSON registration omits it. */
  readonly mode: string | undefined;
  /** MIG templates or profiles when the JSON form carries them, as given. */
  readonly migProfiles?: unknown;
}

export type HamiRegisterFormat = 'csv' | 'json' | 'empty' | 'invalid';

export interface HamiRegisterParse {
  readonly format: HamiRegisterFormat;
  readonly devices: readonly HamiDevice[];
  readonly problems: readonly string[];
}

export interface HamiRegistration extends HamiRegisterParse {
  readonly annotation: string;
  readonly vendor: string;
}

export type HamiHandshakeState = 'requesting' | 'reported' | 'deleted' | 'unknown';

export interface HamiHandshake {
  readonly annotation: string;
  readonly value: string;
  readonly state: HamiHandshakeState;
  /** The time text after the prefix, as written (the scheduler's local time, `2006-01-02 15:04:05`). */
  readonly time: string | undefined;
}

export interface HamiNodeInfo {
  readonly registrations: readonly HamiRegistration[];
  readonly handshakes: readonly HamiHandshake[];
  /** `hami.io/device-cordon`: UUIDs excluded from new allocations. */
  readonly cordonedDevices: readonly string[];
  /** `hami.io/mutex.lock` = `<RFC3339>,<ns>,<pod>` while a pod is being bound. */
  readonly lock: string | undefined;
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

export const HAMI_NODE_ANNOTATIONS = {
  nvidiaRegister: 'hami.io/node-nvidia-register',
  amdRegister: 'hami.io/node-amd-register',
  handshake: 'hami.io/node-handshake',
  deviceCordon: 'hami.io/device-cordon',
  mutexLock: 'hami.io/mutex.lock',
} as const;

const REGISTER_KEY = /^hami\.io\/node-([a-z0-9-]+)-register$/;
const REGISTER_VENDORS: Readonly<Record<string, string>> = {
  nvidia: 'NVIDIA',
  amd: 'AMD',
  mlu: 'Cambricon',
  dcu: 'Hygon',
  iluvatar: 'Iluvatar',
  metax: 'MetaX',
  mthreads: 'Moore Threads',
  enflame: 'Enflame',
  kunlun: 'Kunlunxin',
};

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
  const isGpuNode = gpuResources.length > 0 || (hami?.registrations.some((r) => r.devices.length > 0) ?? false) || vendors.size > 0 || unifiedMemory.unified;
  return {
    name: meta.name,
    uid: meta.uid,
    labels: meta.labels,
    vendors: [...vendors].sort(),
    product: meta.labels.get('nvidia.com/gpu.product') ?? meta.labels.get('amd.com/gpu.product-name') ?? meta.labels.get('beta.amd.com/gpu.product-name'),
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
    if (key === 'nvidia.com/gpu.present' ? value === 'true' : key === 'nvidia.com/gpu.product' || key === 'nvidia.com/gpu.count') out.add('NVIDIA');
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

function hamiNodeInfo(annotations: ReadonlyMap<string, string>): HamiNodeInfo | undefined {
  const registrations: HamiRegistration[] = [];
  const handshakes: HamiHandshake[] = [];
  let any = false;
  for (const [key, value] of annotations) {
    if (!key.startsWith('hami.io/')) continue;
    any = true;
    const register = REGISTER_KEY.exec(key);
    if (register) {
      const type = register[1] as string;
      registrations.push({ annotation: key, vendor: REGISTER_VENDORS[type] ?? type, ...parseHamiNodeRegister(value) });
    } else if (key === HAMI_NODE_ANNOTATIONS.handshake || key.startsWith(`${HAMI_NODE_ANNOTATIONS.handshake}-`)) {
      handshakes.push({ annotation: key, ...parseHamiHandshake(value) });
    }
  }
  if (!any) return undefined;
  const cordon = annotations.get(HAMI_NODE_ANNOTATIONS.deviceCordon);
  return {
    registrations: registrations.sort((a, b) => a.annotation.localeCompare(b.annotation)),
    handshakes: handshakes.sort((a, b) => a.annotation.localeCompare(b.annotation)),
    cordonedDevices: cordon ? cordon.split(',').map((id) => id.trim()).filter((id) => id !== '') : [],
    lock: annotations.get(HAMI_NODE_ANNOTATIONS.mutexLock),
  };
}

export function parseHamiHandshake(value: string): { value: string; state: HamiHandshakeState; time: string | undefined } {
  const match = /^(Requesting|Reported|Deleted)[_ ](.*)$/s.exec(value.trim());
  if (!match) return { value, state: 'unknown', time: undefined };
  const state: HamiHandshakeState = match[1] === 'Requesting' ? 'requesting' : match[1] === 'Reported' ? 'reported' : 'deleted';
  return { value, state, time: match[2] };
}

/** Parses a `hami.io/node-<type>-register` value in either format (see the header). Never throws. */
export function parseHamiNodeRegister(value: string): HamiRegisterParse {
  const text = value.trim();
  if (text === '') return { format: 'empty', devices: [], problems: [] };
  if (text.startsWith('[')) return parseJsonRegister(text);
  return parseCsvRegister(text);
}

function parseJsonRegister(text: string): HamiRegisterParse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { format: 'invalid', devices: [], problems: [`not valid JSON: ${(error as Error).message}`] };
  }
  if (!Array.isArray(parsed)) return { format: 'invalid', devices: [], problems: ['the JSON form must be an array of devices'] };
  const problems: string[] = [];
  const devices: HamiDevice[] = [];
  parsed.forEach((entry: unknown, position) => {
    const record = asRecord(entry);
    if (!record) {
      problems.push(`device ${position} is not an object`);
      return;
    }
    const id = asString(record['id']);
    if (id === undefined || id === '') problems.push(`device ${position} has no "id"`);
    const migProfiles = record['migProfiles'] ?? record['migtemplate'];
    devices.push({
      id: id ?? '',
      index: asNumber(record['index']) ?? 0,
      count: asNumber(record['count']) ?? 0,
      devmemMiB: asNumber(record['devmem']) ?? 0,
      devcore: asNumber(record['devcore']) ?? 0,
      type: asString(record['type']) ?? '',
      numa: asNumber(record['numa']) ?? 0,
      // omitempty: a healthy:false device has no "health" key at all.
      health: asBoolean(record['health']) ?? false,
      mode: asString(record['mode']),
      ...(migProfiles !== undefined ? { migProfiles } : {}),
    });
  });
  return { format: 'json', devices, problems };
}

const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_BOOL = new Set([...GO_TRUE, '0', 'f', 'F', 'FALSE', 'false', 'False']);

function parseCsvRegister(text: string): HamiRegisterParse {
  const problems: string[] = [];
  const devices: HamiDevice[] = [];
  let position = 0;
  for (const entry of text.split(':')) {
    if (!entry.includes(',')) continue; // DecodeNodeDevices skips these (the empty tail after the last ':')
    const fields = entry.split(',');
    if (fields.length !== 7 && fields.length !== 9) {
      problems.push(`device ${position} has ${fields.length} fields; HAMi accepts 7 or 9 (${entry.slice(0, 80)})`);
      position++;
      continue;
    }
    const number = (index: number, name: string): number => {
      const raw = (fields[index] ?? '').trim();
      const n = /^[+-]?\d+$/.test(raw) ? Number(raw) : Number.NaN;
      if (Number.isNaN(n)) {
        problems.push(`device ${position}: ${name} "${raw}" is not an integer (HAMi reads 0)`);
        return 0;
      }
      return n;
    };
    const healthText = (fields[6] ?? '').trim();
    if (!GO_BOOL.has(healthText)) problems.push(`device ${position}: health "${healthText}" is not a boolean (HAMi reads false)`);
    devices.push({
      id: fields[0] ?? '',
      count: number(1, 'split count'),
      devmemMiB: number(2, 'memory'),
      devcore: number(3, 'cores'),
      type: fields[4] ?? '',
      numa: number(5, 'numa'),
      health: GO_TRUE.has(healthText),
      index: fields.length === 9 ? number(7, 'index') : 0,
      mode: fields.length === 9 ? fields[8] : 'hami-core',
    });
    position++;
  }
  if (devices.length === 0) {
    return { format: 'invalid', devices, problems: [...problems, 'no device entries (expected `<UUID>,<split>,<MiB>,<cores>,<type>,<numa>,<health>[,<index>,<mode>]:` or a JSON array)'] };
  }
  return { format: 'csv', devices, problems };
}
