// Routing as the API server's RequestInfo does it: a resource path to its resource, namespace, name and subresource,
// the verb, and the authorizer's attributes; and the discovery documents.
import type { Json, ResourceInfo } from './objects.ts';
import type { AuthzAttributes } from './status.ts';
import { RESOURCES } from './objects.ts';
import { bool } from './http.ts';
import type { AuthUser } from './types.ts';

export interface ResourceRoute {
  readonly info: ResourceInfo;
  readonly namespace?: string;
  readonly name?: string;
  readonly subresource?: string;
}

/** `installed`: the API groups of the custom resources served (their CRDs are installed); others are 404 as in a cluster without them. */
export const parseResourcePath = (pathname: string, installed: ReadonlySet<string> = new Set()): ResourceRoute | 'notfound' | undefined => {
  const m =
    /^\/(?:api\/v1|apis\/(apps|batch|node\.k8s\.io|ray\.io|leaderworkerset\.x-k8s\.io|jobset\.x-k8s\.io)\/(v1|v1alpha2))\/(.+)$/.exec(
      pathname,
    );
  if (!m) return undefined;
  const group = m[1] ?? '';
  const version = m[2] ?? 'v1';
  const segs = (m[3] as string).split('/').map((s) => decodeURIComponent(s));
  if (segs.some((s) => s === '')) return 'notfound';
  let namespace: string | undefined;
  let rest = segs;
  if (segs[0] === 'namespaces' && segs.length >= 3) {
    namespace = segs[1];
    rest = segs.slice(2);
  }
  if (rest.length > 3) return 'notfound';
  const info = RESOURCES[rest[0] as string];
  if (!info || info.group !== group || info.version !== version || (info.crd && !installed.has(group))) return 'notfound';
  if (namespace !== undefined && !info.namespaced) return 'notfound';
  return {
    info,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(rest[1] !== undefined ? { name: rest[1] } : {}),
    ...(rest[2] !== undefined ? { subresource: rest[2] } : {}),
  };
};

export const verbOf = (method: string, route: ResourceRoute, query: URLSearchParams): string => {
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
export const attrsOf = (user: AuthUser | undefined, route: ResourceRoute, verb: string): AuthzAttributes => {
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

/** Discovery documents and /version, as the API server serves them; undefined for any other path. */
export const discovery = (pathname: string, gitVersion: string, port: number, installed: ReadonlySet<string> = new Set()): unknown => {
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
  // A custom resource group's one served version (v1, or v1alpha2 for JobSet).
  const versionOf = (name: string) => Object.values(RESOURCES).find((r) => r.group === name)?.version ?? 'v1';
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
      return {
        kind: 'APIGroupList',
        apiVersion: 'v1',
        groups: [
          group('apps', 'v1'),
          group('batch', 'v1'),
          group('authorization.k8s.io', 'v1'),
          group('node.k8s.io', 'v1'),
          ...[...installed].map((name) => group(name, versionOf(name))),
        ],
      };
    case '/apis/apps':
    case '/apis/batch':
    case '/apis/node.k8s.io':
      return { kind: 'APIGroup', apiVersion: 'v1', ...group(pathname.slice('/apis/'.length), 'v1') };
    case '/apis/apps/v1':
    case '/apis/batch/v1':
    case '/apis/node.k8s.io/v1': {
      const name = pathname.slice('/apis/'.length, -'/v1'.length);
      return resourceList(
        `${name}/v1`,
        Object.values(RESOURCES).filter((r) => r.group === name),
      );
    }
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
    default: {
      // An installed CRD's group and version, as the API server's aggregated discovery of CRDs serves them.
      const crd = /^\/apis\/([a-z0-9.-]+)(?:\/(v1|v1alpha2))?$/.exec(pathname);
      const name = crd?.[1];
      if (!name || !installed.has(name)) return undefined;
      if (!crd[2]) return { kind: 'APIGroup', apiVersion: 'v1', ...group(name, versionOf(name)) };
      if (crd[2] !== versionOf(name)) return undefined;
      return resourceList(
        `${name}/${versionOf(name)}`,
        Object.values(RESOURCES).filter((r) => r.group === name),
      );
    }
  }
};
