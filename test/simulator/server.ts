// A Kubernetes API server simulator that speaks the real wire formats, so the real @kubernetes/client-node
// code runs against it unmodified: HTTPS with client-certificate or bearer-token authentication, discovery,
// namespaces / nodes / pods / events / daemonsets / deployments / replicasets / statefulsets / jobs / cronjobs with
// list, get and watch (label and field selectors, limit/continue), pod create and delete, event create and merge
// patch (a node agent's Events), RBAC with the API server's 403 messages, watch
// semantics with bookmarks and the 410 `Expired` of a compacted resourceVersion, SelfSubjectAccessReview,
// the exec WebSocket (v5/v4/channel.k8s.io) running the command for real in chroot fixture roots, and
// pods/log (text/plain, container / tailLines / limitBytes / previous: podLogs.ts).
// Fault injection (latency, forced status codes, a dropped exec socket, expired watches, refused pod
// creation) is settable while it runs.
//
//   const sim = await startSimulator({ fixtures: loadFixtures() });
//   const kc = new k8s.KubeConfig(); kc.loadFromString(sim.kubeconfig('admin'));
//   …
//   await sim.close();   // ends watches and execs, unmounts, removes roots and the PKI
//
// This file wires the parts: context.ts (what they share), auth.ts, routing.ts, http.ts, listWatch.ts, events.ts,
// pods.ts (podStart.ts, podValidation.ts), proxies.ts, execUpgrade.ts, kubeconfig.ts; the types are in types.ts.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { authFor, authorizePath, PUBLIC_PATHS } from './auth.ts';
import { createContext } from './context.ts';
import { eventsFor } from './events.ts';
import { execUpgradeFor } from './execUpgrade.ts';
import { rejectUpgrade, sendJson, sendStatus, sleep, forcedBody } from './http.ts';
import { kubeconfigFor } from './kubeconfig.ts';
import { listWatchFor } from './listWatch.ts';
import { newUid, resourceOfKind, RESOURCES, timestamp } from './objects.ts';
import {
  badRequest,
  forbidden,
  forbiddenPath,
  internalError,
  methodNotAllowed,
  notFound,
  pathNotFound,
  statusBody,
  unauthorized,
} from './status.ts';
import { createPki } from './pki.ts';
import type { CertPair } from './pki.ts';
import { podLogAnswer, podLogKey } from './podLogs.ts';
import { podsFor } from './pods.ts';
import { proxiesFor } from './proxies.ts';
import { attrsOf, discovery, parseResourcePath, verbOf } from './routing.ts';
import { SelectorError } from './selectors.ts';
import type { Simulator, SimulatorFaults, SimulatorOptions, SimulatorState } from './types.ts';

export { DEMO_CONTEXT, DEMO_GIT_VERSION } from './types.ts';
export type {
  ExecRecord,
  ForcedStatus,
  KubeconfigOptions,
  PodRecord,
  RequestRecord,
  Simulator,
  SimulatorFaults,
  SimulatorOptions,
  SimulatorState,
} from './types.ts';

export async function startSimulator(options: SimulatorOptions): Promise<Simulator> {
  const ctx = createContext(options);
  const { users, store, roots, podLogs, watches, pods, createdPods, deletedPods, execs, requests, childExits, timers } = ctx;
  const pki = await createPki();
  const certs = new Map<string, CertPair>();
  let port = 0;

  try {
    for (const user of users.values()) {
      if (user.cert !== false) certs.set(user.name, await pki.clientCert(user.name, user.groups ?? []));
    }
  } catch (err) {
    pki.cleanup();
    roots.cleanup();
    throw err;
  }

  const installed = new Set<string>(options.crds ?? []);
  for (const obj of options.fixtures.objects) {
    const info = resourceOfKind(obj.kind);
    if (!info) throw new Error(`fixtures: no resource serves kind ${obj.kind}`);
    if (info.crd && options.crds === undefined) installed.add(info.group);
    store.load(info.resource, obj);
  }

  const setFault = (patch: SimulatorFaults | null): void => {
    if (patch === null) {
      ctx.faults = {};
      return;
    }
    const { expireWatches: expire, ...rest } = patch;
    ctx.faults = { ...ctx.faults, ...rest };
    if (expire) expireAll();
  };

  const expireAll = (): void => {
    store.compact();
    for (const w of [...watches]) w.expire();
  };
  if (options.faults) setFault(options.faults);

  const { authenticate, authorize, forcedStatus, selfSubjectAccessReview } = authFor(ctx);
  const { list, watch } = listWatchFor(ctx);
  const { recordEvent, createEvent, patchEvent } = eventsFor(ctx);
  const { runtime, stopPodRuntime, createPod, deletePod } = podsFor(ctx, recordEvent);
  const { podProxy, setPodProxy, setServiceProxy } = proxiesFor(ctx, authorize);
  const { wss, handleUpgrade } = execUpgradeFor(ctx, { authenticate, authorize, forcedStatus, runtime });

  // -------------------------------------------------------------------------------------------------
  // HTTP

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'https://simulator.invalid');
    const record = ctx.logRequest(method, `${url.pathname}${url.search}`, req.headers['user-agent']);
    res.on('finish', () => (record.code = res.statusCode));
    res.on('close', () => (record.code ??= res.statusCode));
    if (ctx.faults.latencyMs) await sleep(ctx.faults.latencyMs);
    if (ctx.closed) return sendStatus(res, statusBody(503, 'ServiceUnavailable', 'the server is shutting down', {}));
    const pathname = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const user = authenticate(req);
    if (user) record.user = user.name;
    const route = parseResourcePath(pathname, installed);
    const resourceRoute = route && route !== 'notfound' ? route : undefined;
    const verb = resourceRoute ? verbOf(method, resourceRoute, url.searchParams) : method.toLowerCase();
    const forced = forcedStatus(method, `${url.pathname}${url.search}`, pathname);
    if (forced)
      return sendStatus(
        res,
        forcedBody(forced.code, user, resourceRoute ? attrsOf(user, resourceRoute, verb) : undefined, method, pathname),
      );
    if (!user) return sendStatus(res, unauthorized());

    const proxied = /^\/api\/v1\/namespaces\/([^/]+)\/(pods|services)\/([^/]+)\/proxy(\/.*)?$/.exec(pathname);
    if (proxied) return podProxy(req, res, user, proxied, url.search);
    if (PUBLIC_PATHS.has(pathname) && pathname !== '/version') {
      res.writeHead(200, {
        'Content-Type': 'text/plain; charset=utf-8',
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-cache, private',
      });
      res.end('ok');
      return;
    }
    const disco = method === 'GET' ? discovery(pathname, ctx.gitVersion, port, installed) : undefined;
    if (disco !== undefined) {
      if (!authorizePath(user, pathname)) return sendStatus(res, forbiddenPath(user.name, 'get', pathname));
      return sendJson(res, 200, disco);
    }
    if (pathname === '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews') {
      if (method !== 'POST') return sendStatus(res, methodNotAllowed());
      return selfSubjectAccessReview(req, res, user);
    }
    if (route === undefined || route === 'notfound') return sendStatus(res, pathNotFound());

    const attrs = attrsOf(user, route, verb);
    if (!authorize(user, attrs)) return sendStatus(res, forbidden(attrs));
    const { info, namespace, name, subresource } = route;
    try {
      if (subresource !== undefined) {
        if (info.resource === 'pods' && subresource === 'exec') return sendStatus(res, badRequest('Upgrade request required'));
        if (info.resource === 'pods' && subresource === 'log' && method === 'GET' && namespace !== undefined && name !== undefined)
          return sendPodLog(res, namespace, name, url.searchParams);
        return sendStatus(res, pathNotFound());
      }
      if (method === 'GET' && name === undefined) {
        if (verb === 'watch') return watch(res, route, url.searchParams);
        return list(res, route, url.searchParams);
      }
      if (method === 'GET' && name !== undefined) {
        const obj = info.resource === 'namespaces' ? store.get('namespaces', undefined, name) : store.get(info.resource, namespace, name);
        if (!obj) return sendStatus(res, notFound(info.resource, info.group, name));
        return sendJson(res, 200, obj);
      }
      if (info.resource === 'pods' && method === 'POST' && name === undefined && namespace !== undefined)
        return await createPod(req, res, namespace, user, url.searchParams);
      if (info.resource === 'pods' && method === 'DELETE' && name !== undefined && namespace !== undefined)
        return await deletePod(req, res, namespace, name, user, url.searchParams);
      if (info.resource === 'events' && method === 'POST' && name === undefined && namespace !== undefined)
        return await createEvent(req, res, namespace);
      if (info.resource === 'events' && method === 'PATCH' && name !== undefined && namespace !== undefined)
        return await patchEvent(req, res, namespace, name);
      return sendStatus(res, methodNotAllowed());
    } catch (err) {
      if (err instanceof SelectorError) return sendStatus(res, badRequest(err.message));
      return sendStatus(res, internalError((err as Error).message));
    }
  };

  const sendPodLog = (res: ServerResponse, namespace: string, name: string, query: URLSearchParams): void => {
    const pod = store.get('pods', namespace, name);
    if (!pod) return sendStatus(res, notFound('pods', '', name));
    const answer = podLogAnswer(pod, query, podLogs);
    if (answer.kind === 'status') return sendStatus(res, answer.status);
    res.writeHead(200, {
      'Content-Type': 'text/plain',
      'Content-Length': String(Buffer.byteLength(answer.text)),
      'Cache-Control': 'no-cache, private',
      'Audit-Id': randomUUID(),
    });
    res.end(answer.text);
  };

  // -------------------------------------------------------------------------------------------------
  // Server

  const server = createServer(
    { key: pki.server.key, cert: pki.server.cert, ca: pki.ca, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) sendStatus(res, internalError((err as Error).message));
        else res.end();
      });
    },
  );
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    handleUpgrade(req, socket, head).catch((err: unknown) => rejectUpgrade(socket, internalError((err as Error).message)));
  });
  server.on('tlsClientError', () => undefined);
  let tlsConnections = 0;
  const openTls = new Set<TLSSocket>();
  server.on('secureConnection', (socket: TLSSocket) => {
    tlsConnections++;
    openTls.add(socket);
    socket.once('close', () => openTls.delete(socket));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => {
        server.removeListener('error', reject);
        resolve();
      });
    });
  } catch (err) {
    roots.cleanup();
    pki.cleanup();
    throw err;
  }
  const address = server.address();
  port = typeof address === 'object' && address !== null ? address.port : 0;
  const url = `https://127.0.0.1:${port}`;

  const kubeconfig = kubeconfigFor(users, certs, url, pki.ca);

  // -------------------------------------------------------------------------------------------------
  // State

  const state: SimulatorState = {
    store,
    get resourceVersion() {
      return store.resourceVersion;
    },
    get: (resource, namespace, name) => {
      const o = store.get(resource, RESOURCES[resource]?.namespaced ? namespace : undefined, name);
      return o ? structuredClone(o) : undefined;
    },
    list: (resource, namespace) => store.list(resource, namespace).map((o) => structuredClone(o)),
    put: (object) => {
      const info = resourceOfKind(object.kind);
      if (!info) throw new Error(`no resource serves kind ${object.kind}`);
      const copy = structuredClone(object);
      copy.metadata.uid ??= newUid();
      copy.metadata.creationTimestamp ??= timestamp();
      return structuredClone(store.put(info.resource, copy));
    },
    remove: (resource, namespace, name) => {
      const info = RESOURCES[resource];
      if (info?.resource === 'pods' && namespace) {
        const pod = store.get('pods', namespace, name);
        if (pod) stopPodRuntime(pod.metadata.uid as string);
      }
      return store.remove(resource, info?.namespaced ? namespace : undefined, name);
    },
    createdPods,
    deletedPods,
    execs,
    requests,
    get tlsConnections() {
      return tlsConnections;
    },
    openTlsConnections: () => openTls.size,
    openWatches: () => watches.size,
    runningExecs: () => [...pods.values()].reduce((n, r) => n + [...r.execs].filter((e) => e.running).length, 0),
    mounts: () => roots.activeMounts(),
    rootDirectories: () => roots.directories(),
    cleanupProblems: roots.problems,
    setPodLog: (namespace, pod, container, text, previous = false) =>
      void podLogs.set(podLogKey(namespace, pod, container, previous), text),
    expireWatches: () => expireAll(),
    waitForPodGone: (namespace, name, timeoutMs = 5000) =>
      new Promise<void>((resolve, reject) => {
        if (!store.get('pods', namespace, name)) return resolve();
        const timer = setTimeout(() => {
          off();
          reject(new Error(`pod ${namespace}/${name} still exists after ${timeoutMs} ms`));
        }, timeoutMs);
        const off = store.subscribe((e) => {
          if (
            e.resource === 'pods' &&
            e.type === 'DELETED' &&
            e.object.metadata.namespace === namespace &&
            e.object.metadata.name === name
          ) {
            clearTimeout(timer);
            off();
            resolve();
          }
        });
      }),
  };

  const close = async (): Promise<void> => {
    if (ctx.closed) return;
    ctx.closed = true;
    for (const t of timers) clearTimeout(t);
    timers.clear();
    for (const w of [...watches]) w.end();
    for (const uid of [...pods.keys()]) {
      const r = pods.get(uid);
      if (r) for (const e of r.execs) e.kill();
    }
    for (const client of wss.clients) client.terminate();
    await Promise.race([Promise.all([...childExits]), sleep(3000)]);
    for (const uid of [...pods.keys()]) stopPodRuntime(uid);
    wss.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    roots.cleanup();
    pki.cleanup();
  };

  return {
    url,
    port,
    caFile: pki.caFile,
    ca: pki.ca,
    kubeconfig,
    setFault,
    setPodProxy,
    setServiceProxy,
    get faults() {
      return ctx.faults;
    },
    state,
    users: [...users.values()],
    nodeRoot: (node: string) => (roots.unavailable === undefined && roots.hasNodeScenario(node) ? roots.nodeRoot(node) : undefined),
    close,
  };
}
