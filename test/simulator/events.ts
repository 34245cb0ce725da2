// Events: those the simulated kubelet and scheduler record, and those clients create and patch (a node agent's).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimContext } from './context.ts';
import { readBody, sendJson, sendStatus } from './http.ts';
import type { Json, KubeObject, PodSpec } from './objects.ts';
import { newUid, timestamp } from './objects.ts';
import { alreadyExists, badRequest, invalid, notFound, statusBody } from './status.ts';

/** Records an Event on an object, as the kubelet (or the component named) does. */
export type RecordEvent = (
  involved: KubeObject,
  reason: string,
  message: string,
  type?: 'Normal' | 'Warning',
  component?: string,
  fieldPath?: string,
) => void;

export function eventsFor(ctx: SimContext) {
  const { store } = ctx;

  let eventSeq = 0;
  const recorded: { namespace: string; name: string; at: number }[] = [];
  /**
   * An Event as the kubelet or the scheduler records it; named `<object>.<hex unix nanoseconds>` like theirs.
   * Recorded events expire after an hour (the API server's default event TTL), and at most 2,000 are kept.
   */
  const recordEvent = (
    involved: KubeObject,
    reason: string,
    message: string,
    type: 'Normal' | 'Warning' = 'Normal',
    component = 'kubelet',
    fieldPath?: string,
  ): void => {
    const at = timestamp();
    const node = (involved['spec'] as PodSpec | undefined)?.nodeName;
    while (recorded.length > 0 && (recorded.length >= 2000 || (recorded[0] as { at: number }).at < Date.now() - 3_600_000)) {
      const old = recorded.shift() as { namespace: string; name: string };
      store.remove('events', old.namespace, old.name);
    }
    const eventName = `${involved.metadata.name as string}.${(BigInt(Date.now()) * 1_000_000n + BigInt(eventSeq++ % 1_000_000)).toString(16)}`;
    recorded.push({ namespace: involved.metadata.namespace ?? 'default', name: eventName, at: Date.now() });
    store.put('events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: eventName, namespace: involved.metadata.namespace ?? 'default', uid: newUid(), creationTimestamp: at },
      involvedObject: {
        kind: involved.kind,
        namespace: involved.metadata.namespace,
        name: involved.metadata.name,
        uid: involved.metadata.uid,
        apiVersion: involved.apiVersion,
        resourceVersion: involved.metadata.resourceVersion,
        ...(fieldPath ? { fieldPath } : {}),
      },
      reason,
      message,
      source: { component, ...(component === 'kubelet' && node ? { host: node } : {}) },
      firstTimestamp: at,
      lastTimestamp: at,
      count: 1,
      type,
      eventTime: null,
      reportingComponent: component,
      reportingInstance: component === 'kubelet' && node ? node : '',
    });
  };

  /** POST an Event (a node agent's, such as gpumem's GlobalOOMKill): stored as sent, named as sent. */
  const createEvent = async (req: IncomingMessage, res: ServerResponse, namespace: string): Promise<void> => {
    let body: KubeObject;
    try {
      body = JSON.parse(await readBody(req)) as KubeObject;
    } catch (err) {
      return sendStatus(res, badRequest(`the body of the request was in an unknown format (${(err as Error).message})`));
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body) || (body.kind !== undefined && body.kind !== 'Event'))
      return sendStatus(res, badRequest('the body of the request must be an Event object'));
    body.metadata ??= {};
    if (body.metadata.namespace !== undefined && body.metadata.namespace !== namespace)
      return sendStatus(res, badRequest('the namespace of the provided object does not match the namespace sent on the request'));
    const name = body.metadata.name;
    if (!name)
      return sendStatus(
        res,
        invalid('Event', '', [
          { reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' },
        ]),
      );
    if (!body['involvedObject'])
      return sendStatus(
        res,
        invalid('Event', name, [{ reason: 'FieldValueRequired', message: 'Required value', field: 'involvedObject' }]),
      );
    if (store.get('events', namespace, name)) return sendStatus(res, alreadyExists('events', '', name));
    const stored = store.put('events', {
      ...structuredClone(body),
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { ...structuredClone(body.metadata), name, namespace, uid: newUid(), creationTimestamp: timestamp() },
    });
    sendJson(res, 201, stored);
  };

  /** PATCH an Event with a JSON merge patch (RFC 7386); a strategic merge patch of an Event's scalar fields is the same. */
  const patchEvent = async (req: IncomingMessage, res: ServerResponse, namespace: string, name: string): Promise<void> => {
    const type = String(req.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim();
    if (type !== 'application/merge-patch+json' && type !== 'application/strategic-merge-patch+json')
      return sendStatus(
        res,
        statusBody(
          415,
          'UnsupportedMediaType',
          `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`,
        ),
      );
    const current = store.get('events', namespace, name);
    if (!current) return sendStatus(res, notFound('events', '', name));
    let patch: unknown;
    try {
      patch = JSON.parse(await readBody(req));
    } catch (err) {
      return sendStatus(res, badRequest(`error decoding patch: ${(err as Error).message}`));
    }
    const merge = (target: unknown, change: unknown): unknown => {
      if (change === null || typeof change !== 'object' || Array.isArray(change)) return change;
      const out: Json = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Json) } : {};
      for (const [key, value] of Object.entries(change as Json)) {
        if (value === null) delete out[key];
        else out[key] = merge(out[key], value);
      }
      return out;
    };
    const merged = merge(structuredClone(current), patch) as KubeObject;
    merged.metadata = { ...current.metadata, ...(merged.metadata ?? {}), name, namespace, uid: current.metadata.uid };
    sendJson(res, 200, store.put('events', merged));
  };

  return { recordEvent, createEvent, patchEvent };
}
