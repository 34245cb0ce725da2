// What a hover over a resource, a memory annotation or a DRA claim says: the value in bytes and GiB, what it
// means, and for a claim reference what it resolves to (in this file, or in the claims a workspace lint indexed).
import { isMap, isScalar, isSeq, parseAllDocuments } from 'yaml';
import type { Node } from 'yaml';
import { pushAll } from '../arrays.ts';
import { ANNOTATIONS } from '../config.ts';
import { classifyGpuResource, memoryUnitBytes } from '../gpuResources.ts';
import { SHARING_ANNOTATIONS } from '../manifest/schedulerAnnotations.ts';
import { indexClaims } from '../crossFile.ts';
import { ClaimIndex, chainLookups } from '../manifest/draClaims.ts';
import type { ClaimLookup, DraClaimObject } from '../manifest/draClaims.ts';
import { deviceClassOf, gpuClassSet, isGpuAlternative, judgeClassIn } from '../manifest/gpuSource.ts';
import { judgeDeviceClass } from '../gpuDeviceClasses.ts';
import { maskHelmTemplates } from '../manifest/source.ts';
import { parseQuantity } from '../quantity.ts';
import { describeBytes } from '../sizing.ts';
import { markdownText } from '../text/escape.ts';

export interface HoverInfo {
  readonly markdown: string;
  readonly start: number;
  readonly end: number;
}

interface Hit {
  readonly path: readonly string[];
  readonly key: string;
  readonly value: string | undefined;
  readonly start: number;
  readonly end: number;
}

export interface HoverOptions {
  /** Site-specific GPU device classes (gpumem.lint.gpuDeviceClasses). */
  readonly gpuDeviceClasses?: readonly string[];
  /** Claims of other files (the last workspace lint), looked up after this file's own. */
  readonly claims?: ClaimLookup;
}

export function hoverAt(text: string, offset: number, options: HoverOptions = {}): HoverInfo | undefined {
  const source = maskHelmTemplates(text)?.text ?? text;
  const docs = parseAllDocuments(source, { version: '1.1', prettyErrors: false });
  if (!Array.isArray(docs)) return undefined;
  const doc = docs.find((candidate) => candidate.range[0] <= offset && offset <= candidate.range[2]);
  if (!doc) return undefined;
  const hit = findPairAt(doc.contents as Node | null, offset, []);
  if (!hit) return undefined;
  const namespace = doc.getIn(['metadata', 'namespace']);
  const described = describe(hit);
  if (described && isResourceKey(hit) && hit.key.includes('/')) return withDeviceClass(described, hit.key, text, options);
  return described ?? describeDra(hit, text, typeof namespace === 'string' ? namespace : undefined, options);
}

function isResourceKey(hit: Hit): boolean {
  const parent = hit.path[hit.path.length - 1];
  return hit.path[hit.path.length - 2] === 'resources' && (parent === 'limits' || parent === 'requests');
}

/** An extended resource a DeviceClass of this file or the last workspace lint serves: which class, and whether it gives GPUs. */
function withDeviceClass(described: HoverInfo, resource: string, text: string, options: HoverOptions): HoverInfo {
  const local = new ClaimIndex();
  indexClaims(text, local);
  const object = deviceClassOf(resource, chainLookups(local, options.claims));
  if (!object) return described;
  const verdict = judgeDeviceClass(object.name, object.drivers, gpuClassSet(options.gpuDeviceClasses ?? []));
  const where = object.origin === undefined ? 'in this file' : `in ${markdownText(object.origin)}`;
  const selects =
    object.drivers.length > 0 ? `it selects ${markdownText(object.drivers.join(', '))} devices` : 'its selectors name no driver';
  const line = `Served by the DeviceClass "${markdownText(object.name)}" (${where}): ${selects}, so this is ${verdict.gpu ? 'a GPU request' : 'no GPU'}.`;
  return { ...described, markdown: `${described.markdown}\n\n${line}` };
}

const CLAIM_REFERENCES = { resourceClaimTemplateName: 'ResourceClaimTemplate', resourceClaimName: 'ResourceClaim' } as const;

/** Hovers on DRA fields: a claim reference, a device class, a consumable memory capacity request. */
function describeDra(raw: Hit, text: string, namespace: string | undefined, options: HoverOptions): HoverInfo | undefined {
  const range = { start: raw.start, end: raw.end };
  const gpuClasses = gpuClassSet(options.gpuDeviceClasses ?? []);
  const parent = raw.path[raw.path.length - 1];
  const reference = raw.key === 'resourceClaimTemplateName' || raw.key === 'resourceClaimName' ? raw.key : undefined;
  const lookups = () => {
    const local = new ClaimIndex();
    indexClaims(text, local);
    return chainLookups(local, options.claims);
  };
  if (reference && raw.value !== undefined && raw.path.includes('resourceClaims')) {
    const kind = CLAIM_REFERENCES[reference];
    const classes = lookups();
    const claim = classes.find(kind, raw.value, namespace);
    const lines = [`**${markdownText(raw.key)}: ${markdownText(raw.value)}**`, ''];
    if (!claim)
      lines.push(
        `${kind} "${markdownText(raw.value)}" is not in this file${options.claims ? ' nor in the last workspace lint' : ''}: gpumem cannot tell whether it hands out a GPU.`,
      );
    else {
      lines.push(`${kind} "${markdownText(claim.name)}":`, '');
      pushAll(lines, describeRequests(claim, gpuClasses, classes));
    }
    return { markdown: lines.join('\n'), ...range };
  }
  if (raw.key === 'deviceClassName' && raw.value !== undefined) {
    const classes = lookups();
    const verdict = judgeClassIn(raw.value, gpuClasses, classes);
    const object = classes.deviceClass?.(raw.value);
    const where = object ? ` (its DeviceClass ${object.origin === undefined ? 'in this file' : `in ${markdownText(object.origin)}`})` : '';
    const what = verdict.gpu
      ? `A GPU device class${verdict.by === 'driver' ? `: it selects ${markdownText(verdict.driver)} devices${where}` : ''}: containers whose claims use it are GPU containers for gpumem.`
      : verdict.drivers.length > 0
        ? `Not a GPU device class: it selects ${markdownText(verdict.drivers.join(', '))} devices${where}.`
        : 'Not a GPU device class gpumem knows. If it hands out GPUs, add it to gpumem.lint.gpuDeviceClasses.';
    return { markdown: `**deviceClassName: ${markdownText(raw.value)}**\n\n${what}`, ...range };
  }
  if (raw.key === 'memory' && parent === 'requests' && raw.path[raw.path.length - 2] === 'capacity' && raw.value !== undefined) {
    const quantity = parseQuantity(raw.value.trim());
    const value = quantity.ok
      ? `${markdownText(raw.value)} = ${describeBytes(quantity.quantity.value)} per device`
      : `not a valid quantity (${markdownText(quantity.reason)})`;
    return {
      markdown: `**memory** (DRA consumable capacity)\n\n${value}. gpumem counts it as the container's declared GPU memory.`,
      ...range,
    };
  }
  return undefined;
}

function describeRequests(claim: DraClaimObject, gpuClasses: ReadonlySet<string>, classes: ClaimLookup): string[] {
  const lines: string[] = [];
  for (const request of claim.requests.slice(0, 8)) {
    const alternatives = request.alternatives.slice(0, 4).map((alternative) => {
      const gpu = isGpuAlternative(alternative, gpuClasses, classes);
      const memory = alternative.memory ? `, ${describeBytes(alternative.memory.bytes)} per device` : '';
      const count =
        alternative.count === undefined ? 'all matching devices' : `${alternative.count} device${alternative.count === 1 ? '' : 's'}`;
      return `class ${markdownText(alternative.deviceClassName ?? '(none)')} (${gpu ? 'GPU' : 'not a GPU gpumem knows'}), ${count}${memory}`;
    });
    lines.push(`- request ${markdownText(request.name)}: ${alternatives.join('; or ')}`);
  }
  if (lines.length === 0) lines.push('- no device requests gpumem can read');
  return lines;
}

function findPairAt(node: Node | null | undefined, offset: number, path: string[]): Hit | undefined {
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = pair.key as Node | null;
      const value = pair.value as Node | null;
      const keyText = isScalar(key) ? String(key.value) : undefined;
      if (keyText === undefined) continue;
      const keyRange = key?.range;
      const valueRange = value?.range;
      const inKey = keyRange && keyRange[0] <= offset && offset <= keyRange[1];
      const inValue = valueRange && valueRange[0] <= offset && offset <= valueRange[1];
      if (inKey || (inValue && isScalar(value))) {
        const start = keyRange?.[0] ?? 0;
        const end = isScalar(value) && valueRange ? valueRange[1] : (keyRange?.[1] ?? start);
        return {
          path,
          key: keyText,
          value: isScalar(value) && value.value !== null ? String(value.source ?? value.value) : undefined,
          start,
          end,
        };
      }
      if (inValue) return findPairAt(value, offset, [...path, keyText]);
    }
  } else if (isSeq(node)) {
    for (const item of node.items) {
      const range = (item as Node | null)?.range;
      if (range && range[0] <= offset && offset <= range[1]) return findPairAt(item as Node, offset, [...path, '[]']);
    }
  }
  return undefined;
}

/** KAI Scheduler / Run:ai GPU-sharing pod annotations (NVIDIA/KAI-Scheduler docs/gpu-sharing/README.md). */
const SHARING_HOVER: Readonly<Record<string, string>> = {
  [SHARING_ANNOTATIONS.fraction]:
    "KAI Scheduler / Run:ai: a share of one GPU's memory, above 0 and below 1, for the container named by gpu-fraction-container-name (else the first container). KAI does not enforce it.",
  [SHARING_ANNOTATIONS.memory]:
    "KAI Scheduler / Run:ai: GPU memory in MiB (a whole number, no unit) for the container named by gpu-fraction-container-name (else the first container); gpumem counts it as the container's declared GPU memory. KAI does not enforce it.",
  [SHARING_ANNOTATIONS.numDevices]: 'KAI Scheduler / Run:ai: how many GPUs get the gpu-fraction or gpu-memory share (default 1).',
  [SHARING_ANNOTATIONS.containerName]:
    'KAI Scheduler / Run:ai: the container (init containers first, then app containers) that gets the GPU share.',
  [SHARING_ANNOTATIONS.fractionLimit]: 'Run:ai dynamic GPU fractions: the burstable limit above gpu-fraction, at most 1.',
  [SHARING_ANNOTATIONS.memoryLimit]: 'Run:ai dynamic GPU fractions: the burstable GPU memory limit above gpu-memory.',
};

function describe(raw: Hit): HoverInfo | undefined {
  const hit = { ...raw, key: markdownText(raw.key), value: raw.value === undefined ? undefined : markdownText(raw.value) };
  const rawKey = raw.key;
  const rawValue = raw.value;
  const parent = hit.path[hit.path.length - 1];
  const grandparent = hit.path[hit.path.length - 2];
  const range = { start: hit.start, end: hit.end };
  if (grandparent === 'resources' && (parent === 'limits' || parent === 'requests')) {
    const lines = [`**${hit.key}** (${parent === 'limits' ? 'limit' : 'request'})`];
    const gpu = classifyGpuResource(rawKey);
    const quantity = rawValue !== undefined ? parseQuantity(rawValue) : undefined;
    if (gpu) {
      lines.push('', `${gpu.vendor}: ${gpu.meaning}.${gpu.hamiOnly ? ' Enforced in user space by HAMi-core (libvgpu.so).' : ''}`);
      if (quantity?.ok && gpu.memoryUnit !== undefined && gpu.memoryUnit !== 'quantity') {
        const unit = gpu.memoryUnit === '256MiB' ? ' × 256 MiB' : ` ${gpu.memoryUnit}`;
        lines.push('', `${hit.value}${unit} = ${describeBytes(quantity.quantity.value * memoryUnitBytes(gpu.memoryUnit))} per GPU.`);
      } else if (quantity?.ok && gpu.role === 'memory') lines.push('', `${hit.value} = ${describeBytes(quantity.quantity.value)}.`);
    } else if (rawKey === 'memory' && quantity?.ok) {
      lines.push('', `${hit.value} = ${describeBytes(quantity.quantity.value)}.`);
      lines.push('', 'On unified-memory GPU nodes, GPU (GTT) memory is system RAM that this cgroup limit does not see.');
    } else if (rawKey === 'cpu' && quantity?.ok) {
      lines.push('', `${hit.value} = ${quantity.quantity.value} CPU${quantity.quantity.value === 1 ? '' : 's'}.`);
    }
    if (quantity && !quantity.ok) lines.push('', `Not a valid quantity: ${markdownText(quantity.reason)}.`);
    return { markdown: lines.join('\n'), ...range };
  }
  if (parent === 'annotations' && SHARING_HOVER[rawKey]) {
    return { markdown: `**${hit.key}**\n\n${SHARING_HOVER[rawKey]}`, ...range };
  }
  const base = [ANNOTATIONS.gpuMemory, ANNOTATIONS.hostMemory].find(
    (candidate) => rawKey === candidate || rawKey.startsWith(`${candidate}.`),
  );
  if (parent === 'annotations' && base) {
    const quantity = rawValue !== undefined ? parseQuantity(rawValue.trim()) : undefined;
    const what =
      base === ANNOTATIONS.gpuMemory ? 'Declared GPU memory (expected GTT / unified-memory footprint)' : 'Declared host-side memory';
    const container =
      rawKey.length > base.length ? ` of container "${markdownText(rawKey.slice(base.length + 1))}"` : ' of each GPU container';
    const value = quantity?.ok
      ? `: ${describeBytes(quantity.quantity.value)}`
      : quantity
        ? `: not a valid quantity (${markdownText(quantity.reason)})`
        : '';
    return {
      markdown: `**${hit.key}**\n\n${what}${container}${value}. gpumem checks memory limits and requests against it plus headroom.`,
      ...range,
    };
  }
  return undefined;
}
