// `Status` bodies as the real API server writes them (its errors and the RBAC refusals; status.ts beside objects.ts).
//
// Wire details copied from the API server:
// - `Status` errors: {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":…,
//   "reason":…,"details":{…},"code":…}; `details` holds `name` (when known), `group` (when not core) and
//   `kind` = the plural resource (apierrors.NewForbidden / NewNotFound / NewAlreadyExists).
// - The RBAC message (responsewriters.forbiddenMessage): `User "u" cannot <verb> resource "<res[/sub]>" in API
//   group "<g>" in the namespace "<ns>"` (or `at the cluster scope`), prefixed by `<resource[.group]> is forbidden: `
//   or `<resource[.group]> "<name>" is forbidden: ` when the request names an object. A create request names
//   none (the name is in the body), so `kubectl run` as a user who may not create pods reads
//   `pods is forbidden: User "u" cannot create resource "pods" in API group "" in the namespace "ns"`.
import type { Json } from './objects.ts';

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: { reason?: string; message?: string; field?: string }[];
  retryAfterSeconds?: number;
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Json;
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  details?: StatusDetails;
  code: number;
}

export function statusBody(code: number, reason: string, message: string, details?: StatusDetails): StatusBody {
  const body: StatusBody = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details !== undefined) body.details = details;
  return body;
}

/** `pods` or `daemonsets.apps`: GroupResource.String(). */
export function qualifiedResource(resource: string, group: string): string {
  return group === '' ? resource : `${resource}.${group}`;
}

function details(resource: string, group: string, name?: string): StatusDetails {
  const d: StatusDetails = {};
  if (name) d.name = name;
  if (group) d.group = group;
  d.kind = resource;
  return d;
}

export interface AuthzAttributes {
  readonly user: string;
  readonly verb: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly group: string;
  readonly namespace?: string;
  readonly name?: string;
}

export function forbiddenMessage(a: AuthzAttributes): string {
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  return `User "${a.user}" cannot ${a.verb} resource "${resource}" in API group "${a.group}" ${scope}`;
}

export function forbidden(a: AuthzAttributes, suffix = ''): StatusBody {
  const qr = qualifiedResource(a.resource, a.group);
  const prefix = a.name ? `${qr} "${a.name}" is forbidden` : `${qr} is forbidden`;
  return statusBody(403, 'Forbidden', `${prefix}: ${forbiddenMessage(a)}${suffix}`, details(a.resource, a.group, a.name));
}

export function forbiddenPath(user: string, verb: string, path: string): StatusBody {
  return statusBody(403, 'Forbidden', `forbidden: User "${user}" cannot ${verb} path "${path}"`, {});
}

export function unauthorized(): StatusBody {
  return statusBody(401, 'Unauthorized', 'Unauthorized');
}

export function notFound(resource: string, group: string, name: string): StatusBody {
  return statusBody(404, 'NotFound', `${qualifiedResource(resource, group)} "${name}" not found`, details(resource, group, name));
}

export function pathNotFound(): StatusBody {
  return statusBody(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function alreadyExists(resource: string, group: string, name: string): StatusBody {
  return statusBody(409, 'AlreadyExists', `${qualifiedResource(resource, group)} "${name}" already exists`, details(resource, group, name));
}

export function badRequest(message: string): StatusBody {
  return statusBody(400, 'BadRequest', message);
}

export function methodNotAllowed(): StatusBody {
  return statusBody(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export function internalError(message: string): StatusBody {
  return statusBody(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}

/** The 410 a watch receives (as an ERROR event) when its resourceVersion was compacted away. */
export function expired(requested: number, oldestMinusOne: number): StatusBody {
  return statusBody(410, 'Expired', `too old resource version: ${requested} (${oldestMinusOne})`);
}

export function continueExpired(): StatusBody {
  return statusBody(
    410,
    'Expired',
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
  );
}

export interface InvalidCause {
  readonly field: string;
  readonly reason: 'FieldValueRequired' | 'FieldValueInvalid' | 'FieldValueNotSupported' | 'FieldValueDuplicate' | 'FieldValueForbidden';
  readonly message: string;
}

/** 422 Invalid, as validation reports: `Pod "x" is invalid: spec.containers: Required value`. */
export function invalid(kind: string, name: string, causes: readonly InvalidCause[]): StatusBody {
  const list = causes.map((c) => `${c.field}: ${c.message}`);
  const text = list.length === 1 ? (list[0] as string) : `[${list.join(', ')}]`;
  return statusBody(422, 'Invalid', `${kind} "${name}" is invalid: ${text}`, {
    name,
    kind,
    causes: causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field })),
  });
}
