// HAMi's node annotations: the device registration in both of its formats and the handshakes.
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
import { asBoolean, asNumber, asRecord, asString } from './json.ts';

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

export function hamiNodeInfo(annotations: ReadonlyMap<string, string>): HamiNodeInfo | undefined {
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
    cordonedDevices: cordon
      ? cordon
          .split(',')
          .map((id) => id.trim())
          .filter((id) => id !== '')
      : [],
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
    return {
      format: 'invalid',
      devices,
      problems: [
        ...problems,
        'no device entries (expected `<UUID>,<split>,<MiB>,<cores>,<type>,<numa>,<health>[,<index>,<mode>]:` or a JSON array)',
      ],
    };
  }
  return { format: 'csv', devices, problems };
}
