// List (label and field selectors, limit and continue) and watch (bookmarks, sendInitialEvents, 410 Expired after a
// compaction) of any resource the store holds.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { SimContext } from './context.ts';
import { bool, decodeContinue, encodeContinue, sendJson, sendStatus, withoutTypeMeta } from './http.ts';
import type { Json, KubeObject, ResourceInfo } from './objects.ts';
import { apiVersionOf, fieldValue, keyOf } from './objects.ts';
import { badRequest, continueExpired, expired } from './status.ts';
import type { ResourceRoute } from './routing.ts';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from './selectors.ts';
import type { FieldRequirement, LabelRequirement } from './selectors.ts';
import type { ChangeEvent } from './store.ts';
import type { OpenWatch } from './types.ts';

export function listWatchFor(ctx: SimContext) {
  const { store, watches, options, bookmarkInterval } = ctx;

  const selectors = (info: ResourceInfo, query: URLSearchParams): { labels: LabelRequirement[]; fields: FieldRequirement[] } => ({
    labels: parseLabelSelector(query.get('labelSelector') ?? undefined),
    fields: parseFieldSelector(query.get('fieldSelector') ?? undefined, info.fields),
  });

  const matcher =
    (info: ResourceInfo, namespace: string | undefined, labels: LabelRequirement[], fields: FieldRequirement[]) =>
    (o: KubeObject | undefined): boolean =>
      o !== undefined &&
      (namespace === undefined || o.metadata.namespace === namespace) &&
      matchesLabels(labels, o.metadata.labels) &&
      matchesFields(fields, (f) => fieldValue(info, o, f));

  const list = (res: ServerResponse, route: ResourceRoute, query: URLSearchParams): void => {
    const { info, namespace } = route;
    const { labels, fields } = selectors(info, query);
    const limit = Number(query.get('limit') ?? 0);
    const token = query.get('continue');
    let start = '';
    let listRv = store.resourceVersion;
    if (token) {
      const decoded = decodeContinue(token);
      if (!decoded)
        return sendStatus(res, badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)'));
      if (decoded.rv < store.compactedRv) return sendStatus(res, continueExpired());
      start = decoded.start;
      listRv = decoded.rv;
    }
    const matches = matcher(info, namespace, labels, fields);
    const items: KubeObject[] = [];
    let remaining = 0;
    let lastKey = '';
    for (const o of store.list(info.resource, namespace)) {
      const key = keyOf(o.metadata.namespace, o.metadata.name as string);
      if (start && key < start) continue;
      if (!matches(o)) continue;
      if (limit > 0 && items.length >= limit) {
        remaining++;
        continue;
      }
      items.push(o);
      lastKey = key;
    }
    const metadata: Json = { resourceVersion: String(listRv) };
    if (remaining > 0) {
      metadata['continue'] = encodeContinue(listRv, `${lastKey}\u0000`);
      if (labels.length === 0 && fields.length === 0) metadata['remainingItemCount'] = remaining;
    }
    // Custom resources come through unstructured lists, whose items keep their kind and apiVersion.
    sendJson(res, 200, {
      kind: info.listKind,
      apiVersion: apiVersionOf(info),
      metadata,
      items: info.crd ? items : items.map(withoutTypeMeta),
    });
  };

  const watch = (res: ServerResponse, route: ResourceRoute, query: URLSearchParams): void => {
    const { info, namespace } = route;
    const { labels, fields } = selectors(info, query);
    const rvParam = query.get('resourceVersion') ?? '';
    if (rvParam !== '' && !/^\d+$/.test(rvParam)) return sendStatus(res, badRequest(`invalid resource version: ${rvParam}`));
    const matches = matcher(info, namespace, labels, fields);
    const allowBookmarks = bool(query.get('allowWatchBookmarks'));
    const sendInitial = bool(query.get('sendInitialEvents'));
    const timeoutSeconds = Number(query.get('timeoutSeconds') ?? 0);
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
      'Audit-Id': randomUUID(),
    });
    res.flushHeaders();
    let done = false;
    let lastRv = rvParam === '' ? store.resourceVersion : Number(rvParam);
    const localTimers: NodeJS.Timeout[] = [];
    const write = (type: string, object: unknown): void => {
      if (!done && !res.writableEnded) res.write(`${JSON.stringify({ type, object })}\n`);
    };
    const bookmark = (annotations?: Record<string, string>): void => {
      lastRv = store.resourceVersion;
      write('BOOKMARK', {
        kind: info.kind,
        apiVersion: apiVersionOf(info),
        metadata: { resourceVersion: String(store.resourceVersion), ...(annotations ? { annotations } : {}) },
      });
    };
    const deliver = (event: ChangeEvent): void => {
      if (event.resource !== info.resource) return;
      lastRv = event.rv;
      if (event.type === 'DELETED') {
        if (matches(event.object)) write('DELETED', event.object);
        return;
      }
      const now = matches(event.object);
      const before = event.type === 'MODIFIED' && matches(event.prev);
      if (now && before) write('MODIFIED', event.object);
      else if (now) write('ADDED', event.object);
      else if (before) write('DELETED', event.object);
    };
    let unsubscribe: () => void = () => undefined;
    const end = (): void => {
      if (done) return;
      done = true;
      unsubscribe();
      for (const t of localTimers) clearTimeout(t);
      watches.delete(open);
      if (!res.writableEnded) res.end();
    };
    const open: OpenWatch = {
      expire: () => {
        write('ERROR', expired(lastRv, store.compactedRv));
        end();
      },
      end,
    };
    watches.add(open);
    res.on('close', end);
    if (rvParam === '' || rvParam === '0' || sendInitial) {
      for (const o of store.list(info.resource, namespace)) if (matches(o)) write('ADDED', o);
      lastRv = store.resourceVersion;
      if (sendInitial && allowBookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });
    } else {
      const since = store.since(info.resource, Number(rvParam));
      if (since === 'expired') {
        write('ERROR', expired(Number(rvParam), store.compactedRv));
        end();
        return;
      }
      for (const event of since) deliver(event);
    }
    unsubscribe = store.subscribe(deliver);
    const seconds = timeoutSeconds > 0 ? timeoutSeconds : (options.watchMaxSeconds ?? 1800);
    localTimers.push(setTimeout(end, seconds * 1000));
    if (allowBookmarks) localTimers.push(setInterval(() => bookmark(), bookmarkInterval));
  };

  return { list, watch };
}
