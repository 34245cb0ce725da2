// What the cluster told an inspection (each HAMi pod's allocation, the HAMi checklist's cluster facts), kept
// in the webview's saved state beside the capture: a panel VS Code restores after a reload re-analyses the
// capture with them, so its verdicts and exports are those of the inspection that was shown (quota held or
// exceeded, not "unknown"), without asking the cluster again.
//
// The saved state comes back from the webview, so it is untrusted: parseClusterFactsState keeps only
// well-formed fields within bounds and drops the rest, never throws.
import type { ClusterFacts } from '../inspectionRun/analyze.ts';
import type { HamiClusterFacts, RuntimeClassLookup } from '../verdicts/hami/hamiCheck.ts';
import type { HamiPodQuota } from '../verdicts/hami/hamiQuotaRow.ts';

export interface ClusterFactsState {
  /** Pod UID → GPU UUID → MiB (hami.io/vgpu-devices-allocated). */
  readonly hamiQuotas: Readonly<Record<string, Readonly<Record<string, number>>>> | null;
  readonly hamiCluster: HamiClusterFacts | null;
}

const MAX_PODS = 10_000;
const MAX_ITEMS = 1_000;
const MAX_TEXT = 1_024;
/** The container log is scanned for HAMi-core's lines; its last 256 KiB are kept (the newest lines). */
export const MAX_STATE_LOG_CHARS = 256 * 1024;

export function clusterFactsToState(facts: ClusterFacts): ClusterFactsState | null {
  if (!facts.hamiQuotas && !facts.hamiCluster) return null;
  const hamiQuotas = facts.hamiQuotas
    ? Object.fromEntries([...facts.hamiQuotas].map(([podUid, quota]) => [podUid, Object.fromEntries(quota.devices)]))
    : null;
  const log = facts.hamiCluster?.containerLog;
  const hamiCluster = facts.hamiCluster ? { ...facts.hamiCluster, ...(log !== undefined ? { containerLog: logTail(log) } : {}) } : null;
  return { hamiQuotas, hamiCluster };
}

export function clusterFactsFromState(state: ClusterFactsState | null): ClusterFacts {
  if (!state) return {};
  const quotas = state.hamiQuotas
    ? new Map<string, HamiPodQuota>(
        Object.entries(state.hamiQuotas).map(([podUid, devices]) => [podUid, { devices: new Map(Object.entries(devices)) }]),
      )
    : undefined;
  return { ...(quotas ? { hamiQuotas: quotas } : {}), ...(state.hamiCluster ? { hamiCluster: state.hamiCluster } : {}) };
}

/** The saved cluster facts, checked field by field; null when there are none or they are not an object. */
export function parseClusterFactsState(value: unknown): ClusterFactsState | null {
  if (!isRecord(value)) return null;
  const hamiQuotas = parseQuotas(value['hamiQuotas']);
  const hamiCluster = parseHamiCluster(value['hamiCluster']);
  return hamiQuotas || hamiCluster ? { hamiQuotas, hamiCluster } : null;
}

function parseQuotas(value: unknown): Record<string, Record<string, number>> | null {
  if (!isRecord(value)) return null;
  // Object.fromEntries defines own properties: a key "__proto__" stays a key, never the prototype.
  const pods: [string, Record<string, number>][] = [];
  for (const [podUid, devices] of Object.entries(value).slice(0, MAX_PODS)) {
    if (!text(podUid) || !isRecord(devices)) continue;
    const kept = Object.entries(devices)
      .slice(0, MAX_ITEMS)
      .filter((entry): entry is [string, number] => text(entry[0]) && amount(entry[1]));
    pods.push([podUid, Object.fromEntries(kept)]);
  }
  return Object.fromEntries(pods);
}

function parseRuntimeClassLookup(value: unknown): RuntimeClassLookup | undefined {
  if (!isRecord(value) || !text(value['name'])) return undefined;
  const name = value['name'];
  if (value['kind'] === 'found' && text(value['handler'])) return { kind: 'found', name, handler: value['handler'] };
  if (value['kind'] === 'missing') return { kind: 'missing', name };
  if (value['kind'] === 'unreadable' && text(value['reason'])) return { kind: 'unreadable', name, reason: value['reason'] };
  return undefined;
}

function parseHamiCluster(value: unknown): HamiClusterFacts | null {
  if (!isRecord(value)) return null;
  const facts: { -readonly [K in keyof HamiClusterFacts]: HamiClusterFacts[K] } = {};
  const plugins = list(value['devicePluginPods'], (pod) =>
    isRecord(pod) && text(pod['name']) && text(pod['phase'])
      ? { name: pod['name'], phase: pod['phase'], ...(typeof pod['ready'] === 'boolean' ? { ready: pod['ready'] } : {}) }
      : undefined,
  );
  if (plugins) facts.devicePluginPods = plugins;
  const runtimeClassName = value['runtimeClassName'];
  if (runtimeClassName === null || text(runtimeClassName)) facts.runtimeClassName = runtimeClassName;
  if (typeof value['privileged'] === 'boolean') facts.privileged = value['privileged'];
  if (text(value['hamiVersion'])) facts.hamiVersion = value['hamiVersion'];
  if (text(value['gpuOperatorVersion'])) facts.gpuOperatorVersion = value['gpuOperatorVersion'];
  const runtimeClass = parseRuntimeClassLookup(value['runtimeClass']);
  if (runtimeClass) facts.runtimeClass = runtimeClass;
  const env = value['podEnv'];
  if (isRecord(env)) {
    const kept = Object.entries(env)
      .slice(0, MAX_ITEMS)
      .filter((entry): entry is [string, string] => text(entry[0]) && typeof entry[1] === 'string' && entry[1].length <= 64 * 1024);
    facts.podEnv = Object.fromEntries(kept);
  }
  const log = value['containerLog'];
  if (typeof log === 'string') facts.containerLog = logTail(log);
  if (typeof value['managedByHami'] === 'boolean') facts.managedByHami = value['managedByHami'];
  const allocated = list(value['allocatedDevices'], (device) =>
    isRecord(device) && text(device['uuid']) && amount(device['memMiB']) ? { uuid: device['uuid'], memMiB: device['memMiB'] } : undefined,
  );
  if (allocated) facts.allocatedDevices = allocated;
  const registered = list(value['registeredDevices'], (device) =>
    isRecord(device) && text(device['uuid']) && amount(device['devmemMiB'])
      ? { uuid: device['uuid'], devmemMiB: device['devmemMiB'] }
      : undefined,
  );
  if (registered) facts.registeredDevices = registered;
  return facts;
}

function logTail(log: string): string {
  return log.length > MAX_STATE_LOG_CHARS ? log.slice(log.length - MAX_STATE_LOG_CHARS) : log;
}

function list<T>(value: unknown, item: (entry: unknown) => T | undefined): T[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: T[] = [];
  for (const entry of value.slice(0, MAX_ITEMS)) {
    const kept = item(entry);
    if (kept !== undefined) out.push(kept);
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_TEXT;
}

/** MiB: a finite, non-negative safe integer. */
function amount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
