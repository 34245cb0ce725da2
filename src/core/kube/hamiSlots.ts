// HAMi's allocation annotations (Project-HAMi/HAMi docs/develop/protocol.md; pkg/device/devices.go
// EncodePodSingleDevice, DecodePodDevices, DecodeContainerDevices): `hami.io/vgpu-devices-allocated` and
// `-to-allocate` hold one slot per container, each `;`-terminated, and inside a slot one
// `<UUID>,<Type>,<usedMemMiB>,<usedCores>:` per device (HAMi reads the first four comma fields and ignores the
// rest). An empty slot keeps its container's place.
// Which containers the slots are (pkg/device/devices.go Resourcereqs): from HAMi v2.9.0 the init containers
// (sidecars included) then the app containers, so a pod with one init container starts with `;`; up to
// v2.8 the app containers only.
import { parseBoundedNumber } from '../probe/parsers/kernelNumber.ts';

export interface HamiDeviceAllocation {
  readonly uuid: string;
  readonly type: string;
  readonly usedMemMiB: number;
  readonly usedCores: number;
}

export interface HamiContainerAllocation {
  /** Position in the annotation. */
  readonly index: number;
  /** The container this entry belongs to, when the entry count matches the pod's containers. */
  readonly container: string | undefined;
  readonly devices: readonly HamiDeviceAllocation[];
}

export interface HamiSlotContainers {
  /** Init containers (sidecars included) then app containers: HAMi ≥ v2.9.0's slots. */
  readonly all: readonly string[];
  /** App containers: HAMi ≤ v2.8's slots. */
  readonly app: readonly string[];
  /** The containers that request a GPU resource; when given, a slot with devices must be one of them. */
  readonly requesting?: readonly string[];
}

/**
 * Parses a HAMi container-devices annotation (see the header) and names each slot's container, by position
 * only, never by shifting a slot to another container:
 * - the slots are the pod's init then app containers when their count is that (HAMi ≥ v2.9.0), else the app
 *   containers when it is theirs (≤ v2.8), else no slot is named;
 * - empty slots past the containers are dropped first: the device plugin rewrites `-to-allocate` with one more
 *   each time it hands a container its devices (v2.9.0 `eraseNextDeviceTypeFromAnnotation` re-encodes the
 *   empty slot its decoder keeps after the last `;`), so two containers read `;;;`;
 * - a device with no UUID (`,,0,0`) is the empty placeholder some versions wrote for a container without
 *   devices (Project-HAMi/HAMi#991), not a device;
 * - when a slot with devices would name a container that requests no GPU, the slots do not follow the
 *   containers (the #991 shape: the device in the first slot, the GPU in the second container); no slot is
 *   named then, and the problem says so.
 */
export function parseHamiPodDevices(
  value: string,
  containers: HamiSlotContainers = { all: [], app: [] },
): { entries: HamiContainerAllocation[]; problems: string[] } {
  const problems: string[] = [];
  const parts = value.split(';');
  // Every container slot is `;`-terminated: the text after the last `;` is empty in a well-formed value.
  if (parts.length > 1 && (parts[parts.length - 1] ?? '').trim() === '') parts.pop();
  const slots = parts.map((part, index) => ({ index, devices: devicesOf(part, index, problems) }));
  const counts = new Set([containers.all.length, containers.app.length].filter((count) => count > 0));
  while (
    slots.length > 0 &&
    !counts.has(slots.length) &&
    [...counts].some((count) => count < slots.length) &&
    slots[slots.length - 1]?.devices.length === 0
  )
    slots.pop();
  const names =
    slots.length === containers.all.length ? containers.all : slots.length === containers.app.length ? containers.app : undefined;
  const stray =
    names && containers.requesting && containers.requesting.length > 0
      ? slots.find((slot) => slot.devices.length > 0 && !containers.requesting?.includes(names[slot.index] ?? ''))
      : undefined;
  if (stray && names)
    problems.push(
      `slot ${stray.index} holds devices but its container "${names[stray.index] ?? ''}" requests no GPU: the slots do not follow the pod's containers, so none is attributed`,
    );
  const named = stray ? undefined : names;
  const entries = slots.map((slot) => ({ index: slot.index, container: named?.[slot.index], devices: slot.devices }));
  return { entries: value.trim() === '' || value.trim() === ';' ? [] : entries, problems };
}

function devicesOf(part: string, index: number, problems: string[]): HamiDeviceAllocation[] {
  const devices: HamiDeviceAllocation[] = [];
  for (const device of part.split(':')) {
    if (!device.includes(',')) continue;
    const fields = device.split(',');
    if (fields.length < 4) {
      problems.push(`container slot ${index}: device "${device.slice(0, 80)}" has ${fields.length} fields; HAMi needs 4`);
      continue;
    }
    const uuid = (fields[0] ?? '').trim();
    if (uuid === '') continue;
    const int = (text: string | undefined): number => {
      const trimmed = (text ?? '').trim();
      // Bounded: a 400-digit field is no number (0, as HAMi's strconv error gives), never Infinity.
      return parseBoundedNumber(trimmed.startsWith('+') ? trimmed.slice(1) : trimmed, { signed: true }) ?? 0;
    };
    devices.push({ uuid: fields[0] ?? '', type: fields[1] ?? '', usedMemMiB: int(fields[2]), usedCores: int(fields[3]) });
  }
  return devices;
}
