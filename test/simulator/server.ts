// A Kubernetes API server simulator that speaks the real wire formats, so the real @kubernetes/client-node
// code runs against it unmodified: HTTPS with client-certificate or bearer-token authentication, discovery,
// namespaces / nodes / pods / events / daemonsets / deployments with list, get and watch (label and field
// selectors, limit/continue), pod create and delete, event create and merge patch (a node agent's
// Events), RBAC with the API server's 403 messages, watch
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
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { createServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { stringify } from 'yaml';
import { EXEC_PROTOCOLS, runExec } from './exec.ts';
import type { ExecProtocol, ExecResult, ExecSession } from './exec.ts';
import type { ClusterFixtures, RbacRule, SimulatorUser } from './fixtures.ts';
import type { AuthzAttributes, InvalidCause, Json, KubeObject, PodSpec, ResourceInfo, StatusBody } from './objects.ts';
import {
  alreadyExists,
  apiVersionOf,
  badRequest,
  containersOf,
  continueExpired,
  defaultPodSpec,
  expired,
  fieldValue,
  forbidden,
  forbiddenPath,
  internalError,
  invalid,
  keyOf,
  methodNotAllowed,
  nameSuffix,
  newUid,
  notFound,
  pathNotFound,
  podConditions,
  podSpec,
  qosClass,
  resourceOfKind,
  RESOURCES,
  runningContainerStatus,
  statusBody,
  timestamp,
  unauthorized,
  waitingContainerStatus,
} from './objects.ts';
import { createPki } from './pki.ts';
import { podLogAnswer, podLogKey } from './podLogs.ts';
import type { CertPair } from './pki.ts';
import { Roots } from './roots.ts';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector, SelectorError } from './selectors.ts';
import type { FieldRequirement, LabelRequirement } from './selectors.ts';
import type { ChangeEvent } from './store.ts';
import { Store } from './store.ts';
import { WebSocketServer } from './wsTypes.ts';
import type { WsServer } from './wsTypes.ts';

export const DEMO_GIT_VERSION = 'v1.33.0-gpumem-sim';
export const DEMO_CONTEXT = 'gpumem-demo';

/** Whether a container of the pod mounts a hostPath volume (the node's files). */
function mountsHostPaths(spec: PodSpec): boolean {
  const hostPaths = new Set((spec.volumes ?? []).filter((volume) => volume.hostPath?.path !== undefined).map((volume) => volume.name));
  return spec.containers.some((container) => (container.volumeMounts ?? []).some((mount) => hostPaths.has(mount.name)));
}

// ---------------------------------------------------------------------------------------------------
// Public types

export interface ForcedStatus {
  /** HTTP method to match (any when absent). */
  readonly method?: string;
  /** A path prefix (`/api/v1/nodes`) or a RegExp tested against path + query. */
  readonly path: string | RegExp;
  /** 401, 403, 500, 503, 429, … */
  readonly code: number;
  /** Apply this many times, then stop (unlimited when absent). */
  times?: number;
}

export interface SimulatorFaults {
  /** Added before every request is handled (exec upgrades included). */
  latencyMs?: number;
  forceStatus?: ForcedStatus[];
  /** Terminate an exec WebSocket (no close frame: the client sees 1006) after this many stdout bytes. */
  dropExecAfterStdoutBytes?: number;
  /** Users whose pod creation is refused with RBAC's 403 (even members of system:masters). */
  denyPodCreate?: string[];
  /** Created pods stay Pending with this waiting reason (e.g. `ImagePullBackOff`). */
  podWaitingReason?: string;
  /** Pods created on these nodes are refused (403), as an admission policy refuses them. */
  denyPodsOnNodes?: string[];
  /** Pods created on these nodes never start: they stay Pending with `ImagePullBackOff`. */
  podsNeverStartOnNodes?: string[];
  /**
   * One-shot: compact the watch history at the current resourceVersion and send every open watch the
   * ERROR event with the 410 `Expired` Status, then close it. A re-list and re-watch succeed afterwards.
   */
  expireWatches?: boolean;
}

export interface SimulatorOptions {
  readonly fixtures: ClusterFixtures;
  readonly faults?: SimulatorFaults;
  /** Added to (and replacing by name) the fixture users. */
  readonly users?: readonly SimulatorUser[];
  /** 0 (default): a free port. */
  readonly port?: number;
  /** Build chroot roots for exec (default true; needs root). */
  readonly roots?: boolean;
  /** Watch history length before compaction (default 1000 events). */
  readonly historyLimit?: number;
  /** Pending → Running of a created pod (default 150 ms); ContainerCreating shows at half of it. */
  readonly podStartDelayMs?: number;
  /** Graceful deletion: how long a terminating pod lingers before it is gone (default 100 ms, at most its grace period). */
  readonly podStopDelayMs?: number;
  /** BOOKMARK interval of watches that allow bookmarks (default 60 s, as the API server). */
  readonly bookmarkIntervalMs?: number;
  /** Longest watch when the client sets no timeoutSeconds (default 1800 s). */
  readonly watchMaxSeconds?: number;
  /** Treat requests without credentials as system:anonymous (RBAC 403) instead of 401. */
  readonly anonymous?: boolean;
  /** /version gitVersion (default v1.33.0-gpumem-sim). */
  readonly gitVersion?: string;
}

export interface KubeconfigOptions {
  /** Context name (default `gpumem-demo`; with several users the others get `gpumem-demo-<user>`). */
  readonly context?: string;
  /** Credentials to write (default: the client certificate when the user has one, else the token). */
  readonly auth?: 'cert' | 'token';
  readonly namespace?: string;
}

export interface PodRecord {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly user: string;
  readonly at: number;
  readonly nodeName?: string;
  readonly gracePeriodSeconds?: number;
}

export interface ExecRecord {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  readonly command: readonly string[];
  readonly protocol: ExecProtocol;
  readonly user: string;
  readonly at: number;
  result?: ExecResult;
}

export interface RequestRecord {
  readonly method: string;
  /** Path and query, as sent. */
  readonly path: string;
  readonly at: number;
  user?: string;
  code?: number;
  upgrade?: boolean;
  /** The client's User-Agent header (kubectl says "kubectl/v1.33…"), when it sent one. */
  readonly userAgent?: string;
}

export interface SimulatorState {
  readonly store: Store;
  readonly resourceVersion: number;
  /** A copy of a stored object. */
  get(resource: string, namespace: string | undefined, name: string): KubeObject | undefined;
  list(resource: string, namespace?: string): KubeObject[];
  /** Adds or replaces an object (kind decides the resource); watches see ADDED / MODIFIED. */
  put(object: KubeObject): KubeObject;
  remove(resource: string, namespace: string | undefined, name: string): KubeObject | undefined;
  readonly createdPods: readonly PodRecord[];
  /** Pods a DELETE was accepted for (recorded when the request is accepted, before the pod is gone). */
  readonly deletedPods: readonly PodRecord[];
  readonly execs: readonly ExecRecord[];
  /** The last 20,000 requests. */
  readonly requests: readonly RequestRecord[];
  /** TLS connections accepted so far (handshakes completed): keep-alive reuse shows as fewer than requests. */
  readonly tlsConnections: number;
  /** TLS connections open now (a client that closes its idle connections brings this back down). */
  openTlsConnections(): number;
  openWatches(): number;
  runningExecs(): number;
  /** Bind mounts of pod roots that are mounted now. */
  mounts(): string[];
  /** Root directories the simulator holds now. */
  rootDirectories(): string[];
  /** Problems met cleaning up (a mount that would not go away). */
  readonly cleanupProblems: readonly string[];
  /** Sets the log a container's pods/log serves (`previous`: its last terminated instance's). */
  setPodLog(namespace: string, pod: string, container: string, text: string, previous?: boolean): void;
  /** Same as setFault({ expireWatches: true }). */
  expireWatches(): void;
  /** Resolves once the pod is gone from the store (rejects after the timeout). */
  waitForPodGone(namespace: string, name: string, timeoutMs?: number): Promise<void>;
}

export interface Simulator {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** The CA certificate's file and PEM text. */
  readonly caFile: string;
  readonly ca: string;
  /** YAML text of a kubeconfig for one user (or one context per user, the first current). */
  kubeconfig(user: string | readonly string[], options?: KubeconfigOptions): string;
  /** Merges a patch into the faults; `null` clears them all. */
  setFault(patch: SimulatorFaults | null): void;
  /**
   * Where the pod proxy (`GET /api/v1/namespaces/<ns>/pods/<pod>:<port>/proxy/<path>`) forwards for that pod and port:
   * a local `http://127.0.0.1:<port>` (a real agent, in the tests); undefined removes it.
   */
  setPodProxy(namespace: string, pod: string, port: number, target: string | undefined): void;
  /** The same for `GET /api/v1/namespaces/<ns>/services/<svc>:<port>/proxy/<path>`; port is the number or the port's name. */
  setServiceProxy(namespace: string, service: string, port: string, target: string | undefined): void;
  readonly faults: Readonly<SimulatorFaults>;
  readonly state: SimulatorState;
  readonly users: readonly SimulatorUser[];
  /**
   * The chroot root of a node that has a fixture scenario (the one its debug pods see at /host), built on first use;
   * undefined without roots or without a scenario. The demo's agents probe it (test/simulator/demoAgents.ts).
   */
  nodeRoot(node: string): string | undefined;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------
// Internals

interface AuthUser {
  readonly name: string;
  readonly groups: readonly string[];
}

interface OpenWatch {
  expire(): void;
  end(): void;
}

interface PodRuntime {
  timers: NodeJS.Timeout[];
  execs: Set<ExecSession>;
}

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const MAX_BODY = 3 * 1024 * 1024;

function reasonFor(code: number): string {
  return (
    (
      {
        400: 'BadRequest',
        401: 'Unauthorized',
        403: 'Forbidden',
        404: 'NotFound',
        405: 'MethodNotAllowed',
        409: 'Conflict',
        410: 'Expired',
        422: 'Invalid',
        429: 'TooManyRequests',
        500: 'InternalError',
        503: 'ServiceUnavailable',
        504: 'Timeout',
      } as Record<number, string>
    )[code] ?? 'Unknown'
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new Error('request entity too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function withoutTypeMeta(obj: KubeObject): Json {
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = obj;
  return rest;
}

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

function decodeContinue(token: string): { rv: number; start: string } | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { v?: string; rv?: number; start?: string };
    if (parsed.v !== 'meta.k8s.io/v1' || typeof parsed.rv !== 'number' || typeof parsed.start !== 'string') return undefined;
    return { rv: parsed.rv, start: parsed.start };
  } catch {
    return undefined;
  }
}

function bool(value: string | null): boolean {
  return value === 'true' || value === '1';
}

function subjectValues(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? [value] : [];
}

// ---------------------------------------------------------------------------------------------------

export async function startSimulator(options: SimulatorOptions): Promise<Simulator> {
  const users = new Map<string, SimulatorUser>();
  for (const user of [...options.fixtures.users, ...(options.users ?? [])]) users.set(user.name, user);
  const store = new Store(options.historyLimit ?? 1000);
  const roots = new Roots(options.fixtures.nodeRoots, options.fixtures.containerRoots, options.roots ?? true);
  const podLogs = new Map<string, string>(Object.entries(options.fixtures.podLogs ?? {}));
  const pki = await createPki();
  const certs = new Map<string, CertPair>();
  let faults: SimulatorFaults = {};
  const watches = new Set<OpenWatch>();
  const pods = new Map<string, PodRuntime>();
  const createdPods: PodRecord[] = [];
  const deletedPods: PodRecord[] = [];
  const execs: ExecRecord[] = [];
  const requests: RequestRecord[] = [];
  const childExits = new Set<Promise<void>>();
  const timers = new Set<NodeJS.Timeout>();
  const startDelay = options.podStartDelayMs ?? 150;
  const stopDelay = options.podStopDelayMs ?? 100;
  const bookmarkInterval = options.bookmarkIntervalMs ?? 60_000;
  const gitVersion = options.gitVersion ?? DEMO_GIT_VERSION;
  let closed = false;
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

  for (const obj of options.fixtures.objects) {
    const info = resourceOfKind(obj.kind);
    if (!info) throw new Error(`fixtures: no resource serves kind ${obj.kind}`);
    store.load(info.resource, obj);
  }

  const later = (ms: number, fn: () => void): NodeJS.Timeout => {
    const t = setTimeout(() => {
      timers.delete(t);
      if (!closed) fn();
    }, ms);
    timers.add(t);
    return t;
  };

  const setFault = (patch: SimulatorFaults | null): void => {
    if (patch === null) {
      faults = {};
      return;
    }
    const { expireWatches: expire, ...rest } = patch;
    faults = { ...faults, ...rest };
    if (expire) expireAll();
  };

  const expireAll = (): void => {
    store.compact();
    for (const w of [...watches]) w.expire();
  };
  if (options.faults) setFault(options.faults);

  // -------------------------------------------------------------------------------------------------
  // Authentication and authorization

  const authenticate = (req: IncomingMessage): AuthUser | undefined => {
    const socket = req.socket as TLSSocket;
    if (socket.authorized) {
      const subject = socket.getPeerCertificate().subject as unknown as Record<string, unknown> | undefined;
      const cn = subjectValues(subject?.['CN'])[0];
      if (cn) return { name: cn, groups: [...subjectValues(subject?.['O']), 'system:authenticated'] };
    }
    const header = req.headers.authorization;
    const token = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
    if (token) {
      const user = [...users.values()].find((u) => u.token !== undefined && u.token === token);
      if (user) return { name: user.name, groups: [...(user.groups ?? []), 'system:authenticated'] };
      return undefined;
    }
    if (options.anonymous) return { name: 'system:anonymous', groups: ['system:unauthenticated'] };
    return undefined;
  };

  const ruleAllows = (rule: RbacRule, a: AuthzAttributes): boolean => {
    const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    if (!rule.verbs.includes('*') && !rule.verbs.includes(a.verb)) return false;
    if (!rule.resources.includes('*') && !rule.resources.includes(resource)) return false;
    if (rule.apiGroups !== undefined && !rule.apiGroups.includes('*') && !rule.apiGroups.includes(a.group)) return false;
    if (rule.namespaces !== undefined && (a.namespace === undefined || !rule.namespaces.includes(a.namespace))) return false;
    if (rule.resourceNames !== undefined && (a.name === undefined || !rule.resourceNames.includes(a.name))) return false;
    return true;
  };

  const authorize = (user: AuthUser, a: AuthzAttributes): boolean => {
    if (a.verb === 'create' && a.resource === 'pods' && !a.subresource && faults.denyPodCreate?.includes(user.name)) return false;
    if (user.groups.includes('system:masters')) return true;
    return (users.get(user.name)?.rules ?? []).some((rule) => ruleAllows(rule, a));
  };

  const PUBLIC_PATHS = new Set(['/version', '/healthz', '/livez', '/readyz']);
  const authorizePath = (user: AuthUser, path: string): boolean => {
    if (user.groups.includes('system:authenticated')) return true;
    return PUBLIC_PATHS.has(path);
  };

  // -------------------------------------------------------------------------------------------------
  // Responses

  const sendJson = (res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void => {
    if (res.headersSent) {
      res.end();
      return;
    }
    const text = JSON.stringify(body);
    res.writeHead(code, {
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(text)),
      'Cache-Control': 'no-cache, private',
      'Audit-Id': randomUUID(),
      ...headers,
    });
    res.end(text);
  };

  const sendStatus = (res: ServerResponse, status: StatusBody): void => {
    sendJson(res, status.code, status, status.code === 429 ? { 'Retry-After': '1' } : {});
  };

  const rejectUpgrade = (socket: Duplex, status: StatusBody): void => {
    const text = JSON.stringify(status);
    socket.end(
      `HTTP/1.1 ${status.code} ${STATUS_CODES[status.code] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nCache-Control: no-cache, private\r\nConnection: close\r\n\r\n${text}`,
    );
  };

  const forcedStatus = (method: string, pathAndQuery: string, pathname: string): ForcedStatus | undefined => {
    for (const f of faults.forceStatus ?? []) {
      if (f.method !== undefined && f.method.toUpperCase() !== method) continue;
      const hit =
        typeof f.path === 'string'
          ? pathname === f.path || pathname.startsWith(f.path.endsWith('/') ? f.path : `${f.path}/`)
          : f.path.test(pathAndQuery);
      if (!hit) continue;
      if (f.times !== undefined) {
        if (f.times <= 0) continue;
        f.times--;
      }
      return f;
    }
    return undefined;
  };

  const forcedBody = (
    code: number,
    user: AuthUser | undefined,
    attrs: AuthzAttributes | undefined,
    method: string,
    pathname: string,
  ): StatusBody => {
    if (code === 401) return unauthorized();
    if (code === 403)
      return attrs
        ? forbidden({ ...attrs, user: user?.name ?? 'system:anonymous' })
        : forbiddenPath(user?.name ?? 'system:anonymous', method.toLowerCase(), pathname);
    if (code === 500) return internalError(`injected fault (${method} ${pathname})`);
    if (code === 503) return statusBody(503, 'ServiceUnavailable', 'the server is currently unable to handle the request', {});
    if (code === 429)
      return statusBody(429, 'TooManyRequests', 'the server has received too many requests and has asked us to try again later', {
        retryAfterSeconds: 1,
      });
    if (code === 504)
      return statusBody(
        504,
        'Timeout',
        'the server was unable to return a response in the time allotted, but may still be processing the request',
        {},
      );
    return statusBody(code, reasonFor(code), `injected fault: HTTP ${code}`);
  };

  // -------------------------------------------------------------------------------------------------
  // Routing

  interface ResourceRoute {
    readonly info: ResourceInfo;
    readonly namespace?: string;
    readonly name?: string;
    readonly subresource?: string;
  }

  const parseResourcePath = (pathname: string): ResourceRoute | 'notfound' | undefined => {
    const m = /^\/(?:api\/v1|apis\/(apps)\/v1)\/(.+)$/.exec(pathname);
    if (!m) return undefined;
    const group = m[1] ?? '';
    const segs = (m[2] as string).split('/').map((s) => decodeURIComponent(s));
    if (segs.some((s) => s === '')) return 'notfound';
    let namespace: string | undefined;
    let rest = segs;
    if (segs[0] === 'namespaces' && segs.length >= 3) {
      namespace = segs[1];
      rest = segs.slice(2);
    }
    if (rest.length > 3) return 'notfound';
    const info = RESOURCES[rest[0] as string];
    if (!info || info.group !== group) return 'notfound';
    if (namespace !== undefined && !info.namespaced) return 'notfound';
    return {
      info,
      ...(namespace !== undefined ? { namespace } : {}),
      ...(rest[1] !== undefined ? { name: rest[1] } : {}),
      ...(rest[2] !== undefined ? { subresource: rest[2] } : {}),
    };
  };

  const verbOf = (method: string, route: ResourceRoute, query: URLSearchParams): string => {
    if (route.subresource === 'exec') return 'create';
    switch (method) {
      case 'GET':
        return route.name !== undefined ? 'get' : bool(query.get('watch')) ? 'watch' : 'list';
      case 'POST':
        return 'create';
      case 'DELETE':
        return route.name !== undefined ? 'delete' : 'deletecollection';
      case 'PUT':
        return 'update';
      case 'PATCH':
        return 'patch';
      default:
        return method.toLowerCase();
    }
  };

  /**
   * The authorizer's attributes, as the API server's RequestInfo fills them: a namespace object is its own
   * namespace; a create names no object (the name is in the body) unless it is a subresource (pods/exec).
   */
  const attrsOf = (user: AuthUser | undefined, route: ResourceRoute, verb: string): AuthzAttributes => {
    const namespace = route.namespace ?? (route.info.resource === 'namespaces' ? route.name : undefined);
    const name = route.name !== undefined && (verb !== 'create' || route.subresource !== undefined) ? route.name : undefined;
    return {
      user: user?.name ?? 'system:anonymous',
      verb,
      resource: route.info.resource,
      group: route.info.group,
      ...(route.subresource ? { subresource: route.subresource } : {}),
      ...(namespace !== undefined ? { namespace } : {}),
      ...(name !== undefined ? { name } : {}),
    };
  };

  // -------------------------------------------------------------------------------------------------
  // Discovery

  const discovery = (pathname: string): unknown => {
    const resourceList = (groupVersion: string, infos: readonly ResourceInfo[], extra: Json[] = []) => ({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion,
      resources: [
        ...infos.map((r) => ({
          name: r.resource,
          singularName: r.singular,
          namespaced: r.namespaced,
          kind: r.kind,
          verbs: [...r.verbs],
          ...(r.shortNames.length ? { shortNames: [...r.shortNames] } : {}),
          storageVersionHash: Buffer.from(`${groupVersion}/${r.resource}`).toString('base64').slice(0, 12),
        })),
        ...extra,
      ],
    });
    const group = (name: string, version: string) => ({
      name,
      versions: [{ groupVersion: `${name}/${version}`, version }],
      preferredVersion: { groupVersion: `${name}/${version}`, version },
    });
    switch (pathname) {
      case '/version':
        return {
          major: '1',
          minor: '33',
          emulationMajor: '1',
          emulationMinor: '33',
          minCompatibilityMajor: '1',
          minCompatibilityMinor: '32',
          gitVersion,
          gitCommit: '0000000000000000000000000000000000000000',
          gitTreeState: 'clean',
          buildDate: '2026-08-21T00:00:00Z',
          goVersion: 'go1.24.6',
          compiler: 'gc',
          platform: 'linux/amd64',
        };
      case '/api':
        return {
          kind: 'APIVersions',
          versions: ['v1'],
          serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${port}` }],
        };
      case '/api/v1':
        return resourceList(
          'v1',
          Object.values(RESOURCES).filter((r) => r.group === ''),
          [
            { name: 'pods/exec', singularName: '', namespaced: true, kind: 'PodExecOptions', verbs: ['create', 'get'] },
            { name: 'pods/status', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
            { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
          ],
        );
      case '/apis':
        return { kind: 'APIGroupList', apiVersion: 'v1', groups: [group('apps', 'v1'), group('authorization.k8s.io', 'v1')] };
      case '/apis/apps':
        return { kind: 'APIGroup', apiVersion: 'v1', ...group('apps', 'v1') };
      case '/apis/apps/v1':
        return resourceList(
          'apps/v1',
          Object.values(RESOURCES).filter((r) => r.group === 'apps'),
        );
      case '/apis/authorization.k8s.io':
        return { kind: 'APIGroup', apiVersion: 'v1', ...group('authorization.k8s.io', 'v1') };
      case '/apis/authorization.k8s.io/v1':
        return {
          kind: 'APIResourceList',
          apiVersion: 'v1',
          groupVersion: 'authorization.k8s.io/v1',
          resources: [
            {
              name: 'selfsubjectaccessreviews',
              singularName: 'selfsubjectaccessreview',
              namespaced: false,
              kind: 'SelfSubjectAccessReview',
              verbs: ['create'],
            },
          ],
        };
      default:
        return undefined;
    }
  };

  // -------------------------------------------------------------------------------------------------
  // List and watch

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
    sendJson(res, 200, { kind: info.listKind, apiVersion: apiVersionOf(info), metadata, items: items.map(withoutTypeMeta) });
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

  // -------------------------------------------------------------------------------------------------
  // Events, pods

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

  const nodeIP = (name: string | undefined): string | undefined => {
    if (!name) return undefined;
    const node = store.get('nodes', undefined, name);
    const addresses = ((node?.['status'] as Json | undefined)?.['addresses'] ?? []) as Json[];
    const ip = addresses.find((a) => a['type'] === 'InternalIP')?.['address'];
    return typeof ip === 'string' ? ip : undefined;
  };

  let podIpCounter = 10;
  const updatePod = (namespace: string, name: string, uid: string, change: (pod: KubeObject) => boolean | void): KubeObject | undefined => {
    const current = store.get('pods', namespace, name);
    if (!current || current.metadata.uid !== uid) return undefined;
    const pod = structuredClone(current);
    if (change(pod) === false) return undefined;
    return store.put('pods', pod);
  };

  const startPod = (created: KubeObject): void => {
    const { namespace, name, uid } = created.metadata as { namespace: string; name: string; uid: string };
    const spec = podSpec(created);
    if (!spec.nodeName || !store.get('nodes', undefined, spec.nodeName)) return; // nothing schedules it: stays Pending
    const r = runtime(uid);
    const hostIP = nodeIP(spec.nodeName);
    // The kubelet refuses recursiveReadOnly Enabled on a runtime that does not report the feature (KEP-3857).
    const wantsRro = containersOf(created).some((c) => (c.volumeMounts ?? []).some((vm) => vm.recursiveReadOnly === 'Enabled'));
    const handlers = ((store.get('nodes', undefined, spec.nodeName)?.['status'] as Json | undefined)?.['runtimeHandlers'] ?? []) as {
      name?: string;
      features?: { recursiveReadOnlyMounts?: boolean };
    }[];
    const rroMissing = wantsRro && handlers.find((h) => (h.name ?? '') === '')?.features?.recursiveReadOnlyMounts !== true;
    r.timers.push(
      later(Math.floor(startDelay / 2), () => {
        updatePod(namespace, name, uid, (pod) => {
          const status = pod['status'] as Json;
          status['hostIP'] = hostIP;
          status['hostIPs'] = hostIP ? [{ ip: hostIP }] : [];
          status['startTime'] = timestamp();
          status['conditions'] = podConditions(false, timestamp());
          const neverStarts = spec.nodeName !== undefined && faults.podsNeverStartOnNodes?.includes(spec.nodeName) === true;
          const reason =
            faults.podWaitingReason ?? (neverStarts ? 'ImagePullBackOff' : rroMissing ? 'CreateContainerConfigError' : undefined);
          status['containerStatuses'] = containersOf(pod).map((c) =>
            waitingContainerStatus(
              c,
              reason ?? 'ContainerCreating',
              reason === 'ImagePullBackOff'
                ? `Back-off pulling image "${c.image ?? ''}"`
                : rroMissing
                  ? 'failed to create a recursive read-only mount: the runtime handler does not support it'
                  : undefined,
            ),
          );
          if (reason && !rroMissing) {
            r.timers.forEach((t) => clearTimeout(t));
            for (const c of containersOf(pod))
              recordEvent(
                pod,
                'Failed',
                `Failed to pull image "${c.image ?? ''}": failed to resolve reference "${c.image ?? ''}": not found`,
                'Warning',
                'kubelet',
                `spec.containers{${c.name}}`,
              );
          }
        });
        if (faults.podWaitingReason || rroMissing || (spec.nodeName !== undefined && faults.podsNeverStartOnNodes?.includes(spec.nodeName)))
          return;
        r.timers.push(
          later(Math.ceil(startDelay / 2), () => {
            const pod = store.get('pods', namespace, name);
            if (!pod || pod.metadata.uid !== uid || pod.metadata.deletionTimestamp) return;
            if (!roots.unavailable) {
              try {
                roots.podRoot(pod);
              } catch (err) {
                recordEvent(pod, 'FailedMount', `MountVolume.SetUp failed: ${(err as Error).message}`, 'Warning');
                return;
              }
            }
            const running = updatePod(namespace, name, uid, (p) => {
              const status = p['status'] as Json;
              const at = timestamp();
              status['phase'] = 'Running';
              status['conditions'] = podConditions(true, at);
              status['podIP'] = `10.244.${200 + (Math.floor(podIpCounter / 250) % 50)}.${(podIpCounter++ % 250) + 2}`;
              status['podIPs'] = [{ ip: status['podIP'] }];
              status['containerStatuses'] = containersOf(p).map((c) => runningContainerStatus(p, c, at));
            });
            if (!running) return;
            for (const c of containersOf(running)) {
              recordEvent(
                running,
                'Pulled',
                `Container image "${c.image ?? ''}" already present on machine`,
                'Normal',
                'kubelet',
                `spec.containers{${c.name}}`,
              );
              recordEvent(running, 'Created', `Created container: ${c.name}`, 'Normal', 'kubelet', `spec.containers{${c.name}}`);
              recordEvent(running, 'Started', `Started container ${c.name}`, 'Normal', 'kubelet', `spec.containers{${c.name}}`);
            }
            const deadline = podSpec(running).activeDeadlineSeconds;
            if (typeof deadline === 'number' && deadline > 0) {
              // As the kubelet's activeDeadlineHandler: counted from status.startTime, not from Running.
              const startedAt = Date.parse(String((running['status'] as Json)['startTime'] ?? ''));
              const elapsed = Number.isFinite(startedAt) ? Math.max(0, Date.now() - startedAt) : 0;
              r.timers.push(
                later(Math.max(0, deadline * 1000 - elapsed), () => {
                  for (const e of r.execs) e.kill();
                  roots.releasePod(uid);
                  const failed = updatePod(namespace, name, uid, (p) => {
                    const status = p['status'] as Json;
                    const at = timestamp();
                    status['phase'] = 'Failed';
                    status['reason'] = 'DeadlineExceeded';
                    status['message'] = 'Pod was active on the node longer than the specified deadline';
                    status['conditions'] = podConditions(false, at);
                    status['containerStatuses'] = containersOf(p).map((c) => ({
                      ...runningContainerStatus(p, c, at),
                      ready: false,
                      started: false,
                      state: { terminated: { exitCode: 137, reason: 'Error', startedAt: at, finishedAt: at } },
                    }));
                  });
                  if (failed)
                    recordEvent(failed, 'DeadlineExceeded', 'Pod was active on the node longer than the specified deadline', 'Warning');
                }),
              );
            }
          }),
        );
      }),
    );
  };

  const validatePod = (body: KubeObject): InvalidCause[] => {
    const causes: InvalidCause[] = [];
    const meta = body.metadata ?? {};
    if (!meta.name && !meta.generateName)
      causes.push({ field: 'metadata.name', reason: 'FieldValueRequired', message: 'Required value: name or generateName is required' });
    else if (meta.name && (!DNS_SUBDOMAIN.test(meta.name) || meta.name.length > 253)) {
      causes.push({
        field: 'metadata.name',
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${meta.name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      });
    }
    const spec = body['spec'] as PodSpec | undefined;
    if (!spec || !Array.isArray(spec.containers) || spec.containers.length === 0) {
      causes.push({ field: 'spec.containers', reason: 'FieldValueRequired', message: 'Required value' });
      return causes;
    }
    const volumes = new Set((spec.volumes ?? []).map((v) => v.name));
    for (const [i, v] of (spec.volumes ?? []).entries()) {
      if (v.hostPath && !v.hostPath.path)
        causes.push({ field: `spec.volumes[${i}].hostPath.path`, reason: 'FieldValueRequired', message: 'Required value' });
    }
    const names = new Set<string>();
    spec.containers.forEach((c, i) => {
      if (!c.name) causes.push({ field: `spec.containers[${i}].name`, reason: 'FieldValueRequired', message: 'Required value' });
      else if (!DNS_LABEL.test(c.name))
        causes.push({
          field: `spec.containers[${i}].name`,
          reason: 'FieldValueInvalid',
          message: `Invalid value: "${c.name}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
        });
      else if (names.has(c.name))
        causes.push({ field: `spec.containers[${i}].name`, reason: 'FieldValueDuplicate', message: `Duplicate value: "${c.name}"` });
      names.add(c.name);
      if (!c.image) causes.push({ field: `spec.containers[${i}].image`, reason: 'FieldValueRequired', message: 'Required value' });
      (c.volumeMounts ?? []).forEach((vm, j) => {
        if (!volumes.has(vm.name))
          causes.push({
            field: `spec.containers[${i}].volumeMounts[${j}].name`,
            reason: 'FieldValueNotSupported',
            message: `Not found: "${vm.name}"`,
          });
        // As the API server's ValidateVolumeMounts (KEP-3857): a known value; IfPossible/Enabled need readOnly
        // and mountPropagation None.
        const rro = vm.recursiveReadOnly;
        if (rro !== undefined) {
          const field = `spec.containers[${i}].volumeMounts[${j}].recursiveReadOnly`;
          if (rro !== 'Disabled' && rro !== 'IfPossible' && rro !== 'Enabled')
            causes.push({
              field,
              reason: 'FieldValueNotSupported',
              message: `Unsupported value: "${rro}": supported values: "Disabled", "Enabled", "IfPossible"`,
            });
          else if (rro !== 'Disabled' && vm.readOnly !== true)
            causes.push({ field, reason: 'FieldValueForbidden', message: 'Forbidden: may only be specified when readOnly is true' });
          else if (rro !== 'Disabled' && vm.mountPropagation !== undefined && vm.mountPropagation !== 'None')
            causes.push({
              field,
              reason: 'FieldValueForbidden',
              message: 'Forbidden: may only be specified when mountPropagation is None or not specified',
            });
        }
      });
    });
    return causes;
  };

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
    if (typeof target === 'string' && faults.denyPodsOnNodes?.includes(target))
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

  const podProxies = new Map<string, string>();
  const serviceProxies = new Map<string, string>();
  /**
   * The pod proxy, as the API server's: `get pods/proxy` authorized, the pod must exist and be running, then the GET
   * is forwarded to what setPodProxy named (the kubelet would dial the pod IP) and its status, type and body returned.
   * Nothing registered: 503 with the API server's "error trying to reach service" text.
   */
  /**
   * The pod and service proxies, as the API server's: `get pods/proxy` (`services/proxy`) authorized, the object must
   * exist, then the GET is forwarded to what setPodProxy / setServiceProxy named (the API server would dial the pod
   * IP or the service's endpoints) and its status, type and body returned. Nothing registered: 503 with the API
   * server's "error trying to reach service" text.
   */
  const podProxy = async (
    req: IncomingMessage,
    res: ServerResponse,
    user: AuthUser,
    match: RegExpExecArray,
    search: string,
  ): Promise<void> => {
    const namespace = decodeURIComponent(match[1] as string);
    const resource = match[2] as 'pods' | 'services';
    // `[scheme:]name[:port]`, as the API server reads it.
    const parts = decodeURIComponent(match[3] as string).split(':');
    const [name, port] = (parts.length === 3 ? parts.slice(1) : parts) as [string, string | undefined];
    const attrs: AuthzAttributes = { user: user.name, verb: 'get', resource, subresource: 'proxy', group: '', namespace, name };
    if (!authorize(user, attrs)) return sendStatus(res, forbidden(attrs));
    if ((req.method ?? 'GET') !== 'GET') return sendStatus(res, methodNotAllowed());
    if (!store.get(resource, namespace, name)) return sendStatus(res, notFound(resource, '', name));
    const target = (resource === 'pods' ? podProxies : serviceProxies).get(`${namespace}/${name}:${port ?? ''}`);
    if (!target)
      return sendStatus(
        res,
        statusBody(
          503,
          'ServiceUnavailable',
          `error trying to reach service: dial tcp 10.244.0.1:${port ?? '80'}: connect: connection refused`,
        ),
      );
    try {
      const answer = await fetch(`${target}${match[4] ?? '/'}${search}`, { signal: AbortSignal.timeout(30_000) });
      const body = Buffer.from(await answer.arrayBuffer());
      res.writeHead(answer.status, {
        'Content-Type': answer.headers.get('content-type') ?? 'text/plain',
        'Content-Length': String(body.length),
      });
      res.end(body);
    } catch (err) {
      sendStatus(res, statusBody(503, 'ServiceUnavailable', `error trying to reach service: ${(err as Error).message}`));
    }
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

  const selfSubjectAccessReview = async (req: IncomingMessage, res: ServerResponse, user: AuthUser): Promise<void> => {
    let body: Json;
    try {
      body = JSON.parse(await readBody(req)) as Json;
    } catch {
      return sendStatus(res, badRequest('the body of the request was in an unknown format'));
    }
    const spec = (body['spec'] ?? {}) as Json;
    const ra = spec['resourceAttributes'] as Json | undefined;
    const nra = spec['nonResourceAttributes'] as Json | undefined;
    let allowed = false;
    if (ra) {
      const attrs: AuthzAttributes = {
        user: user.name,
        verb: String(ra['verb'] ?? ''),
        resource: String(ra['resource'] ?? ''),
        group: String(ra['group'] ?? ''),
        ...(ra['subresource'] ? { subresource: String(ra['subresource']) } : {}),
        ...(ra['namespace'] ? { namespace: String(ra['namespace']) } : {}),
        ...(ra['name'] ? { name: String(ra['name']) } : {}),
      };
      allowed = authorize(user, attrs);
    } else if (nra) allowed = authorizePath(user, String(nra['path'] ?? ''));
    sendJson(res, 201, {
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec,
      status: allowed
        ? {
            allowed: true,
            reason: user.groups.includes('system:masters')
              ? 'allowed by the system:masters group'
              : `RBAC: allowed by the simulator's rules for User "${user.name}"`,
          }
        : { allowed: false },
    });
  };

  // -------------------------------------------------------------------------------------------------
  // HTTP

  const logRequest = (method: string, path: string, userAgent: string | undefined, upgrade = false): RequestRecord => {
    const record: RequestRecord = {
      method,
      path,
      at: Date.now(),
      ...(upgrade ? { upgrade } : {}),
      ...(userAgent ? { userAgent: userAgent.slice(0, 256) } : {}),
    };
    requests.push(record);
    if (requests.length > 20_500) requests.splice(0, requests.length - 20_000);
    return record;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'https://simulator.invalid');
    const record = logRequest(method, `${url.pathname}${url.search}`, req.headers['user-agent']);
    res.on('finish', () => (record.code = res.statusCode));
    res.on('close', () => (record.code ??= res.statusCode));
    if (faults.latencyMs) await sleep(faults.latencyMs);
    if (closed) return sendStatus(res, statusBody(503, 'ServiceUnavailable', 'the server is shutting down', {}));
    const pathname = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const user = authenticate(req);
    if (user) record.user = user.name;
    const route = parseResourcePath(pathname);
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
    const disco = method === 'GET' ? discovery(pathname) : undefined;
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
  // Exec upgrade

  const wss: WsServer = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: (_protocols, req) => chosenProtocol.get(req) ?? false,
  });
  const chosenProtocol = new WeakMap<IncomingMessage, string>();

  const handleUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    socket.on('error', () => undefined);
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'https://simulator.invalid');
    const record = logRequest(method, `${url.pathname}${url.search}`, req.headers['user-agent'], true);
    const reject = (status: StatusBody): void => {
      record.code = status.code;
      rejectUpgrade(socket, status);
    };
    if (faults.latencyMs) await sleep(faults.latencyMs);
    if (closed) return reject(statusBody(503, 'ServiceUnavailable', 'the server is shutting down', {}));
    const user = authenticate(req);
    if (user) record.user = user.name;
    const route = parseResourcePath(url.pathname);
    const resourceRoute = route && route !== 'notfound' ? route : undefined;
    const forced = forcedStatus(method, `${url.pathname}${url.search}`, url.pathname);
    if (forced)
      return reject(
        forcedBody(forced.code, user, resourceRoute ? attrsOf(user, resourceRoute, 'create') : undefined, method, url.pathname),
      );
    if (!user) return reject(unauthorized());
    if (
      !resourceRoute ||
      resourceRoute.info.resource !== 'pods' ||
      resourceRoute.subresource !== 'exec' ||
      !resourceRoute.namespace ||
      !resourceRoute.name
    )
      return reject(pathNotFound());
    const { namespace, name } = resourceRoute;
    const attrs = attrsOf(user, resourceRoute, 'create');
    if (!authorize(user, attrs)) return reject(forbidden(attrs));
    const pod = store.get('pods', namespace, name);
    if (!pod) return reject(notFound('pods', '', name));
    const q = url.searchParams;
    const command = q.getAll('command');
    const stdin = bool(q.get('stdin'));
    const stdout = bool(q.get('stdout'));
    const stderr = bool(q.get('stderr'));
    if (command.length === 0) return reject(badRequest('you must specify at least one command for the container'));
    if (!stdin && !stdout && !stderr) return reject(badRequest('you must specify at least 1 of stdin, stdout, stderr'));
    const containers = containersOf(pod);
    let container = q.get('container') ?? '';
    if (container === '') {
      if (containers.length !== 1)
        return reject(
          badRequest(`a container name must be specified for pod ${name}, choose one of: [${containers.map((c) => c.name).join(' ')}]`),
        );
      container = (containers[0] as { name: string }).name;
    }
    const spec = containers.find((c) => c.name === container);
    if (!spec) return reject(badRequest(`container ${container} is not valid for pod ${name}`));
    const phase = (pod['status'] as Json | undefined)?.['phase'];
    if (phase === 'Succeeded' || phase === 'Failed')
      return reject(badRequest(`cannot exec into a container in a completed pod; current phase is ${String(phase)}`));
    if (!podSpec(pod).nodeName) return reject(badRequest(`pod ${name} does not have a host assigned`));
    const running = ((pod['status'] as Json | undefined)?.['containerStatuses'] as Json[] | undefined)?.find(
      (s) => s['name'] === container,
    );
    if (phase !== 'Running' || !running || !(running['state'] as Json | undefined)?.['running'])
      return reject(badRequest(`unable to upgrade connection: container not found ("${container}")`));
    // kubectl before 1.30 (and newer ones falling back after a failed WebSocket upgrade) ask for SPDY/3.1 with a
    // POST. A real API server serves it; the simulator does not, and says so instead of answering ws's bare
    // "Invalid HTTP method".
    if (String(req.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
      return reject(
        badRequest(
          `unable to upgrade connection: the gpumem API simulator serves exec over WebSocket only (${EXEC_PROTOCOLS.join(', ')}), not ${String(req.headers.upgrade ?? 'this protocol')}: use kubectl 1.30 or later`,
        ),
      );
    }
    const requested = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');
    const protocol =
      requested.length === 0
        ? 'channel.k8s.io'
        : requested.find((p): p is ExecProtocol => (EXEC_PROTOCOLS as readonly string[]).includes(p));
    if (!protocol)
      return reject(
        badRequest(
          `unable to upgrade connection: requested protocol(s) are not supported: [${requested.join(' ')}]; supports [${EXEC_PROTOCOLS.join(' ')}]`,
        ),
      );
    if (requested.length > 0) chosenProtocol.set(req, protocol);

    let root: string | undefined;
    let unavailable = roots.unavailable;
    if (!unavailable) {
      try {
        const created = createdPods.some((p) => p.uid === pod.metadata.uid);
        // A fixture pod with a scenario gets its container root; one that mounts the node's files (hostPath: the
        // gpumem agent's DaemonSet pod) gets busybox with those mounts, as a pod created through the API does.
        root = created
          ? roots.podRoot(pod)
          : (roots.containerRoot(namespace, name, container) ?? (mountsHostPaths(podSpec(pod)) ? roots.podRoot(pod) : undefined));
      } catch (err) {
        unavailable = `building the root failed: ${(err as Error).message}`;
      }
    }
    const env: Record<string, string> = { PATH: DEFAULT_PATH, HOSTNAME: name, HOME: '/root' };
    for (const e of spec.env ?? []) if (typeof e.value === 'string') env[e.name] = e.value;
    const uid = pod.metadata.uid as string;
    const execRecord: ExecRecord = { namespace, pod: name, container, command, protocol, user: user.name, at: Date.now() };
    execs.push(execRecord);
    wss.handleUpgrade(req, socket, head, (ws) => {
      record.code = 101;
      const r = runtime(uid);
      let release: () => void = () => undefined;
      childExits.add(new Promise<void>((resolve) => (release = resolve)));
      const session = runExec({
        socket: ws,
        protocol,
        argv: command,
        root,
        ...(unavailable !== undefined ? { unavailable } : {}),
        env,
        stdin,
        stdout,
        stderr,
        ...(faults.dropExecAfterStdoutBytes !== undefined ? { dropAfterStdoutBytes: faults.dropExecAfterStdoutBytes } : {}),
        execId: `${uid.replace(/-/g, '')}${Date.now().toString(16)}`.slice(0, 64),
        onEnd: (result) => {
          execRecord.result = result;
          r.execs.delete(session);
          release();
        },
      });
      if (session.running) r.execs.add(session);
    });
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

  // -------------------------------------------------------------------------------------------------
  // Kubeconfig

  const kubeconfig = (user: string | readonly string[], kcOptions: KubeconfigOptions = {}): string => {
    const names = typeof user === 'string' ? [user] : [...user];
    if (names.length === 0) throw new Error('kubeconfig: no user');
    const contexts: Json[] = [];
    const userEntries: Json[] = [];
    names.forEach((name, i) => {
      const u = users.get(name);
      if (!u) throw new Error(`kubeconfig: no simulator user "${name}" (users: ${[...users.keys()].join(', ')})`);
      const cert = certs.get(name);
      const auth = kcOptions.auth ?? (cert ? 'cert' : 'token');
      let credentials: Json;
      if (auth === 'cert') {
        if (!cert) throw new Error(`kubeconfig: user "${name}" has no client certificate`);
        credentials = {
          'client-certificate-data': Buffer.from(cert.cert).toString('base64'),
          'client-key-data': Buffer.from(cert.key).toString('base64'),
        };
      } else {
        if (!u.token) throw new Error(`kubeconfig: user "${name}" has no token`);
        credentials = { token: u.token };
      }
      const base = kcOptions.context ?? DEMO_CONTEXT;
      const contextName = i === 0 ? base : `${base}-${name}`;
      userEntries.push({ name: `${name}@${DEMO_CONTEXT}`, user: credentials });
      contexts.push({
        name: contextName,
        context: {
          cluster: DEMO_CONTEXT,
          user: `${name}@${DEMO_CONTEXT}`,
          ...(kcOptions.namespace ? { namespace: kcOptions.namespace } : {}),
        },
      });
    });
    return stringify({
      apiVersion: 'v1',
      kind: 'Config',
      preferences: {},
      clusters: [{ name: DEMO_CONTEXT, cluster: { server: url, 'certificate-authority-data': Buffer.from(pki.ca).toString('base64') } }],
      users: userEntries,
      contexts,
      'current-context': contexts[0]?.['name'],
    });
  };

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
    if (closed) return;
    closed = true;
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
    setPodProxy: (namespace: string, pod: string, port: number, target: string | undefined) => {
      const key = `${namespace}/${pod}:${port}`;
      if (target === undefined) podProxies.delete(key);
      else podProxies.set(key, target);
    },
    setServiceProxy: (namespace: string, service: string, port: string, target: string | undefined) => {
      const key = `${namespace}/${service}:${port}`;
      if (target === undefined) serviceProxies.delete(key);
      else serviceProxies.set(key, target);
    },
    get faults() {
      return faults;
    },
    state,
    users: [...users.values()],
    nodeRoot: (node: string) => (roots.unavailable === undefined && roots.hasNodeScenario(node) ? roots.nodeRoot(node) : undefined),
    close,
  };
}
