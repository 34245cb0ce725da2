// Defensive readers for Kubernetes objects as the API returns them. The input is either plain JSON
// (kubectl get -o json, a watch event, a fixture) or a @kubernetes/client-node model instance, which has
// the same property names but Date objects where the JSON has RFC 3339 strings. Nothing here throws on
// a missing or mistyped field: a tree view must render whatever the cluster sends.

export type JsonRecord = Readonly<Record<string, unknown>>;

export function asRecord(value: unknown): JsonRecord | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonRecord) : undefined;
}

export function asArray(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function asBoolean(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

/** A timestamp as RFC 3339 text, from a JSON string or a client-node Date. */
export function asTime(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
  return undefined;
}

/** A string map (labels, annotations, a resource list), keeping only string values. */
export function stringMap(value: unknown): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  const record = asRecord(value);
  if (!record) return out;
  for (const [key, entry] of Object.entries(record)) {
    if (typeof entry === 'string') out.set(key, entry);
    else if (typeof entry === 'number' && Number.isFinite(entry)) out.set(key, String(entry));
  }
  return out;
}

export function path(value: unknown, ...keys: readonly string[]): unknown {
  let current: unknown = value;
  for (const key of keys) {
    const record = asRecord(current);
    if (!record) return undefined;
    current = record[key];
  }
  return current;
}

export interface ObjectIdentity {
  readonly name: string;
  readonly namespace: string | undefined;
  readonly uid: string | undefined;
  readonly resourceVersion: string | undefined;
  readonly creationTimestamp: string | undefined;
  readonly labels: ReadonlyMap<string, string>;
  readonly annotations: ReadonlyMap<string, string>;
}

export function identity(object: unknown): ObjectIdentity {
  const metadata = asRecord(path(object, 'metadata'));
  return {
    name: asString(metadata?.['name']) ?? '',
    namespace: asString(metadata?.['namespace']),
    uid: asString(metadata?.['uid']),
    resourceVersion: asString(metadata?.['resourceVersion']),
    creationTimestamp: asTime(metadata?.['creationTimestamp']),
    labels: stringMap(metadata?.['labels']),
    annotations: stringMap(metadata?.['annotations']),
  };
}
