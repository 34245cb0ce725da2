// DRA ResourceClaim and ResourceClaimTemplate objects (resource.k8s.io v1, v1beta2, v1beta1), read into what
// the GPU rules need: per device request, its device class, the drivers its CEL selectors name, the device
// count and the GPU memory it asks for. Shapes: https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/resource-claim-v1/
// (v1 and v1beta2 wrap a request's fields in `exactly` or list `firstAvailable` subrequests; v1beta1 puts
// `deviceClassName` on the request itself).
import type { Node } from 'yaml';
import { parseQuantity } from '../quantity.ts';
import { isTemplated } from './source.ts';
import type { YamlTree } from './yamlTree.ts';

export type ClaimKind = 'ResourceClaim' | 'ResourceClaimTemplate';

/** GPU memory a request asks for: consumable capacity, or a CEL lower bound on the device's memory capacity. */
export interface DraMemory {
  /** Per device. */
  readonly bytes: number;
  readonly text: string;
  readonly via: 'capacity' | 'selector';
}

/** One way to satisfy a request: the request itself (`exactly`, v1beta1), or one `firstAvailable` subrequest. */
export interface DeviceAlternative {
  /** `gpu`, or `gpu/large` for a subrequest. */
  readonly name: string;
  readonly deviceClassName: string | undefined;
  /** Drivers named by the CEL selectors: `device.driver == "…"` and `device.attributes["…"]` / `device.capacity["…"]` domains. */
  readonly drivers: readonly string[];
  /** Devices allocated; undefined for `allocationMode: All` (every matching device). */
  readonly count: number | undefined;
  readonly memory: DraMemory | undefined;
}

export interface DeviceRequest {
  readonly name: string;
  readonly alternatives: readonly DeviceAlternative[];
}

export interface DraClaimObject {
  readonly kind: ClaimKind;
  readonly name: string;
  readonly namespace: string | undefined;
  readonly apiVersion: string;
  readonly requests: readonly DeviceRequest[];
}

const MAX_CEL_SCAN = 16_384;
// The API server's own caps (resource.k8s.io DeviceRequestsMaxSize, FirstAvailableDeviceRequestMaxSize,
// DeviceSelectorsMaxSize): reading no further keeps every container's claim resolution O(1).
const MAX_REQUESTS = 32;
const MAX_SUBREQUESTS = 8;
const MAX_SELECTORS = 32;
const DRIVER_EQUALS = /device\.driver\s*==\s*(["'])([^"'\s]{1,253})\1|(["'])([^"'\s]{1,253})\3\s*==\s*device\.driver/g;
const DOMAIN = /device\.(?:attributes|capacity)\[\s*(["'])([^"'\s]{1,253})\1\s*\]/g;
// device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0, or .isGreaterThan(quantity('40Gi'))
const MEMORY_BOUND =
  /device\.capacity\[\s*(["'])[^"'\s]{1,253}\1\s*\]\.memory\.(compareTo|isGreaterThan)\(\s*quantity\(\s*(["'])([^"'\s]{1,64})\3\s*\)\s*\)(\s*(>=|>|==)\s*0)?/g;

export function isClaimKind(kind: string, apiVersion: string | undefined): kind is ClaimKind {
  return (
    (kind === 'ResourceClaim' || kind === 'ResourceClaimTemplate') && apiVersion !== undefined && apiVersion.startsWith('resource.k8s.io/')
  );
}

/**
 * The ResourceClaimTemplate NVIDIA's DRA driver creates for a ComputeDomain (resource.nvidia.com): named by
 * `spec.channel.resourceClaimTemplate.name`, in the ComputeDomain's namespace, one request `channel` of the class
 * `compute-domain-default-channel.nvidia.com` (NVIDIA/k8s-dra-driver-gpu
 * templates/compute-domain-workload-claim-template.tmpl.yaml). It gives the pod an IMEX channel, not a GPU, so a
 * pod that names it resolves to a device that is no GPU instead of an unknown claim that might be one.
 */
export function computeDomainClaimTemplate(
  tree: YamlTree,
  root: Node,
  kind: string,
  apiVersion: string | undefined,
  namespace: string | undefined,
): DraClaimObject | undefined {
  if (kind !== 'ComputeDomain' || !apiVersion?.startsWith('resource.nvidia.com/')) return undefined;
  const name = tree.text(tree.path(root, 'spec', 'channel', 'resourceClaimTemplate', 'name'));
  if (name === undefined) return undefined;
  const channel: DeviceAlternative = {
    name: 'channel',
    deviceClassName: 'compute-domain-default-channel.nvidia.com',
    drivers: ['compute-domain.nvidia.com'],
    count: 1,
    memory: undefined,
  };
  return { kind: 'ResourceClaimTemplate', name, namespace, apiVersion, requests: [{ name: 'channel', alternatives: [channel] }] };
}

/** Reads a claim object; undefined when it has no name (it cannot be referenced then). */
export function readClaimObject(
  tree: YamlTree,
  root: Node,
  kind: ClaimKind,
  apiVersion: string,
  name: string | undefined,
  namespace: string | undefined,
): DraClaimObject | undefined {
  if (name === undefined) return undefined;
  const claimSpec = kind === 'ResourceClaimTemplate' ? tree.path(root, 'spec', 'spec') : tree.get(root, 'spec');
  const requests: DeviceRequest[] = [];
  for (const item of tree.items(tree.path(claimSpec, 'devices', 'requests')).slice(0, MAX_REQUESTS)) {
    const requestName = tree.text(tree.get(item, 'name')) ?? `#${requests.length}`;
    const exactly = tree.map(tree.get(item, 'exactly'));
    const subrequests = tree.items(tree.get(item, 'firstAvailable'));
    const alternatives: DeviceAlternative[] = [];
    if (exactly) alternatives.push(readAlternative(tree, exactly, requestName));
    else if (subrequests.length > 0) {
      for (const sub of subrequests.slice(0, MAX_SUBREQUESTS))
        alternatives.push(readAlternative(tree, sub, `${requestName}/${tree.text(tree.get(sub, 'name')) ?? '?'}`));
    } else alternatives.push(readAlternative(tree, item, requestName));
    requests.push({ name: requestName, alternatives });
  }
  return { kind, name, namespace, apiVersion, requests };
}

function readAlternative(tree: YamlTree, node: Node, name: string): DeviceAlternative {
  const drivers: string[] = [];
  let selectorMemory: DraMemory | undefined;
  for (const selector of tree.items(tree.get(node, 'selectors')).slice(0, MAX_SELECTORS)) {
    const expression = tree.text(tree.path(selector, 'cel', 'expression'));
    if (expression === undefined) continue;
    const scanned = scanCel(expression.slice(0, MAX_CEL_SCAN));
    for (const driver of scanned.drivers) if (!drivers.includes(driver)) drivers.push(driver);
    if (scanned.memory && (!selectorMemory || scanned.memory.bytes > selectorMemory.bytes)) selectorMemory = scanned.memory;
  }
  let capacityMemory: DraMemory | undefined;
  for (const { key, pair } of tree.entries(tree.path(node, 'capacity', 'requests'))) {
    if (key !== 'memory' && !key.endsWith('/memory')) continue;
    const text = tree.text(pair.value);
    const parsed = text === undefined ? undefined : parseQuantity(text.trim());
    if (text !== undefined && parsed?.ok && !parsed.quantity.negative)
      capacityMemory = { bytes: parsed.quantity.value, text, via: 'capacity' };
  }
  const allocationAll = tree.text(tree.get(node, 'allocationMode')) === 'All';
  const countText = tree.text(tree.get(node, 'count'));
  const countValue = countText === undefined ? 1 : Number(countText);
  const count = allocationAll ? undefined : Number.isInteger(countValue) && countValue >= 1 ? countValue : 1;
  return { name, deviceClassName: tree.text(tree.get(node, 'deviceClassName')), drivers, count, memory: capacityMemory ?? selectorMemory };
}

/** What a CEL selector says about GPUs, by a linear scan (no CEL evaluation). */
export function scanCel(expression: string): { drivers: string[]; memory: DraMemory | undefined } {
  const drivers: string[] = [];
  for (const match of expression.matchAll(DRIVER_EQUALS)) {
    const driver = match[2] ?? match[4];
    if (driver && !drivers.includes(driver)) drivers.push(driver);
  }
  for (const match of expression.matchAll(DOMAIN)) {
    const domain = match[2];
    if (domain && domain !== 'resource.kubernetes.io' && !drivers.includes(domain)) drivers.push(domain);
  }
  let memory: DraMemory | undefined;
  for (const match of expression.matchAll(MEMORY_BOUND)) {
    const method = match[2];
    const comparator = match[6];
    // compareTo(…) < 0 or <= 0 is an upper bound: it says nothing about how much memory the device has.
    if (method === 'compareTo' && comparator === undefined) continue;
    const text = match[4] ?? '';
    const parsed = parseQuantity(text);
    if (parsed.ok && !parsed.quantity.negative && (!memory || parsed.quantity.value > memory.bytes))
      memory = { bytes: parsed.quantity.value, text, via: 'selector' };
  }
  return { drivers, memory };
}

/**
 * A DeviceClass (resource.k8s.io v1, v1beta2, v1beta1; cluster-scoped): the drivers its CEL selectors name and the
 * extended resource name pods may request its devices by (`spec.extendedResourceName`, Kubernetes 1.34+, KEP-5004
 * "DRA: Extended Resource"; keps/sig-scheduling/5004-dra-extended-resource in kubernetes/enhancements).
 */
export interface DeviceClassObject {
  readonly name: string;
  readonly extendedResourceName: string | undefined;
  readonly drivers: readonly string[];
  /** The file it was read from when it is another file of the run; undefined for the linted file itself. */
  readonly origin: string | undefined;
}

/**
 * Whether a document is a DeviceClass. The API version may be an unrendered Helm action: the DRA drivers' charts pick
 * it from the cluster's capabilities (`apiVersion: {{ include "….resourceApiVersion" . }}`).
 */
export function isDeviceClassKind(kind: string, apiVersion: string | undefined): boolean {
  return kind === 'DeviceClass' && apiVersion !== undefined && (apiVersion.startsWith('resource.k8s.io/') || isTemplated(apiVersion));
}

/** Reads a DeviceClass; undefined when its name is missing or an unrendered action (no pod can name it then). */
export function readDeviceClass(tree: YamlTree, root: Node, origin: string | undefined): DeviceClassObject | undefined {
  const name = tree.text(tree.path(root, 'metadata', 'name'));
  if (name === undefined || name === '' || isTemplated(name)) return undefined;
  const spec = tree.get(root, 'spec');
  const drivers: string[] = [];
  for (const selector of tree.items(tree.get(spec, 'selectors')).slice(0, MAX_SELECTORS)) {
    const expression = tree.text(tree.path(selector, 'cel', 'expression'));
    if (expression === undefined) continue;
    for (const driver of scanCel(expression.slice(0, MAX_CEL_SCAN)).drivers) if (!drivers.includes(driver)) drivers.push(driver);
  }
  const extended = tree.text(tree.get(spec, 'extendedResourceName'))?.trim();
  const extendedResourceName = extended === undefined || extended === '' || isTemplated(extended) ? undefined : extended;
  return { name, extendedResourceName, drivers, origin };
}

export interface ClaimLookup {
  find(kind: ClaimKind, name: string, namespace: string | undefined): DraClaimObject | undefined;
  /** A DeviceClass of the linted files, by name. */
  deviceClass?(name: string): DeviceClassObject | undefined;
  /** The DeviceClass of the linted files whose `extendedResourceName` is this resource name. */
  deviceClassFor?(extendedResource: string): DeviceClassObject | undefined;
}

/**
 * Claims by kind, namespace and name, for O(1) lookups whatever the number of files. A pod and a claim that
 * leave the namespace out match each other (both go where `kubectl apply -n` puts them); the first
 * definition of a name wins.
 */
export class ClaimIndex implements ClaimLookup {
  private readonly exact = new Map<string, DraClaimObject>();
  private readonly byName = new Map<string, DraClaimObject>();
  private readonly classes = new Map<string, DeviceClassObject>();
  private readonly byExtendedResource = new Map<string, DeviceClassObject>();

  /** The first definition of a class, and of an extended resource name, wins (file order is all there is to go by). */
  addDeviceClass(deviceClass: DeviceClassObject): void {
    if (!this.classes.has(deviceClass.name)) this.classes.set(deviceClass.name, deviceClass);
    const extended = deviceClass.extendedResourceName;
    if (extended !== undefined && !this.byExtendedResource.has(extended)) this.byExtendedResource.set(extended, deviceClass);
  }

  deviceClass(name: string): DeviceClassObject | undefined {
    return this.classes.get(name);
  }

  deviceClassFor(extendedResource: string): DeviceClassObject | undefined {
    return this.byExtendedResource.get(extendedResource);
  }

  /** Extended resource names of the indexed DeviceClasses. */
  extendedResourceNames(): IterableIterator<string> {
    return this.byExtendedResource.keys();
  }

  add(claim: DraClaimObject): void {
    const exactKey = `${claim.kind}\u0000${claim.namespace ?? ''}\u0000${claim.name}`;
    if (!this.exact.has(exactKey)) this.exact.set(exactKey, claim);
    const nameKey = `${claim.kind}\u0000${claim.name}`;
    if (!this.byName.has(nameKey)) this.byName.set(nameKey, claim);
  }

  get size(): number {
    return this.exact.size;
  }

  find(kind: ClaimKind, name: string, namespace: string | undefined): DraClaimObject | undefined {
    if (namespace === undefined) return this.byName.get(`${kind}\u0000${name}`);
    return this.exact.get(`${kind}\u0000${namespace}\u0000${name}`) ?? this.exact.get(`${kind}\u0000\u0000${name}`);
  }
}

/** Looks in each index in turn: the file's own claims first, then the workspace's. */
export function chainLookups(...lookups: readonly (ClaimLookup | undefined)[]): ClaimLookup {
  const present = lookups.filter((lookup): lookup is ClaimLookup => lookup !== undefined);
  return {
    find(kind, name, namespace) {
      for (const lookup of present) {
        const found = lookup.find(kind, name, namespace);
        if (found) return found;
      }
      return undefined;
    },
    deviceClass(name) {
      for (const lookup of present) {
        const found = lookup.deviceClass?.(name);
        if (found) return found;
      }
      return undefined;
    },
    deviceClassFor(extendedResource) {
      for (const lookup of present) {
        const found = lookup.deviceClassFor?.(extendedResource);
        if (found) return found;
      }
      return undefined;
    },
  };
}
