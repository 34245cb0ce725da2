// Pods through the API: create (validated, scheduled if it names a node, then started), delete (with its grace period
// and preconditions), and each pod's runtime (timers and execs) that a delete or a close stops.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimContext } from './context.ts';
import type { RecordEvent } from './events.ts';
import { readBody, sendJson, sendStatus } from './http.ts';
import type { Json, KubeObject } from './objects.ts';
import { containersOf, defaultPodSpec, nameSuffix, newUid, podSpec, qosClass, timestamp } from './objects.ts';
import { alreadyExists, badRequest, invalid, notFound, statusBody } from './status.ts';
import { podStarterFor } from './podStart.ts';
import { validatePod } from './podValidation.ts';
import type { AuthUser, PodRuntime } from './types.ts';

export function podsFor(ctx: SimContext, recordEvent: RecordEvent) {
  const { store, pods, timers, roots, createdPods, deletedPods, later, stopDelay } = ctx;

  const runtime = (uid: string): PodRuntime => {
    let r = pods.get(uid);
    if (!r) {
      r = { timers: [], execs: new Set() };
      pods.set(uid, r);
    }
    return r;
  };

  const stopPodRuntime = (uid: string): void => {
    const r = pods.get(uid);
    if (!r) return;
    for (const t of r.timers) {
      clearTimeout(t);
      timers.delete(t);
    }
    for (const e of r.execs) e.kill();
    pods.delete(uid);
    roots.releasePod(uid);
  };

  const updatePod = (namespace: string, name: string, uid: string, change: (pod: KubeObject) => boolean | void): KubeObject | undefined => {
    const current = store.get('pods', namespace, name);
    if (!current || current.metadata.uid !== uid) return undefined;
    const pod = structuredClone(current);
    if (change(pod) === false) return undefined;
    return store.put('pods', pod);
  };

  const startPod = podStarterFor(ctx, { runtime, updatePod, recordEvent });

  const createPod = async (
    req: IncomingMessage,
    res: ServerResponse,
    namespace: string,
    user: AuthUser,
    query: URLSearchParams,
  ): Promise<void> => {
    let body: KubeObject;
    try {
      body = JSON.parse(await readBody(req)) as KubeObject;
    } catch (err) {
      return sendStatus(
        res,
        badRequest(
          `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf (${(err as Error).message})`,
        ),
      );
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      return sendStatus(res, badRequest('the body of the request must be a Pod object'));
    if (body.kind !== undefined && body.kind !== 'Pod')
      return sendStatus(
        res,
        badRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (v1)`),
      );
    body.metadata ??= {};
    if (body.metadata.namespace !== undefined && body.metadata.namespace !== namespace)
      return sendStatus(res, badRequest('the namespace of the provided object does not match the namespace sent on the request'));
    if (!store.get('namespaces', undefined, namespace)) return sendStatus(res, notFound('namespaces', '', namespace));
    const target = (body['spec'] as { nodeName?: unknown } | undefined)?.nodeName;
    if (typeof target === 'string' && ctx.faults.denyPodsOnNodes?.includes(target))
      return sendStatus(
        res,
        statusBody(403, 'Forbidden', `admission webhook "policy.gpumem.dev" denied the request: pods may not be created on node ${target}`),
      );
    const causes = validatePod(body);
    if (causes.length > 0) return sendStatus(res, invalid('Pod', body.metadata.name ?? body.metadata.generateName ?? '', causes));
    let name = body.metadata.name;
    if (!name) {
      do name = `${body.metadata.generateName as string}${nameSuffix()}`;
      while (store.get('pods', namespace, name));
    }
    if (store.get('pods', namespace, name)) return sendStatus(res, alreadyExists('pods', '', name));
    const now = timestamp();
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { ...structuredClone(body.metadata), name, namespace, uid: newUid(), creationTimestamp: now },
      spec: structuredClone(body['spec']),
      status: {},
    };
    delete pod.metadata.resourceVersion;
    delete pod.metadata.deletionTimestamp;
    defaultPodSpec(pod);
    const spec = podSpec(pod);
    const status = pod['status'] as Json;
    status['phase'] = 'Pending';
    status['qosClass'] = qosClass(pod);
    if (spec.nodeName) status['conditions'] = [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now }];
    if (query.get('dryRun') === 'All') return sendJson(res, 201, pod);
    const stored = store.put('pods', pod);
    createdPods.push({
      namespace,
      name,
      uid: stored.metadata.uid as string,
      user: user.name,
      at: Date.now(),
      ...(spec.nodeName ? { nodeName: spec.nodeName } : {}),
    });
    if (spec.nodeName)
      recordEvent(stored, 'Scheduled', `Successfully assigned ${namespace}/${name} to ${spec.nodeName}`, 'Normal', 'default-scheduler');
    startPod(stored);
    sendJson(res, 201, stored);
  };

  const removePod = (namespace: string, name: string, uid: string): void => {
    const current = store.get('pods', namespace, name);
    if (!current || current.metadata.uid !== uid) return;
    stopPodRuntime(uid);
    store.remove('pods', namespace, name);
  };

  const deletePod = async (
    req: IncomingMessage,
    res: ServerResponse,
    namespace: string,
    name: string,
    user: AuthUser,
    query: URLSearchParams,
  ): Promise<void> => {
    let options: Json = {};
    try {
      const text = await readBody(req);
      if (text.trim()) options = JSON.parse(text) as Json;
    } catch {
      return sendStatus(res, badRequest('the body of the request was in an unknown format'));
    }
    const pod = store.get('pods', namespace, name);
    if (!pod) return sendStatus(res, notFound('pods', '', name));
    const uid = pod.metadata.uid as string;
    const preconditionUid = (options['preconditions'] as Json | undefined)?.['uid'];
    if (typeof preconditionUid === 'string' && preconditionUid !== uid) {
      return sendStatus(
        res,
        statusBody(
          409,
          'Conflict',
          `Operation cannot be fulfilled on Pod "${name}": Precondition failed: UID in precondition: ${preconditionUid}, UID in object meta: ${uid}`,
          { name, kind: 'Pod' },
        ),
      );
    }
    const fromQuery = query.get('gracePeriodSeconds');
    const fromBody = options['gracePeriodSeconds'];
    const requested = fromQuery !== null ? Number(fromQuery) : typeof fromBody === 'number' ? fromBody : undefined;
    const grace = Math.max(0, requested ?? podSpec(pod).terminationGracePeriodSeconds ?? 30);
    if (query.get('dryRun') === 'All' || (Array.isArray(options['dryRun']) && (options['dryRun'] as unknown[]).includes('All')))
      return sendJson(res, 200, pod);
    deletedPods.push({ namespace, name, uid, user: user.name, at: Date.now(), gracePeriodSeconds: grace });
    const phase = (pod['status'] as Json | undefined)?.['phase'];
    const onNode = Boolean(podSpec(pod).nodeName) && phase !== 'Succeeded' && phase !== 'Failed';
    if (grace === 0 || !onNode) {
      removePod(namespace, name, uid);
      return sendJson(res, 200, pod);
    }
    if (pod.metadata.deletionTimestamp) return sendJson(res, 200, pod);
    const terminating = updatePod(namespace, name, uid, (p) => {
      p.metadata.deletionTimestamp = timestamp(Date.now() + grace * 1000);
      p.metadata.deletionGracePeriodSeconds = grace;
    });
    const r = runtime(uid);
    for (const e of r.execs) e.kill();
    for (const c of containersOf(pod))
      recordEvent(pod, 'Killing', `Stopping container ${c.name}`, 'Normal', 'kubelet', `spec.containers{${c.name}}`);
    r.timers.push(later(Math.min(stopDelay, grace * 1000), () => removePod(namespace, name, uid)));
    sendJson(res, 200, terminating ?? pod);
  };

  return { runtime, stopPodRuntime, createPod, deletePod };
}
