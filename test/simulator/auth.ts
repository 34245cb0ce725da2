// Authentication (client certificates, bearer tokens, anonymous), RBAC with the simulator's rules, forced statuses
// (fault injection) and SelfSubjectAccessReview.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { SimContext } from './context.ts';
import type { RbacRule } from './fixtures.ts';
import { readBody, sendJson, sendStatus, subjectValues } from './http.ts';
import type { Json } from './objects.ts';
import type { AuthzAttributes } from './status.ts';
import { badRequest } from './status.ts';
import type { AuthUser, ForcedStatus } from './types.ts';

/** The paths any user, anonymous included, may GET. */
export const PUBLIC_PATHS = new Set(['/version', '/healthz', '/livez', '/readyz']);

/** Whether a user may reach a non-resource path: any authenticated user, or anyone for the public ones. */
export function authorizePath(user: AuthUser, path: string): boolean {
  if (user.groups.includes('system:authenticated')) return true;
  return PUBLIC_PATHS.has(path);
}

export function authFor(ctx: SimContext) {
  const { users, options } = ctx;

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
    if (a.verb === 'create' && a.resource === 'pods' && !a.subresource && ctx.faults.denyPodCreate?.includes(user.name)) return false;
    if (user.groups.includes('system:masters')) return true;
    return (users.get(user.name)?.rules ?? []).some((rule) => ruleAllows(rule, a));
  };

  const forcedStatus = (method: string, pathAndQuery: string, pathname: string): ForcedStatus | undefined => {
    for (const f of ctx.faults.forceStatus ?? []) {
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

  return { authenticate, authorize, forcedStatus, selfSubjectAccessReview };
}
