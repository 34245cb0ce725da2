// The pod and service proxies: a GET forwarded to what the test registered for that pod or service and port.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimContext } from './context.ts';
import { sendStatus } from './http.ts';
import type { AuthzAttributes } from './status.ts';
import { forbidden, methodNotAllowed, notFound, statusBody } from './status.ts';
import type { AuthUser } from './types.ts';

export function proxiesFor(ctx: SimContext, authorize: (user: AuthUser, a: AuthzAttributes) => boolean) {
  const { store } = ctx;

  const podProxies = new Map<string, string>();
  const serviceProxies = new Map<string, string>();
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
      // As the API server's proxy: a redirect is passed back, not followed.
      const answer = await fetch(`${target}${match[4] ?? '/'}${search}`, { signal: AbortSignal.timeout(30_000), redirect: 'manual' });
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

  return {
    podProxy,
    setPodProxy: (namespace: string, pod: string, port: number, target: string | undefined): void => {
      const key = `${namespace}/${pod}:${port}`;
      if (target === undefined) podProxies.delete(key);
      else podProxies.set(key, target);
    },
    setServiceProxy: (namespace: string, service: string, port: string, target: string | undefined): void => {
      const key = `${namespace}/${service}:${port}`;
      if (target === undefined) serviceProxies.delete(key);
      else serviceProxies.set(key, target);
    },
  };
}
