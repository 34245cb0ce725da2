// pods/exec: the WebSocket upgrade (v5/v4/channel.k8s.io), refused as the API server refuses it (RBAC, no such pod
// or container, a pod not running, SPDY), then the command run for real in the pod's chroot root (exec.ts).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { authFor } from './auth.ts';
import type { SimContext } from './context.ts';
import { EXEC_PROTOCOLS, runExec } from './exec.ts';
import type { ExecProtocol } from './exec.ts';
import { bool, forcedBody, rejectUpgrade, sleep } from './http.ts';
import type { Json, PodSpec } from './objects.ts';
import type { StatusBody } from './status.ts';
import { containersOf, podSpec } from './objects.ts';
import { badRequest, forbidden, notFound, pathNotFound, statusBody, unauthorized } from './status.ts';
import { attrsOf, parseResourcePath } from './routing.ts';
import type { ExecRecord, PodRuntime } from './types.ts';
import { WebSocketServer } from './wsTypes.ts';
import type { WsServer } from './wsTypes.ts';

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Whether a container of the pod mounts a hostPath volume (the node's files). */
function mountsHostPaths(spec: PodSpec): boolean {
  const hostPaths = new Set((spec.volumes ?? []).filter((volume) => volume.hostPath?.path !== undefined).map((volume) => volume.name));
  return spec.containers.some((container) => (container.volumeMounts ?? []).some((mount) => hostPaths.has(mount.name)));
}

export function execUpgradeFor(
  ctx: SimContext,
  deps: Pick<ReturnType<typeof authFor>, 'authenticate' | 'authorize' | 'forcedStatus'> & {
    readonly runtime: (uid: string) => PodRuntime;
  },
) {
  const { store, roots, createdPods, execs, childExits, logRequest } = ctx;
  const { authenticate, authorize, forcedStatus, runtime } = deps;

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
    if (ctx.faults.latencyMs) await sleep(ctx.faults.latencyMs);
    if (ctx.closed) return reject(statusBody(503, 'ServiceUnavailable', 'the server is shutting down', {}));
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
        ...(ctx.faults.dropExecAfterStdoutBytes !== undefined ? { dropAfterStdoutBytes: ctx.faults.dropExecAfterStdoutBytes } : {}),
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

  return { wss, handleUpgrade };
}
